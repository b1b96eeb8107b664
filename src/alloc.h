/*
 * alloc.h - which allocator serves malloc, found in the process, and
 * --allocator: chtbench re-executes itself with the allocator's library in
 * LD_PRELOAD, then checks that it really serves malloc (docs/cli.md
 * "Allocators").
 */
#ifndef CHT_ALLOC_H
#define CHT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* The names --allocator takes (NULL-terminated): system, jemalloc, mimalloc, tcmalloc. */
extern const char *const alloc_names[];

/* The name in alloc_names equal to s, or NULL. */
const char *alloc_lookup(const char *s);

/* What serves malloc in this process, found once (thread-safe) from the
 * process itself, never from the flag: "system" (the C library's malloc, or
 * in a sanitizer build the sanitizer runtime's), "jemalloc", "mimalloc",
 * "tcmalloc", else the file name of the object that defines malloc. */
const char *alloc_detected(void);

/* glibc's own malloc serves malloc (the object that defines malloc is the C library's, not a
 * sanitizer runtime's or a preloaded allocator's): mallinfo2() describes it. */
bool alloc_glibc_malloc(void);

/* jemalloc's mallctl when jemalloc serves malloc, else NULL. */
typedef int (*alloc_mallctl_fn)(const char *, void *, size_t *, void *, size_t);
alloc_mallctl_fn alloc_mallctl(void);

/* --allocator NAME (requested; NULL: not given). Re-executes the process with
 * NAME's library in LD_PRELOAD once, when NAME does not serve malloc yet; in
 * the re-executed process checks it and takes LD_PRELOAD back to what it was
 * (so nothing chtbench starts inherits it). Returns 0 when NAME serves malloc,
 * or with check_only when the re-execution could be done; EXIT_USAGE (2) with
 * one line on stderr when it cannot (not installed, sanitizer build, another
 * allocator linked in, or the preloaded library does not serve malloc);
 * EXIT_FAILED (1) when execv itself fails. */
int alloc_apply(const char *requested, char **argv, bool check_only);

#endif
