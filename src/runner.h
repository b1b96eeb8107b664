/* runner.h - one CHTBench run: create, pin, prefill, timed phase, check (src/run/). */
#ifndef CHT_RUNNER_H
#define CHT_RUNNER_H

#include <pthread.h>
#include "config.h"
#include "counters.h"
#include "latency.h"
#include "memstat.h"
#include "history.h"

struct trace;

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
    /* the run's context (src/tablemode.c), apart from the parsed settings in cfg */
    uint64_t range;                  /* the key range: cfg->range, or a loaded trace's largest key if larger */
    const struct trace *trace;       /* --trace, loaded; NULL: none */
    const struct lat_clock *lat_clock;    /* --latency: the calibrated clock; NULL: no --latency */
    const struct counter_set *counters;   /* --counters: set up; NULL: none */
};

enum op_outcome { GET_SUC, GET_FAIL, INS_SUC, INS_FAIL, REM_SUC, REM_FAIL,
                  UPD_SUC, UPD_FAIL,   /* --workload ycsb-*: update(), and read-modify-write (F) */
                  N_OUTCOMES };

/* What a repetition amounts to (CSV column `outcome`, docs/csv.md). Full and
 * out-of-memory are the table refusing inserts for a stated reason, with the
 * accounting exact: not a correctness failure. */
enum run_outcome { OUTCOME_OK, OUTCOME_FULL, OUTCOME_OOM,
                   /* correctness failures, exit 1; when several checks fail the row names the last
                    * in this order (the console prints a line for each) */
                   OUTCOME_FP_EXCESS,       /* a filter's false positives above its bound */
                   OUTCOME_KEYSUM_MISMATCH, /* the keys found are not the keys written (counts agree) */
                   OUTCOME_VALUE_MISMATCH,  /* a found key's value is not one the run wrote for it */
                   OUTCOME_MISMATCH,        /* size() or the count of keys found disagrees */
                   OUTCOME_NOT_LINEARIZABLE,/* --verify history: a watched key's answers no order explains */
                   OUTCOME_BAD_ANSWER };    /* an answer given during the run was impossible (a
                                             * pipelined step's result not 1/0, struct pipe_bad_answer) */

/* --pipeline: an op whose step left a result it may not give (the draw's CHT_PIPE_POISON
 * untouched, CHT_PIPE_AGAIN from a second step or without stage 1, anything but 1/0). */
struct pipe_bad_answer {
    cht_key_t key;
    unsigned kind;      /* enum cht_pipe_kind as the op carried it */
    int result;         /* what the step left */
    unsigned step;      /* 1: its first step, 2: its second */
};

/* The value the run writes for key k (docs/cli.md "The final check"):
 * bits 45..62 a hash of k (18 bits: a value of another key passes 1 time in
 * 2^18), bits 32..44 its writer (0 for the prefill, tid + 1 for worker tid;
 * MAX_THREADS < 2^13), bits 0..31 the writer's write sequence (each of its
 * writes a new one, mod 2^32), so that every write stores a value of its
 * own and a value never written can be told (seq past the writer's last).
 * Bit 63 stays clear, so CHT_VAL_TORN is never a value written. One
 * multiply, a shift and two ors with registers in the timed loop. */
#define RUN_VAL_SEQ_BITS 32
#define RUN_VAL_WRITER_BITS 13
#define RUN_VAL_KEY_BITS 18
#define RUN_VAL_KEY_SHIFT (RUN_VAL_SEQ_BITS + RUN_VAL_WRITER_BITS)
#define RUN_VAL_KEY_MASK (((1ull << RUN_VAL_KEY_BITS) - 1) << RUN_VAL_KEY_SHIFT)
#define RUN_VAL_SEQ_MASK ((1ull << RUN_VAL_SEQ_BITS) - 1)
static inline uint64_t run_val_keybits(uint64_t k)
{
    return (k * 0x9e3779b97f4a7c15ull) >> (64 - RUN_VAL_KEY_BITS) << RUN_VAL_KEY_SHIFT;
}
/* writer_bits: run_val_writer_bits(writer) */
static inline uint64_t run_val_writer_bits(unsigned writer) { return (uint64_t)writer << RUN_VAL_SEQ_BITS; }
static inline uint64_t run_val(uint64_t k, uint64_t writer_bits, uint64_t seq)
{
    return run_val_keybits(k) | writer_bits | (seq & RUN_VAL_SEQ_MASK);
}
static inline unsigned run_val_writer(uint64_t v)
{
    return (unsigned)(v >> RUN_VAL_SEQ_BITS) & ((1u << RUN_VAL_WRITER_BITS) - 1);
}
static inline uint64_t run_val_seq(uint64_t v) { return v & RUN_VAL_SEQ_MASK; }

/* Set from a signal handler (SIGINT/SIGTERM): the signal number, 0 if none.
 * The current run stops at once; its repetition is not recorded. */
extern volatile int runner_interrupted;
void runner_install_signals(void);
/* Sleeps ms, or less when a signal interrupts the run. */
void runner_sleep_ms(uint64_t ms);

/* What a repetition measured and found, one part per feature. */
struct run_check {                      /* the size accounting and the final check (run/final_check.c) */
    size_t prefill_size;        /* size() after the prefill barrier */
    size_t final_size;          /* size() after the timed phase */
    size_t expected_size;       /* prefilled + ins_suc - rem_suc */
    uint64_t prefilled;         /* prefill inserts that succeeded (== initial unless the table refused) */
    bool prefill_ok, size_ok;
    enum verify_mode verify_mode;       /* VERIFY_FULL, VERIFY_SAMPLE or VERIFY_OFF, as done */
    uint64_t verified_keys, verify_found, verify_expected;
    bool verify_ok;
    uint64_t verify_bad_values;         /* found keys whose value the run did not write (wrong key, version, torn) */
    uint64_t bad_key, bad_value;        /* ... the first such key the sweep met, and the value read */
    unsigned max_version;               /* the writers that wrote: 0 .. max_version (run_val) */
    uint64_t bad_writer_seqs;           /* ... the sequences bad_value's writer used: 0 .. this - 1 */
    bool keysum_checked, keysum_ok;     /* VERIFY_FULL, exact tables: sum of keys found == keysum_expected */
    uint64_t keysum_found, keysum_expected;   /* mod 2^64: prefill + inserted - removed keys */
    double verify_s;
};

struct run_filter {                     /* approximate tables (CHT_CAP_APPROXIMATE) */
    uint64_t fp_checked;        /* absent keys the final check asked */
    double fp_rate;             /* ... the share of them answered "present" */
    uint64_t false_negatives;   /* ... present keys not found (must be 0) */
    double fp_bound;            /* ... the table's theoretical false-positive rate (0: it states none) */
    double fp_limit;            /* ... the rate above which the run fails: bound + 6 sd (+3 keys) */
    bool fp_excess;             /* ... fp_rate > fp_limit */
    uint64_t filter_skipped[2]; /* ... inserts of present keys, removes of absent keys: not sent to the filter */
};

struct run_pipe {                       /* --pipeline (run/pipe.c) */
    unsigned pipeline_w;        /* ops in flight per thread in the timed loop (0: single ops) */
    enum pipe_mode { PIPE_OFF, PIPE_HOOKS, PIPE_FALLBACK, PIPE_PLAIN } pipeline_mode;
                                /* not asked; the table's pipe hooks; no hooks (single ops);
                                 * auto chose single ops (the table fits in the cache) */
    uint64_t pipe_bad;          /* steps that left an impossible result (OUTCOME_BAD_ANSWER) */
    struct pipe_bad_answer pipe_first_bad;   /* ... the first of them (of the lowest thread id) */
};

struct run_history {                    /* --verify history (run/watched.c) */
    bool hist_on;               /* it ran: */
    uint64_t hist_watch_every;  /* ... the watched keys are the multiples of this */
    uint64_t hist_watched;      /* ... of them, in the range (and YCSB-D's new keys) at the start */
    struct hist_result hist;    /* ... what its checker found (history.h) */
};

struct run_ceiling {                    /* --ceiling, --ceiling-slices (run/slices.c) */
    double ceiling_mops;        /* the machine's independent-miss rate at the table's size (0: none) */
    double ceiling_slices_s;    /* --ceiling-slices: seconds a thread chased (mean), left out of elapsed_s */
    unsigned ceiling_slices_k;  /* ... the chains a thread (16 or 32) whose rate is ceiling_mops */
};

struct run_opbuf {                      /* --keybuf, --trace (run/opstream.c) */
    uint64_t opbuf_len;         /* ops pre-generated per thread (0: drawn in the loop) */
    uint64_t opbuf_ns;          /* time all threads spent filling them (off the clock) */
    bool opbuf_wrapped;         /* some thread's timed loop went round its buffer */
};

struct run_memory {
    struct cht_stats stats;     /* of the table at the end (if it has stats()) */
    bool has_stats;             /* the table has stats() */
    size_t table_bytes_after_prefill;   /* stats().bytes, thread 0 after the prefill check */
    struct memsnap mem_before_create, mem_after_prefill, mem_after_run;
};

struct run_build {                      /* the prefill as a measured phase (run/run.c, run/prefill.c) */
    double build_s;             /* first prefill thread's start (after the barrier) .. last one's end */
    bool has_resizes;           /* the table has stats(): */
    uint64_t build_resizes;     /* ... resizes completed during the prefill */
    bool has_alloc;             /* the allocator's count could be read: */
    const char *alloc_source;   /* ... "jemalloc", "mallinfo2" or "rss" (memstat.h) */
    double alloc_bytes;         /* ... bytes handed out by create() and the prefill (memstat_alloc_take) */
};

struct run_counters {                   /* --counters */
    bool counters_ok;           /* every thread counted */
    double counter_per_op[CNT_MAX_EVENTS];
};

struct run_table_counters {             /* the table's own counters (cht_stats_counter; run/table_counters.c) */
    unsigned n;                 /* reported by stats() after the run, in its order: */
    struct table_counter { char name[CHT_COUNTER_NAME_MAX]; double value; } c[CHT_COUNTERS_MAX];
    char refused[160];          /* the first name refused (not [a-z][a-z0-9_]*, too long, twice, one too many) */
};

struct run_timeline {                   /* --timeline (run/samplers.c) */
    struct tl_sample { double t_ms; uint64_t ops, hot_base; } *samples;   /* malloc'ed, caller frees */
    size_t n;
};

struct run_result {
    uint64_t count[N_OUTCOMES];
    uint64_t total_ops;
    double elapsed_s, mops;
    uint64_t warmup_count[N_OUTCOMES];  /* --warmup: not in count[] or mops, but in the size accounting */
    uint64_t cpu_ns;            /* CPU time of all threads' timed loops */
    enum run_outcome outcome;
    bool interrupted;           /* stopped by a signal: not a result */
    struct timespec end_time;   /* CLOCK_REALTIME at the repetition's end */
    struct run_check check;
    struct run_filter filter;
    struct run_pipe pipe;
    struct run_history history;
    struct run_ceiling ceiling;
    struct run_opbuf opbuf;
    struct run_memory memory;
    struct run_build build;
    struct lat_result lat;      /* --latency */
    struct run_counters counters;
    struct run_table_counters table_counters;
    struct run_timeline timeline;
    char error[256];            /* fatal error (create failed, pinning refused) */
};

/* Returns 0 when the run happened (check outcome), -1 on a fatal error. */
int runner_run(const struct run_params *p, struct run_result *r);

/* Registers the current run's stop flags with the signal handler (NULL: none). */
void runner_watch_stop(int *warm_stop, int *stop);

/* Before any run: measures the table's bytes per key with a small table and
 * refuses (-1, err set) a --initial whose estimate exceeds the memory left
 * (MemAvailable, ulimit -v). Tables without stats() are not estimated. With
 * --initial-capacity, first refuses (-2: a usage error) a table that does not
 * grow from that size with its options. */
int runner_check_memory(const struct bench_config *cfg, const struct table_choice *t, char *err, size_t len);

#endif
