/* registry.h - every table and lock chtbench knows, by name. */
#ifndef CHT_REGISTRY_H
#define CHT_REGISTRY_H

#include "cht.h"
#include "lock.h"
#include <stddef.h>

/* The built-in ones only, NULL-terminated; code that lists or counts what a
 * run can use walks registry_table_at / registry_lock_at, which also see the
 * tables and locks of loaded plugins (src/plugin.c). */
extern const struct cht_ops *const cht_tables[];
extern const struct lock_ops *const cht_locks[];

/* Where a plugin entry came from (docs/plugins.md); NULL for a built-in. */
struct registry_plugin {
    const char *name;     /* cht_plugin.name */
    const char *path;     /* as given to --plugin / CHTBENCH_PLUGINS */
    const char *sha256;   /* of the file, 64 hex digits */
};

/* The i-th table (lock): built-ins first, then plugin entries in load order;
 * NULL past the end. */
const struct cht_ops *registry_table_at(unsigned i);
const struct lock_ops *registry_lock_at(unsigned i);
const struct registry_plugin *registry_table_plugin(const struct cht_ops *t);
const struct registry_plugin *registry_lock_plugin(const struct lock_ops *l);
/* Adds a plugin's table (lock) after the built-ins; the plugin loader has
 * checked it. -1 with err set when the name exists already or the registry is full. */
int registry_add_table(const struct cht_ops *t, const struct registry_plugin *p, char *err, size_t len);
int registry_add_lock(const struct lock_ops *l, const struct registry_plugin *p, char *err, size_t len);

const struct cht_ops *registry_table(const char *name);
const struct lock_ops *registry_lock(const char *name);
/* "a, b, c" of all table (lock) names, for error messages */
void registry_table_names(char *buf, size_t len);
void registry_lock_names(char *buf, size_t len);
/* Levenshtein distance between a and b (insertions, deletions, substitutions). */
unsigned edit_distance(const char *a, const char *b);

/* " (did you mean 'x'?)" or " (did you mean 'x' or 'y'?)": the names (n of
 * them, or NULL-terminated when n is 0) nearest to word, at edit distance
 * <= 2 and less than word's length; "" when none is that near. Returns buf. */
const char *did_you_mean(const char *word, const char *const *names, size_t n, char *buf, size_t len);

/* " (did you mean 'x'?)" for a misspelt table (lock) name, or "" */
const char *registry_suggest_table(const char *word, char *buf, size_t len);
const char *registry_suggest_lock(const char *word, char *buf, size_t len);
/* true if usable here (the table's available() and its default_lock's); otherwise
 * why says why (RTM missing, ...) */
bool registry_table_available(const struct cht_ops *t, char *why, size_t len);
bool registry_lock_available(const struct lock_ops *l, char *why, size_t len);

/* A table chosen on the command line: "NAME" or "NAME:key=val,key=val". */
#define TABLE_MAX_OPTIONS 16
struct table_choice {
    const struct cht_ops *ops;
    const struct lock_ops *lock;             /* from option lock=NAME, else NULL */
    struct cht_option options[TABLE_MAX_OPTIONS + 1];  /* NULL-terminated */
    char text[2048];                         /* owns the strings above */
    char options_text[2048];                 /* "key=val,key=val" as given ("" if none) */
};

/* Parses and validates one table spec: unknown table, unknown option (the
 * message lists the valid ones), malformed key=val, unknown or unavailable lock.
 * Returns 0, or -1 with a one-line message starting "--table: ". */
int registry_parse_table(const char *spec, struct table_choice *out, char *err, size_t len);
/* Can this choice run here? The table's available() and the lock it runs
 * under: lock=NAME, else its default_lock (a table that needs RTM only for its
 * default lock runs under any other available lock=NAME). */
bool registry_choice_available(const struct table_choice *c, char *why, size_t len);
/* The lock a choice runs under: lock=NAME, else the table's default_lock; NULL: none. */
const struct lock_ops *registry_choice_lock(const struct table_choice *c);
/* Fills a cht_config's lock (lock=NAME, else the table's default_lock) and options from a choice. */
void registry_apply_choice(const struct table_choice *c, struct cht_config *cfg);

#endif
