/*
 * check.h - the conformance checks of tables and locks, one implementation
 * for the test suite (tests/test_conformance.c, tests/test_locks.c) and for
 * `chtbench check` (src/check_cli.c; docs/cli.md "chtbench check").
 *
 * A check runs with the suite's operation counts (scaled by scale_pct) and,
 * when seconds > 0, stops drawing operations after about that long (split
 * evenly over its runs), so it still ends with its exact final checks.
 * The outcome is a verdict and, on failure, the first counter-example:
 * "thread 1 key 4711 insert expected true got false".
 */
#ifndef CHT_CHECK_H
#define CHT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cht.h"
#include "cht_atomic.h"
#include "lock.h"

/* UNDER_TSAN: 1 in a ThreadSanitizer build (cht_atomic.h); the checks and
 * the lock tests skip what TSan cannot run (RTM). */
#define UNDER_TSAN CHT_UNDER_TSAN

struct table_choice;                     /* registry.h */

enum check_kind {
    CHECK_MODEL,     /* one thread against a sequential model, op by op */
    CHECK_DISJOINT,  /* threads on disjoint key sets (the second round resizes from tiny) */
    CHECK_STABLE,    /* never-removed keys always found while others churn (and resize) */
    CHECK_STRESS,    /* 16 threads, 64 keys: size and values exact after every run */
    CHECK_VALUES,    /* no torn or foreign value under concurrent updates */
    CHECK_STEADY,    /* the steady state does not grow */
    CHECK_VERSIONS,  /* unique values: no lost update, stale read or value never written */
    CHECK_HISTORY,   /* every answer of a concurrent run on shared keys linearizable (src/history.c) */
    CHECK_TABLE_KINDS
};

enum check_verdict { CHECK_PASS, CHECK_FAIL, CHECK_SKIP };

/* "model", "disjoint", ...; NULL past the last */
const char *check_kind_name(enum check_kind k);

struct check_ctx {
    /* in */
    const struct table_choice *choice;   /* the parsed table spec */
    const struct cht_ops *ops;           /* choice->ops, or a wrapper of it (fault hooks, src/faults.h) */
    const char *spec;                    /* as given, for messages; NULL: choice->text */
    size_t value_size;                   /* cht_config.value_size (8: inline) */
    size_t initial_capacity;             /* > 0: every table created for at most this many keys (it grows) */
    unsigned scale_pct;                  /* op counts in percent of the suite's (0: 100) */
    double seconds;                      /* > 0: time bound of the check (its op loops) */
    unsigned threads;                    /* > 0: thread count of the concurrent checks instead of the suite's */
    unsigned stress_threads;             /* stress runs at least this many threads (and at least 16) */
    FILE *log;                           /* progress lines as the suite prints them; NULL: none */
    FILE *fail_log;                      /* every failed check as it happens ("FAIL ..."); NULL: none */
    void (*before_create)(void);         /* called before each table is created; may be NULL */
    /* out */
    enum check_verdict verdict;
    int failures;
    uint64_t ops_done;                   /* operations issued on the table */
    char detail[512];                    /* FAIL: the first counter-example; SKIP: why; PASS: what ran */
};

/* Runs one check; fills the out fields and returns the verdict. A table
 * without data (CHT_CAP_NO_DATA) passes only the stress accounting;
 * approximate tables (filters) run the approximate variants. */
enum check_verdict check_table(struct check_ctx *c, enum check_kind k);

/* ---- locks ---- */
enum lock_check_kind {
    LCHECK_MUTEX,    /* threads x iters acquisitions: an exact counter, nobody inside twice */
    LCHECK_RW,       /* 1 in 8 writes an 8-word record: no mixed record, no writer beside a reader */
    LCHECK_KINDS
};
const char *lock_check_kind_name(enum lock_check_kind k);

struct lock_check {
    /* in */
    const struct lock_ops *ops;
    struct lock_config cfg;              /* numa_nodes, handoff_bound, waiter_threshold; max_threads set here */
    unsigned threads;
    unsigned node_mod;                   /* thread tid's ctx is on "node" tid % node_mod (0: numa_nodes) */
    uint64_t iters;                      /* per thread */
    double seconds;                      /* > 0: threads stop acquiring after about this long */
    unsigned trylock_every;              /* mutex: every n-th acquisition by spinning on trylock (0: never) */
    unsigned write_one_in, read_spin;    /* rw: 0: read only; relax() steps inside a read */
    FILE *log;                           /* a line per run; NULL: none */
    /* called for every thread's ctx after the run, before the lock is destroyed; may be NULL */
    void (*each_ctx)(void *ctx, unsigned tid, void *arg);
    void *arg;
    /* out */
    enum check_verdict verdict;
    uint64_t acquisitions;               /* done, all threads */
    int max_readers;                     /* rw: most readers seen inside at once */
    bool have_stats;
    struct lock_stats stats;             /* stats() + every ctx_stats() */
    char detail[512];
};
enum check_verdict lock_check_run(struct lock_check *l, enum lock_check_kind k);

/* `chtbench check ...` (src/check_cli.c): argv[0] is "check". Returns the exit status. */
int check_main(int argc, char **argv);

#endif
