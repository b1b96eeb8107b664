/*
 * noop_line.c - the table "noop-line": noop (tables/noop.c) plus one cache
 * line an op, the least a table out of the caches can do: one independent
 * miss an op, no compare, no lock, no second line. It keeps an array of
 * initial x bytes_per_key bytes (option, default 64, about clht-lb's bytes a
 * key; 32 is about cuckoo's and dense's), rounded up to whole lines, and
 * every op touches the line its key's hash picks: a get loads a word of it,
 * an insert or remove stores one. Outcomes are noop's: get() always misses,
 * insert() and remove() always succeed and move a per-thread counter, so the
 * driver's size accounting holds exactly. With the pipe hooks of DRAMHiT's
 * pipelining (Narayanan et al., "DRAMHiT: A Hash Table Architected for the
 * Speed of DRAM", EuroSys'23, §3-4): start hashes and prefetches the line
 * (for ownership where the op writes), the step does the op. Under
 * --pipeline W --ceiling-slices MS its ceiling_frac is what the driver's loops
 * reach on the machine at one line an op, the mark a table's fraction is read
 * against (docs/cli.md "Pipelined operations"). Its own table, not a noop
 * option, so that noop's ops stay exactly the harness alone. The option
 * work=K adds K rounds of register work to every op after its line (four
 * multiply-add chains seeded by the word a get loaded, or by a write's hash),
 * so that ceiling_frac can be read against an op's work at one line an op:
 * the curve a table's own fraction is placed on.
 *
 * The array is written page by page at create(), so no get reads the
 * kernel's shared zero page (one cached page for the whole array); its stores
 * are relaxed atomics (threads may write one line at once; nothing reads the
 * values back).
 */
#include "cht.h"
#include "cht_hash.h"
#include "table_support.h"

#define NL_MAX_BYTES_PER_KEY 4096
#define NL_MAX_WORK 256

struct nl_table {
    unsigned threads;
    struct cht_thread_counter *slot;
    uint64_t *lines;        /* nlines lines of CHT_CACHE_LINE bytes */
    uint64_t nlines;
    unsigned work;          /* rounds of register work an op (option work) */
    size_t bytes;
    bool mapped;            /* cht_alloc_large's */
};

static __thread struct cht_thread_counter *nl_my_slot;

static const struct cht_option_spec nl_options[] = {
    { "bytes_per_key", "1..4096: the array is initial x this many bytes, rounded up to whole cache lines "
                       "(default 64)" },
    { "work", "0..256: rounds of register work every op does after its line, seeded by what a get loaded "
              "(four multiply-add chains, about 4 cycles a round; default 0)" },
    { NULL, NULL },
};

static void nl_destroy(void *tp)
{
    struct nl_table *t = tp;
    if (t->lines)
        cht_free_large(t->lines, t->bytes, t->mapped);
    free(t->slot);
    free(t);
}

static void *nl_create(const struct cht_config *cfg, char *err, size_t len)
{
    uint64_t per_key = 64, work = 0;
    if (!cht_option_uint(cfg->options, "noop-line", "bytes_per_key", 1, NL_MAX_BYTES_PER_KEY, &per_key, err, len) ||
        !cht_option_uint(cfg->options, "noop-line", "work", 0, NL_MAX_WORK, &work, err, len))
        return NULL;
    struct nl_table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    const uint64_t keys = cfg->initial ? cfg->initial : 1;
    t->threads = cfg->max_threads;
    t->work = (unsigned)work;
    t->nlines = (keys * per_key + CHT_CACHE_LINE - 1) / CHT_CACHE_LINE;
    t->bytes = t->nlines * CHT_CACHE_LINE;
    t->slot = cht_thread_counters_new(t->threads);
    if (t->slot && t->bytes <= cht_phys_bytes())
        t->lines = cht_alloc_large(t->bytes, cfg->hugepages, &t->mapped);
    if (!t->lines) {
        snprintf(err, len, "out of memory: %zu bytes for --initial %zu at bytes_per_key=%llu", t->bytes,
                 cfg->initial, (unsigned long long)per_key);
        nl_destroy(t);
        return NULL;
    }
    for (size_t b = 0; b < t->bytes; b += 4096)     /* a page of its own for every page (see above) */
        t->lines[b / sizeof(uint64_t)] = 1;
    return t;
}

static void nl_thread_init(void *tp, unsigned tid)
{
    nl_my_slot = &((struct nl_table *)tp)->slot[tid];
}

/* the line of hash h: h scaled onto the line count (no power-of-two
 * rounding, so the array is the size asked for) */
static inline uint64_t *nl_line(const struct nl_table *t, uint64_t h)
{
    return t->lines + (uint64_t)(((unsigned __int128)h * t->nlines) >> 64) * (CHT_CACHE_LINE / sizeof(uint64_t));
}

/* option work: `rounds` rounds of four independent multiply-add chains from
 * seed (register work only; the asm keeps each round and the result) */
static inline void nl_work(uint64_t seed, unsigned rounds)
{
    uint64_t a = seed, b = seed ^ 1, c = seed ^ 2, d = seed ^ 3;
    for (unsigned j = 0; j < rounds; j++) {
        a = a * 3 + j;
        b = b * 5 + j;
        c = c * 7 + j;
        d = d * 9 + j;
        __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
    }
    __asm__ volatile("" : : "r"(a + b + c + d));
}

/* `work`: t->work is not 0 (a constant where inlined, so that the pipe
 * step's loops test it once a chunk, not once an op) */
static inline __attribute__((always_inline)) bool nl_get_hashed(const struct nl_table *t, uint64_t h, const bool work)
{
    const uint64_t w = __atomic_load_n(nl_line(t, h), __ATOMIC_RELAXED);
    __asm__ volatile("" : : "r"(w));   /* the load stays: its miss is the point */
    if (work)                          /* after the line, as a table's compares are */
        nl_work(w, t->work);
    return false;
}

static inline __attribute__((always_inline)) bool nl_write_hashed(const struct nl_table *t, uint64_t h, cht_key_t k,
                                                                  int64_t d, const bool work)
{
    if (work)
        nl_work(h, t->work);
    __atomic_store_n(nl_line(t, h), k, __ATOMIC_RELAXED);
    nl_my_slot->n += d;
    return true;
}

static bool nl_get(void *tp, cht_key_t k, cht_val_t *v)
{
    (void)v;
    const struct nl_table *t = tp;
    return nl_get_hashed(t, cht_hash(CHT_HASH_DEFAULT, k), t->work != 0);
}

static bool nl_insert(void *tp, cht_key_t k, cht_val_t v)
{
    (void)v;
    const struct nl_table *t = tp;
    return nl_write_hashed(t, cht_hash(CHT_HASH_DEFAULT, k), k, 1, t->work != 0);
}

static bool nl_remove(void *tp, cht_key_t k)
{
    const struct nl_table *t = tp;
    return nl_write_hashed(t, cht_hash(CHT_HASH_DEFAULT, k), k, -1, t->work != 0);
}

/* --pipeline (cht.h pipe_start/pipe_step): the hash and the line's prefetch
 * (for ownership where the op writes), then the op in one step */
static void nl_pipe_start(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    const struct nl_table *t = tp;
    for (unsigned i = 0; i < n; i++) {
        struct cht_pipe_op *op = &ops[i];
        const uint64_t h = cht_hash(CHT_HASH_DEFAULT, op->key);
        op->state[0] = h;
        if (op->kind == CHT_PIPE_GET)
            __builtin_prefetch(nl_line(t, h));
        else
            __builtin_prefetch(nl_line(t, h), 1);
    }
}

/* every op done in one step (its result 1/0, never CHT_PIPE_AGAIN) */
static inline __attribute__((always_inline)) void nl_pipe_step_run(const struct nl_table *t, struct cht_pipe_op *ops,
                                                                   unsigned n, const bool work)
{
    for (unsigned i = 0; i < n; i++) {
        struct cht_pipe_op *op = &ops[i];
        switch (op->kind) {
        case CHT_PIPE_GET: op->result = nl_get_hashed(t, op->state[0], work); break;
        case CHT_PIPE_INSERT: op->result = nl_write_hashed(t, op->state[0], op->key, 1, work); break;
        case CHT_PIPE_REMOVE: op->result = nl_write_hashed(t, op->state[0], op->key, -1, work); break;
        default: op->result = 0; break;     /* no update(): the driver draws none */
        }
    }
}

static void nl_pipe_step(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    const struct nl_table *t = tp;
    if (t->work)
        nl_pipe_step_run(t, ops, n, true);
    else
        nl_pipe_step_run(t, ops, n, false);
}

static size_t nl_size(void *tp)
{
    struct nl_table *t = tp;
    /* unclamped: more removes than inserts wrap, as the driver's expected size does */
    return (size_t)cht_thread_counters_sum(t->slot, t->threads);
}

static void nl_stats(void *tp, struct cht_stats *s)
{
    struct nl_table *t = tp;
    s->bytes = sizeof(*t) + sizeof(*t->slot) * t->threads + t->bytes;
}

const struct cht_ops cht_table_noop_line = {
    .name = "noop-line",
    .summary = "noop plus one cache line an op (a get loads it, a write stores to it; prefetched under "
               "--pipeline): the driver's best at one miss an op, the mark for ceiling_frac; work=K adds "
               "register work an op",
    .caps = CHT_CAP_NO_DATA,
    .options = nl_options,
    .create = nl_create,
    .destroy = nl_destroy,
    .thread_init = nl_thread_init,
    .get = nl_get,
    .insert = nl_insert,
    .remove = nl_remove,
    .size = nl_size,
    .stats = nl_stats,
    .pipe_start = nl_pipe_start,
    .pipe_step = nl_pipe_step,
};
