/*
 * lockbench.h - lock-only benchmarks (--bench mutex | rwlock): n threads
 * hammer one lock from locks/ for d ms; invariants detect broken exclusion.
 * docs/cli.md "Lock benchmarks", docs/csv.md "Lock-bench CSV".
 */
#ifndef CHT_LOCKBENCH_H
#define CHT_LOCKBENCH_H

#include "config.h"

#define LOCK_CSV_SCHEMA_VERSION 3   /* 2: run_id and build context columns; 3: plugin, plugin_sha256 */

#define LB_COUNTERS 4      /* mutex: shared counters in one cache line */
#define LB_ARRAY 64        /* rwlock: RWBench's shared array of 64 integers */

struct lb_params {
    const struct bench_config *cfg;
    const struct lock_ops *lock;
    unsigned threads;
    const struct pin_topology *topo;
    const struct pin_plan *plan;
    unsigned rep;
};

struct lb_result {
    double elapsed_s;            /* last thread's end - first thread's start */
    uint64_t acquisitions;       /* all threads: mutex lock()s, or rwlock reads + writes */
    uint64_t reads, writes;      /* rwlock: read_lock() / lock() iterations; mutex: writes = acquisitions */
    double acq_per_s;
    double min_share, max_share; /* per-thread acquisitions / total (fair: 1/threads) */
    /* mutex: the shared counters after the run, each must equal acquisitions */
    uint64_t counter[LB_COUNTERS];
    /* rwlock: final array sum (must be 0), readers that saw a nonzero sum,
     * writer-side non-atomic counter (must equal writes) */
    int64_t final_sum;
    uint64_t reader_violations;
    uint64_t write_counter;
    bool invariant_ok;
    bool has_lock_stats;         /* the lock has stats() or ctx_stats() */
    struct lock_stats ls;        /* summed: stats() + every thread's ctx_stats() */
    bool interrupted;            /* stopped by SIGINT/SIGTERM: not a result */
    struct timespec end_time;    /* CLOCK_REALTIME at the repetition's end */
    char error[256];             /* fatal: pinning refused, out of memory */
};

/* One repetition. Returns 0 when it ran (check r->invariant_ok), -1 on a
 * fatal error (r->error). */
int lockbench_run(const struct lb_params *p, struct lb_result *r);

/* --bench mutex and --bench rwlock run as the modes mutex_mode and rwlock_mode (mode.h). */

#endif
