/* faults.c - see faults.h. One run at a time, so the state is global. */
#include <stdlib.h>
#include "faults.h"

static const struct cht_ops *inner_ops;
static struct cht_ops wrapped;
static uint64_t drop_every, inserts, dropped;

static bool drop_insert(void *t, cht_key_t k, cht_val_t v)
{
    cht_val_t old;
    if (__atomic_add_fetch(&inserts, 1, __ATOMIC_RELAXED) % drop_every == 0 && !inner_ops->get(t, k, &old)) {
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
        return true;                 /* "inserted": counted, but not there */
    }
    return inner_ops->insert(t, k, v);
}

static size_t drop_size(void *t)
{
    return inner_ops->size(t) + __atomic_load_n(&dropped, __ATOMIC_RELAXED);
}

void fault_reset(void)
{
    inserts = dropped = 0;
}

const struct cht_ops *fault_wrap(const struct cht_ops *inner)
{
    const char *e = getenv("CHTBENCH_FAULT_DROP_INSERT");
    char *end;
    unsigned long long n = e ? strtoull(e, &end, 10) : 0;
    if (!n || *end)
        return inner;
    inner_ops = inner;
    drop_every = n;
    wrapped = *inner;
    wrapped.insert = drop_insert;
    wrapped.size = drop_size;
    return &wrapped;
}
