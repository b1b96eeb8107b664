/*
 * run/bytekeys.c - a byte-key table as integer ops (keys_bytes.h): get(t, k, v)
 * is get_bytes(t, the arena's key k, its length, v), and so on. With it the
 * prefill, the timed loop, the final check (count, key sum over k, values),
 * --verify history, --pipeline's single-op fallback and the conformance checks
 * run a byte-key table unchanged. The price is one more indirect call and the
 * arena's two offset loads per op (docs/workloads.md "Byte-string keys"). The
 * plain timed loop of a run without fault hooks calls the byte ops itself
 * (src/run/loop_bytes.c).
 *
 * The handle the runner holds is the table's own: only create() differs, to
 * tell the table its keys' kind and lengths.
 */
#include <stdio.h>
#include <stdlib.h>
#include "keys_bytes.h"

static const struct cht_ops *bk_inner;
static const struct key_arena *bk_arena;
static struct cht_ops bk_ops;

/* a key outside the arena is a driver bug (the command-line checks refuse what could give one) */
static inline void bk_key(uint64_t k, const void **p, size_t *len)
{
    if (__builtin_expect(k - 1 >= bk_arena->n, 0)) {
        fprintf(stderr, "chtbench: internal error: key %llu outside the byte-key arena 1..%llu\n",
                (unsigned long long)k, (unsigned long long)bk_arena->n);
        abort();
    }
    *p = key_arena_key(bk_arena, k);
    *len = key_arena_len(bk_arena, k);
}

static bool bk_get(void *t, cht_key_t k, cht_val_t *v)
{
    const void *p;
    size_t len;
    bk_key(k, &p, &len);
    return bk_inner->get_bytes(t, p, len, v);
}

static bool bk_insert(void *t, cht_key_t k, cht_val_t v)
{
    const void *p;
    size_t len;
    bk_key(k, &p, &len);
    return bk_inner->insert_bytes(t, p, len, v);
}

static bool bk_remove(void *t, cht_key_t k)
{
    const void *p;
    size_t len;
    bk_key(k, &p, &len);
    return bk_inner->remove_bytes(t, p, len);
}

static bool bk_update(void *t, cht_key_t k, cht_val_t v)
{
    const void *p;
    size_t len;
    bk_key(k, &p, &len);
    return bk_inner->update_bytes(t, p, len, v);
}

static void *bk_create(const struct cht_config *cfg, char *err, size_t len)
{
    struct cht_config c = *cfg;
    c.key_kind = CHT_KEYS_BYTES;
    c.key_len_min = bk_arena->len_min;
    c.key_len_max = bk_arena->len_max;
    return bk_inner->create(&c, err, len);
}

const struct cht_ops *bytekeys_wrap(const struct cht_ops *inner, const struct key_arena *a)
{
    bk_inner = inner;
    bk_arena = a;
    bk_ops = *inner;
    bk_ops.create = bk_create;
    bk_ops.get = bk_get;
    bk_ops.insert = bk_insert;
    bk_ops.remove = bk_remove;
    bk_ops.update = inner->update_bytes ? bk_update : NULL;
    if (!inner->update_bytes)
        bk_ops.caps &= ~(unsigned)CHT_CAP_UPDATE;
    bk_ops.get_batch = NULL;
    bk_ops.probe_lines = NULL;
    bk_ops.pipe_start = NULL;
    bk_ops.pipe_step = NULL;
    return &bk_ops;
}
