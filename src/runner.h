/* runner.h - one CHTBench run: create, pin, prefill, timed phase, check. */
#ifndef CHT_RUNNER_H
#define CHT_RUNNER_H

#include "config.h"
#include "latency.h"
#include "memstat.h"

struct run_params {
    const struct bench_config *cfg;
    const struct table_choice *table;
    unsigned threads;
    const struct pin_topology *topo;
    const struct pin_plan *plan;
    unsigned rep;
    const struct keygen *keys;       /* the timed phase's key stream */
    const struct keygen *perm;       /* a bijection of [1, range]: prefill keys = perm(1..initial) */
};

enum op_outcome { GET_SUC, GET_FAIL, INS_SUC, INS_FAIL, REM_SUC, REM_FAIL, N_OUTCOMES };

struct run_result {
    uint64_t count[N_OUTCOMES];
    uint64_t total_ops;
    double elapsed_s, mops;
    size_t prefill_size;        /* size() after the prefill barrier */
    size_t final_size;          /* size() after the timed phase */
    size_t expected_size;       /* initial + ins_suc - rem_suc */
    bool prefill_ok, size_ok;
    struct cht_stats stats;     /* of the table at the end (if it has stats()) */
    bool has_stats;             /* the table has stats() */
    size_t table_bytes_after_prefill;   /* stats().bytes, thread 0 after the prefill check */
    struct memsnap mem_before_create, mem_after_prefill, mem_after_run;
    struct lat_result lat;      /* --latency */
    bool counters_ok;           /* --counters: every thread counted */
    double counter_per_op[CNT_MAX_EVENTS];
    struct tl_sample { double t_ms; uint64_t ops; } *timeline;  /* --timeline: malloc'ed, caller frees */
    size_t ntimeline;
    char error[256];            /* fatal error (create failed, pinning refused) */
};

/* Returns 0 when the run happened (check size_ok), -1 on a fatal error. */
int runner_run(const struct run_params *p, struct run_result *r);

#endif
