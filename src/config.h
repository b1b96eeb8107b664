/* config.h - one benchmark invocation, as parsed and validated by src/cli/: set
 * by cli_parse and never changed after. What a run opens, loads or measures
 * before its first repetition is its context (context.h). */
#ifndef CHT_CONFIG_H
#define CHT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include "registry.h"
#include "keygen.h"
#include "pin.h"
#include "latency.h"
#include "mode_list.h"
#include "keys_bytes.h"

#define MAX_TABLES 32
#define MAX_THREADS 4096

enum prefill_mode { PREFILL_SINGLE, PREFILL_PARALLEL };
/* --bench: the table loop (default), a lock-only benchmark, ... (mode_list.h) */
enum bench_kind {
#define BENCH_KIND(id, name, mode, check) BENCH_##id,
    CHT_BENCH_MODES(BENCH_KIND)
#undef BENCH_KIND
    N_BENCH_KINDS
};
#define MAX_BENCH_LOCKS 64
enum mem_policy { MEM_LOCAL, MEM_INTERLEAVE, MEM_NODE };
/* --verify: the key sweep after each run (docs/cli.md "The final check") */
enum verify_mode { VERIFY_OFF, VERIFY_FULL, VERIFY_SAMPLE, VERIFY_AUTO };
static inline const char *verify_mode_name(enum verify_mode m)
{
    return m == VERIFY_FULL ? "full" : m == VERIFY_SAMPLE ? "sample" : m == VERIFY_AUTO ? "auto" : "off";
}
struct outfile;
/* --workload: YCSB core workloads (docs/cli.md "Workloads") */
enum workload { WL_NONE = 0, WL_YCSB_A, WL_YCSB_B, WL_YCSB_C, WL_YCSB_D, WL_YCSB_F };
static inline const char *workload_name(enum workload w)
{
    static const char *const names[] = { "none", "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-f" };
    return names[w];
}

struct bench_config {
    struct table_choice table[MAX_TABLES];
    unsigned ntables;
    unsigned *threads;          /* thread counts to run, in order */
    unsigned nthreads;
    unsigned update, insert, remove;   /* percent; insert + remove == update */
    uint64_t initial, range;
    uint64_t initial_capacity;  /* --initial-capacity N (--grow: 1): a resizable table created for N keys; 0: not given */
    double density;
    uint64_t duration_ms;       /* timed phase length; 0 when --ops is used */
    uint64_t ops;               /* operations per thread; 0 when --duration is used */
    unsigned reps;
    struct keygen_spec dist;
    enum workload workload;     /* --workload: an op mix (and distribution) instead of -u/--insert/--remove */
    const char *trace_path;     /* --trace FILE: replay it (workloads/trace.h) */
    uint64_t seed;
    enum prefill_mode prefill;
    struct pin_spec pin;
    enum mem_policy mem;
    int mem_node;
    const char *topology;       /* --topology: only with --print-pinning */
    bool print_pinning;
    const char *csv;            /* NULL: no CSV; "-": standard output */
    uint64_t warmup_ms;         /* --warmup: uncounted operations after the start barrier */
    uint64_t keybuf;            /* --keybuf: pre-generated ops per thread (0: in the loop) */
    unsigned batch;             /* --batch: gets per get_batch call (1: single gets) */
    unsigned pipeline;          /* --pipeline W: ops in flight per thread (0: single ops) */
    bool pipeline_auto;         /* --pipeline auto: W chosen by the table's size (src/run/pipe.c run_pipe_choose) */
    size_t value_size;          /* --value-size: bytes per value (8: inline; > 8: CHT_CAP_VALUE_OOL tables) */
    bool hugepages;             /* --hugepages thp (false: off) */
    const char *allocator;      /* --allocator: a name from alloc_names (src/alloc.h), NULL when not given */
    bool keys_sparse;           /* --keys sparse: every key k is keygen_sparse(k) (false: dense, 1..r) */
    struct key_type key_type;   /* --key-type: u64 (kind 0), or byte strings of an arena (keys_bytes.h) */
    bool keybuf_set;            /* given on the command line (else: automatic) */
    enum verify_mode verify;    /* --verify (VERIFY_AUTO: full when affordable) */
    uint64_t history_keys;      /* --verify history[:K]: about K watched keys (0: off; history.h) */
    bool json;
    /* measurement (docs/cli.md "Measurement") */
    uint64_t latency_every;     /* 0: no --latency; 1: every op */
    const char *latency_csv;    /* per-store log2 histograms */
    const char *counters_spec;  /* --counters, NULL: none */
    bool likwid_marker;
    uint64_t timeline_ms;       /* 0: no --timeline */
    const char *timeline_csv;
    const char *table_counters_csv;   /* --table-counters-csv */
    /* lock-only benchmarks (--bench, docs/cli.md "Lock benchmarks") */
    enum bench_kind bench;
    const struct lock_ops *locks[MAX_BENCH_LOCKS];  /* --lock with --bench, in order */
    unsigned nlocks;
    uint64_t cs, ncs, rcs, wcs;  /* work units: critical section (mutex), outside, read / write CS */
    unsigned write_pct;          /* rwlock: probability of a write iteration, percent */
    unsigned handoff_bound;      /* lock_config.handoff_bound (--handoff, default 64) */
    unsigned waiter_threshold;   /* lock_config.waiter_threshold (--waiters, default 0) */
    /* --bench memory (src/membench.c) and --ceiling */
    uint64_t *mem_sizes;         /* --size LIST, bytes; NULL: the default list */
    unsigned n_mem_sizes;
    bool duration_ms_given;      /* -d was given (--bench memory: ms per point, default 200) */
    bool ceiling;                /* --ceiling: ceiling_mops/ceiling_frac on every table row */
    unsigned ceiling_slice_ms;   /* --ceiling-slices MS: the ceiling measured in the run's own slices (0: off) */
    /* --bench occupancy (src/occupancy.c) */
    uint64_t occ_slots;          /* --slots N */
    double *occ_loads;           /* --load LIST, each in (0, 1] */
    unsigned occ_nloads;
    bool validate;               /* --validate: check everything a run would, run nothing, write nothing */
};

/* Exit codes */
#define EXIT_USAGE 2
#define EXIT_FAILED 1
#define EXIT_FULL 3     /* a fixed-capacity table filled up: results valid, workload not as asked */

#endif
