/* faults.c - see faults.h. One run at a time, so the state is global; the
 * counters are shared atomics, which is fine for a test hook (never on in a
 * measurement). */
#include <stdlib.h>
#include "faults.h"
#include "cht_env.h"
#include "runner.h"

static const struct cht_ops *inner_ops;
static struct cht_ops wrapped;
static uint64_t drop_every, drop_rem_every, stale_every, torn_every, unwritten_every, miss_every, pair_from,
    size_skew, drop_upd_every, pipe_miss_every;
static bool filter_always;
static uint64_t inserts, dropped, dropped_rem, gets, misses, last_value, removes, removes_all, updates, pipe_gets;
static int pair_phase;           /* 0: waiting, 3: claimed, 1: a remove dropped, 2: the insert dropped too */
static cht_key_t pair_removed;   /* B: the key whose remove was dropped */

static bool f_insert(void *t, cht_key_t k, cht_val_t v)
{
    cht_val_t old;
    if (drop_every && __atomic_add_fetch(&inserts, 1, __ATOMIC_RELAXED) % drop_every == 0 &&
        !inner_ops->get(t, k, &old)) {
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
        return true;                 /* "inserted": counted, but not there */
    }
    if (pair_from && __atomic_load_n(&pair_phase, __ATOMIC_ACQUIRE) == 1 &&
        k != __atomic_load_n(&pair_removed, __ATOMIC_RELAXED) && !inner_ops->get(t, k, &old)) {
        int one = 1;
        if (__atomic_compare_exchange_n(&pair_phase, &one, 2, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return true;             /* A: reported inserted, not there; it offsets B's dropped remove */
    }
    return inner_ops->insert(t, k, v);
}

static bool f_remove(void *t, cht_key_t k)
{
    cht_val_t old;
    if (drop_rem_every && __atomic_add_fetch(&removes_all, 1, __ATOMIC_RELAXED) % drop_rem_every == 0 &&
        inner_ops->get(t, k, &old)) {
        __atomic_add_fetch(&dropped_rem, 1, __ATOMIC_RELAXED);
        return true;                 /* "removed": counted, but still there */
    }
    if (pair_from && __atomic_load_n(&pair_phase, __ATOMIC_ACQUIRE) == 0 &&
        __atomic_add_fetch(&removes, 1, __ATOMIC_RELAXED) >= pair_from && inner_ops->get(t, k, &old)) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&pair_phase, &zero, 3, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            /* phase 3 (claimed) holds f_insert off until B is published */
            __atomic_store_n(&pair_removed, k, __ATOMIC_RELAXED);
            __atomic_store_n(&pair_phase, 1, __ATOMIC_RELEASE);
            return true;             /* B: reported removed, still there */
        }
    }
    return inner_ops->remove(t, k);
}

static bool f_get(void *t, cht_key_t k, cht_val_t *v)
{
    if (filter_always) {
        *v = 0;
        return true;
    }
    bool found = inner_ops->get(t, k, v);
    if (found && miss_every && __atomic_add_fetch(&misses, 1, __ATOMIC_RELAXED) % miss_every == 0)
        return false;                /* a key that is there, answered absent */
    if (!found || !(stale_every || torn_every || unwritten_every))
        return found;
    uint64_t n = __atomic_add_fetch(&gets, 1, __ATOMIC_RELAXED);
    cht_val_t mine = *v;
    if (stale_every && n % stale_every == 0)
        *v = __atomic_load_n(&last_value, __ATOMIC_RELAXED);
    else if (torn_every && n % torn_every == 0)
        *v = CHT_VAL_TORN;
    else if (unwritten_every && n % unwritten_every == 0)
        *v = mine | RUN_VAL_SEQ_MASK;
    __atomic_store_n(&last_value, mine, __ATOMIC_RELAXED);
    return true;
}

static bool f_update(void *t, cht_key_t k, cht_val_t v)
{
    if (__atomic_add_fetch(&updates, 1, __ATOMIC_RELAXED) % drop_upd_every == 0) {
        cht_val_t old;
        if (inner_ops->get(t, k, &old))
            return true;             /* "updated": the old value stays */
    }
    return inner_ops->update(t, k, v);
}

static void f_pipe_step(void *t, struct cht_pipe_op *ops, unsigned n)
{
    inner_ops->pipe_step(t, ops, n);
    for (unsigned i = 0; i < n; i++)
        if (ops[i].kind == CHT_PIPE_GET && ops[i].result == 1 &&
            __atomic_add_fetch(&pipe_gets, 1, __ATOMIC_RELAXED) % pipe_miss_every == 0)
            ops[i].result = 0;       /* found, answered absent */
}

static void f_get_batch(void *t, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found)
{
    for (size_t i = 0; i < n; i++)
        found[i] = f_get(t, keys[i], &vals[i]);
}

static size_t f_size(void *t)
{
    return inner_ops->size(t) + __atomic_load_n(&dropped, __ATOMIC_RELAXED) -
           __atomic_load_n(&dropped_rem, __ATOMIC_RELAXED) + size_skew;
}

void fault_reset(void)
{
    inserts = dropped = dropped_rem = gets = misses = last_value = removes = removes_all = updates = pipe_gets = 0;
    pair_phase = 0;
    pair_removed = 0;
}

const struct cht_ops *fault_wrap(const struct cht_ops *inner)
{
    const struct cht_env *e = cht_env();
    drop_every = e->fault_drop_insert;
    drop_rem_every = e->fault_drop_remove;
    stale_every = e->fault_stale_get;
    torn_every = e->fault_torn_get;
    unwritten_every = e->fault_unwritten_get;
    drop_upd_every = e->fault_drop_update;
    pipe_miss_every = e->fault_pipe_miss_get;
    miss_every = e->fault_miss_get;
    pair_from = e->fault_drop_pair;
    filter_always = e->fault_filter_always != 0;
    size_skew = e->fault_size_skew;
    if (!drop_every && !drop_rem_every && !stale_every && !torn_every && !unwritten_every && !miss_every &&
        !pair_from && !filter_always && !size_skew && !drop_upd_every && !pipe_miss_every)
        return inner;
    inner_ops = inner;
    wrapped = *inner;
    wrapped.insert = f_insert;
    wrapped.remove = f_remove;
    wrapped.get = f_get;
    if (drop_upd_every && inner->update)
        wrapped.update = f_update;
    if (pipe_miss_every && inner->pipe_step)
        wrapped.pipe_step = f_pipe_step;
    if (inner->get_batch)            /* the table's batched lookup would bypass the faulty get */
        wrapped.get_batch = f_get_batch;
    wrapped.size = f_size;
    return &wrapped;
}
