/*
 * membench.h - the machine's memory ceiling (docs/cli.md "Memory ceiling"):
 * dependent-load latency (a pointer chase over a random cyclic permutation
 * of cache lines) and independent-load throughput with k chases in flight
 * per thread (the memory-level parallelism a core sustains), from L1-sized
 * working sets to far beyond the last-level cache, with 4 KiB pages and
 * with transparent huge pages.
 */
#ifndef CHT_MEMBENCH_H
#define CHT_MEMBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "config.h"
#include "pin.h"

#define MEMBENCH_MAX_K 32
#define MEMBENCH_CSV_SCHEMA_VERSION 1

struct membench_point {
    uint64_t bytes;            /* working set */
    bool thp;                  /* madvise(MADV_HUGEPAGE) on the buffer */
    unsigned threads;
    unsigned k;                /* chases in flight per thread */
    double ns_per_load;        /* per thread: elapsed / (loads of one thread) */
    double mloads_per_s;       /* all threads: loads / elapsed / 10^6 */
    struct timespec end_time;  /* CLOCK_REALTIME when it was measured */
};

/* One measurement: threads threads, each with k chases over one shared
 * buffer of bytes, for about ms milliseconds. Returns 0, or -1 (err set). */
int membench_measure(uint64_t bytes, bool thp, unsigned threads, unsigned k, unsigned ms,
                     const struct pin_topology *topo, const struct pin_plan *plan, struct membench_point *out,
                     char *err, size_t len);

/* --bench memory runs as the mode memory_mode (mode.h): every (--size, page mode, --threads, k). */
struct mode;
extern const struct mode memory_mode;

/* The ceiling of a table run: the best throughput over k (of three passes
 * on one buffer) of `threads` threads at working set ceiling_size(bytes), in
 * the table's pages (thp: transparent huge pages, else 4 KiB), in millions of
 * cache-line misses per second; measured once per (size, threads, pages) and
 * cached in results/ceiling-v2-HOST.csv. */
uint64_t ceiling_size(uint64_t bytes);
/* The pages a table's ceiling is taken in: huge where --hugepages thp put at
 * least half of its bytes on them (its memory after the prefill), else 4 KiB. */
struct memsnap;
bool ceiling_on_thp(bool hugepages, const struct memsnap *after_prefill, uint64_t bytes);
double membench_ceiling(uint64_t bytes, unsigned threads, bool thp, const struct pin_topology *topo,
                        const struct pin_plan *plan);

/* --ceiling-slices (docs/cli.md "Memory ceiling"): the same chase inside a
 * table run, in the slices of the timed phase main gives it. One buffer of
 * ceiling_size(table_bytes) per run, in the table's pages; every thread
 * gets MEMBENCH_MAX_K chains of its own, evenly spaced along the cycle, and
 * continues them from slice to slice. */
struct ceiling_chase;
struct ceiling_chase *ceiling_chase_new(uint64_t table_bytes, bool thp, unsigned threads, char *err, size_t len);
void ceiling_chase_chains(const struct ceiling_chase *c, unsigned tid, char *q[MEMBENCH_MAX_K]);
/* Runs k (16 or 32) of the chains q while *flag reads value; returns the loads done. */
uint64_t ceiling_chase_while(char *q[MEMBENCH_MAX_K], unsigned k, const int *flag, int value);
void ceiling_chase_free(struct ceiling_chase *c);

#endif
