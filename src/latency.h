/* latency.h - sspfd-style per-operation latency (the 2017 thesis §3.3.3,
 * §3.4.5): TSC stamps around sampled operations, eight stores
 * (get/insert/remove/update x success/fail), summary statistics and log2 histograms. */
#ifndef CHT_LATENCY_H
#define CHT_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#define LAT_STORES 8                 /* same order as enum op_outcome */
#define LAT_DEFAULT_EVERY 512        /* default sampling: one op in 512 (overhead below 5%) */
#define LAT_CAP_PER_STORE (1u << 20) /* samples kept per thread and store; later ones are dropped */
#define LAT_HIST_BUCKETS 64          /* bucket b: [2^b, 2^(b+1)) cycles; bucket 0 also holds 0 */

extern const char *const lat_store_name[LAT_STORES];   /* get_suc, get_fail, ins_suc, ... */

/* Start and end stamps: lfence orders rdtsc after earlier instructions;
 * rdtscp waits for the op to retire and the lfence keeps later ones out. */
static inline __attribute__((always_inline)) uint64_t lat_stamp_begin(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
static inline __attribute__((always_inline)) uint64_t lat_stamp_end(void)
{
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

/* true when CPUID says rdtscp exists (and invariant TSC; *why otherwise) */
bool lat_supported(char *why, size_t len);

struct lat_clock {
    double tsc_hz;             /* measured against CLOCK_MONOTONIC */
    uint64_t overhead_cycles;  /* median of empty begin/end pairs: subtracted from each sample */
};
/* Measures the TSC frequency (~50 ms) and the empty-measurement cost. */
void lat_calibrate(struct lat_clock *c);

/* A thread's sample buffers: preallocated and touched before the timed loop. */
struct lat_buf {
    uint32_t *v[LAT_STORES];
    uint64_t n[LAT_STORES];    /* samples taken (may exceed cap: the excess is dropped) */
    uint64_t cap;
};
int lat_buf_init(struct lat_buf *b, uint64_t cap);
void lat_buf_free(struct lat_buf *b);
static inline __attribute__((always_inline)) void lat_record(struct lat_buf *b, unsigned store, uint64_t cycles)
{
    uint64_t i = b->n[store]++;
    if (i < b->cap)
        b->v[store][i] = cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles;
}

struct lat_stats {
    uint64_t count;            /* samples kept */
    double avg, stdev, absdev; /* absdev: mean |x - avg| */
    double min, max, p50, p90, p99, p999;
    double within10, within25, within50;   /* share of samples within 10/25/50% of avg (0..1) */
    uint64_t hist[LAT_HIST_BUCKETS];
};
/* Statistics of n cycle samples; v is sorted in place. Percentile p is the
 * nearest-rank value v[ceil(p*n)-1]. */
void lat_compute(uint32_t *v, uint64_t n, struct lat_stats *s);
unsigned lat_bucket(uint64_t cycles);

/* The result of one run: per store, samples of all threads merged. */
struct lat_result {
    bool on;
    uint64_t every;
    double tsc_hz;
    uint64_t overhead_cycles;
    uint64_t dropped;          /* samples past a full buffer */
    struct lat_stats st[LAT_STORES];
};
/* merges nbuf thread buffers into r->st (allocates a temporary array) */
int lat_merge(struct lat_buf *bufs, unsigned nbuf, struct lat_result *r);

#endif
