/*
 * table_support.h - small helpers that several tables in tables/ repeat:
 * power-of-two sizing, zeroed cache-line-aligned allocations (mapped when
 * large), and per-thread padded counters (the usual size() implementation).
 *
 * Everything is `static inline`: no exported symbols, no .c file, and the
 * helpers compile into the same code the tables used to spell out (the hot
 * paths call only cht_thread_counter_add / _fetch_add and cht_thread_slot).
 */
#ifndef CHT_TABLE_SUPPORT_H
#define CHT_TABLE_SUPPORT_H

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cht.h"

/* ---------------- sizing ---------------- */

#define CHT_POW2_MAX (1ull << 62)

/* The least power of two >= n and >= min (min: a power of two), at most
 * CHT_POW2_MAX so that the doubling cannot overflow. */
static inline uint64_t cht_pow2_at_least(uint64_t n, uint64_t min)
{
    uint64_t c = min;
    while (c < n && c < CHT_POW2_MAX)
        c <<= 1;
    return c;
}

/* Units (buckets, slots) of `per_unit` keys each for cfg->initial keys at
 * cfg->density (default 0.5), rounded up to a power of two and at least min
 * (a power of two); 0, with err set, when more than max_units (a power of
 * two) would be needed. The comparison is made in floating point before any
 * conversion, so a huge --initial or a tiny --density is refused instead of
 * reaching an undefined float-to-integer conversion. `unit` names the unit
 * in the message ("buckets", "slots"). */
static inline uint64_t cht_initial_units(const struct cht_config *cfg, double per_unit, uint64_t min,
                                         uint64_t max_units, const char *unit, char *err, size_t len)
{
    double density = cfg->density > 0 ? cfg->density : 0.5;
    double want = (double)(cfg->initial ? cfg->initial : 1) / density / per_unit;
    if (!(want <= (double)max_units)) {     /* also catches NaN and inf */
        snprintf(err, len, "--initial %zu at --density %g needs %.3g %s, more than the 2^%d this table "
                 "can address: lower --initial or raise --density",
                 cfg->initial, density, want, unit, __builtin_ctzll(max_units));
        return 0;
    }
    uint64_t n = want < 1 ? 1 : (uint64_t)want;
    if ((double)n < want)
        n++;                                /* ceil */
    return cht_pow2_at_least(n, min);
}

/* Buckets of `slots` keys each for cfg->initial keys at cfg->density,
 * rounded up to a power of two; 0, with err set, when more than max_buckets
 * (a power of two) would be needed. */
static inline uint64_t cht_initial_buckets(const struct cht_config *cfg, unsigned slots,
                                           uint64_t max_buckets, char *err, size_t len)
{
    return cht_initial_units(cfg, slots, 1, max_buckets, "buckets", err, len);
}

/* A fixed-capacity table holds at most `capacity` keys: false, with err
 * naming --initial and --density, when the prefill of cfg->initial keys
 * cannot fit (a --density above 1 asks for more keys than slots). */
static inline bool cht_capacity_holds_initial(const struct cht_config *cfg, uint64_t capacity,
                                              char *err, size_t len)
{
    if (cfg->initial <= capacity)
        return true;
    double density = cfg->density > 0 ? cfg->density : 0.5;
    snprintf(err, len, "fixed capacity of %llu keys at --density %g is less than --initial %zu: "
             "use --density <= 1 (or a resizable table)",
             (unsigned long long)capacity, density, cfg->initial);
    return false;
}

/* ---------------- allocation ---------------- */

/* Physical memory of the machine in bytes; SIZE_MAX when unknown. Tables
 * refuse sizes beyond it up front instead of overcommitting and dying later. */
static inline size_t cht_phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : SIZE_MAX;
}

/* The largest private cache's bytes of CPU 0 (L1 or L2, from sysfs as lscpu
 * reads it; else glibc's sysconf, which derives it from CPUID; 0: unknown):
 * what a table's working set is measured against (the driver's --pipeline
 * auto, dense's lines=0). Not for a hot path: it reads files. */
static inline uint64_t cht_private_cache_bytes(void)
{
    uint64_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[32];
        unsigned level = 0;
        uint64_t n = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        if (fscanf(f, "%u", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            if (fgets(buf, sizeof buf, f)) {
                char *end;
                n = strtoull(buf, &end, 10);
                n *= *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
            }
            fclose(f);
        }
        if (level >= 1 && level <= 2 && n > best)
            best = n;
    }
    if (!best) {
        long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        best = v > 0 ? (uint64_t)v : 0;
    }
    return best;
}

/* --pipeline: the bytes above which a table lies far enough out of the
 * core's private caches that a pipelined op's dependent line is worth a
 * step of its own (prefetched in one step, read in the next, a turn later)
 * rather than a read in the same step: 16 L2 caches (1 MiB where the system
 * does not say). In the caches the extra step costs more than the line.
 * Measured crossovers with a 1 MiB L2: dense's one-line get between 16 and
 * 32 MB of slots, clht-lb's write past a chained head between 8 and 16 MB of
 * buckets (docs/measurements/pipeline.md). Reads files: call it at create. */
#define CHT_PIPE_FAR_L2S 16u
static inline uint64_t cht_pipe_far_bytes(void)
{
    const uint64_t l2 = cht_private_cache_bytes();
    return CHT_PIPE_FAR_L2S * (l2 ? l2 : 1u << 20);
}

/* bytes zeroed, CHT_CACHE_LINE-aligned; NULL when out of memory. Free with free(). */
static inline void *cht_alloc_zeroed(size_t bytes)
{
    void *p = aligned_alloc(CHT_CACHE_LINE, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* Bytes of the arrays cht_alloc_large has mapped and not yet unmapped, process-wide. They bypass
 * malloc, so the driver adds them to the allocator's count for alloc_bytes_per_key
 * (docs/measurement.md "Memory per element"). Weak: one variable however many files include this. */
__attribute__((weak)) size_t cht_large_mapped_bytes;

/* From this size on, cht_alloc_large maps instead of allocating. */
#define CHT_MAP_THRESHOLD ((size_t)2 << 20)

/* bytes zeroed, CHT_CACHE_LINE-aligned, for big arrays: from CHT_MAP_THRESHOLD
 * on an anonymous mapping (the kernel zeroes pages lazily, on first touch),
 * below it cht_alloc_zeroed. NULL when out of memory. *mapped says which, for
 * cht_free_large. huge: the table's cht_config.hugepages (kept by the table
 * for the arrays it maps at a resize). */
static inline void *cht_alloc_large(size_t bytes, bool huge, bool *mapped)
{
    *mapped = bytes >= CHT_MAP_THRESHOLD;
    if (!*mapped)
        return cht_alloc_zeroed(bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    __atomic_fetch_add(&cht_large_mapped_bytes, bytes, __ATOMIC_RELAXED);
    /* chtbench --hugepages thp: huge pages for every table's large arrays alike (malloc'ed ones get
     * them from glibc's glibc.malloc.hugetlb=1 tunable, which the driver sets at start-up) */
    if (huge)
        madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

/* Frees what cht_alloc_large(bytes, &mapped) returned. */
static inline void cht_free_large(void *p, size_t bytes, bool mapped)
{
    if (mapped) {
        munmap(p, bytes);
        __atomic_fetch_sub(&cht_large_mapped_bytes, bytes, __ATOMIC_RELAXED);
    } else
        free(p);
}

/* ---------------- per-thread counters ---------------- */

/* The slot of thread id tid among n per-thread slots (n = max_threads).
 * Thread ids must be < n (the driver's contract, cht.h): per-thread slots
 * are owned by one thread each, and two threads on one slot corrupt it
 * (double frees in reclamation bags, lost counts). Debug builds assert it;
 * with NDEBUG an out-of-range id is folded into range so that it cannot
 * index past the array, which is still a caller bug, never a feature. */
static inline unsigned cht_thread_slot(unsigned tid, unsigned n)
{
    assert(tid < n && "thread id >= max_threads: per-thread slots are not shared");
    return tid < n ? tid : tid % n;
}

/* One thread's share of a count (e.g. inserts - removes), alone on its cache
 * line so that counting never writes a line another thread touches. */
struct cht_thread_counter {
    alignas(CHT_CACHE_LINE) int64_t n;
};

/* n zeroed counters; NULL when out of memory. Free with free(). */
static inline struct cht_thread_counter *cht_thread_counters_new(unsigned n)
{
    return cht_alloc_zeroed(n * sizeof(struct cht_thread_counter));
}

/* Adds d to a counter only its own thread writes: a relaxed load/store pair,
 * no locked instruction (readers see the old or the new value). */
static inline void cht_thread_counter_add(int64_t *c, int64_t d)
{
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + d, __ATOMIC_RELAXED);
}

/* Adds d to a counter that several threads may share (a locked add). */
static inline void cht_thread_counter_fetch_add(int64_t *c, int64_t d)
{
    __atomic_fetch_add(c, d, __ATOMIC_RELAXED);
}

/* Sum of n int64_t counters, the first at `first`, each `stride` bytes after
 * the one before: one field of an array of per-thread structs. Relaxed loads:
 * exact when quiescent. */
static inline int64_t cht_sum_strided(const int64_t *first, unsigned n, size_t stride)
{
    int64_t s = 0;
    for (unsigned i = 0; i < n; i++)
        s += __atomic_load_n((const int64_t *)(const void *)((const char *)first + i * stride),
                             __ATOMIC_RELAXED);
    return s;
}

/* Sum of the first n per-thread counters at c. */
static inline int64_t cht_thread_counters_sum(const struct cht_thread_counter *c, unsigned n)
{
    return cht_sum_strided(&c->n, n, sizeof *c);
}

/* A count summed from per-thread shares as size() returns it: a transiently
 * negative sum (a remove counted before the insert it undid) reads as 0. */
static inline size_t cht_count_as_size(int64_t n)
{
    return n > 0 ? (size_t)n : 0;
}

/* --pipeline: a write (op->kind insert, remove or update) run as the plain
 * operation in its first step; constant function arguments inline to direct calls */
static inline __attribute__((always_inline)) int
cht_pipe_write(void *t, const struct cht_pipe_op *op, bool (*insert)(void *, cht_key_t, cht_val_t),
               bool (*remove)(void *, cht_key_t), bool (*update)(void *, cht_key_t, cht_val_t))
{
    if (op->kind == CHT_PIPE_INSERT)
        return insert(t, op->key, op->val);
    if (op->kind == CHT_PIPE_REMOVE)
        return remove(t, op->key);
    return update(t, op->key, op->val);
}

/* --pipeline's batch hooks (cht.h pipe_start/pipe_step) from a table's one-op
 * functions, which the loops inline: START_ONE(t, op) starts one op;
 * STEP_ONE(t, op) returns its result (1/0) or CHT_PIPE_AGAIN, which marks
 * the op's second step (op->stage = 1). Defines static START and STEP. */
#define CHT_PIPE_BATCH_HOOKS(START, STEP, START_ONE, STEP_ONE)              \
    static void START(void *t_, struct cht_pipe_op *ops_, unsigned n_)      \
    {                                                                       \
        for (unsigned i_ = 0; i_ < n_; i_++)                                \
            START_ONE(t_, &ops_[i_]);                                       \
    }                                                                       \
    static void STEP(void *t_, struct cht_pipe_op *ops_, unsigned n_)       \
    {                                                                       \
        for (unsigned i_ = 0; i_ < n_; i_++) {                              \
            int r_ = STEP_ONE(t_, &ops_[i_]);                               \
            ops_[i_].result = r_;                                           \
            ops_[i_].stage |= r_ == CHT_PIPE_AGAIN;                         \
        }                                                                   \
    }

#endif /* CHT_TABLE_SUPPORT_H */
