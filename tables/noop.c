/*
 * noop.c - the table "noop", which does nothing, to measure the harness itself
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

struct noop_table {
    unsigned threads;
    struct cht_thread_counter *slot;
};

static __thread struct cht_thread_counter *noop_my_slot;

static void *noop_create(const struct cht_config *cfg, char *err, size_t len)
{
    struct noop_table *t = malloc(sizeof *t);
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

static void noop_destroy(void *tp)
{
    struct noop_table *t = tp;
    free(t->slot);
    free(t);
}

static void noop_thread_init(void *tp, unsigned tid)
{
    noop_my_slot = &((struct noop_table *)tp)->slot[tid];
}

static bool noop_get(void *t, cht_key_t k, cht_val_t *v)
{
    (void)t; (void)k; (void)v;
    return false;
}

static bool noop_insert(void *t, cht_key_t k, cht_val_t v)
{
    (void)t; (void)k; (void)v;
    noop_my_slot->n++;
    return true;
}

static bool noop_remove(void *t, cht_key_t k)
{
    (void)t; (void)k;
    noop_my_slot->n--;
    return true;
}

static size_t noop_size(void *tp)
{
    struct noop_table *t = tp;
    /* unclamped: more removes than inserts wrap, as the driver's expected size does */
    return (size_t)cht_thread_counters_sum(t->slot, t->threads);
}

static void noop_stats(void *tp, struct cht_stats *s)
{
    struct noop_table *t = tp;
    s->bytes = sizeof(*t) + sizeof(*t->slot) * t->threads;
}

const struct cht_ops cht_table_noop = {
    .name = "noop",
    .summary = "does nothing (get misses, updates succeed): measures the harness itself",
    .caps = CHT_CAP_NO_DATA,
    .create = noop_create,
    .destroy = noop_destroy,
    .thread_init = noop_thread_init,
    .get = noop_get,
    .insert = noop_insert,
    .remove = noop_remove,
    .size = noop_size,
    .stats = noop_stats,
};
