/*
 * locked_impl.h - the C interface of tables/locked_impl.cpp: serial library
 * maps (std::unordered_map, absl::flat_hash_map, boost::unordered_flat_map)
 * that tables/locked.c runs under its lock for `locked:impl=std|absl|boost`.
 * None of these functions is thread-safe: locked.c serialises them.
 */
#ifndef LOCKED_IMPL_H
#define LOCKED_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include "cht.h"

#ifdef __cplusplus
extern "C" {
#endif

enum locked_impl_kind { LOCKED_IMPL_OWN = 0, LOCKED_IMPL_STD, LOCKED_IMPL_ABSL, LOCKED_IMPL_BOOST };

struct locked_impl_ops {
    const char *name;
    /* a map with room for `reserve` keys hashed by cht_hash(hash, k); NULL, err set, on failure */
    void *(*create)(size_t reserve, int hash, char *err, size_t len);
    void (*destroy)(void *m);
    bool (*get)(void *m, cht_key_t k, cht_val_t *v);
    int (*insert)(void *m, cht_key_t k, cht_val_t v);   /* 1 inserted, 0 present, -1 out of memory */
    bool (*remove)(void *m, cht_key_t k);
    bool (*update)(void *m, cht_key_t k, cht_val_t v);
    size_t (*size)(void *m);
    size_t (*buckets)(void *m);
    size_t (*bytes)(void *m);                          /* estimate */
};

/* The same maps with byte-string keys (std::string, each library's own string hash), for
 * --key-type runs (cht_config.key_kind == CHT_KEYS_BYTES). */
struct locked_bytes_ops {
    void *(*create)(size_t reserve, char *err, size_t len);
    void (*destroy)(void *m);
    bool (*get)(void *m, const void *k, size_t n, cht_val_t *v);
    int (*insert)(void *m, const void *k, size_t n, cht_val_t v);   /* 1 inserted, 0 present, -1 out of memory */
    bool (*remove)(void *m, const void *k, size_t n);
    bool (*update)(void *m, const void *k, size_t n, cht_val_t v);
    size_t (*size)(void *m);
    size_t (*buckets)(void *m);
    size_t (*bytes)(void *m);                                        /* estimate, key strings included */
};

/* The ops of `kind` (not LOCKED_IMPL_OWN), or NULL with the reason it was not built. */
const struct locked_impl_ops *locked_impl_find(enum locked_impl_kind kind, char *why, size_t len);
const struct locked_bytes_ops *locked_bytes_find(enum locked_impl_kind kind, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
