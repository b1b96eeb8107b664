/*
 * lockbench.c - lock-only benchmarks: a mutex counter bench and RWBench
 * (Calciu et al., PPoPP'13) with their invariants (docs/measurement.md
 * "Lock benchmarks").
 *
 *   main: allocate the lock (64-byte aligned, lock_size bytes), init it with
 *         a lock_config from the pin plan, spawn n workers
 *   worker: pin -> allocate its own ctx (64-byte aligned, ctx_size bytes) and
 *           ctx_init(ctx, tid, node) -> barrier (start) -> loop until stop
 *   main: sleeps d ms after the barrier, raises stop, joins, sums ctx_stats,
 *         checks the invariant, destroys the lock.
 *
 * --bench mutex: each iteration lock(); the 4 shared counters of one cache
 * line are incremented with a relaxed load and a relaxed store each (a
 * non-atomic read-modify-write: only mutual exclusion keeps them exact, two
 * holders at once lose increments); --cs work units; unlock(); --ncs units.
 * Invariant: every counter == total acquisitions.
 *
 * --bench rwlock (RWBench, Calciu et al., PPoPP'13 §4.1): each iteration a Bernoulli draw with
 * P(write) = --write %: a writer, under lock(), adds v to one random element
 * of the shared 64-integer array and subtracts v from another, --wcs times,
 * and bumps a writer-only counter non-atomically; a reader, under
 * read_lock(), sums the whole array (a nonzero sum means it saw a half-done
 * write) and does --rcs work units. Then --ncs units outside. Invariant: the
 * final sum is 0 (mod 2^64), no reader saw a nonzero sum, and the writer
 * counter == writes. Locks without a shared mode run it too: their
 * read_lock is lock.
 *
 * A work unit is one step of a dependent LCG chain in a register: no memory
 * traffic, no shared writes, a few cycles (multiply latency) each.
 * Per-thread counts live in registers during the loop and are written once,
 * to the worker's own padded slot, at the end.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cht_env.h"
#include "lockbench.h"
#include "mode.h"
#include "runner.h"
#include "team.h"
#include "registry.h"
#include "report.h"
#include "util.h"

#define LB_LINE 64

struct lb_shared {
    const struct lb_params *p;
    const struct lock_ops *ops;
    void *lock;
    struct team team;
    alignas(LB_LINE) int stop;                        /* its own line */
    alignas(LB_LINE) uint64_t counter[LB_COUNTERS];   /* mutex: one line */
    alignas(LB_LINE) uint64_t array[LB_ARRAY];        /* rwlock: 8 lines */
    alignas(LB_LINE) uint64_t write_counter;          /* rwlock: writers only */
};

struct lb_worker {
    alignas(LB_LINE) unsigned tid;
    struct lb_shared *s;
    void *ctx;
    uint64_t acq, reads, writes, violations, sink;
    uint64_t t_start, t_end;
    bool no_memory;
    char pin_error[160];
};

static size_t round_line(size_t n) { return n ? (n + LB_LINE - 1) / LB_LINE * LB_LINE : LB_LINE; }

static inline uint64_t lb_work(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x));   /* keep every step: no closed form, no vectorising */
    }
    return x;
}

/* CHTBENCH_TEST_LOCKBENCH_NO_LOCK=1 (docs/cli.md "Test hooks"): every lock call is
 * this no-op, so the critical sections race and the invariant must fail. */
static void no_lock(void *l, void *ctx) { (void)l, (void)ctx; }

static bool lock_disabled(void)
{
    return cht_env()->lockbench_no_lock;
}

static inline void bump(uint64_t *p, uint64_t d)
{
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + d, __ATOMIC_RELAXED);
}

static void mutex_loop(struct lb_worker *w)
{
    struct lb_shared *s = w->s;
    const struct bench_config *cfg = s->p->cfg;
    bool off = lock_disabled();
    void (*lock)(void *, void *) = off ? no_lock : s->ops->lock;
    void (*unlock)(void *, void *) = off ? no_lock : s->ops->unlock;
    void *l = s->lock, *ctx = w->ctx;
    uint64_t *c = s->counter;
    const int *stop = &s->stop;
    const uint64_t cs = cfg->cs, ncs = cfg->ncs;
    uint64_t acq = 0, x = w->tid + 1;

    w->t_start = now_ns();
    while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
        lock(l, ctx);
        bump(&c[0], 1);
        bump(&c[1], 1);
        bump(&c[2], 1);
        bump(&c[3], 1);
        x = lb_work(x, cs);
        unlock(l, ctx);
        acq++;
        x = lb_work(x, ncs);
    }
    w->t_end = now_ns();
    w->acq = acq;
    w->writes = acq;
    w->sink = x;
}

static void rw_loop(struct lb_worker *w)
{
    struct lb_shared *s = w->s;
    const struct lb_params *p = s->p;
    const struct bench_config *cfg = p->cfg;
    const struct lock_ops *o = s->ops;
    bool off = lock_disabled();
    void (*lock)(void *, void *) = off ? no_lock : o->lock;
    void (*unlock)(void *, void *) = off ? no_lock : o->unlock;
    void (*rlock)(void *, void *) = off ? no_lock : o->read_lock ? o->read_lock : o->lock;
    void (*runlock)(void *, void *) = off ? no_lock : o->read_lock ? o->read_unlock : o->unlock;
    void *l = s->lock, *ctx = w->ctx;
    uint64_t *a = s->array;
    const int *stop = &s->stop;
    const uint64_t rcs = cfg->rcs, wcs = cfg->wcs, ncs = cfg->ncs, pct = cfg->write_pct;
    uint64_t reads = 0, writes = 0, viol = 0, x = w->tid + 1;
    struct cht_rng rng;
    cht_rng_seed(&rng, cfg->seed + p->rep, w->tid);

    w->t_start = now_ns();
    while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
        if (cht_rng_below(cht_rng_next(&rng), 100) < pct) {
            lock(l, ctx);
            for (uint64_t j = 0; j < wcs; j++) {
                uint64_t r = cht_rng_next(&rng);
                uint64_t v = (r >> 12) | 1;              /* never 0: a lost update always shows */
                bump(&a[r & (LB_ARRAY - 1)], v);
                bump(&a[(r >> 6) & (LB_ARRAY - 1)], 0 - v);
            }
            bump(&s->write_counter, 1);
            unlock(l, ctx);
            writes++;
        } else {
            rlock(l, ctx);
            uint64_t sum = 0;
            for (unsigned i = 0; i < LB_ARRAY; i++)
                sum += __atomic_load_n(&a[i], __ATOMIC_RELAXED);
            x = lb_work(x ^ sum, rcs);
            runlock(l, ctx);
            viol += sum != 0;
            reads++;
        }
        x = lb_work(x, ncs);
    }
    w->t_end = now_ns();
    w->reads = reads;
    w->writes = writes;
    w->acq = reads + writes;
    w->violations = viol;
    w->sink = x;
}

static void *worker_main(void *arg)
{
    struct lb_worker *w = arg;
    struct lb_shared *s = w->s;
    const struct lb_params *p = s->p;
    if (pin_apply(p->topo, p->plan, w->tid, w->pin_error, sizeof w->pin_error) != 0 && !w->pin_error[0])
        snprintf(w->pin_error, sizeof w->pin_error, "--pin: cannot pin thread %u", w->tid);
    /* the ctx is allocated and initialised by its thread, after pinning: first touch on its node */
    if (s->ops->ctx_size) {
        w->ctx = aligned_alloc(LB_LINE, round_line(s->ops->ctx_size));
        if (w->ctx) {
            memset(w->ctx, 0, round_line(s->ops->ctx_size));
            if (s->ops->ctx_init) {
                unsigned nodes = p->plan->numa_nodes ? p->plan->numa_nodes : 1;
                unsigned node = pin_plan_node(p->plan, w->tid);
                s->ops->ctx_init(w->ctx, w->tid, node < nodes ? node : node % nodes);
            }
        } else {
            w->no_memory = true;
        }
    }
    team_wait(&s->team);                     /* all ready: go */
    if (!w->no_memory) {
        if (p->cfg->bench == BENCH_RWLOCK)
            rw_loop(w);
        else
            mutex_loop(w);
    }
    return NULL;
}

int lockbench_run(const struct lb_params *p, struct lb_result *r)
{
    const struct bench_config *cfg = p->cfg;
    const struct lock_ops *o = p->lock;
    memset(r, 0, sizeof *r);
    struct lb_shared *s = aligned_alloc(LB_LINE, round_line(sizeof *s));
    struct lb_worker *w = aligned_alloc(LB_LINE, round_line(sizeof *w * p->threads));
    void *lock = aligned_alloc(LB_LINE, round_line(o->lock_size));
    if (!s || !w || !lock) {
        snprintf(r->error, sizeof r->error, "--bench: out of memory");
        free(s), free(w), free(lock);
        return -1;
    }
    memset(s, 0, sizeof *s);
    memset(w, 0, sizeof *w * p->threads);
    memset(lock, 0, round_line(o->lock_size));
    struct lock_config lc = {
        .numa_nodes = p->plan->numa_nodes ? p->plan->numa_nodes : 1,
        .max_threads = p->threads,
        .handoff_bound = cfg->handoff_bound,
        .waiter_threshold = cfg->waiter_threshold,
    };
    o->init(lock, &lc);
    s->p = p;
    s->ops = o;
    s->lock = lock;
    for (unsigned i = 0; i < p->threads; i++) {
        w[i].tid = i;
        w[i].s = s;
    }
    if (team_start(&s->team, p->threads, true, worker_main, w, sizeof *w) != 0) {
        snprintf(r->error, sizeof r->error, "--bench: out of memory");
        if (o->destroy)
            o->destroy(lock);
        free(s), free(w), free(lock);
        return -1;
    }
    runner_watch_stop(NULL, &s->stop);
    team_wait(&s->team);                     /* go */
    runner_sleep_ms(cfg->duration_ms);
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    team_join(&s->team);
    runner_watch_stop(NULL, NULL);
    clock_gettime(CLOCK_REALTIME, &r->end_time);
    r->interrupted = runner_interrupted != 0;

    uint64_t t0 = UINT64_MAX, t1 = 0, lo = UINT64_MAX, hi = 0;
    const char *pin_error = NULL;
    bool no_memory = false;
    for (unsigned i = 0; i < p->threads; i++) {
        if (w[i].pin_error[0] && !pin_error)
            pin_error = w[i].pin_error;
        no_memory |= w[i].no_memory;
        r->acquisitions += w[i].acq;
        r->reads += w[i].reads;
        r->writes += w[i].writes;
        r->reader_violations += w[i].violations;
        lo = w[i].acq < lo ? w[i].acq : lo;
        hi = w[i].acq > hi ? w[i].acq : hi;
        t0 = w[i].t_start < t0 ? w[i].t_start : t0;
        t1 = w[i].t_end > t1 ? w[i].t_end : t1;
    }
    r->elapsed_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
    r->acq_per_s = r->elapsed_s > 0 ? (double)r->acquisitions / r->elapsed_s : 0;
    r->min_share = r->acquisitions ? (double)lo / (double)r->acquisitions : 0;
    r->max_share = r->acquisitions ? (double)hi / (double)r->acquisitions : 0;

    /* counters: the lock's own, then every thread's (HTM counters live in the ctx) */
    r->has_lock_stats = o->stats || o->ctx_stats;
    if (o->stats)
        o->stats(lock, &r->ls);
    for (unsigned i = 0; o->ctx_stats && i < p->threads; i++)
        if (w[i].ctx)
            o->ctx_stats(w[i].ctx, &r->ls);

    /* the invariant */
    for (unsigned k = 0; k < LB_COUNTERS; k++)
        r->counter[k] = s->counter[k];
    uint64_t sum = 0;
    for (unsigned i = 0; i < LB_ARRAY; i++)
        sum += s->array[i];
    r->final_sum = (int64_t)sum;
    r->write_counter = s->write_counter;
    if (cfg->bench == BENCH_RWLOCK) {
        r->invariant_ok = sum == 0 && r->reader_violations == 0 && r->write_counter == r->writes;
    } else {
        r->invariant_ok = true;
        for (unsigned k = 0; k < LB_COUNTERS; k++)
            r->invariant_ok &= r->counter[k] == r->acquisitions;
    }

    if (o->destroy)
        o->destroy(lock);
    for (unsigned i = 0; i < p->threads; i++)
        free(w[i].ctx);
    free(lock);
    free(w);
    free(s);
    if (pin_error || no_memory) {
        snprintf(r->error, sizeof r->error, "%s", pin_error ? pin_error : "--bench: out of memory for a lock ctx");
        return -1;
    }
    return 0;
}

static const char *bench_name(enum bench_kind b) { return b == BENCH_RWLOCK ? "rwlock" : "mutex"; }

static void report_failure(const struct lb_params *p, const struct lb_result *r)
{
    const char *b = bench_name(p->cfg->bench);
    if (p->cfg->bench == BENCH_RWLOCK)
        fprintf(stderr,
                "chtbench: INVARIANT FAILURE: --bench %s, lock %s, %u threads, rep %u: final array sum %lld "
                "(expected 0), %llu reads saw a nonzero sum, writer counter %llu (expected writes = %llu): "
                "the lock does not exclude\n",
                b, p->lock->name, p->threads, p->rep, (long long)r->final_sum,
                (unsigned long long)r->reader_violations, (unsigned long long)r->write_counter,
                (unsigned long long)r->writes);
    else
        fprintf(stderr,
                "chtbench: INVARIANT FAILURE: --bench %s, lock %s, %u threads, rep %u: shared counters %llu %llu "
                "%llu %llu, expected acquisitions = %llu each: the lock does not exclude\n",
                b, p->lock->name, p->threads, p->rep, (unsigned long long)r->counter[0],
                (unsigned long long)r->counter[1], (unsigned long long)r->counter[2],
                (unsigned long long)r->counter[3], (unsigned long long)r->acquisitions);
}

/* ---------------- the mode (mode.h): one cell per (lock, thread count) ---------------- */

static unsigned lock_cells(const struct run_context *ctx) { return ctx->cfg->nlocks * ctx->cfg->nthreads; }

static void lock_cell(const struct run_context *ctx, unsigned i, struct mode_cell *c)
{
    const struct bench_config *cfg = ctx->cfg;
    unsigned l = i / cfg->nthreads, n = i % cfg->nthreads;
    *c = (struct mode_cell){ .name = cfg->locks[l]->name, .subject = l, .threads = cfg->threads[n],
                             .plan = &ctx->plans[n], .reps = cfg->reps, .sub = { l, n } };
}

static int lock_run(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result)
{
    struct lb_result *r = result;
    struct lb_params p = { .cfg = ctx->cfg, .lock = ctx->cfg->locks[c->subject], .threads = c->threads,
                           .topo = ctx->topo, .plan = c->plan, .rep = rep };
    if (lockbench_run(&p, r) != 0) {
        fprintf(stderr, "chtbench: %s\n", r->error);
        return REP_FATAL;
    }
    if (r->interrupted)
        return REP_INTERRUPTED;
    if (!r->invariant_ok) {
        report_failure(&p, r);
        return EXIT_FAILED;
    }
    return 0;
}

/* ---------------- the lock-bench CSV (--csv, --json): docs/csv.md "Lock-bench CSV" ---------------- */

/* One repetition of a lock bench, as its row sees it. */
struct lock_record {
    const struct bench_config *cfg;
    const struct lock_ops *lock;
    unsigned threads;
    unsigned rep;
    bool oversubscribed;
    bool has_speedup;           /* this lock's 1-thread median is known */
    double speedup;             /* acq_per_s / median acq_per_s of its 1-thread runs */
    const struct lb_result *r;
};

/* mutex: the smallest and largest of the 4 shared counters (both == acquisitions when ok) */
static uint64_t counter_min(const struct lb_result *r)
{
    uint64_t lo = r->counter[0];
    for (unsigned k = 1; k < LB_COUNTERS; k++)
        lo = r->counter[k] < lo ? r->counter[k] : lo;
    return lo;
}
static uint64_t counter_max(const struct lb_result *r)
{
    uint64_t hi = r->counter[0];
    for (unsigned k = 1; k < LB_COUNTERS; k++)
        hi = r->counter[k] > hi ? r->counter[k] : hi;
    return hi;
}

/* plugin, plugin_sha256 (lock schema 3): the plugin that provided the lock, empty for built-ins */
static const char *plugin_of(const struct lock_record *rec, bool sha)
{
    const struct registry_plugin *p = registry_lock_plugin(rec->lock);
    return p ? (sha ? p->sha256 : p->name) : "";
}

/* --bench mutex|rwlock --csv, then the context: one declaration a column (report.h) */
#define LOCK_COLUMNS(X, S) \
    S(SCHEMA, "lock-bench schema version (" REPORT_STR(LOCK_CSV_SCHEMA_VERSION) ")") \
    S(RUN_ID, "the invocation's id, as in the table CSV") \
    X(CSV, bench, "text", "", "bench", "`mutex` or `rwlock`", VAL_S(cfg->bench == BENCH_RWLOCK ? "rwlock" : "mutex")) \
    S(TIMESTAMP, "end of the repetition, UTC, ISO 8601 with milliseconds") \
    S(HOST, "hostname") \
    X(CSV, lock, "text", "", "lock", "lock name (`--list=locks`)", VAL_S(rec->lock->name)) \
    X(CSV, threads, "int", "", "threads", "threads contending for the one lock", VAL_U(rec->threads)) \
    X(CSV, pin, "text", "", "pin", "`default`, `compact`, `balanced`, `list`", VAL_S(pin_policy_name(cfg->pin.policy))) \
    X(CSV, oversubscribed, "int", "", "", "1 when threads exceed the usable CPUs (or a `list:` repeats a CPU)", VAL_U(rec->oversubscribed)) \
    X(CSV, seed, "int", "", "seed", "`--seed` (rwlock: thread `t` of repetition `k` draws from stream `(seed + k, t)`)", VAL_U(cfg->seed)) \
    X(CSV, duration_ms, "int", "ms", "duration", "`-d`", VAL_U(cfg->duration_ms)) \
    X(CSV, rep, "int", "", "", "repetition, from 0", VAL_U(rec->rep)) \
    X(CSV, cs, "int", "", "cs", "mutex: `--cs` work units inside the critical section; empty for rwlock", VAL_OU(!rw, cfg->cs)) \
    X(CSV, ncs, "int", "", "ncs", "`--ncs` work units outside it", VAL_U(cfg->ncs)) \
    X(CSV, write_pct, "int", "%", "write", "rwlock: `--write`, probability (%) that an iteration writes; empty for mutex", VAL_OU(rw, cfg->write_pct)) \
    X(CSV, rcs, "int", "", "rcs", "rwlock: `--rcs` work units of a read critical section", VAL_OU(rw, cfg->rcs)) \
    X(CSV, wcs, "int", "", "wcs", "rwlock: `--wcs` add/subtract pairs of a write critical section", VAL_OU(rw, cfg->wcs)) \
    X(CSV, handoff_bound, "int", "", "handoff", "`lock_config.handoff_bound` (`--handoff`)", VAL_U(cfg->handoff_bound)) \
    X(CSV, waiter_threshold, "int", "", "waiters", "`lock_config.waiter_threshold` (`--waiters`)", VAL_U(cfg->waiter_threshold)) \
    X(CSV, elapsed_s, "float", "s", "", "last thread's end − first thread's start", VAL_D(r->elapsed_s)) \
    X(CSV, acquisitions, "int", "", "", "critical sections of all threads (mutex: `lock()`s; rwlock: reads + writes)", VAL_U(r->acquisitions)) \
    X(CSV, acq_per_s, "float", "1/s", "", "acquisitions / elapsed_s", VAL_D(r->acq_per_s)) \
    X(CSV, reads, "int", "", "", "rwlock: `read_lock()` sections; mutex: 0", VAL_U(r->reads)) \
    X(CSV, writes, "int", "", "", "rwlock: `lock()` sections; mutex: = acquisitions", VAL_U(r->writes)) \
    X(CSV, min_share, "float", "share", "", "smallest per-thread acquisitions / acquisitions (fair: 1/threads)", VAL_D(r->min_share)) \
    X(CSV, max_share, "float", "share", "", "largest per-thread share; with one thread both are 1", VAL_D(r->max_share)) \
    X(CSV, speedup, "float", "", "", "acq_per_s / median acq_per_s of this lock's 1-thread repetitions (S = T(N)/T(1), as in the Tsinghua 2012 thesis on OS scalability on multicore, §1.1.2); empty without 1 in `--threads` before this count", VAL_OD(rec->has_speedup, rec->speedup)) \
    X(CSV, counter_min, "int", "", "", "mutex: smallest of the 4 shared counters after the run; empty for rwlock", VAL_OU(!rw, counter_min(r))) \
    X(CSV, counter_max, "int", "", "", "mutex: largest of them (`invariant_ok` needs both = acquisitions)", VAL_OU(!rw, counter_max(r))) \
    X(CSV, final_sum, "int", "", "", "rwlock: sum of the 64-integer array after the run, signed (must be 0); empty for mutex", if (rw) VAL_I(r->final_sum); else VAL_NONE()) \
    X(CSV, reader_violations, "int", "", "", "rwlock: read sections that saw a nonzero sum (a half-done write)", VAL_OU(rw, r->reader_violations)) \
    X(CSV, write_counter, "int", "", "", "rwlock: counter bumped non-atomically by writers (must equal writes)", VAL_OU(rw, r->write_counter)) \
    X(CSV, invariant_ok, "int", "", "", "1 when the bench's invariant held; 0 also prints `INVARIANT FAILURE` and exits 1", VAL_U(r->invariant_ok)) \
    X(CSV, tx_begins, "int", "", "", "RTM transactions started: `lock_ops.stats` + every thread's `ctx_stats`; empty for locks that count nothing", VAL_OU(r->has_lock_stats, r->ls.tx_begins)) \
    X(CSV, tx_commits, "int", "", "", "transactions committed (same source)", VAL_OU(r->has_lock_stats, r->ls.tx_commits)) \
    X(CSV, tx_aborts, "int", "", "", "transactions aborted", VAL_OU(r->has_lock_stats, r->ls.tx_aborts)) \
    X(CSV, abort_conflict, "int", "", "", "aborts with `_XABORT_CONFLICT`", VAL_OU(r->has_lock_stats, r->ls.abort_conflict)) \
    X(CSV, abort_capacity, "int", "", "", "aborts with `_XABORT_CAPACITY`", VAL_OU(r->has_lock_stats, r->ls.abort_capacity)) \
    X(CSV, abort_explicit, "int", "", "", "aborts by `xabort` (e.g. the fallback lock was held)", VAL_OU(r->has_lock_stats, r->ls.abort_explicit)) \
    X(CSV, abort_retry, "int", "", "", "aborts with `_XABORT_RETRY`", VAL_OU(r->has_lock_stats, r->ls.abort_retry)) \
    X(CSV, abort_other, "int", "", "", "other aborts", VAL_OU(r->has_lock_stats, r->ls.abort_other)) \
    X(CSV, fallbacks, "int", "", "", "acquisitions that took the fallback lock", VAL_OU(r->has_lock_stats, r->ls.fallbacks)) \
    X(CSV, plugin, "text", "", "", "the plugin (docs/plugins.md) that provided the lock; empty for built-ins", VAL_S(plugin_of(rec, false))) \
    X(CSV, plugin_sha256, "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins", VAL_S(plugin_of(rec, true)))

#define LOCK_FN(where, name, type, unit, flag, meaning, value)                       \
    static void lock_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                \
        const struct lock_record *rec = item;                                        \
        const struct bench_config *cfg = rec->cfg;                                   \
        const struct lb_result *r = rec->r;                                          \
        bool rw = cfg->bench == BENCH_RWLOCK;                                        \
        (void)r, (void)rw, (void)row;                                                \
        value;                                                                       \
    }
#define LOCK_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, lock_##name),
LOCK_COLUMNS(LOCK_FN, REPORT_NO_FN)
static const struct report_col lock_cols[] = { LOCK_COLUMNS(LOCK_ENTRY, REPORT_SHARED_ENTRY) };

static const struct timespec *lock_end(const void *item) { return &((const struct lock_record *)item)->r->end_time; }

static const struct report_schema lock_schema = {
    "lock", LOCK_CSV_SCHEMA_VERSION, "L", "--csv of --bench mutex|rwlock", "chtbench lock-bench CSV (--bench)",
    { REPORT_PART(lock_cols), REPORT_CONTEXT_PART }, lock_end, NULL,
};

/* ---------------- the console ---------------- */

/* One console line per (lock, threads). */
struct lb_summary {
    const char *lock;
    unsigned threads, n;        /* n: repetitions that ran */
    double median, min, max;    /* Macq/s over the repetitions */
    double min_share, max_share;/* over all repetitions */
    double write_share;         /* rwlock: writes / acquisitions, all repetitions */
    bool has_speedup;
    double speedup;             /* median / 1-thread median */
    bool ok;                    /* every invariant held */
};

static void console_header(FILE *f, const struct bench_config *c)
{
    if (c->bench == BENCH_RWLOCK)
        fprintf(f, "# bench=rwlock write=%u%% rcs=%llu wcs=%llu ncs=%llu", c->write_pct, (unsigned long long)c->rcs,
                (unsigned long long)c->wcs, (unsigned long long)c->ncs);
    else
        fprintf(f, "# bench=mutex cs=%llu ncs=%llu", (unsigned long long)c->cs, (unsigned long long)c->ncs);
    fprintf(f, "  d=%llums  reps=%u  pin=%s  seed=%llu\n", (unsigned long long)c->duration_ms, c->reps,
            pin_policy_name(c->pin.policy), (unsigned long long)c->seed);
    fprintf(f, "%-14s %7s %10s %9s %9s %8s %9s %9s%s  %s\n", "lock", "threads", "Macq/s:med", "min", "max", "speedup",
            "min_share", "max_share", c->bench == BENCH_RWLOCK ? "   writes" : "", "check");
}

static void console_summary(FILE *f, const struct bench_config *c, const struct lb_summary *s)
{
    char speedup[32] = "-", wr[32] = "";
    if (s->has_speedup)
        snprintf(speedup, sizeof speedup, "%.2f", s->speedup);
    if (c->bench == BENCH_RWLOCK)
        snprintf(wr, sizeof wr, " %7.2f%%", 100 * s->write_share);
    fprintf(f, "%-14s %7u %10.3f %9.3f %9.3f %8s %9.4f %9.4f%s  %s\n", s->lock, s->threads, s->median, s->min, s->max,
            speedup, s->min_share, s->max_share, wr, s->ok ? "ok" : "FAILED");
    fflush(f);
}

static double lock_metric(const void *result) { return ((const struct lb_result *)result)->acq_per_s; }

static void lock_rows(struct run_context *ctx, const struct mode_cell *c, unsigned rep, const void *result,
                      struct speedup s)
{
    struct lock_record rec = { .cfg = ctx->cfg, .lock = ctx->cfg->locks[c->subject], .threads = c->threads,
                               .rep = rep, .oversubscribed = mode_oversubscribed(ctx, c), .r = result,
                               .has_speedup = s.known, .speedup = s.value };
    mode_emit(ctx, &lock_schema, &rec);
}

static void lock_console_header(struct run_context *ctx) { console_header(ctx->human, ctx->cfg); }

static void lock_console_summary(struct run_context *ctx, const struct mode_cell *c, const void *results, unsigned n,
                                 struct speedup s)
{
    const struct lb_result *res = results;
    double v[n];
    struct lb_summary ls = { .lock = c->name, .threads = c->threads, .n = n, .ok = true, .min_share = 1,
                             .max_share = 0, .has_speedup = s.known, .speedup = s.value };
    uint64_t acq = 0, writes = 0;
    for (unsigned i = 0; i < n; i++) {
        v[i] = res[i].acq_per_s;
        ls.ok &= res[i].invariant_ok;
        ls.min_share = res[i].min_share < ls.min_share ? res[i].min_share : ls.min_share;
        ls.max_share = res[i].max_share > ls.max_share ? res[i].max_share : ls.max_share;
        acq += res[i].acquisitions;
        writes += res[i].writes;
    }
    struct summary sm;
    summarize(v, n, &sm);
    ls.write_share = acq ? (double)writes / (double)acq : 0;
    ls.median = sm.median / 1e6;
    ls.min = sm.min / 1e6;
    ls.max = sm.max / 1e6;
    console_summary(ctx->human, ctx->cfg, &ls);
}

static int lock_prepare(struct run_context *ctx)
{
    (void)ctx;   /* the locks were checked by the command line (src/cli/); the plans are made */
    return 0;
}

#define LOCK_MODE(NAME)                                                                   \
    {                                                                                     \
        .name = NAME, .files = { [OUT_MAIN] = &lock_schema },                         \
        .result_size = sizeof(struct lb_result),                                      \
        .prepare = lock_prepare,                                                          \
        .cells = lock_cells, .cell = lock_cell, .run = lock_run, .metric = lock_metric,   \
        .rows = lock_rows, .console_header = lock_console_header,                         \
        .console_summary = lock_console_summary,                                          \
    }
const struct mode mutex_mode = LOCK_MODE("mutex");
const struct mode rwlock_mode = LOCK_MODE("rwlock");
