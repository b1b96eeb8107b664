/*
 * null.c - the table "noop", which does nothing, to measure the harness itself
 * (key generation, op selection, counting, the indirect call). Named "noop",
 * not "null": pandas reads the string null as NaN (its default NA values), so
 * a "null" table would vanish from groupby('table'). "null" stays accepted on
 * the command line as an alias (src/registry.c).
 *
 * get() always misses; insert() and remove() always succeed and only move a
 * per-thread, cache-line-padded counter so that the driver's size accounting
 * (size == i + ins_suc - rem_suc) holds exactly without any shared write.
 */
#include "cht.h"
#include "table_support.h"

struct null_table {
    unsigned threads;
    struct cht_thread_counter *slot;
};

static __thread struct cht_thread_counter *null_my_slot;

static void *null_create(const struct cht_config *cfg, char *err, size_t len)
{
    struct null_table *t = malloc(sizeof *t);
    struct cht_thread_counter *s = cht_thread_counters_new(cfg->max_threads);
    if (!t || !s) {
        free(t);
        free(s);
        snprintf(err, len, "out of memory");
        return NULL;
    }
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
    null_my_slot->n++;
    return true;
}

static bool null_remove(void *t, cht_key_t k)
{
    (void)t; (void)k;
    null_my_slot->n--;
    return true;
}

static size_t null_size(void *tp)
{
    struct null_table *t = tp;
    /* unclamped: more removes than inserts wrap, as the driver's expected size does */
    return (size_t)cht_thread_counters_sum(t->slot, t->threads);
}

static void null_stats(void *tp, struct cht_stats *s)
{
    struct null_table *t = tp;
    s->bytes = sizeof(*t) + sizeof(*t->slot) * t->threads;
}

const struct cht_ops cht_table_null = {
    .name = "noop",
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
