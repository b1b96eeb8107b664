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
    const struct keygen *verify_perm;/* another one: the verify sample is verify_perm(1..m) */
    uint64_t opbuf_len;              /* pre-generated ops per thread (a power of two); 0: drawn in the loop */
};

enum op_outcome { GET_SUC, GET_FAIL, INS_SUC, INS_FAIL, REM_SUC, REM_FAIL,
                  UPD_SUC, UPD_FAIL,   /* --workload ycsb-*: update(), and read-modify-write (F) */
                  N_OUTCOMES };

/* What a repetition amounts to (CSV column `outcome`, docs/csv.md). Full and
 * out-of-memory are the table refusing inserts for a stated reason, with the
 * accounting exact: not a correctness failure. */
enum run_outcome { OUTCOME_OK, OUTCOME_FULL, OUTCOME_OOM, OUTCOME_MISMATCH };

/* Set from a signal handler (SIGINT/SIGTERM): the signal number, 0 if none.
 * The current run stops at once; its repetition is not recorded. */
extern volatile int runner_interrupted;
void runner_install_signals(void);

struct run_result {
    uint64_t count[N_OUTCOMES];
    uint64_t total_ops;
    double elapsed_s, mops;
    size_t prefill_size;        /* size() after the prefill barrier */
    size_t final_size;          /* size() after the timed phase */
    size_t expected_size;       /* prefilled + ins_suc - rem_suc */
    uint64_t prefilled;         /* prefill inserts that succeeded (== initial unless the table refused) */
    bool prefill_ok, size_ok;
    uint64_t warmup_count[N_OUTCOMES];  /* --warmup: not in count[] or mops, but in the size accounting */
    enum verify_mode verify_mode;       /* VERIFY_FULL, VERIFY_SAMPLE or VERIFY_OFF, as done */
    uint64_t verified_keys, verify_found, verify_expected;
    bool verify_ok;
    double verify_s;
    enum run_outcome outcome;
    bool interrupted;           /* stopped by a signal: not a result */
    struct timespec end_time;   /* CLOCK_REALTIME at the repetition's end */
    uint64_t opbuf_len;         /* ops pre-generated per thread (0: drawn in the loop) */
    double ceiling_mops;        /* --ceiling: the machine's independent-miss rate at the table's size (0: none) */
    uint64_t fp_checked;        /* approximate tables: absent keys the final check asked */
    double fp_rate;             /* ... the share of them answered "present" */
    uint64_t false_negatives;   /* ... present keys not found (must be 0) */
    uint64_t opbuf_ns;          /* time all threads spent filling them (off the clock) */
    bool opbuf_wrapped;         /* some thread's timed loop went round its buffer */
    struct cht_stats stats;     /* of the table at the end (if it has stats()) */
    bool has_stats;             /* the table has stats() */
    size_t table_bytes_after_prefill;   /* stats().bytes, thread 0 after the prefill check */
    struct memsnap mem_before_create, mem_after_prefill, mem_after_run;
    struct lat_result lat;      /* --latency */
    bool counters_ok;           /* --counters: every thread counted */
    double counter_per_op[CNT_MAX_EVENTS];
    struct tl_sample { double t_ms; uint64_t ops, hot_base; } *timeline;  /* --timeline: malloc'ed, caller frees */
    size_t ntimeline;
    char error[256];            /* fatal error (create failed, pinning refused) */
};

/* Returns 0 when the run happened (check outcome), -1 on a fatal error. */
int runner_run(const struct run_params *p, struct run_result *r);

/* Registers the current run's stop flags with the signal handler (NULL: none). */
void runner_watch_stop(int *warm_stop, int *stop);

/* Before any run: measures the table's bytes per key with a small table and
 * refuses (-1, err set) a --initial whose estimate exceeds the memory left
 * (MemAvailable, ulimit -v). Tables without stats() are not estimated. */
int runner_check_memory(const struct bench_config *cfg, const struct table_choice *t, char *err, size_t len);

#endif
