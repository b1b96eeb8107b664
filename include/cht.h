/*
 * cht.h - the one interface every hash table in chtbench implements.
 *
 * The driver (src/) knows tables only through `struct cht_ops`; tables know
 * nothing of the driver. Contract: docs/design.md "The table interface".
 *
 * Thread model: the driver calls thread_init(t, tid) on every worker thread
 * before that thread's first operation and thread_exit(t, tid) after its last.
 * get/insert/remove/update/size carry no thread id: a table that needs
 * per-thread state (RCU registration, reclamation epochs, lock contexts) keeps
 * it in thread-local storage set up in thread_init.
 */
#ifndef CHT_H
#define CHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t cht_key_t;
typedef uint64_t cht_val_t;

/* Keys the driver generates lie in [CHT_KEY_MIN, CHT_KEY_MAX]; 0 and
 * UINT64_MAX are reserved for tables (empty / tombstone markers). */
#define CHT_KEY_MIN 1ull
#define CHT_KEY_MAX (1ull << 62)

#define CHT_CACHE_LINE 64

/* The binary interface plugins are built against (include/cht_plugin.h):
 * bumped on every incompatible change of a struct this header or lock.h
 * shares with plugins (cht_ops, cht_config, cht_stats, cht_pipe_op,
 * cht_option, cht_option_spec, lock_ops, lock_config, lock_stats), members
 * appended or grown included (a plugin built against fewer members would be
 * read past its end). tests/test_abi_layout.c pins every member's offset per
 * version, so a change without a bump fails the build's tests. */
#define CHT_ABI_VERSION 6u   /* 2: prefetch appended to struct cht_ops (--pipeline);
                                 * 3: prefetch replaced by pipe_start and pipe_step;
                                 * 4: struct cht_plugin carries the shared structs' sizes
                                 *    (struct cht_abi_sizes), checked one by one at load;
                                 *    cht_pipe_op's result is poisoned at draw;
                                 * 5: struct cht_stats carries the table-counter channel
                                 *    (counter, counter_ctx: cht_stats_counter);
                                 * 6: byte-string keys: cht_ops gets get_bytes, insert_bytes,
                                 *    remove_bytes, update_bytes (CHT_CAP_BYTE_KEYS), cht_config
                                 *    key_kind, key_len_min, key_len_max */

enum cht_caps {
    CHT_CAP_RESIZE      = 1u << 0, /* grows by itself when full */
    CHT_CAP_UPDATE      = 1u << 1, /* update() implemented */
    CHT_CAP_LOCK_PARAM  = 1u << 2, /* takes a lock from locks/ (option lock=NAME) */
    CHT_CAP_NEEDS_RTM   = 1u << 3, /* needs Intel RTM at run time */
    CHT_CAP_APPROXIMATE = 1u << 4, /* may answer get() wrongly (filters) */
    CHT_CAP_FIXED_CAP   = 1u << 5, /* fixed capacity: insert may fail when full */
    CHT_CAP_NO_DATA     = 1u << 6, /* stores nothing (the noop table) */
    CHT_CAP_VALUE_OOL   = 1u << 7, /* stores values of any size (cht_config.value_size > 8) out of line */
    CHT_CAP_BYTE_KEYS   = 1u << 8, /* byte-string keys: get_bytes, insert_bytes, remove_bytes implemented */
};

/* cht_config.key_kind: what the run's keys are (--key-type). */
enum cht_key_kind {
    CHT_KEYS_U64   = 0,   /* cht_key_t keys through get/insert/remove/update (always) */
    CHT_KEYS_BYTES = 1,   /* byte strings through the *_bytes ops only (CHT_CAP_BYTE_KEYS tables) */
};

/* One "key=val" of "--table NAME:key=val,key=val"; arrays end with key == NULL. */
struct cht_option {
    const char *key;
    const char *val;
};

/* What a table accepts; arrays end with key == NULL. The driver rejects any
 * option key not listed here before create() is called. */
struct cht_option_spec {
    const char *key;
    const char *help;   /* e.g. "2..6 hash functions (default 2)" */
};

struct lock_ops;
struct lock_config;

struct cht_config {
    size_t   initial;        /* keys that will be prefilled (i) */
    double   density;        /* i / slot capacity; default 0.5 as in the thesis */
    uint64_t range;          /* keys come from [1, range] */
    unsigned max_threads;    /* thread ids are 0 .. max_threads-1 */
    unsigned numa_nodes;     /* NUMA nodes the threads run on (>= 1) */
    const unsigned *thread_node; /* NUMA node of each tid (from the pin plan); may be NULL */
    const struct lock_ops *lock; /* NULL: the table's own default */
    /* The run's lock settings (--handoff, --waiters); NULL: the locks' defaults.
     * A table passes them to every lock it takes (cht_locks_init in
     * tables/table_locks.h); numa_nodes and max_threads come from this config. */
    const struct lock_config *lock_config;
    const struct cht_option *options; /* validated against cht_ops.options */
    size_t   value_size;     /* --value-size bytes; 0 or 8: the 8-byte value inline, as always.
                              * > 8 only for CHT_CAP_VALUE_OOL tables: see cht_value_fill below */
    bool     hugepages;      /* --hugepages thp: ask for transparent huge pages on the table's large
                              * arrays (pass it to cht_alloc_large, tables/table_support.h); false
                              * (off): the driver has disabled THP for the whole process */
    /* ABI 6. CHT_KEYS_BYTES: every operation of the run comes through the *_bytes ops with keys of
     * key_len_min..key_len_max bytes (a table may size its key storage from them: initial keys of
     * at most key_len_max bytes each); the integer ops are not called. CHT_KEYS_U64: both lengths 0. */
    uint32_t key_kind;       /* enum cht_key_kind */
    uint32_t key_len_min, key_len_max;
};

struct cht_stats {
    size_t   bytes;          /* structure + items, as allocated */
    size_t   buckets;        /* buckets or slots of the current table */
    uint64_t resizes;        /* completed resizes */
    uint64_t full_failures;  /* inserts refused because the table was full (fixed capacity) */
    uint64_t alloc_failures; /* inserts refused because memory could not be allocated */
    uint64_t tx_begins, tx_commits, tx_aborts, tx_fallbacks; /* RTM tables */
    /* Fingerprint filters (CHT_CAP_APPROXIMATE): fingerprint bits f and slots
     * per bucket b, from which the driver bounds the false-positive rate
     * (two candidate buckets: 1 - (1 - 1/(2^f - 1))^(2b), about 2b/2^f). 0: not stated. */
    unsigned fp_bits, fp_bucket_slots;
    /* The table's own named counters (as Google Benchmark's user counters): stats() reports
     * each by cht_stats_counter(s, "name", value); a counter added later needs no new ABI.
     * Set by the driver when it collects them (after each repetition, never during the timed
     * run); NULL otherwise, and then cht_stats_counter does nothing. */
    void (*counter)(void *ctx, const char *name, double value);
    void *counter_ctx;
};

/* A table counter's name: 1..CHT_COUNTER_NAME_MAX - 1 of [a-z0-9_], starting with a letter
 * (a JSON key and a CSV cell as it is), each once; its value finite; at most CHT_COUNTERS_MAX
 * of them a table. The driver refuses a table that breaks any of these (the run fails naming
 * the counter). */
#define CHT_COUNTER_NAME_MAX 48
#define CHT_COUNTERS_MAX 32
static inline void cht_stats_counter(struct cht_stats *s, const char *name, double value)
{
    if (s->counter)
        s->counter(s->counter_ctx, name, value);
}

/* One operation in flight under --pipeline (cht_ops.pipe_start/pipe_step). */
enum cht_pipe_kind { CHT_PIPE_GET = 0, CHT_PIPE_INSERT = 1, CHT_PIPE_REMOVE = 2, CHT_PIPE_UPDATE = 3 };
#define CHT_PIPE_AGAIN (-1)   /* result: not done; its next line is on its way (first step only) */
/* What the driver stores in result when it draws an op (and again before a second step): an
 * answer a step leaves untouched, or anything but 1/0 (or CHT_PIPE_AGAIN from a first step), fails
 * the run naming the table and the op's kind, never counts as a success. */
#define CHT_PIPE_POISON INT32_MIN
struct cht_pipe_op {
    cht_key_t key;
    cht_val_t val;          /* in: the value insert/update writes; out: the value a get found (the
                               table's scratch between a get's steps) */
    uint32_t  kind;         /* enum cht_pipe_kind: the driver's */
    uint32_t  stage;        /* 0 until a step answers CHT_PIPE_AGAIN, which sets it to 1 */
    int32_t   result;       /* pipe_step's answer: 1/0 (what get/insert/remove/update returns) or CHT_PIPE_AGAIN */
    uint32_t  pad;
    uint64_t  state[2];     /* the table's, from pipe_start to the op's last step (hashes, not pointers) */
};

struct cht_ops {
    const char *name;
    const char *summary;     /* one line */
    unsigned caps;           /* enum cht_caps */
    const struct cht_option_spec *options; /* may be NULL: no options */
    bool  (*available)(char *why, size_t len);  /* NULL: always available */
    /* create() validates option values (err: "--table NAME: ..."); chtbench calls it
     * once with a tiny config and destroy() right after, before any run. */
    void *(*create)(const struct cht_config *cfg, char *err, size_t len);
    void  (*destroy)(void *t);
    void  (*thread_init)(void *t, unsigned tid);   /* may be NULL */
    void  (*thread_exit)(void *t, unsigned tid);   /* may be NULL */
    bool  (*get)(void *t, cht_key_t k, cht_val_t *v);
    bool  (*insert)(void *t, cht_key_t k, cht_val_t v); /* only if absent */
    bool  (*remove)(void *t, cht_key_t k);
    bool  (*update)(void *t, cht_key_t k, cht_val_t v); /* only if present; NULL if unsupported */
    size_t (*size)(void *t);                            /* exact when quiescent */
    void  (*stats)(void *t, struct cht_stats *s);       /* may be NULL; may run beside operations */
    /* Optional (NULL: the driver issues n single gets): looks up n keys at
     * once, found[i] and vals[i] as get() would give them. Meant for
     * software prefetching of every key's bucket before resolving any (DRAMHiT,
     * EuroSys'23; indexlib's prefetching). --batch B, docs/cli.md. */
    void  (*get_batch)(void *t, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found);
    /* Optional (NULL: not reported): the number of distinct 64-byte lines of
     * the table's key/value storage (slots, buckets, chain heads and nodes;
     * not lock or seqlock words, counters or headers) that get(t, k) reads,
     * found by replaying get's path without timing it. Called only while no
     * other thread writes the table. Lines that get() prefetches but does
     * not read are not counted. The occupancy bench (--bench occupancy)
     * averages it over sampled hit and miss keys: lines_hit, lines_miss. */
    unsigned (*probe_lines)(void *t, cht_key_t k);
    /* CHT_CAP_LOCK_PARAM tables: the name (as in --list=locks) of the lock the
     * table takes when no lock=NAME (--lock) is chosen. The registry resolves
     * it into cht_config.lock, so a table sees locks only through lock_ops and
     * never takes one by symbol; where that lock cannot run (an RTM lock
     * without RTM) the table is unavailable unless another lock is chosen.
     * NULL: without lock=NAME, cfg->lock is NULL and the table uses its own
     * built-in locking (clht-lb's bucket locks, cuckoo's seqlock stripes). */
    const char *default_lock;
    /* Optional, both or neither (NULL: --pipeline runs single operations,
     * pipeline_mode "fallback"): pipelined operations, after DRAMHiT
     * (Narayanan et al., "DRAMHiT: A Hash Table Architected for the Speed of
     * DRAM", EuroSys 2023, §3-4; docs/cli.md "Pipelined operations"). The
     * driver draws ops in chunks (struct cht_pipe_op; W cut into chunks of
     * about 16) and hands each chunk to pipe_start when drawn and to
     * pipe_step once the chunks drawn after it make W ops, so W ops are on
     * their way while one chunk resolves. Both take the ops in order, one
     * call per chunk (the table's loop, not the driver's, walks them: no
     * indirect call per op); n is at most 31.
     *  - pipe_start computes what each op needs (hash, candidate buckets) into
     *    op->state and issues software prefetches for the lines its first
     *    step reads (for ownership when op->kind writes), without waiting for
     *    them. It must have no effect visible to any operation: no stores to
     *    shared memory, no locks. It may read table headers only where they
     *    cannot be freed under it (inside the table's own read-side section,
     *    or memory that lives until destroy), and must not keep pointers into
     *    memory a resize may free: a step recomputes addresses from the
     *    current table (op->state holds hashes, not bucket pointers).
     *  - pipe_step sets each op's result: 1/0, what get/insert/remove/update
     *    would return (a get stores the value found in op->val), or, only
     *    while op->stage is 0, CHT_PIPE_AGAIN with op->stage set to 1 and
     *    the next line the op needs prefetched (a cuckoo key not in its first
     *    bucket, a probe run that goes on). The driver steps such an op once
     *    more, W ops later at most, and that step must complete it. A step that
     *    completes an op linearizes it inside that call, exactly as the plain
     *    operation would (reading one candidate bucket under its seqlock and
     *    finding k there is a get's linearization point; an absent answer
     *    must hold at one instant for every place k could be: cuckoo's
     *    first step answers absent only where the bucket's away bit, read
     *    under the same seqlock read, says no key of that bucket was ever
     *    placed elsewhere; its second step reads the second bucket under its
     *    seqlock and re-checks that the first bucket's version is still the
     *    one its first step saw).
     *  - The driver, not the table, keeps one thread's operations on one key
     *    in program order: no call to pipe_step holds a key twice,
     *    nor a key an earlier unfinished op has. Except in a run whose ops
     *    are all gets (-u 0, YCSB C): nothing writes there, so no get can
     *    tell in which order two gets of one key ran, and a call may hold a
     *    key several times (as `chtbench check`'s stable check's batches do). */
    void  (*pipe_start)(void *t, struct cht_pipe_op *ops, unsigned n);
    void  (*pipe_step)(void *t, struct cht_pipe_op *ops, unsigned n);
    /* ABI 6: byte-string keys (CHT_CAP_BYTE_KEYS; NULL without it). The same contract as
     * get/insert/remove/update with the key the len bytes at key (any bytes, NUL included; len
     * >= 1). The key's memory is the caller's and may change or go away as soon as the call
     * returns: insert_bytes copies it into the table. Called only in a run with
     * cht_config.key_kind == CHT_KEYS_BYTES. update_bytes: NULL if unsupported. */
    bool  (*get_bytes)(void *t, const void *key, size_t len, cht_val_t *v);
    bool  (*insert_bytes)(void *t, const void *key, size_t len, cht_val_t v); /* only if absent */
    bool  (*remove_bytes)(void *t, const void *key, size_t len);
    bool  (*update_bytes)(void *t, const void *key, size_t len, cht_val_t v); /* only if present */
};

/* The most operations --pipeline keeps in flight per thread. */
#define CHT_PIPELINE_MAX 64

/* The most keys one get_batch call is given (--batch). */
#define CHT_BATCH_MAX 64

/* ---- values larger than 8 bytes (--value-size, CHT_CAP_VALUE_OOL) ----
 * The driver still passes and receives one 8-byte cht_val_t v; a table with
 * cfg->value_size > 8 stores it as CHT_VALUE_WORDS(size) 8-byte words (the
 * size rounded up to whole words) filled by cht_value_fill, and on get reads
 * every word back through cht_value_read. Word i is v ^ i * CHT_VALUE_SALT (word
 * 0 is v itself), so cht_value_read can tell a block written by one put from a
 * torn one (words of two values, e.g. an in-place multiword overwrite seen
 * half done): it returns v, or CHT_VAL_TORN. A block must therefore never
 * change while a reader may see it (replace it: RCU). */
#define CHT_VALUE_MAX   (1u << 20)                  /* most bytes --value-size accepts */
#define CHT_VALUE_SALT  0x9e3779b97f4a7c15ull
#define CHT_VAL_TORN    0xbad0bad0bad0bad0ull       /* what a torn read returns */
#define CHT_VALUE_WORDS(size) (((size) + 7) / 8)

/* 8-byte words of a value of cfg->value_size bytes (1: the plain inline value) */
static inline size_t cht_value_words(const struct cht_config *cfg)
{
    return cfg->value_size > 8 ? CHT_VALUE_WORDS(cfg->value_size) : 1;
}

static inline void cht_value_fill(uint64_t *w, size_t words, cht_val_t v)
{
    for (size_t i = 0; i < words; i++)
        w[i] = v ^ (uint64_t)i * CHT_VALUE_SALT;
}

/* reads all `words` words (the cost a reader copying the value out pays) */
static inline cht_val_t cht_value_read(const uint64_t *w, size_t words)
{
    uint64_t v = w[0], bad = 0;
    for (size_t i = 1; i < words; i++)
        bad |= w[i] ^ v ^ (uint64_t)i * CHT_VALUE_SALT;
    return bad ? CHT_VAL_TORN : v;
}

/* ---- option helpers for tables (header-only so tables need no driver code) ---- */

static inline const char *cht_option_get(const struct cht_option *o, const char *key)
{
    const char *found = NULL;
    for (; o && o->key; o++)
        if (strcmp(o->key, key) == 0)
            found = o->val;          /* the last one given wins */
    return found;
}

/* Parses option `key` as an unsigned integer in [lo, hi]; *out keeps its
 * default when the option is absent. Returns false (with err set) on a bad value. */
static inline bool cht_option_uint(const struct cht_option *o, const char *table,
                                   const char *key, uint64_t lo, uint64_t hi,
                                   uint64_t *out, char *err, size_t len)
{
    const char *s = cht_option_get(o, key);
    if (!s)
        return true;
    char *end = NULL;
    errno = 0;
    /* digits only, like every number of the command line: strtoull alone takes a sign and blanks */
    unsigned long long v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
    if (!end || errno || *end || v < lo || v > hi) {
        snprintf(err, len, "--table %s: option %s=%s: expected an integer in %llu..%llu",
                 table, key, s, (unsigned long long)lo, (unsigned long long)hi);
        return false;
    }
    *out = v;
    return true;
}

/* Parses option `key` as one of `names` (NULL-terminated); *out is the index. */
static inline bool cht_option_enum(const struct cht_option *o, const char *table,
                                   const char *key, const char *const *names,
                                   unsigned *out, char *err, size_t len)
{
    const char *s = cht_option_get(o, key);
    if (!s)
        return true;
    for (unsigned i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    int n = snprintf(err, len, "--table %s: option %s=%s: expected one of", table, key, s);
    for (unsigned i = 0; names[i] && n > 0 && (size_t)n < len; i++)
        n += snprintf(err + n, len - (size_t)n, "%s%s", i ? "|" : " ", names[i]);
    return false;
}

#ifdef __cplusplus
}
#endif
#endif /* CHT_H */
