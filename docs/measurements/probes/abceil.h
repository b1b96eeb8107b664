/* abceil.h: a table's pipelined throughput against the memory ceiling,
 * measured in alternating time slices of one run, for a host whose speed
 * moves too much between a `--ceiling` measurement and the run it divides
 * (pipeline.md, the 2026-12-03 section). Not part of the build.
 *
 * Built on abslice.h's timer (ABSLICE_MS, default 20 ms): in slice A the
 * table runs as usual; in slice B every thread that enters the table's
 * pipe_start runs instead the memory bench's chase (k dependent chains over
 * one random cycle of a buffer's cache lines, as src/membench.c measures the
 * ceiling) until the slice ends. At exit, to stderr: the ops the table
 * started per second of A, the chase's loads per second of B, and their
 * ratio, the ceiling fraction of this run's seconds. Only completed A
 * intervals (from the end of one B to the start of the next) count.
 *
 * Use: in an experiment copy of a table's file,
 *     #include "abceil.h"         (with -I docs/measurements/probes)
 *     ABCEIL_TURN(n);              first thing in pipe_start
 * then `ABCEIL_BYTES=1G ABSLICE_MS=20 chtbench -t TABLE ... --pipeline auto`.
 * ABCEIL_BYTES: the chase's buffer (K/M/G suffixes; default 1 GiB), 4 KiB
 * pages (MADV_NOHUGEPAGE) unless ABCEIL_THP is set; the chase runs 32
 * chains a thread (ABCEIL_K=16 for 16). Threads: any number, each its own
 * chains' starting points. */
#ifndef ABCEIL_H
#define ABCEIL_H
#include "abslice.h"
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define ABCEIL_MAX_K 32

static char *abceil_buf;
static uint64_t abceil_lines;
static unsigned abceil_k = 32, abceil_threads_seen;
static uint64_t abceil_a_ops, abceil_a_ns, abceil_b_loads, abceil_b_ns;     /* atomic adds */

struct abceil_thread {
    char *q[ABCEIL_MAX_K];
    uint64_t a_ops, a_from;     /* this A interval's ops, and when it began (0: none yet) */
};
static __thread struct abceil_thread abceil_me;

static inline uint64_t abceil_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t abceil_rng(uint64_t *s)     /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__attribute__((constructor)) static void abceil_build(void)
{
    const char *e = getenv("ABCEIL_BYTES");
    uint64_t bytes = 1ull << 30;
    if (e) {
        char *end;
        bytes = strtoull(e, &end, 10);
        bytes <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    }
    if (getenv("ABCEIL_K") && atoi(getenv("ABCEIL_K")) == 16)
        abceil_k = 16;
    abceil_lines = bytes / 64;
    uint32_t *order = malloc(abceil_lines * sizeof *order);
    abceil_buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!order || abceil_buf == MAP_FAILED) {
        fprintf(stderr, "abceil: no memory for %llu bytes\n", (unsigned long long)bytes);
        exit(1);
    }
    madvise(abceil_buf, bytes, getenv("ABCEIL_THP") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    uint64_t s = 0x6162636569ull;
    for (uint64_t i = 0; i < abceil_lines; i++)
        order[i] = (uint32_t)i;
    for (uint64_t i = abceil_lines - 1; i > 0; i--) {     /* Sattolo: one cycle */
        uint64_t j = (uint64_t)(((unsigned __int128)abceil_rng(&s) * i) >> 64);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint64_t i = 0; i < abceil_lines; i++)
        *(char **)(abceil_buf + (uint64_t)order[i] * 64) = abceil_buf + (uint64_t)order[(i + 1) % abceil_lines] * 64;
    free(order);
}

__attribute__((destructor)) static void abceil_report(void)
{
    if (!abceil_a_ns || !abceil_b_ns)
        return;
    const double a = abceil_a_ops * 1e3 / abceil_a_ns, b = abceil_b_loads * 1e3 / abceil_b_ns;
    fprintf(stderr, "abceil: table %.2f Mops/s in A (%.0f ms), chase k=%u %.2f Mloads/s in B (%.0f ms), "
                    "%u thread(s), frac %.3f\n", a, abceil_a_ns / 1e6, abceil_k, b, abceil_b_ns / 1e6,
            abceil_threads_seen, a / b);
}

/* K chains in lock step, 64 steps between looks at the slice flag */
#define ABCEIL_CHASE(K)                                                    \
    static uint64_t abceil_chase_##K(char **p)                             \
    {                                                                      \
        char *q[K];                                                        \
        uint64_t steps = 0;                                                \
        memcpy(q, p, sizeof q);                                            \
        while (abslice_mode) {                                             \
            for (int i = 0; i < 64; i++)                                   \
                for (int j = 0; j < K; j++)                                \
                    q[j] = *(char **)q[j];                                 \
            steps += 64;                                                   \
        }                                                                  \
        memcpy(p, q, sizeof q);                                            \
        return steps * K;                                                  \
    }
ABCEIL_CHASE(16)
ABCEIL_CHASE(32)

static __attribute__((noinline)) void abceil_slice_b(void)
{
    struct abceil_thread *me = &abceil_me;
    if (!me->q[0]) {            /* this thread's chains: evenly spaced along the cycle */
        const unsigned t = __atomic_fetch_add(&abceil_threads_seen, 1, __ATOMIC_RELAXED);
        char *x = abceil_buf;
        const uint64_t gap = abceil_lines / (16 * ABCEIL_MAX_K);
        for (unsigned i = 0; i < t * ABCEIL_MAX_K * gap; i++)
            x = *(char **)x;
        for (unsigned j = 0; j < ABCEIL_MAX_K; j++) {
            me->q[j] = x;
            for (uint64_t i = 0; i < gap; i++)
                x = *(char **)x;
        }
    }
    const uint64_t t0 = abceil_now();
    if (me->a_from) {           /* the A interval that ends here */
        __atomic_fetch_add(&abceil_a_ops, me->a_ops, __ATOMIC_RELAXED);
        __atomic_fetch_add(&abceil_a_ns, t0 - me->a_from, __ATOMIC_RELAXED);
    }
    const uint64_t loads = abceil_k == 16 ? abceil_chase_16(me->q) : abceil_chase_32(me->q);
    const uint64_t t1 = abceil_now();
    __atomic_fetch_add(&abceil_b_loads, loads, __ATOMIC_RELAXED);
    __atomic_fetch_add(&abceil_b_ns, t1 - t0, __ATOMIC_RELAXED);
    me->a_from = t1;
    me->a_ops = 0;
}

#define ABCEIL_TURN(n)                                                     \
    do {                                                                   \
        if (__builtin_expect(abslice_mode, 0))                             \
            abceil_slice_b();                                              \
        abceil_me.a_ops += (n);                                            \
    } while (0)
#endif
