/*
 * twins.c - a test plugin: "twin", a small correct chained hash table with
 * the pipelined hooks, and its broken twins, chosen by option fault=. Each
 * broken twin is wrong in one way that one check of chtbench must catch
 * (tests/test_pipe_poison.py); fault=none is the control that passes them all.
 *
 *   fault=none              correct; a first step answers CHT_PIPE_AGAIN for
 *                           one key in 8 (so parked ops and second steps run)
 *   fault=pipe-first-only   pipe_step handles only the first op of each call
 *                           and leaves the others' result as it was given, as
 *                           a table built against headers whose struct
 *                           cht_pipe_op was smaller is misread
 *   fault=pipe-again-twice  a second step answers CHT_PIPE_AGAIN again for
 *                           one parked key in 4
 *   fault=pipe-garbage      a step answers 2 for one key in 1000 (having done
 *                           the op)
 *   fault=lost-update       one update in 10^4 answers true and stores nothing
 *   fault=race-lost-update  the same, counted only over updates made while
 *                           another thread is inside an op (alone, it is correct)
 *   fault=stale-read        one get in 10^4 that finds its key while another
 *                           thread is inside an op returns the key's previous
 *                           value (each node keeps it)
 *   fault=false-absent      one get in 10^4 that finds its key while another
 *                           thread is inside an op answers "absent"
 *   fault=false-present     one get in 10^4 that misses a key, the last one
 *                           removed from its bucket, while another thread is
 *                           inside an op answers "present" with its old value
 *
 * Its stats() reports one counter of its own (cht_stats_counter): faultable_ops,
 * the ops its fault counted; option counter=NAME adds a counter NAME (value 1),
 * so a test can have it report a name the driver must refuse
 * (tests/test_table_counters.py).
 *
 * Buckets (a power of two, at least the prefill's key count) each hold a
 * spin lock and a singly linked chain; every op, get included, holds its
 * bucket's lock, so a removed node is freed at once. size() is one shared
 * counter, changed under the bucket locks (exact when quiescent). Built
 * against the SDK headers only (include/cht_plugin.h), as any plugin is.
 */
#include <sched.h>
#include <stdalign.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "cht_plugin.h"

enum twin_fault { FAULT_NONE, FAULT_PIPE_FIRST_ONLY, FAULT_PIPE_AGAIN_TWICE, FAULT_PIPE_GARBAGE, FAULT_LOST_UPDATE,
                  FAULT_RACE_LOST_UPDATE, FAULT_STALE_READ, FAULT_FALSE_ABSENT, FAULT_FALSE_PRESENT, FAULTS };
static const char *const fault_names[FAULTS] = { "none", "pipe-first-only", "pipe-again-twice", "pipe-garbage",
                                                 "lost-update", "race-lost-update", "stale-read", "false-absent",
                                                 "false-present" };

struct node {
    cht_key_t key;
    cht_val_t val;
    cht_val_t prev;      /* the value before the last update (fault=stale-read returns it) */
    struct node *next;
};

struct bucket {
    unsigned lock;
    struct node *head;
    cht_key_t gone_key;  /* the last key removed from it, and its value (fault=false-present) */
    cht_val_t gone_val;
};

struct twin {
    struct bucket *b;
    uint64_t mask;
    enum twin_fault fault;
    alignas(64) int64_t size;
    alignas(64) unsigned inside;     /* threads inside an op (the faults that need concurrency) */
    alignas(64) uint64_t faultable;  /* the ops a fault counts, 1 in 10^4 of them goes wrong */
    char extra_counter[80];          /* counter=NAME: one more counter stats() reports ("": none) */
};

static const struct cht_option_spec twin_options[] = {
    { "fault", "none (default), pipe-first-only, pipe-again-twice, pipe-garbage, lost-update, race-lost-update, "
               "stale-read, false-absent, false-present: the bug to carry" },
    { "counter", "NAME: stats() reports a table counter NAME = 1 besides faultable_ops (any text: a test of the "
                 "driver's refusal)" },
    { NULL, NULL },
};

static uint64_t twin_hash(cht_key_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    return k ^ (k >> 33);
}

static void *twin_create(const struct cht_config *cfg, char *err, size_t len)
{
    enum twin_fault fault = FAULT_NONE;
    const char *extra_counter = "";
    for (const struct cht_option *o = cfg->options; o && o->key; o++) {
        if (strcmp(o->key, "counter") == 0) {
            extra_counter = o->val;
            continue;
        }
        unsigned i = 0;
        while (i < FAULTS && strcmp(o->val, fault_names[i]) != 0)
            i++;
        if (i == FAULTS) {
            snprintf(err, len, "--table twin: option fault=%s: expected none, pipe-first-only, pipe-again-twice, "
                     "pipe-garbage, lost-update, race-lost-update, stale-read, false-absent or false-present",
                     o->val);
            return NULL;
        }
        fault = (enum twin_fault)i;
    }
    uint64_t n = 64;
    while (n < cfg->initial && n < (1ull << 24))
        n <<= 1;
    struct twin *t = aligned_alloc(64, sizeof *t);
    if (t)
        t->b = calloc(n, sizeof *t->b);
    if (!t || !t->b) {
        free(t);
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->mask = n - 1;
    t->fault = fault;
    t->size = 0;
    t->inside = 0;
    t->faultable = 0;
    snprintf(t->extra_counter, sizeof t->extra_counter, "%s", extra_counter);
    return t;
}

static void twin_destroy(void *tp)
{
    struct twin *t = tp;
    for (uint64_t i = 0; i <= t->mask; i++)
        for (struct node *x = t->b[i].head, *next; x; x = next) {
            next = x->next;
            free(x);
        }
    free(t->b);
    free(t);
}

static struct bucket *twin_lock(struct twin *t, uint64_t h)
{
    struct bucket *b = &t->b[h & t->mask];
    for (unsigned spins = 0; __atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE);)
        while (__atomic_load_n(&b->lock, __ATOMIC_RELAXED))
            if (++spins % 128 == 0)
                sched_yield();   /* more threads than cores: let the holder run */
    return b;
}

static void twin_unlock(struct bucket *b)
{
    __atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

/* this op is the one in 10^4 its fault breaks (concurrent: only while another thread is inside an op) */
static bool twin_fault_now(struct twin *t, bool concurrent)
{
    if (concurrent && __atomic_load_n(&t->inside, __ATOMIC_RELAXED) < 2)
        return false;
    return __atomic_add_fetch(&t->faultable, 1, __ATOMIC_RELAXED) % 10000 == 0;
}

/* the op of kind CHT_PIPE_* on k, under k's bucket lock: what get/insert/remove/update return */
static bool twin_op(struct twin *t, uint64_t h, unsigned kind, cht_key_t k, cht_val_t *v)
{
    const bool counted = t->fault >= FAULT_LOST_UPDATE;
    if (counted)
        __atomic_fetch_add(&t->inside, 1, __ATOMIC_RELAXED);
    struct bucket *b = twin_lock(t, h);
    struct node **p = &b->head;
    while (*p && (*p)->key != k)
        p = &(*p)->next;
    struct node *x = *p, *gone = NULL;
    bool ok = x != NULL;
    switch (kind) {
    case CHT_PIPE_GET:
        if (x)
            *v = t->fault == FAULT_STALE_READ && twin_fault_now(t, true) ? x->prev : x->val;
        if (x && t->fault == FAULT_FALSE_ABSENT && twin_fault_now(t, true))
            ok = false;
        if (!x && t->fault == FAULT_FALSE_PRESENT && b->gone_key == k && twin_fault_now(t, true)) {
            *v = b->gone_val;
            ok = true;
        }
        break;
    case CHT_PIPE_INSERT:
        ok = !x;
        if (ok) {
            struct node *fresh = malloc(sizeof *fresh);   /* a test table: under the lock is fine */
            ok = fresh != NULL;
            if (ok) {
                *fresh = (struct node){ k, *v, *v, b->head };
                b->head = fresh;
                __atomic_fetch_add(&t->size, 1, __ATOMIC_RELAXED);
            }
        }
        break;
    case CHT_PIPE_REMOVE:
        if (x) {
            *p = x->next;
            gone = x;
            b->gone_key = k;
            b->gone_val = x->val;
            __atomic_fetch_sub(&t->size, 1, __ATOMIC_RELAXED);
        }
        break;
    default:   /* CHT_PIPE_UPDATE */
        if (x && !((t->fault == FAULT_LOST_UPDATE || t->fault == FAULT_RACE_LOST_UPDATE) &&
                   twin_fault_now(t, t->fault == FAULT_RACE_LOST_UPDATE))) {
            x->prev = x->val;
            x->val = *v;
        }
        break;
    }
    twin_unlock(b);
    if (counted)
        __atomic_fetch_sub(&t->inside, 1, __ATOMIC_RELAXED);
    free(gone);
    return ok;
}

static bool twin_get(void *t, cht_key_t k, cht_val_t *v)
{
    return twin_op(t, twin_hash(k), CHT_PIPE_GET, k, v);
}

static bool twin_insert(void *t, cht_key_t k, cht_val_t v)
{
    return twin_op(t, twin_hash(k), CHT_PIPE_INSERT, k, &v);
}

static bool twin_remove(void *t, cht_key_t k)
{
    cht_val_t v = 0;
    return twin_op(t, twin_hash(k), CHT_PIPE_REMOVE, k, &v);
}

static bool twin_update(void *t, cht_key_t k, cht_val_t v)
{
    return twin_op(t, twin_hash(k), CHT_PIPE_UPDATE, k, &v);
}

static size_t twin_size(void *tp)
{
    int64_t n = __atomic_load_n(&((struct twin *)tp)->size, __ATOMIC_RELAXED);
    return n > 0 ? (size_t)n : 0;
}

static void twin_pipe_start(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    struct twin *t = tp;
    for (unsigned i = 0; i < n; i++) {
        ops[i].state[0] = twin_hash(ops[i].key);
        __builtin_prefetch(&t->b[ops[i].state[0] & t->mask], 1);
    }
}

static void twin_pipe_step(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    struct twin *t = tp;
    if (t->fault == FAULT_PIPE_FIRST_ONLY && n > 1)
        n = 1;
    for (unsigned i = 0; i < n; i++) {
        struct cht_pipe_op *op = &ops[i];
        const uint64_t h = op->state[0];
        if (op->stage == 0 && (h >> 61) == 0) {        /* one key in 8 takes two steps */
            op->stage = 1;
            op->result = CHT_PIPE_AGAIN;
            continue;
        }
        if (t->fault == FAULT_PIPE_AGAIN_TWICE && op->stage == 1 && (h >> 59 & 3) == 0) {
            op->result = CHT_PIPE_AGAIN;               /* not allowed: a second step must complete it */
            continue;
        }
        op->result = twin_op(t, h, op->kind, op->key, &op->val);
        if (t->fault == FAULT_PIPE_GARBAGE && op->key % 1000 == 0)
            op->result = 2;
    }
}

static void twin_stats(void *tp, struct cht_stats *s)
{
    struct twin *t = tp;
    s->buckets = t->mask + 1;
    s->bytes = sizeof *t + s->buckets * sizeof *t->b + twin_size(tp) * sizeof(struct node);
    cht_stats_counter(s, "faultable_ops", (double)__atomic_load_n(&t->faultable, __ATOMIC_RELAXED));
    if (t->extra_counter[0])
        cht_stats_counter(s, t->extra_counter, 1);
}

static const struct cht_ops twin = {
    .name = "twin",
    .summary = "test plugin: chaining under bucket spin locks, pipelined hooks; fault= picks a bug (tests/twins.c)",
    .caps = CHT_CAP_UPDATE,
    .options = twin_options,
    .create = twin_create,
    .destroy = twin_destroy,
    .get = twin_get,
    .insert = twin_insert,
    .remove = twin_remove,
    .update = twin_update,
    .size = twin_size,
    .stats = twin_stats,
    .pipe_start = twin_pipe_start,
    .pipe_step = twin_pipe_step,
};

/* the correct twin without stats(): the driver's "no stats" paths (table_counters null) */
static const struct cht_ops twin_nostats = {
    .name = "twin-nostats",
    .summary = "test plugin: twin without stats() (tests/twins.c)",
    .caps = CHT_CAP_UPDATE,
    .options = twin_options,
    .create = twin_create,
    .destroy = twin_destroy,
    .get = twin_get,
    .insert = twin_insert,
    .remove = twin_remove,
    .update = twin_update,
    .size = twin_size,
};

static const struct cht_ops *const twin_tables[] = { &twin, &twin_nostats, NULL };

static const struct cht_plugin twin_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "twins",
    .tables = twin_tables,
    .sizes = CHT_ABI_SIZES,
};

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void)
{
    return &twin_plugin;
}
