/*
 * null.c - the table that does nothing, to measure the harness itself
 * (key generation, op selection, counting, the indirect call).
 *
 * get() always misses; insert() and remove() always succeed and only move a
 * per-thread, cache-line-padded counter so that the driver's size accounting
 * (size == i + ins_suc - rem_suc) holds exactly without any shared write.
 */
#include <stdalign.h>
#include "cht.h"

struct null_slot {
    alignas(CHT_CACHE_LINE) int64_t count;
};

struct null_table {
    unsigned threads;
    struct null_slot *slot;
};

static __thread struct null_slot *null_my_slot;

static void *null_create(const struct cht_config *cfg, char *err, size_t len)
{
    struct null_table *t = malloc(sizeof *t);
    struct null_slot *s = aligned_alloc(CHT_CACHE_LINE, sizeof(*s) * cfg->max_threads);
    if (!t || !s) {
        free(t);
        free(s);
        snprintf(err, len, "out of memory");
        return NULL;
    }
    memset(s, 0, sizeof(*s) * cfg->max_threads);
    t->threads = cfg->max_threads;
    t->slot = s;
    return t;
}

static void null_destroy(void *tp)
{
    struct null_table *t = tp;
    free(t->slot);
    free(t);
}

static void null_thread_init(void *tp, unsigned tid)
{
    null_my_slot = &((struct null_table *)tp)->slot[tid];
}

static bool null_get(void *t, cht_key_t k, cht_val_t *v)
{
    (void)t; (void)k; (void)v;
    return false;
}

static bool null_insert(void *t, cht_key_t k, cht_val_t v)
{
    (void)t; (void)k; (void)v;
    null_my_slot->count++;
    return true;
}

static bool null_remove(void *t, cht_key_t k)
{
    (void)t; (void)k;
    null_my_slot->count--;
    return true;
}

static size_t null_size(void *tp)
{
    struct null_table *t = tp;
    int64_t n = 0;
    for (unsigned i = 0; i < t->threads; i++)
        n += __atomic_load_n(&t->slot[i].count, __ATOMIC_RELAXED);
    return (size_t)n;
}

static void null_stats(void *tp, struct cht_stats *s)
{
    struct null_table *t = tp;
    s->bytes = sizeof(*t) + sizeof(*t->slot) * t->threads;
}

const struct cht_ops cht_table_null = {
    .name = "null",
    .summary = "does nothing (get misses, updates succeed): measures the harness itself",
    .caps = CHT_CAP_NO_DATA,
    .create = null_create,
    .destroy = null_destroy,
    .thread_init = null_thread_init,
    .get = null_get,
    .insert = null_insert,
    .remove = null_remove,
    .size = null_size,
    .stats = null_stats,
};
