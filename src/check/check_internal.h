/*
 * check_internal.h - what the parts of the conformance checks (check.h)
 * share: the engine (engine.c: a check's run, its failures, its tables and
 * its thread teams), the table suite (table.c: model, disjoint, stable,
 * stress, values; table_order.c: versions, history; table_steady.c: steady),
 * the filter suite (filter.c: the approximate variants) and the lock suite
 * (locks.c, which needs nothing of the table checks).
 *
 * A check's state is one struct check_run, made by check_table and passed
 * down explicitly: the suites keep no state of their own, and a worker
 * reads the run (its ops, its deadline) that main set up before the team
 * started. A table that cannot be created or a thread that cannot start is
 * a failure (check_fail) and -1 returned up to check_table.
 */
#ifndef CHT_CHECK_INTERNAL_H
#define CHT_CHECK_INTERNAL_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include "check.h"
#include "cht.h"
#include "team.h"
#include "util.h"            /* now_ns */

/* the table check that runs */
struct check_run {
    struct check_ctx *ctx;               /* the caller's: log, fail_log, threads, seconds, detail */
    const struct table_choice *choice;
    const struct cht_ops *ops;           /* ctx->ops, or choice->ops */
    size_t value_size;                   /* 8: inline */
    const char *spec_text;               /* ctx->spec, or choice->text */
    unsigned scale_pct;                  /* op counts in percent of the suite's */
    int failures;
    uint64_t start_ns, deadline_ns;      /* deadline 0: none */
    uint64_t ops_total;                  /* ops issued on the table, all runs */
    char pass_note[256];                 /* what a passing check adds to its line */
    const char *skip_why;                /* the check does not apply to this table */
};

/* ---- engine.c ---- */

/* A failure: counted, the first 20 said (ctx->fail_log), the first kept
 * (ctx->detail); the check goes on to its end (and frees what it made). */
void check_fail(struct check_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define CHECK(r, cond, ...)              \
    do {                                 \
        if (!(cond))                     \
            check_fail(r, __VA_ARGS__);  \
    } while (0)

/* a progress line, as the suite prints it (ctx->log) */
void check_note(const struct check_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* with --seconds: run j of n may draw ops until its slice of the time ends */
void check_time_slice(struct check_run *r, unsigned j, unsigned n);

/* checked every 1024 ops (cheap enough for the op loops), first after 1023:
 * a run whose slice the set-up used up still does that many */
static inline bool out_of_time(const struct check_run *r, uint64_t i)
{
    return r->deadline_ns && (i & 1023) == 1023 && now_ns() > r->deadline_ns;
}

/* n of the suite's operations, scaled (at least 1) */
static inline uint64_t scaled(const struct check_run *r, uint64_t n)
{
    uint64_t s = n * r->scale_pct / 100;
    return s ? s : 1;
}

/* the suite's thread count n, or --threads */
static inline unsigned nthr(const struct check_run *r, unsigned n)
{
    return r->ctx->threads ? r->ctx->threads : n;
}

/* stress: 16 threads (more than CPUs on the suite's machines), or more */
unsigned stress_threads(const struct check_run *r);

/* A table for the check, or NULL with err filled (no failure counted). */
void *table_create_or_null(const struct check_run *r, size_t initial, double density, unsigned threads,
                           uint64_t range, char *err, size_t len);

/* A table for the check, or NULL after a failure ("create(...) failed: ..."). */
void *table_create(struct check_run *r, size_t initial, double density, unsigned threads, uint64_t range);

/* Runs n threads, thread i fn((char *)args + i * stride), on a team of n
 * (workers meet in team_wait), and joins them. Returns 0; -1 after a
 * failure when a thread could not start (no thread ran fn). */
int check_team_run(struct check_run *r, struct team *team, unsigned n, void *(*fn)(void *), void *args,
                   size_t stride);

static inline void t_init(const struct cht_ops *ops, void *t, unsigned tid)
{
    if (ops->thread_init)
        ops->thread_init(t, tid);
}

static inline void t_exit(const struct cht_ops *ops, void *t, unsigned tid)
{
    if (ops->thread_exit)
        ops->thread_exit(t, tid);
}

static inline const char *tf(bool b) { return b ? "true" : "false"; }

/* values carry their key so a torn or misplaced value is detected */
static inline cht_val_t val_for(cht_key_t k, uint64_t tag) { return (k << 8) | (tag & 0xff); }
static inline bool val_ok(cht_key_t k, cht_val_t v) { return (v >> 8) == k; }

/* the table's stats().full_failures (0 without stats) */
uint64_t full_failures(const struct cht_ops *ops, void *t);

/* a worker of the concurrent table checks */
struct worker {
    alignas(64) unsigned tid;
    const struct check_run *run;   /* ops, deadline: read only while the team runs */
    void *t;
    uint64_t seed, nops, range, nthreads;
    uint64_t ins_suc, rem_suc, ops_done;
    struct team *team;        /* met after thread_init and before thread_exit */
    cht_val_t *own;           /* disjoint: model of own keys, indexed by k */
    uint64_t *seen;           /* versions: per key, the newest version this thread wrote or read */
    uint64_t *published;      /* versions: per key, the newest version its writer is about to write */
    uint64_t nkeys;           /* versions: keys 1 .. nkeys */
    uint64_t lost, stale, unwritten;   /* versions: wrong answers by kind */
    struct hist_buf *hist;    /* history: this thread's ops */
    int errors;
    uint64_t done;            /* ops issued */
    char cex[200];            /* the first wrong result */
};

/* a wrong result seen by a worker: counted, the first one kept */
#define W_ERR(w, ...)                                                      \
    do {                                                                   \
        if (!(w)->errors++)                                                \
            snprintf((w)->cex, sizeof (w)->cex, __VA_ARGS__);              \
    } while (0)

/* after the join: the first counter-example of the lowest thread (a
 * failure), and the ops added to the run's; returns the wrong results */
int workers_check(struct check_run *r, struct worker *w, unsigned n, const char *what);

/* ---- the suites: each returns 0, or -1 when the check was cut short (after a failure) ---- */
int check_model(struct check_run *r);        /* table.c */
int check_disjoint(struct check_run *r);
int check_stable(struct check_run *r);
int check_stress(struct check_run *r);
int check_values(struct check_run *r);
int check_versions(struct check_run *r);     /* table_order.c */
int check_history(struct check_run *r);
int check_steady(struct check_run *r);       /* table_steady.c */

int filter_model(struct check_run *r);       /* filter.c: tables with CHT_CAP_APPROXIMATE */
int filter_disjoint(struct check_run *r);
int filter_stable(struct check_run *r);
int filter_stress(struct check_run *r);

#endif
