/* latency.c - calibration, buffers and statistics of sampled op latencies. */
#include <cpuid.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latency.h"
#include "util.h"

const char *const lat_store_name[LAT_STORES] = { "get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail",
                                                    "upd_suc", "upd_fail" };

bool lat_supported(char *why, size_t len)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000001) {
        snprintf(why, len, "CPUID has no extended leaf 0x80000001: cannot check for rdtscp");
        return false;
    }
    __get_cpuid(0x80000001, &a, &b, &c, &d);
    if (!(d & (1u << 27))) {
        snprintf(why, len, "this CPU has no rdtscp instruction (CPUID 0x80000001 EDX bit 27)");
        return false;
    }
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void lat_calibrate(struct lat_clock *c)
{
    /* empty measurement: median of many begin/end pairs */
    enum { N = 20001 };
    static uint64_t d[N];
    for (int i = 0; i < N; i++) {
        uint64_t t0 = lat_stamp_begin();
        uint64_t t1 = lat_stamp_end();
        d[i] = t1 - t0;
    }
    qsort(d, N, sizeof d[0], cmp_u64);
    c->overhead_cycles = d[N / 2];
    /* TSC against CLOCK_MONOTONIC: three 20 ms windows, the median */
    double hz[3];
    for (int k = 0; k < 3; k++) {
        uint64_t n0 = now_ns(), t0 = lat_stamp_end();
        uint64_t n1;
        do
            n1 = now_ns();
        while (n1 - n0 < 20000000ull);
        uint64_t t1 = lat_stamp_end();
        hz[k] = (double)(t1 - t0) / ((double)(n1 - n0) / 1e9);
    }
    double best = hz[0] < hz[1] ? (hz[1] < hz[2] ? hz[1] : (hz[0] < hz[2] ? hz[2] : hz[0]))
                                : (hz[0] < hz[2] ? hz[0] : (hz[1] < hz[2] ? hz[2] : hz[1]));
    c->tsc_hz = best;
}

int lat_buf_init(struct lat_buf *b, uint64_t cap)
{
    memset(b, 0, sizeof *b);
    b->cap = cap;
    for (int s = 0; s < LAT_STORES; s++) {
        b->v[s] = malloc(cap * sizeof *b->v[s]);
        if (!b->v[s]) {
            lat_buf_free(b);
            return -1;
        }
        memset(b->v[s], 0, cap * sizeof *b->v[s]);   /* fault the pages in now, not in the timed loop */
    }
    return 0;
}

void lat_buf_free(struct lat_buf *b)
{
    for (int s = 0; s < LAT_STORES; s++) {
        free(b->v[s]);
        b->v[s] = NULL;
    }
}

unsigned lat_bucket(uint64_t cycles)
{
    return cycles < 2 ? 0 : 63u - (unsigned)__builtin_clzll(cycles);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double rank(const uint32_t *v, uint64_t n, double p)
{
    uint64_t r = (uint64_t)ceil(p * (double)n);
    if (r < 1)
        r = 1;
    if (r > n)
        r = n;
    return v[r - 1];
}

void lat_compute(uint32_t *v, uint64_t n, struct lat_stats *s)
{
    memset(s, 0, sizeof *s);
    s->count = n;
    if (!n)
        return;
    qsort(v, n, sizeof *v, cmp_u32);
    double sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += v[i];
        s->hist[lat_bucket(v[i])]++;
    }
    s->avg = sum / (double)n;
    double ss = 0, ad = 0;
    uint64_t w10 = 0, w25 = 0, w50 = 0;
    for (uint64_t i = 0; i < n; i++) {
        double dv = v[i] - s->avg, a = fabs(dv);
        ss += dv * dv;
        ad += a;
        w10 += a <= 0.10 * s->avg;
        w25 += a <= 0.25 * s->avg;
        w50 += a <= 0.50 * s->avg;
    }
    s->stdev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    s->absdev = ad / (double)n;
    s->min = v[0];
    s->max = v[n - 1];
    s->p50 = rank(v, n, 0.50);
    s->p90 = rank(v, n, 0.90);
    s->p99 = rank(v, n, 0.99);
    s->p999 = rank(v, n, 0.999);
    s->within10 = (double)w10 / (double)n;
    s->within25 = (double)w25 / (double)n;
    s->within50 = (double)w50 / (double)n;
}

int lat_merge(struct lat_buf *bufs, unsigned nbuf, struct lat_result *r)
{
    r->dropped = 0;
    for (int s = 0; s < LAT_STORES; s++) {
        uint64_t total = 0;
        for (unsigned i = 0; i < nbuf; i++) {
            uint64_t kept = bufs[i].n[s] < bufs[i].cap ? bufs[i].n[s] : bufs[i].cap;
            total += kept;
            r->dropped += bufs[i].n[s] - kept;
        }
        uint32_t *all = malloc((total ? total : 1) * sizeof *all);
        if (!all)
            return -1;
        uint64_t k = 0;
        for (unsigned i = 0; i < nbuf; i++) {
            uint64_t kept = bufs[i].n[s] < bufs[i].cap ? bufs[i].n[s] : bufs[i].cap;
            memcpy(all + k, bufs[i].v[s], kept * sizeof *all);
            k += kept;
        }
        lat_compute(all, total, &r->st[s]);
        free(all);
    }
    return 0;
}
