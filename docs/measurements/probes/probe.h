/* probe.h: what mincuckoo.c and mindense.c share: a monotonic clock and the
 * uniform key draw over [1, r] (a multiply-fold step, then a multiply-high
 * reduction, about as cheap as chtbench's own uniform source). */
#ifndef PROBE_H
#define PROBE_H
#include <stdint.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline uint64_t rnd(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    unsigned __int128 p = (unsigned __int128)(*s ^ 0xe7037ed1a0b428dbull) * (*s);
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t draw_key(uint64_t *s, uint64_t r)
{
    return 1 + (uint64_t)(((unsigned __int128)rnd(s) * r) >> 64);
}
#endif
