/*
 * check.c - the conformance checks of tables and locks (check.h): what
 * tests/test_conformance and tests/test_locks run on the built-in tables and
 * locks, and `chtbench check` on anyone's.
 *
 * Tables (enum check_kind):
 * model     one thread, >= 100k random get/insert/remove/update against a
 *           reference map: every return value, every value, size() exact;
 *           then the same from a tiny start (density 8.0: resizes forced).
 * disjoint  T threads, each owning the keys k = tid (mod T): each keeps its
 *           own model, so the final table state is known exactly.
 * stable    "odd" keys prefilled and never touched; writers churn the even
 *           keys (growing resizable tables) while readers must find every
 *           odd key with its value on every read (a quarter of the reads in
 *           batches of 1..16 through the pipe_start/pipe_step hooks, where
 *           the table has them).
 * stress    16 threads on a tiny range (r = 64, u = 50), many short runs:
 *           size == i + ins_suc - rem_suc exactly after every run, every
 *           value read back belongs to its key, the key count found by get()
 *           equals size().
 * values    (tables with update(), any value size) 8 keys, never
 *           removed, 12 threads (more than cores) half updating them, half
 *           reading: every get finds its key and returns a value written for
 *           it, never CHT_VAL_TORN (a value block whose words come from two
 *           writes: cht.h cht_value_read). Then inserts/removes churn beside
 *           the updates (value blocks retired with their items or nodes).
 * steady    (tables with update() or CHT_CAP_VALUE_OOL) the steady state does
 *           not grow: a constant key count (512 keys, at most one per thread
 *           missing at a time), 6 rounds: updates (half to one hot key per
 *           thread) and remove/insert pairs,
 *           4 of updates only (7/8 of them to one hot key per thread, the
 *           rest over its keys), pairs only; by one thread,
 *           then by 4 threads in bursts of 128 ops between barriers (a burst
 *           bounds what EBR may hold back while a thread is preempted). After
 *           every round, all threads offline, the bytes from stats() and the
 *           process's allocated bytes (jemalloc's stats.allocated, glibc's
 *           mallinfo2 uordblks + hblkhd, or the sanitizer allocator's count)
 *           must stay within 64 KB + 1/8 of their value after the first round
 *           (+ 256 x (value size + 64) bytes per thread with 4 threads) (issue 22: hotring's RCU update kept every old version of a head
 *           item linked while only updates ran).
 * Approximate tables (filters) run their own variants of model, disjoint,
 * stable and stress (below). One check runs at a time: the state is global.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "cht.h"
#include "cht_atomic.h"
#include "registry.h"
#include "keygen.h"
#include "history.h"
#include "runner.h"          /* run_val: the values history.c decodes */

/* the check that runs (one at a time) */
static struct check_ctx *cur;
static const struct table_choice *choice_p;
static const struct cht_ops *ops;
static size_t value_size = 8;
static const char *spec_text = "";
static unsigned scale_pct = 100;
static int failures;
static jmp_buf abort_check;       /* a table that cannot be created, a thread that cannot start */
static uint64_t check_start_ns, deadline_ns;   /* deadline 0: none */
static uint64_t ops_total;
static char pass_note[256];       /* what a passing check adds to its line */
static const char *skip_why;      /* the check does not apply to this table */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* with --seconds: run j of n may draw ops until its slice of the time ends */
static void time_slice(unsigned j, unsigned n)
{
    if (cur->seconds > 0)
        deadline_ns = check_start_ns + (uint64_t)(cur->seconds * 1e9 * (j + 1) / n);
}

/* checked every 1024 ops (cheap enough for the op loops), first after 1023:
 * a run whose slice the set-up used up still does that many */
static inline bool out_of_time(uint64_t i)
{
    return deadline_ns && (i & 1023) == 1023 && mono_ns() > deadline_ns;
}

static inline uint64_t scaled(uint64_t n)
{
    uint64_t s = n * scale_pct / 100;
    return s ? s : 1;
}

/* stress: 16 threads (more than CPUs on the suite's machines), or more */
static unsigned stress_n(void)
{
    unsigned n = cur->threads > 16 ? cur->threads : 16;
    return cur->stress_threads > n ? cur->stress_threads : n;
}

/* the suite's thread count n, or --threads */
static unsigned nthr(unsigned n)
{
    return cur->threads ? cur->threads : n;
}

static void ck_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ck_fail(const char *fmt, ...)
{
    /* the first 20 are said; the check goes on to its end (and frees what it made) */
    if (failures++ >= 20)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (failures == 1)
        snprintf(cur->detail, sizeof cur->detail, "%s", msg);
    if (cur->fail_log)
        fprintf(cur->fail_log, "FAIL %s\n", msg);
}

#define CHECK(cond, ...)            \
    do {                            \
        if (!(cond))                \
            ck_fail(__VA_ARGS__);   \
    } while (0)

/* a progress line, as the suite prints it */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    if (!cur->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(cur->log, fmt, ap);
    va_end(ap);
}

static const char *tf(bool b) { return b ? "true" : "false"; }

static void *make_table_or_null(size_t initial, double density, unsigned threads, uint64_t range,
                                char *err, size_t len)
{
    struct cht_config cfg = { .initial = initial, .density = density, .range = range,
                              .max_threads = threads, .numa_nodes = 1, .value_size = value_size };
    registry_apply_choice(choice_p, &cfg);
    if (cur->before_create)
        cur->before_create();
    return ops->create(&cfg, err, len);
}

static void *make_table(size_t initial, double density, unsigned threads, uint64_t range)
{
    char err[256] = "";
    void *t = make_table_or_null(initial, density, threads, range, err, sizeof err);
    if (!t) {
        ck_fail("create(%s, initial=%zu, density=%g) failed: %s", ops->name, initial, density, err);
        longjmp(abort_check, 1);
    }
    return t;
}

static void t_init(void *t, unsigned tid) { if (ops->thread_init) ops->thread_init(t, tid); }
static void t_exit(void *t, unsigned tid) { if (ops->thread_exit) ops->thread_exit(t, tid); }

/* values carry their key so a torn or misplaced value is detected */
static inline cht_val_t val_for(cht_key_t k, uint64_t tag) { return (k << 8) | (tag & 0xff); }
static inline bool val_ok(cht_key_t k, cht_val_t v) { return (v >> 8) == k; }

static uint64_t full_failures(void *t)
{
    struct cht_stats s = { 0 };
    if (ops->stats)
        ops->stats(t, &s);
    return s.full_failures;
}

/* ---------------- model ---------------- */

static void run_model(size_t initial, double density, uint64_t range, uint64_t nops, uint64_t seed)
{
    void *t = make_table(initial, density, 1, range);
    t_init(t, 0);
    cht_val_t *ref = calloc(range + 1, sizeof *ref);    /* 0 = absent */
    size_t count = 0;
    struct cht_rng r;
    cht_rng_seed(&r, seed, 0);
    uint64_t i;
    for (i = 0; i < nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), range);
        unsigned op = (unsigned)cht_rng_below(x, 100);
        cht_val_t v = val_for(k, x >> 56 | 1);
        if (op < 30) {
            uint64_t ff = full_failures(t);
            bool ok = ops->insert(t, k, v);
            if (!ok && !ref[k] && full_failures(t) > ff)
                continue;       /* a table may refuse when full, if it counts the refusal */
            CHECK(ok == !ref[k], "key %llu insert expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(!ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) { ref[k] = v; count++; }
        } else if (op < 60) {
            bool ok = ops->remove(t, k);
            CHECK(ok == !!ref[k], "key %llu remove expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) { ref[k] = 0; count--; }
        } else if (op < 70 && ops->update) {
            bool ok = ops->update(t, k, v);
            CHECK(ok == !!ref[k], "key %llu update expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) ref[k] = v;
        } else {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            CHECK(ok == !!ref[k], "key %llu get expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            CHECK(!ok || got == ref[k], "key %llu get expected value %llx got %llx (op %llu, seed %llu)",
                  (unsigned long long)k, (unsigned long long)ref[k], (unsigned long long)got, (unsigned long long)i,
                  (unsigned long long)seed);
        }
        if ((i & 4095) == 0)
            CHECK(ops->size(t) == count, "size() expected %zu got %zu (after op %llu, seed %llu)", count,
                  ops->size(t), (unsigned long long)i, (unsigned long long)seed);
    }
    ops_total += i;
    CHECK(ops->size(t) == count, "final size() expected %zu got %zu (seed %llu)", count, ops->size(t),
          (unsigned long long)seed);
    for (cht_key_t k = 1; k <= range; k++) {
        cht_val_t got = 0;
        bool ok = ops->get(t, k, &got);
        CHECK(ok == !!ref[k], "key %llu final get expected %s got %s (seed %llu)", (unsigned long long)k,
              tf(ref[k]), tf(ok), (unsigned long long)seed);
        CHECK(!ok || got == ref[k], "key %llu final get expected value %llx got %llx (seed %llu)",
              (unsigned long long)k, (unsigned long long)ref[k], (unsigned long long)got, (unsigned long long)seed);
    }
    t_exit(t, 0);
    ops->destroy(t);
    free(ref);
}

static void ax_model(void);

static void mode_model(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_model();
    uint64_t n = scaled(200000);
    time_slice(0, 3);
    run_model(2048, 0.5, 4096, n, 1);            /* sized for its load */
    time_slice(1, 3);
    run_model(16, 8.0, 4096, n, 2);              /* tiny start: resizes forced */
    time_slice(2, 3);
    run_model(50000, 0.5, 100000, n, 3);          /* larger, sparse hits */
    note("model: %s passed 3 runs of %llu ops\n", choice_p->text, (unsigned long long)n);
}

/* ---------------- concurrent helpers ---------------- */

struct worker {
    alignas(64) unsigned tid;
    void *t;
    uint64_t seed, nops, range, nthreads;
    uint64_t ins_suc, rem_suc, ops_done;
    pthread_barrier_t *bar;
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

/* after the join: the first counter-example of the lowest thread, and the ops */
static int workers_check(struct worker *w, unsigned n, const char *what)
{
    int errors = 0;
    const char *first = NULL;
    unsigned ft = 0;
    for (unsigned i = 0; i < n; i++) {
        errors += w[i].errors;
        ops_total += w[i].done;
        if (w[i].errors && !first) {
            first = w[i].cex;
            ft = w[i].tid;
        }
    }
    CHECK(errors == 0, "thread %u %s; %d wrong results in all, %s, %u threads", ft, first ? first : "", errors,
          what, n);
    return errors;
}

static void run_threads(struct worker *w, unsigned n, void *(*fn)(void *))
{
    pthread_t *th = calloc(n, sizeof *th);
    for (unsigned i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, &w[i]) != 0) {
            ck_fail("pthread_create failed");
            longjmp(abort_check, 1);
        }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
}

/* ---------------- disjoint ---------------- */

static void *disjoint_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    uint64_t per = w->range / w->nthreads;   /* own keys: tid+1 + j*nthreads, j < per */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&r), per) * w->nthreads;
        unsigned op = (unsigned)cht_rng_below(x, 100);
        /* a value unique to this op (never 0, which marks an absent key in own[]): an older
         * value read back, a lost update, is told from the newest */
        cht_val_t v = (k << 32) | (i & 0xffffffffu);
        if (op < 35) {
            bool ok = ops->insert(w->t, k, v);
            if (!ok && !w->own[k] && full_failures(w->t) > 0)
                continue;       /* refused: the table is (or was) full and counts it */
            if (ok != !w->own[k])
                W_ERR(w, "key %llu insert expected %s got %s (op %llu)", (unsigned long long)k, tf(!w->own[k]),
                      tf(ok), (unsigned long long)i);
            if (ok) { w->own[k] = v; w->ins_suc++; }
        } else if (op < 60) {
            bool ok = ops->remove(w->t, k);
            if (ok != !!w->own[k])
                W_ERR(w, "key %llu remove expected %s got %s (op %llu)", (unsigned long long)k, tf(w->own[k]),
                      tf(ok), (unsigned long long)i);
            if (ok) { w->own[k] = 0; w->rem_suc++; }
        } else if (op < 75 && ops->update) {
            bool ok = ops->update(w->t, k, v);
            if (ok != !!w->own[k])
                W_ERR(w, "key %llu update expected %s got %s (op %llu)", (unsigned long long)k, tf(w->own[k]),
                      tf(ok), (unsigned long long)i);
            if (ok)
                w->own[k] = v;
        } else {
            cht_val_t got = 0;
            bool ok = ops->get(w->t, k, &got);
            if (ok != !!w->own[k])
                W_ERR(w, "key %llu get expected %s got %s (op %llu)", (unsigned long long)k, tf(w->own[k]), tf(ok),
                      (unsigned long long)i);
            else if (ok && got != w->own[k])
                W_ERR(w, "key %llu get expected value %llx got %llx (op %llu)", (unsigned long long)k,
                      (unsigned long long)w->own[k], (unsigned long long)got, (unsigned long long)i);
        }
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void ax_disjoint(void);

static void mode_disjoint(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_disjoint();
    for (int round = 0; round < 2; round++) {
        unsigned n = round ? 2 * nthr(4) : nthr(4);
        time_slice((unsigned)round, 2);
        uint64_t range = round ? 20000 : 4096;
        /* round 1 starts tiny so resizable tables grow under concurrency;
         * the others get room for every key instead */
        bool tiny = round && (ops->caps & CHT_CAP_RESIZE);
        void *t = make_table(tiny ? 16 : range / 2, tiny ? 8.0 : 0.5, n, range);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, n);
        struct worker *w = aligned_alloc(64, sizeof *w * n);
        cht_val_t *own = calloc(range + n + 1, sizeof *own);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .t = t, .seed = 7 + round, .nops = scaled(100000),
                                    .range = range, .nthreads = n, .bar = &bar, .own = own };
        run_threads(w, n, disjoint_worker);
        size_t expect = 0;
        workers_check(w, n, round && tiny ? "from a tiny table, resizing" : "sized for its keys");
        t_init(t, 0);
        for (cht_key_t k = 1; k <= range + n; k++) {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            expect += own[k] != 0;
            CHECK(ok == !!own[k], "key %llu final get expected %s got %s (%u threads)", (unsigned long long)k,
                  tf(own[k]), tf(ok), n);
            CHECK(!ok || got == own[k], "key %llu final get expected value %llx got %llx (%u threads)",
                  (unsigned long long)k, (unsigned long long)own[k], (unsigned long long)got, n);
        }
        CHECK(ops->size(t) == expect, "final size() expected %zu got %zu (%u threads)", expect, ops->size(t), n);
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
        free(w);
        free(own);
        note("disjoint: %s passed with %u threads, %zu keys at the end\n", choice_p->text, n, expect);
    }
}

/* ---------------- stable ---------------- */

/* A stable reader's batch through the table's --pipeline hooks (cht.h
 * pipe_start/pipe_step): n odd keys started together, stepped together, the
 * ops that answered CHT_PIPE_AGAIN stepped once more; each must find its key
 * with its value, and a second step must complete its op. Returns the ops run. */
static unsigned stable_read_pipelined(struct worker *w, struct cht_rng *r, uint64_t i)
{
    enum { STABLE_PIPE_MAX = 16 };
    struct cht_pipe_op op[STABLE_PIPE_MAX], again[STABLE_PIPE_MAX];
    const unsigned n = 1 + (unsigned)(cht_rng_next(r) % STABLE_PIPE_MAX);
    for (unsigned j = 0; j < n; j++) {
        cht_key_t k = 2 * cht_rng_below(cht_rng_next(r), w->range / 2) + 1;
        op[j] = (struct cht_pipe_op){ .key = k, .kind = CHT_PIPE_GET };
    }
    ops->pipe_start(w->t, op, n);
    ops->pipe_step(w->t, op, n);
    unsigned na = 0;
    for (unsigned j = 0; j < n; j++) {
        if (op[j].result != CHT_PIPE_AGAIN)
            continue;
        if (op[j].stage != 1)
            W_ERR(w, "key %llu pipe_step answered again with stage %u (expected 1; op %llu)",
                  (unsigned long long)op[j].key, op[j].stage, (unsigned long long)i);
        again[na++] = op[j];
    }
    if (na)
        ops->pipe_step(w->t, again, na);
    for (unsigned j = 0, a = 0; j < n; j++) {
        const struct cht_pipe_op *o = op[j].result == CHT_PIPE_AGAIN ? &again[a++] : &op[j];
        if (o->result == CHT_PIPE_AGAIN)
            W_ERR(w, "key %llu pipe_step answered again at its second step (op %llu)", (unsigned long long)o->key,
                  (unsigned long long)i);
        else if (o->result != 1)
            W_ERR(w, "key %llu pipelined get expected true got false (never removed; op %llu, batch of %u)",
                  (unsigned long long)o->key, (unsigned long long)i, n);
        else if (o->val != val_for(o->key, 3))
            W_ERR(w, "key %llu pipelined get expected value %llx got %llx (never updated; op %llu)",
                  (unsigned long long)o->key, (unsigned long long)val_for(o->key, 3), (unsigned long long)o->val,
                  (unsigned long long)i);
    }
    return n;
}

static void *stable_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    bool writer = w->tid % 2 == 0;
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        if (writer) {
            cht_key_t k = 2 * (1 + cht_rng_below(x, w->range / 2));          /* even keys */
            if (cht_rng_next(&r) >> 63)
                w->ins_suc += ops->insert(w->t, k, val_for(k, 1));
            else
                w->rem_suc += ops->remove(w->t, k);
        } else if (ops->pipe_start && (x >> 62) == 0) {
            i += stable_read_pipelined(w, &r, i) - 1;                   /* a quarter of the reads */
        } else {
            cht_key_t k = 2 * cht_rng_below(x, w->range / 2) + 1;            /* odd keys: always present */
            cht_val_t got = 0;
            bool ok = ops->get(w->t, k, &got);
            if (!ok)
                W_ERR(w, "key %llu get expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
            else if (got != val_for(k, 3))
                W_ERR(w, "key %llu get expected value %llx got %llx (never updated; op %llu)", (unsigned long long)k,
                      (unsigned long long)val_for(k, 3), (unsigned long long)got, (unsigned long long)i);
        }
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void ax_stable(void);

static void mode_stable(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_stable();
    unsigned n = nthr(6) < 2 ? 2 : nthr(6);      /* even tids write, odd ones read */
    time_slice(0, 1);
    uint64_t range = 20000;
    /* resizable tables start small so that churn resizes under the readers;
     * one that refuses the prefill as full (resize=0) is rebuilt with room */
    void *t = NULL;
    size_t stable = 0;
    for (int attempt = 0; attempt < 2 && !t; attempt++) {
        bool tiny = attempt == 0 && (ops->caps & CHT_CAP_RESIZE);
        char err[256];
        /* a table that cannot grow may refuse density 4 in create() */
        t = tiny ? make_table_or_null(64, 4.0, n, range, err, sizeof err) : make_table(range, 0.5, n, range);
        if (!t)
            continue;
        t_init(t, 0);
        stable = 0;
        for (cht_key_t k = 1; k <= range && t; k += 2) {
            if (ops->insert(t, k, val_for(k, 3))) {
                stable++;
            } else if (tiny && full_failures(t) > 0) {
                t_exit(t, 0);
                ops->destroy(t);
                t = NULL;
            } else {
                CHECK(false, "key %llu prefill insert expected true got false", (unsigned long long)k);
            }
        }
    }
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, n);
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .t = t, .seed = 11, .nops = scaled(200000), .range = range,
                                .nthreads = n, .bar = &bar };
    run_threads(w, n, stable_worker);
    uint64_t ins = 0, rem = 0;
    for (unsigned i = 0; i < n; i++) {
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
    }
    workers_check(w, n, "readers of never-removed keys");
    CHECK(ops->size(t) == stable + ins - rem, "size() expected %zu + %llu - %llu got %zu", stable,
          (unsigned long long)ins, (unsigned long long)rem, ops->size(t));
    struct cht_stats s = { 0 };
    if (ops->stats)
        ops->stats(t, &s);
    snprintf(pass_note, sizeof pass_note, "%llu resizes under load", (unsigned long long)s.resizes);
    t_exit(t, 0);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    free(w);
    note("stable: %s passed (%llu inserts, %llu removes, %llu resizes)\n", choice_p->text,
           (unsigned long long)ins, (unsigned long long)rem, (unsigned long long)s.resizes);
}

/* ---------------- stress ---------------- */

static void *stress_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    bool check = !(ops->caps & CHT_CAP_NO_DATA);
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), w->range);
        unsigned c = (unsigned)cht_rng_below(x, 100);
        if (c < 25) {
            w->ins_suc += ops->insert(w->t, k, val_for(k, w->tid));
        } else if (c < 50) {
            w->rem_suc += ops->remove(w->t, k);
        } else if (c < 55 && ops->update) {
            ops->update(w->t, k, val_for(k, w->tid + 100));
        } else {
            cht_val_t got = 0;
            if (ops->get(w->t, k, &got) && check && !val_ok(k, got))
                W_ERR(w, "key %llu get expected a value of key %llu got %llx (op %llu)", (unsigned long long)k,
                      (unsigned long long)k, (unsigned long long)got, (unsigned long long)i);
        }
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void ax_stress(void);

/* ---------------- versions: every write unique, each writer's order kept ----------------
 * Keys 1..K (K = 4 threads at least, 64 at least) are prefilled and never removed; key k is
 * written by one thread only, its owner (k - 1) % n, whose every update stores a value unique to
 * (key, writer, that writer's version of the key: 1, 2, ...), so an older value can be told from
 * the newest. Before it writes version s the owner publishes s (readers' bound); after it, it
 * reads the key back, which must give version s. Every thread reads every key and keeps, per key,
 * the newest version it has written or read. Counted by kind, exactly:
 *  - a stale read: a version older than one this thread already wrote or read for that key
 *    (an owner's read-back older than its write, read again and then found: stale, not lost);
 *  - a lost update: update() said true, and the owner's read-back finds an older version twice,
 *    or the key's final value is not its owner's last write;
 *  - a value never written: another key's, another writer's, a version above the published one.
 * Needs update(); filters (no values) are skipped. */
static inline cht_val_t ver_val(cht_key_t k, uint64_t writer, uint64_t version)
{
    return (k << 44) | (writer << 32) | version;   /* k < 2^19, writer < 2^12, version < 2^32 */
}

static void ver_decode(cht_val_t v, uint64_t *k, uint64_t *writer, uint64_t *version)
{
    *k = v >> 44;
    *writer = (v >> 32) & 0xfff;
    *version = v & 0xffffffffu;
}

/* a get by a thread that is not k's owner, or a read-back that found another value */
static void ver_check_read(struct worker *w, cht_key_t k, cht_val_t got, uint64_t i)
{
    const uint64_t owner = (k - 1) % w->nthreads + 1;
    uint64_t gk, gw, gs;
    ver_decode(got, &gk, &gw, &gs);
    const uint64_t bound = __atomic_load_n(&w->published[k], __ATOMIC_ACQUIRE);   /* after the get */
    if (got == CHT_VAL_TORN || gk != k || (gw != owner && !(gw == 0 && gs == 0)) || (gw == owner && gs == 0) ||
        gs > bound) {
        w->unwritten++;
        W_ERR(w, "key %llu get read %llx, a value never written for it (writer %llu version %llu; its writer is "
              "thread %llu, at version %llu at most; op %llu)", (unsigned long long)k, (unsigned long long)got,
              (unsigned long long)gw, (unsigned long long)gs, (unsigned long long)(owner - 1),
              (unsigned long long)bound, (unsigned long long)i);
    } else if (gs < w->seen[k]) {
        w->stale++;
        W_ERR(w, "key %llu get read version %llu after this thread %s version %llu (a stale read; op %llu)",
              (unsigned long long)k, (unsigned long long)gs, owner == w->tid + 1 ? "wrote" : "read",
              (unsigned long long)w->seen[k], (unsigned long long)i);
    } else {
        w->seen[k] = gs;
    }
}

static void *versions_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    const uint64_t n = w->nthreads, own = w->nkeys / n;   /* own keys: tid + 1 + j n, j < own */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        if (x & 1) {                          /* half the ops: write an own key, read it back */
            cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&r), own) * n;
            /* the next version: one above the last published (only the owner publishes its keys) */
            const uint64_t s = __atomic_load_n(&w->published[k], __ATOMIC_RELAXED) + 1, me = w->tid + 1;
            __atomic_store_n(&w->published[k], s, __ATOMIC_RELEASE);
            if (!ops->update(w->t, k, ver_val(k, me, s))) {
                W_ERR(w, "key %llu update expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
                continue;
            }
            w->seen[k] = s;
            cht_val_t got = 0, again = 0;
            if (!ops->get(w->t, k, &got)) {
                W_ERR(w, "key %llu get expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
                continue;
            }
            if (got == ver_val(k, me, s))
                continue;
            uint64_t gk, gw, gs;
            ver_decode(got, &gk, &gw, &gs);
            bool older = got != CHT_VAL_TORN && gk == k && (gw == me || (gw == 0 && gs == 0)) && gs < s;
            if (older && ops->get(w->t, k, &again) && again == got) {
                w->lost++;
                w->seen[k] = gs;   /* what the key holds: later reads of it are not stale for this loss */
                W_ERR(w, "key %llu update to version %llu returned true, then get read version %llu twice (a lost "
                      "update; op %llu)", (unsigned long long)k, (unsigned long long)s, (unsigned long long)gs,
                      (unsigned long long)i);
            } else {
                ver_check_read(w, k, got, i);   /* older: stale (read again, it moved on); else never written */
            }
        } else {
            cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), w->nkeys);
            cht_val_t got = 0;
            if (!ops->get(w->t, k, &got))
                W_ERR(w, "key %llu get expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
            else
                ver_check_read(w, k, got, i);
        }
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void mode_versions(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE) {
        note("versions: %s stores no values; nothing to check\n", ops->name);
        skip_why = "stores no values (a filter)";
        return;
    }
    if (!ops->update) {
        note("versions: %s has no update(); nothing to check\n", ops->name);
        skip_why = "no update()";
        return;
    }
    const unsigned n = nthr(8) < 2 ? 2 : nthr(8);
    const uint64_t nkeys = (4 * n > 64 ? 4 * n : 64) / n * n;
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    uint64_t *published = calloc(nkeys + 1, sizeof *published);
    uint64_t *seen = calloc((size_t)n * (nkeys + 1), sizeof *seen);
    if (!w || !published || !seen) {
        ck_fail("out of memory");
        longjmp(abort_check, 1);
    }
    void *t = make_table(nkeys, 0.5, n, nkeys);
    t_init(t, 0);
    for (cht_key_t k = 1; k <= nkeys; k++)
        CHECK(ops->insert(t, k, ver_val(k, 0, 0)), "key %llu prefill insert expected true got false",
              (unsigned long long)k);
    t_exit(t, 0);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .t = t, .seed = 500, .nops = scaled(400000) / n + 1, .nthreads = n,
                                .bar = &bar, .seen = seen + (size_t)i * (nkeys + 1), .published = published,
                                .nkeys = nkeys };
    run_threads(w, n, versions_worker);
    /* the end: every key holds its owner's last write */
    uint64_t lost = 0, stale = 0, unwritten = 0, final_lost = 0;
    char first[200] = "";
    t_init(t, 0);
    for (cht_key_t k = 1; k <= nkeys; k++) {
        const struct worker *o = &w[(k - 1) % n];
        const cht_val_t want = o->seen[k] ? ver_val(k, o->tid + 1, o->seen[k]) : ver_val(k, 0, 0);
        cht_val_t got = 0;
        if (!ops->get(t, k, &got) || got != want) {
            if (!final_lost++)
                snprintf(first, sizeof first, "key %llu final get expected %llx (thread %u's version %llu) got %llx",
                         (unsigned long long)k, (unsigned long long)want, o->tid, (unsigned long long)o->seen[k],
                         (unsigned long long)got);
        }
    }
    t_exit(t, 0);
    for (unsigned i = 0; i < n; i++) {
        lost += w[i].lost;
        stale += w[i].stale;
        unwritten += w[i].unwritten;
    }
    char what[200];
    snprintf(what, sizeof what, "%llu lost updates, %llu stale reads, %llu values never written, %llu keys not at "
             "their last write at the end; %llu keys", (unsigned long long)lost, (unsigned long long)stale,
             (unsigned long long)unwritten, (unsigned long long)final_lost, (unsigned long long)nkeys);
    int errors = workers_check(w, n, what);
    CHECK(final_lost == 0, "%s (%llu keys so; %s, %u threads)", first, (unsigned long long)final_lost, what, n);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    note("versions: %s, %u threads, %llu keys: %s, %d errors\n", choice_p->text, n, (unsigned long long)nkeys, what,
         errors);
    free(w);
    free(published);
    free(seen);
}

/* ---------------- history: every answer of a concurrent run linearizable ----------------
 * n threads on HIST_CHECK_KEYS keys (half prefilled): 50% gets, 10% inserts, 10% removes, 30%
 * updates (inserts and removes where there is no update()), every write's value unique (run_val:
 * key, writer, that writer's sequence). Every op is recorded with fenced clock stamps around it,
 * and each key's history is checked for linearizability as a register after the join (src/history.c):
 * a lost update, a stale read, a false "absent" or "present", a value never written, each is a
 * history no order explains. The counter-example is the first violating key's window. */
#define HIST_CHECK_KEYS 16

static void *history_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    const uint64_t vbits = run_val_writer_bits(w->tid + 1);
    uint64_t i, seq = 0;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        const unsigned c = (unsigned)cht_rng_below(cht_rng_next(&r), 100);
        const cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), HIST_CHECK_KEYS);
        cht_val_t v = 0;
        enum hist_op op;
        bool ok;
        const uint64_t t0 = hist_clock_start();
        if (c < 50) {
            op = HIST_GET;
            ok = ops->get(w->t, k, &v);
        } else if (c < 60 || (c < 80 && !ops->update)) {
            op = HIST_INSERT;
            v = run_val(k, vbits, seq++);
            ok = ops->insert(w->t, k, v);
        } else if (c < 70 || !ops->update) {
            op = HIST_REMOVE;
            ok = ops->remove(w->t, k);
        } else {
            op = HIST_UPDATE;
            v = run_val(k, vbits, seq++);
            ok = ops->update(w->t, k, v);
        }
        hist_put(w->hist, k, v, t0, hist_clock_end(), w->tid, op, ok);
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void mode_history(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE) {
        note("history: %s stores no values; nothing to check\n", ops->name);
        skip_why = "stores no values (a filter)";
        return;
    }
    const unsigned n = nthr(4) < 2 ? 2 : nthr(4);
    const uint64_t per = scaled(1000000) / n + 1;    /* a fault 1 in 10^4 ops is seen ~10 times */
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    struct hist_buf *bufs = calloc(n, sizeof *bufs);
    struct hist_init init[HIST_CHECK_KEYS];
    bool bufs_ok = w && bufs;
    for (unsigned i = 0; bufs_ok && i < n; i++)
        bufs_ok = hist_buf_init(&bufs[i], per) == 0;
    if (!bufs_ok) {
        ck_fail("out of memory");
        longjmp(abort_check, 1);
    }
    void *t = make_table(HIST_CHECK_KEYS, 0.5, n, HIST_CHECK_KEYS);
    t_init(t, 0);
    for (cht_key_t k = 1; k <= HIST_CHECK_KEYS; k++) {
        init[k - 1] = (struct hist_init){ .key = k, .val = run_val(k, 0, 0), .present = k % 2 == 1 };
        if (init[k - 1].present)
            CHECK(ops->insert(t, k, init[k - 1].val), "key %llu prefill insert expected true got false",
                  (unsigned long long)k);
    }
    t_exit(t, 0);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .t = t, .seed = 600, .nops = per, .nthreads = n, .bar = &bar,
                                .hist = &bufs[i] };
    const uint64_t t_start = mono_ns();
    run_threads(w, n, history_worker);
    struct hist_result h;
    for (unsigned i = 0; i < n; i++)
        ops_total += w[i].done;
    const int rc = hist_check(bufs, n, init, HIST_CHECK_KEYS, t_start, mono_ns(), &h);
    CHECK(rc == 0, "out of memory for the history checker");
    for (char *c = h.window; (c = strstr(c, "\n    ")) != NULL;)   /* one line: "; " between the window's ops */
        memmove(c + 2, c + 5, strlen(c + 5) + 1), c[0] = ';', c[1] = ' ';
    CHECK(h.violations == 0, "%s (%llu of %llu keys not linearizable; %llu ops, %u threads)", h.window,
          (unsigned long long)h.violations, (unsigned long long)h.keys, (unsigned long long)h.ops, n);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    note("history: %s, %u threads, %u keys: %llu ops, %llu keys not linearizable, %llu undecided\n", choice_p->text,
         n, HIST_CHECK_KEYS, (unsigned long long)h.ops, (unsigned long long)h.violations,
         (unsigned long long)h.undecided);
    for (unsigned i = 0; i < n; i++)
        hist_buf_free(&bufs[i]);
    free(bufs);
    free(w);
}

/* ---------------- values: no torn value under concurrent updates ---------------- */

#define VAL_KEYS 8
#define VAL_CHURN_BASE 1000     /* keys inserted and removed beside the updates: 1000 .. 1063 */

static void *values_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    bool churn = w->range > VAL_KEYS;
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), VAL_KEYS);
        unsigned c = (unsigned)cht_rng_below(x, 100);
        if (churn && c < 20) {
            cht_key_t ck = VAL_CHURN_BASE + cht_rng_below(cht_rng_next(&r), 64);
            if (c < 10)
                w->ins_suc += ops->insert(w->t, ck, val_for(ck, i));
            else
                w->rem_suc += ops->remove(w->t, ck);
        } else if (c < 60 && w->tid % 2 == 0) {
            if (!ops->update(w->t, k, val_for(k, i + w->tid)))     /* the key is never removed */
                W_ERR(w, "key %llu update expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
        } else {
            cht_val_t got = 0;
            bool ok = ops->get(w->t, k, &got);
            if (!ok)
                W_ERR(w, "key %llu get expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
            else if (got == CHT_VAL_TORN || !val_ok(k, got))
                W_ERR(w, "key %llu get expected a value written for it got %llx%s (op %llu)", (unsigned long long)k,
                      (unsigned long long)got, got == CHT_VAL_TORN ? " (torn)" : "", (unsigned long long)i);
            w->ops_done++;
        }
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void mode_values(void)
{
    if (!ops->update) {
        note("values: %s has no update(); nothing to check\n", ops->name);
        skip_why = "no update()";
        return;
    }
    const unsigned n = nthr(12) < 2 ? 2 : nthr(12);     /* even tids update, odd ones read */
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned phase = 0; phase < 2; phase++) {
        time_slice(phase, 2);
        void *t = make_table(VAL_KEYS, 0.5, n, 2 * VAL_CHURN_BASE);
        t_init(t, 0);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++)
            CHECK(ops->insert(t, k, val_for(k, 0)), "key %llu prefill insert expected true got false",
                  (unsigned long long)k);
        t_exit(t, 0);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, n);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .t = t, .seed = 300 + phase, .nops = scaled(100000),
                                    .range = phase ? 2 * VAL_CHURN_BASE : VAL_KEYS, .nthreads = n, .bar = &bar };
        run_threads(w, n, values_worker);
        uint64_t ins = 0, rem = 0, reads = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
            reads += w[i].ops_done;
        }
        char what[96];
        snprintf(what, sizeof what, "value size %zu, %s", value_size, phase ? "with insert/remove churn" : "updates and gets");
        int errors = workers_check(w, n, what);
        t_init(t, 0);
        CHECK(ops->size(t) == VAL_KEYS + ins - rem, "size() expected %d + %llu - %llu got %zu (phase %u)", VAL_KEYS,
              (unsigned long long)ins, (unsigned long long)rem, ops->size(t), phase);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++) {
            cht_val_t got = 0;
            CHECK(ops->get(t, k, &got) && got != CHT_VAL_TORN && val_ok(k, got),
                  "key %llu final get expected a value written for it got %llx", (unsigned long long)k,
                  (unsigned long long)got);
        }
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
        note("values: %s, value size %zu, phase %u (%s): %llu gets checked, %d errors\n", choice_p->text, value_size,
               phase, phase ? "with insert/remove churn" : "updates and gets", (unsigned long long)reads, errors);
    }
    free(w);
}

/* ---------------- steady: the steady state does not grow ---------------- */

#if defined(HAVE_JEMALLOC)
#include <jemalloc/jemalloc.h>
#elif defined(__SANITIZE_ADDRESS__) || UNDER_TSAN
size_t __sanitizer_get_current_allocated_bytes(void);   /* the sanitizer runtime's allocator */
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

/* bytes the process has allocated through malloc, and from where; false: unknown */
static bool allocated_bytes(size_t *out, const char **src)
{
#if defined(HAVE_JEMALLOC)
    uint64_t epoch = 1;
    size_t sz = sizeof epoch, a = 0, asz = sizeof a;
    *src = "jemalloc stats.allocated";
    if (mallctl("epoch", &epoch, &sz, &epoch, sz) != 0 || mallctl("stats.allocated", &a, &asz, NULL, 0) != 0)
        return false;
    *out = a;
    return true;
#elif defined(__SANITIZE_ADDRESS__) || UNDER_TSAN
    *src = "sanitizer allocator";
    *out = __sanitizer_get_current_allocated_bytes();
    return true;
#elif defined(HAVE_MALLINFO2)
    struct mallinfo2 mi = mallinfo2();
    *src = "glibc mallinfo2 uordblks+hblkhd";
    *out = mi.uordblks + mi.hblkhd;
    return true;
#else
    *src = "none";
    (void)out;
    return false;
#endif
}

#define STEADY_KEYS   512
#define STEADY_BURST  128
#define STEADY_ROUNDS 6

struct steady_worker {
    alignas(64) unsigned tid, nthreads;
    unsigned what;            /* 0: 3/4 updates then 1/4 pairs, 1: updates, 2: pairs */
    void *t;
    uint64_t seed, bursts;
    pthread_barrier_t *bar;   /* NULL: one thread */
    int errors;
    char cex[200];            /* the first failed op */
};

/* one round: bursts of updates and/or of remove/insert pairs (w->what), on
 * the keys k = tid + 1 (mod nthreads) in 1..STEADY_KEYS; the key count never
 * drops by more than one per thread */
static void *steady_worker_fn(void *arg)
{
    struct steady_worker *w = arg;
    t_init(w->t, w->tid);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    uint64_t per = STEADY_KEYS / w->nthreads;
    cht_key_t hot = w->tid + 1;
    for (uint64_t b = 0; b < w->bursts; b++) {
        bool pairs = !ops->update || w->what == 2 || (w->what == 0 && b >= w->bursts * 3 / 4);
        for (unsigned i = 0; i < STEADY_BURST; i++) {
            uint64_t x = cht_rng_next(&r);
            cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&r), per) * w->nthreads;
            if (!pairs) {
                /* a hot key: half the updates of the mixed round, 7/8 of the
                 * update-only rounds (a few keys updated over and over) */
                if (w->what == 0 ? (x & 1) : (x & 7) != 0)
                    k = hot;
                if (!ops->update(w->t, k, val_for(k, x >> 56)))
                    W_ERR(w, "key %llu update expected true got false (present)", (unsigned long long)k);
            } else if (!ops->remove(w->t, k)) {
                W_ERR(w, "key %llu remove expected true got false (present)", (unsigned long long)k);
            } else if (!ops->insert(w->t, k, val_for(k, x >> 56))) {
                W_ERR(w, "key %llu insert expected true got false (just removed)", (unsigned long long)k);
            }
        }
        if (w->bar)
            pthread_barrier_wait(w->bar);
    }
    t_exit(w->t, w->tid);
    return NULL;
}

static void steady_phase(unsigned n)
{
    void *t = make_table(STEADY_KEYS, 0.5, n, 2 * STEADY_KEYS);
    t_init(t, 0);
    for (cht_key_t k = 1; k <= STEADY_KEYS; k++)
        CHECK(ops->insert(t, k, val_for(k, 0)), "key %llu prefill insert expected true got false", (unsigned long long)k);
    t_exit(t, 0);
    pthread_barrier_t bar;
    if (n > 1)
        pthread_barrier_init(&bar, NULL, n);
    struct steady_worker *w = aligned_alloc(64, sizeof *w * n);
    uint64_t bursts = scaled(160) / n;          /* per thread and round: 20K ops per round in all */
    if (bursts < 4)
        bursts = 4;
    size_t b0 = 0, a0 = 0, bmax = 0, amax = 0, bfirst = 0, afirst = 0;
    /* the stated bound: 64 KB + 1/8 of the first round's value, and with
     * several threads 256 objects of value size + 64 per thread: what
     * per-thread free lists and reclamation batches may hold (their fill
     * when a round ends depends on the interleaving). A leak of one object
     * per update adds a round's update count of them. */
    size_t slack = 65536 + (n > 1 ? (size_t)n * 256 * (value_size + 64) : 0);
    const char *src = "none";
    bool have_a = false;
    char trace[512] = "";
    size_t tl = 0;
    for (unsigned round = 0; round < STEADY_ROUNDS; round++) {
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct steady_worker){ .tid = i, .nthreads = n, .t = t, .seed = 500 + 10 * round + n,
                                           .what = round == 0 ? 0 : round + 1 < STEADY_ROUNDS ? 1 : 2,
                                           .bursts = bursts, .bar = n > 1 ? &bar : NULL };
        if (n > 1) {
            pthread_t *th = calloc(n, sizeof *th);
            for (unsigned i = 0; i < n; i++)
                CHECK(pthread_create(&th[i], NULL, steady_worker_fn, &w[i]) == 0, "pthread_create");
            for (unsigned i = 0; i < n; i++)
                pthread_join(th[i], NULL);
            free(th);
        } else {
            steady_worker_fn(&w[0]);
        }
        int errors = 0;
        const char *first = NULL;
        unsigned ft = 0;
        for (unsigned i = 0; i < n; i++) {
            errors += w[i].errors;
            if (w[i].errors && !first) {
                first = w[i].cex;
                ft = i;
            }
        }
        ops_total += bursts * n * STEADY_BURST;
        CHECK(errors == 0, "thread %u %s; %d failed ops in all, %u thread(s), round %u", ft, first ? first : "",
              errors, n, round);
        /* every thread is offline (thread_exit ran): what EBR held back is
         * freed. Reclamation that runs in another thread (liburcu's call_rcu)
         * frees later: the baseline is taken once it stops falling, later
         * rounds are read again (10 ms apart, up to 2 s) until within bound;
         * a leak never comes back */
        size_t b = 0, a = 0;
        for (unsigned tries = 0; tries < 200; tries++) {
            struct cht_stats st = { 0 };
            if (ops->stats)
                ops->stats(t, &st);
            size_t a2 = 0;
            have_a = allocated_bytes(&a2, &src);
            bool settled = round == 0 ? tries > 0 && st.bytes >= b && a2 >= a
                                      : st.bytes <= b0 + slack + b0 / 8 && (!have_a || a2 <= a0 + slack + a0 / 8);
            if (tries == 0 || st.bytes < b)
                b = st.bytes;
            if (tries == 0 || a2 < a)
                a = a2;
            if (settled || (round == 0 && tries >= 20))
                break;
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
        if (round == 0) {
            b0 = bfirst = b;
            a0 = afirst = a;
        }
        bmax = b > bmax ? b : bmax;
        amax = a > amax ? a : amax;
        if (tl < sizeof trace)
            tl += (size_t)snprintf(trace + tl, sizeof trace - tl, "%s%zu/%zu", round ? " " : "", b / 1024,
                                   a / 1024);
    }
    size_t bbound = b0 + slack + b0 / 8, abound = a0 + slack + a0 / 8;
    t_init(t, 0);
    CHECK(ops->size(t) == STEADY_KEYS, "final size() expected %d got %zu (%u thread(s))", STEADY_KEYS, ops->size(t), n);
    for (cht_key_t k = 1; k <= STEADY_KEYS; k++) {
        cht_val_t got = 0;
        CHECK(ops->get(t, k, &got) && val_ok(k, got), "key %llu final get expected its value got %llx", (unsigned long long)k,
              (unsigned long long)got);
    }
    t_exit(t, 0);
    ops->destroy(t);
    if (n > 1)
        pthread_barrier_destroy(&bar);
    free(w);
    note("steady: %s, value size %zu, %u thread(s), %d rounds of %llu ops: KB after each round (stats bytes/"
           "allocated by %s): %s\n", spec_text, value_size, n, STEADY_ROUNDS,
           (unsigned long long)(bursts * n * STEADY_BURST), src, trace);
    CHECK(bmax <= bbound, "%u threads: stats() bytes grew from %zu after the first round to %zu (bound %zu)",
          n, bfirst, bmax, bbound);
    CHECK(!have_a || amax <= abound, "%u threads: %s grew from %zu after the first round to %zu (bound %zu)",
          n, src, afirst, amax, abound);
}

static void mode_steady(void)
{
    if (!ops->update && !(ops->caps & CHT_CAP_VALUE_OOL)) {
        note("steady: %s has neither update() nor out-of-line values; nothing to check\n", ops->name);
        skip_why = "neither update() nor out-of-line values";
        return;
    }
    if (!ops->stats)
        note("steady: %s has no stats(); allocated bytes only\n", ops->name);
    steady_phase(1);
    /* 2..64 threads: each needs keys of its own among the 512 */
    steady_phase(nthr(4) < 2 ? 2 : nthr(4) > 64 ? 64 : nthr(4));
}

static void mode_stress(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_stress();
    const unsigned n = stress_n();    /* more threads than CPUs */
    const uint64_t range = 64, initial = 32;
    unsigned runs = (unsigned)scaled(40);
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned run = 0; run < runs; run++) {
        time_slice(run, runs);
        /* alternate a well-sized table and a tiny one that must grow (or chain) */
        bool tiny = run % 2 && !(ops->caps & CHT_CAP_FIXED_CAP);
        void *t = make_table(tiny ? 4 : initial, tiny ? 8.0 : 0.5, n, range);
        t_init(t, 0);
        size_t pre = 0;
        for (cht_key_t k = 1; pre < initial && k <= range; k += 2)
            pre += ops->insert(t, k, val_for(k, 0));
        CHECK(pre == initial || full_failures(t) > 0, "prefill: %zu of %llu inserts failed without counting "
              "full_failures", (size_t)initial - pre, (unsigned long long)initial);
        CHECK(ops->size(t) == pre, "size() after prefill expected %zu got %zu", pre, ops->size(t));
        t_exit(t, 0);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, n);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .t = t, .seed = 100 + run, .nops = scaled(20000),
                                    .range = range, .nthreads = n, .bar = &bar };
        run_threads(w, n, stress_worker);
        uint64_t ins = 0, rem = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
        }
        t_init(t, 0);
        size_t size = ops->size(t);
        CHECK(size == pre + ins - rem, "size() expected %zu + %llu inserted - %llu removed got %zu (run %u)", pre,
              (unsigned long long)ins, (unsigned long long)rem, size, run);
        char what[32];
        snprintf(what, sizeof what, "run %u", run);
        workers_check(w, n, what);
        if (!(ops->caps & CHT_CAP_NO_DATA)) {
            size_t found = 0;
            for (cht_key_t k = 1; k <= range; k++) {
                cht_val_t got = 0;
                if (ops->get(t, k, &got)) {
                    found++;
                    CHECK(val_ok(k, got), "key %llu final get expected a value of key %llu got %llx (run %u)",
                          (unsigned long long)k, (unsigned long long)k, (unsigned long long)got, run);
                }
            }
            CHECK(found == size, "final gets expected size() = %zu keys got %zu (run %u)", size, found, run);
        }
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
    }
    free(w);
    note("stress: %s passed %u runs x %u threads, r=%llu, u=50\n", choice_p->text, runs, n,
           (unsigned long long)range);
}

/* ---------------- approximate tables (CHT_CAP_APPROXIMATE: filters) ----------------
 * A filter stores fingerprints: get() may say yes for a key never inserted
 * (a false positive, counted and reported, never a failure), but never no
 * for a key inserted and not removed (a false negative: a failure, also
 * under concurrency). insert() adds one more copy (a multiset: it fails only
 * when full, counting full_failures); remove() is issued only for keys the
 * caller knows to be present (its own inserts) and must then succeed.
 * size() stays exact: successful inserts minus successful removes. */

struct ax_worker {
    alignas(64) unsigned tid;
    void *t;
    uint64_t seed, nops, range, nthreads;
    uint64_t ins_suc, rem_suc, fp_queries, fp_hits;
    pthread_barrier_t *bar;
    uint32_t *own;              /* copies this thread (or the model) holds, per key */
    uint32_t *base;             /* copies no worker may remove (prefill), per key; may be NULL */
    bool shared;                /* keys from all of [1, range], else only tid+1 (mod nthreads) */
    unsigned ins_pct;           /* insert share of ops, percent (0: 20) */
    int errors;
    uint64_t done;
    char cex[200];
};

static void ax_report(const char *mode, uint64_t queries, uint64_t hits)
{
    note("%s: %s false positives %llu of %llu gets of absent keys (%.4f%%)\n", mode, choice_p->text,
           (unsigned long long)hits, (unsigned long long)queries, queries ? 100.0 * (double)hits / (double)queries : 0);
}

/* one op of the approximate model: insert 20% (ins_pct), remove (of a held
 * key) 50%, else get; `held` copies of k are known present (own + base) */
static void ax_step(struct ax_worker *w, cht_key_t k, unsigned op)
{
    uint32_t held = w->own[k] + (w->base ? w->base[k] : 0);
    if (op < (w->ins_pct ? w->ins_pct : 20)) {
        uint64_t ff = full_failures(w->t);
        bool ok = ops->insert(w->t, k, 0);
        if (!ok && full_failures(w->t) == ff)
            W_ERR(w, "key %llu insert expected true or a counted full failure got false", (unsigned long long)k);
        if (ok) { w->own[k]++; w->ins_suc++; }
    } else if (op >= 50 && w->own[k]) {
        if (!ops->remove(w->t, k))      /* a held key must be removable */
            W_ERR(w, "key %llu remove expected true got false (%u copies held)", (unsigned long long)k, w->own[k]);
        else { w->own[k]--; w->rem_suc++; }
    } else {
        cht_val_t got;
        bool ok = ops->get(w->t, k, &got);
        if (held && !ok)                /* false negative */
            W_ERR(w, "key %llu get expected true got false (%u copies held: a false negative)", (unsigned long long)k,
                  held);
        if (!held) { w->fp_queries++; w->fp_hits += ok; }
    }
}

static void ax_run_model(size_t initial, double density, uint64_t range, uint64_t nops, uint64_t seed,
                         uint64_t *q, uint64_t *h)
{
    void *t = make_table(initial, density, 1, range);
    t_init(t, 0);
    struct ax_worker w = { .t = t, .own = calloc(range + 1, sizeof(uint32_t)) };
    struct cht_rng r;
    cht_rng_seed(&r, seed, 0);
    uint64_t i;
    for (i = 0; i < nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), range);
        int before = w.errors;
        ax_step(&w, k, (unsigned)cht_rng_below(x, 100));
        if (w.errors != before) {
            ck_fail("%s (op %llu, seed %llu)", w.cex, (unsigned long long)i, (unsigned long long)seed);
            w.errors = 0;
        }
        if ((i & 4095) == 0)
            CHECK(ops->size(t) == w.ins_suc - w.rem_suc, "size() expected %llu got %zu (after op %llu, seed %llu)",
                  (unsigned long long)(w.ins_suc - w.rem_suc), ops->size(t), (unsigned long long)i,
                  (unsigned long long)seed);
    }
    ops_total += i;
    CHECK(ops->size(t) == w.ins_suc - w.rem_suc, "final size() expected %llu got %zu (seed %llu)",
          (unsigned long long)(w.ins_suc - w.rem_suc), ops->size(t), (unsigned long long)seed);
    for (cht_key_t k = 1; k <= range; k++) {
        bool ok = ops->get(t, k, NULL);
        CHECK(ok || !w.own[k], "key %llu final get expected true got false (%u copies inserted: a false negative)",
              (unsigned long long)k, w.own[k]);
        if (!w.own[k]) { w.fp_queries++; w.fp_hits += ok; }
    }
    /* remove every held copy: the filter must end empty */
    for (cht_key_t k = 1; k <= range; k++)
        for (; w.own[k]; w.own[k]--)
            CHECK(ops->remove(t, k), "key %llu drain remove expected true got false (%u copies held)",
                  (unsigned long long)k, w.own[k]);
    CHECK(ops->size(t) == 0, "size() after the drain expected 0 got %zu", ops->size(t));
    *q += w.fp_queries;
    *h += w.fp_hits;
    t_exit(t, 0);
    ops->destroy(t);
    free(w.own);
}

static void ax_model(void)
{
    uint64_t n = scaled(200000), q = 0, h = 0;
    time_slice(0, 3);
    ax_run_model(2048, 0.5, 4096, n, 1, &q, &h);
    time_slice(1, 3);
    ax_run_model(16, 1.0, 4096, n, 2, &q, &h);      /* tiny (capacity = initial at density 1): full most of the time */
    time_slice(2, 3);
    ax_run_model(50000, 0.5, 100000, n, 3, &q, &h);
    ax_report("model", q, h);
    note("model: %s passed 3 runs of %llu ops (approximate: no false negatives, exact size)\n", choice_p->text,
           (unsigned long long)n);
}

static void *ax_worker_fn(void *arg)
{
    struct ax_worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    uint64_t per = w->range / w->nthreads;   /* disjoint: own keys tid+1 + j*nthreads */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(i); i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = w->shared ? 1 + cht_rng_below(cht_rng_next(&r), w->range)
                                : w->tid + 1 + cht_rng_below(cht_rng_next(&r), per) * w->nthreads;
        ax_step(w, k, (unsigned)cht_rng_below(x, 100));
    }
    w->done = i;
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

/* T threads; `shared`: every thread draws from all of [1, range] (each
 * tracks only its own copies: a key another thread holds may read as absent
 * to it, so only the disjoint runs count false positives), else each owns
 * the keys tid+1 (mod T). Checks no false negative during and after, exact
 * size(). */
static void ax_threads(const char *mode, unsigned n, uint64_t range, size_t initial, size_t prefill,
                       uint64_t nops, uint64_t seed, bool shared, unsigned ins_pct, uint64_t *q, uint64_t *h)
{
    void *t = make_table(initial, 0.5, n, range);
    uint32_t *own = calloc((size_t)n * (range + n + 1), sizeof *own);
    uint32_t *base = calloc(range + n + 1, sizeof *base);
    t_init(t, 0);
    size_t pre = 0;
    for (cht_key_t k = 1; pre < prefill && k <= range; k += 2) {
        bool ok = ops->insert(t, k, 0);
        CHECK(ok || full_failures(t) > 0, "key %llu prefill insert expected true or a counted full failure got "
              "false", (unsigned long long)k);
        if (ok) { base[k]++; pre++; }
    }
    t_exit(t, 0);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, n);
    struct ax_worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct ax_worker){ .tid = i, .t = t, .seed = seed, .nops = nops, .range = range,
                                   .nthreads = n, .bar = &bar, .shared = shared, .ins_pct = ins_pct,
                                   .own = own + (size_t)i * (range + n + 1), .base = base };
    pthread_t *th = calloc(n, sizeof *th);
    for (unsigned i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, ax_worker_fn, &w[i]) != 0) {
            ck_fail("pthread_create failed");
            longjmp(abort_check, 1);
        }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
    uint64_t ins = 0, rem = 0;
    int errors = 0;
    const char *first = NULL;
    unsigned ft = 0;
    for (unsigned i = 0; i < n; i++) {
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
        errors += w[i].errors;
        ops_total += w[i].done;
        if (w[i].errors && !first) {
            first = w[i].cex;
            ft = i;
        }
        *q += w[i].fp_queries;
        *h += w[i].fp_hits;
    }
    CHECK(errors == 0, "thread %u %s; %d wrong results in all, %u threads", ft, first ? first : "", errors, n);
    t_init(t, 0);
    CHECK(ops->size(t) == pre + ins - rem, "size() expected %zu + %llu - %llu got %zu", pre,
          (unsigned long long)ins, (unsigned long long)rem, ops->size(t));
    size_t held_keys = 0;
    for (cht_key_t k = 1; k <= range + n; k++) {
        uint64_t held = base[k];
        for (unsigned i = 0; i < n; i++)
            held += w[i].own[k];
        held_keys += held > 0;
        bool ok = ops->get(t, k, NULL);
        CHECK(ok || !held, "key %llu final get expected true got false (%llu copies held: a false negative)",
              (unsigned long long)k, (unsigned long long)held);
    }
    t_exit(t, 0);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    free(w);
    free(own);
    free(base);
    note("%s: %s passed with %u threads, %zu keys held at the end, size %zu\n", mode, choice_p->text, n,
           held_keys, pre + ins - rem);
}

static void ax_disjoint(void)
{
    uint64_t q = 0, h = 0;
    time_slice(0, 2);
    ax_threads("disjoint", nthr(4), 4096, 2048, 0, scaled(100000), 7, false, 0, &q, &h);
    time_slice(1, 2);
    ax_threads("disjoint", 2 * nthr(4), 20000, 10000, 0, scaled(100000), 8, false, 0, &q, &h);
    ax_report("disjoint", q, h);
}

static void ax_stable(void)
{
    /* odd keys prefilled (base copies, never removed); all threads churn
     * and read all keys, each removing only its own copies */
    uint64_t q = 0, h = 0;
    time_slice(0, 1);
    ax_threads("stable", nthr(6), 20000, 20000, 10000, scaled(200000), 11, true, 0, &q, &h);
}

static void ax_stress(void)
{
    uint64_t q = 0, h = 0;
    unsigned runs = (unsigned)scaled(40);
    /* alternate a roomy filter and a tiny one that stays full (every failed
     * insert then searches `retries` kicks while the others move fingerprints).
     * 64 keys, 16 threads: inserts are 8% of ops, or the multiset's copies of
     * one key pass 2*ways (refused as full) most of the time. */
    unsigned n = stress_n();
    for (unsigned run = 0; run < runs; run++) {
        time_slice(run, runs);
        ax_threads("stress", n, 64, run % 2 ? 32 : 512, 32, scaled(run % 2 ? 2000 : 20000), 100 + run, true, 8,
                   &q, &h);
    }
    note("stress: %s passed %u runs x %u threads, r=64\n", choice_p->text, runs, n);
}


/* ---------------- the entry points ---------------- */

static const char *const kind_names[] = { "model", "disjoint", "stable", "stress", "values", "steady", "versions",
                                          "history", NULL };

const char *check_kind_name(enum check_kind k)
{
    return k < CHECK_TABLE_KINDS ? kind_names[k] : NULL;
}

enum check_verdict check_table(struct check_ctx *c, enum check_kind k)
{
    cur = c;
    choice_p = c->choice;
    ops = c->ops ? c->ops : c->choice->ops;
    value_size = c->value_size ? c->value_size : 8;
    spec_text = c->spec ? c->spec : c->choice->text;
    scale_pct = c->scale_pct ? c->scale_pct : 100;
    failures = 0;
    ops_total = 0;
    pass_note[0] = '\0';
    skip_why = NULL;
    c->detail[0] = '\0';
    check_start_ns = mono_ns();
    deadline_ns = 0;
    bool data = !(ops->caps & CHT_CAP_NO_DATA);
    if (!data && k != CHECK_STRESS) {
        note("%s: %s stores nothing; only the stress accounting applies\n", kind_names[k], ops->name);
        skip_why = "stores nothing (only the stress accounting applies)";
    } else if (!setjmp(abort_check)) {
        switch (k) {
        case CHECK_MODEL: mode_model(); break;
        case CHECK_DISJOINT: mode_disjoint(); break;
        case CHECK_STABLE: mode_stable(); break;
        case CHECK_STRESS: mode_stress(); break;
        case CHECK_VALUES: mode_values(); break;
        case CHECK_STEADY: mode_steady(); break;
        case CHECK_VERSIONS: mode_versions(); break;
        case CHECK_HISTORY: mode_history(); break;
        default: break;
        }
    }
    c->failures = failures;
    c->ops_done = ops_total;
    if (failures)
        c->verdict = CHECK_FAIL;
    else if (skip_why) {
        c->verdict = CHECK_SKIP;
        snprintf(c->detail, sizeof c->detail, "%s", skip_why);
    } else {
        c->verdict = CHECK_PASS;
        snprintf(c->detail, sizeof c->detail, "%llu ops%s%s", (unsigned long long)ops_total, pass_note[0] ? ", " : "",
                 pass_note);
    }
    deadline_ns = 0;
    cur = NULL;
    return c->verdict;
}

/* ---------------- locks ----------------
 * mutex: the critical section increments a counter with a relaxed atomic
 * load + store (an increment is lost exactly when exclusion fails), a plain
 * shadow counter (the thread sanitizer then checks the lock's
 * happens-before edges), and counts threads inside; every 1024
 * acquisitions a thread yields, so all threads interleave. Both counters
 * must come out exact and no overlap may be seen. Locks with ctx_stats
 * (RTM): the counters must add up.
 * rw: writers store a sequence number into an 8-word record, readers must
 * never see a mixed record nor a writer inside. */

static const struct lock_ops *lops;
static uint64_t lock_deadline_ns;

static inline bool lock_out_of_time(uint64_t i)
{
    /* every 64: a convoying lock (16 FIFO waiters on 2 CPUs) may take a millisecond an acquisition */
    return lock_deadline_ns && (i & 63) == 63 && mono_ns() > lock_deadline_ns;
}

struct lbox {
    void *lock;
    unsigned char *ctx;
    size_t stride;
    unsigned threads;
};

static void *lalloc(size_t n)
{
    n = (n + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, n ? n : 64);
    if (p)
        memset(p, 0xa5, n ? n : 64);   /* init/ctx_init must not rely on zeroed memory */
    return p;
}

static void *lbox_ctx(struct lbox *b, unsigned tid)
{
    return b->ctx ? b->ctx + b->stride * tid : NULL;
}

/* thread tid's ctx on "node" tid % mod (so cohort locks hand over between nodes) */
static bool lbox_make(struct lbox *b, unsigned threads, const struct lock_config *c, unsigned mod)
{
    *b = (struct lbox){ .threads = threads };
    b->lock = lalloc(lops->lock_size);
    b->stride = (lops->ctx_size + 63) & ~(size_t)63;
    b->ctx = b->stride ? lalloc(b->stride * threads) : NULL;
    if (!b->lock || (b->stride && !b->ctx)) {
        free(b->lock);
        free(b->ctx);
        return false;
    }
    lops->init(b->lock, c);
    for (unsigned i = 0; b->ctx && i < threads; i++)
        if (lops->ctx_init)
            lops->ctx_init(lbox_ctx(b, i), i, i % mod);
    return true;
}

struct lshared {
    alignas(64) uint64_t counter;       /* relaxed load + store inside */
    alignas(64) uint64_t plain;         /* plain ++ inside (TSan checks it) */
    alignas(64) int inside;             /* threads in the critical section */
    alignas(64) int overlaps;
    alignas(64) unsigned threads_ready;
    /* rw */
    alignas(64) uint64_t rec[8];
    alignas(64) uint64_t writes;        /* plain, written under the write lock */
    alignas(64) int readers, writers, max_readers;
    alignas(64) uint64_t torn, bad_writer, bad_reader;
    uint64_t first_torn_seq, first_torn_word;   /* the first mixed record a reader saw */
};

struct lworker {
    pthread_t th;
    unsigned tid;
    struct lock_check *l;
    struct lbox *b;
    struct lshared *sh;
    uint64_t done, writes_done, contended, sink;
};

static void lstart(struct lshared *sh, unsigned n)
{
    __atomic_fetch_add(&sh->threads_ready, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&sh->threads_ready, __ATOMIC_ACQUIRE) < n)
        sched_yield();
}

/* The critical section. Every 4096th time it yields the CPU between the load
 * and the store, so a thread that gets in while another is inside loses an
 * increment even on a machine with few free cores. */
static inline void cs_count(struct lshared *sh, uint64_t i)
{
    if (__atomic_fetch_add(&sh->inside, 1, __ATOMIC_RELAXED) != 0)
        __atomic_fetch_add(&sh->overlaps, 1, __ATOMIC_RELAXED);
    uint64_t v = __atomic_load_n(&sh->counter, __ATOMIC_RELAXED);
    if ((i & 4095) == 2048)
        sched_yield();
    __atomic_store_n(&sh->counter, v + 1, __ATOMIC_RELAXED);
    sh->plain++;
    __atomic_fetch_sub(&sh->inside, 1, __ATOMIC_RELAXED);
}

static void *mutex_worker(void *arg)
{
    struct lworker *w = arg;
    void *x = lbox_ctx(w->b, w->tid);
    unsigned every = lops->trylock ? w->l->trylock_every : 0;
    lstart(w->sh, w->b->threads);
    uint64_t i;
    for (i = 0; i < w->l->iters && !lock_out_of_time(i); i++) {
        if (lops->is_locked && lops->is_locked(w->b->lock))
            w->contended++;
        if (every && i % every == every - 1) {
            while (!lops->trylock(w->b->lock, x))
                cht_pause();
        } else {
            lops->lock(w->b->lock, x);
        }
        cs_count(w->sh, i);
        lops->unlock(w->b->lock, x);
        if ((i & 1023) == 1023)
            sched_yield();      /* interleave all threads, not just two per time slice */
    }
    w->done = i;
    return NULL;
}

static void *rw_worker(void *arg)
{
    struct lworker *w = arg;
    struct lshared *sh = w->sh;
    void *x = lbox_ctx(w->b, w->tid);
    unsigned write_one_in = w->l->write_one_in, read_spin = w->l->read_spin;
    uint32_t rnd = 0x9e3779b9u * (w->tid + 1);
    lstart(sh, w->b->threads);
    uint64_t i;
    for (i = 0; i < w->l->iters && !lock_out_of_time(i); i++) {
        rnd ^= rnd << 13; rnd ^= rnd >> 17; rnd ^= rnd << 5;
        if (write_one_in && rnd % write_one_in == 0) {
            lops->lock(w->b->lock, x);
            if (__atomic_fetch_add(&sh->writers, 1, __ATOMIC_RELAXED) != 0 ||
                __atomic_load_n(&sh->readers, __ATOMIC_RELAXED) != 0)
                __atomic_fetch_add(&sh->bad_writer, 1, __ATOMIC_RELAXED);
            uint64_t seq = __atomic_load_n(&sh->rec[0], __ATOMIC_RELAXED) + 1;
            for (int k = 0; k < 8; k++)
                __atomic_store_n(&sh->rec[k], seq, __ATOMIC_RELAXED);
            sh->writes++;
            __atomic_fetch_sub(&sh->writers, 1, __ATOMIC_RELAXED);
            lops->unlock(w->b->lock, x);
            w->writes_done++;
        } else {
            lops->read_lock(w->b->lock, x);
            int r = __atomic_add_fetch(&sh->readers, 1, __ATOMIC_RELAXED);
            int m = __atomic_load_n(&sh->max_readers, __ATOMIC_RELAXED);
            while (r > m && !__atomic_compare_exchange_n(&sh->max_readers, &m, r, true,
                                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            if (__atomic_load_n(&sh->writers, __ATOMIC_RELAXED) != 0)
                __atomic_fetch_add(&sh->bad_reader, 1, __ATOMIC_RELAXED);
            uint64_t first = __atomic_load_n(&sh->rec[0], __ATOMIC_RELAXED);
            for (unsigned s = 0; s < read_spin; s++)
                cht_pause();
            if (!write_one_in && (i & 3) == 0)
                sched_yield();  /* read-only phase: let other readers in meanwhile */
            for (int k = 1; k < 8; k++) {
                uint64_t v = __atomic_load_n(&sh->rec[k], __ATOMIC_RELAXED);
                if (v != first) {
                    if (__atomic_fetch_add(&sh->torn, 1, __ATOMIC_RELAXED) == 0) {
                        sh->first_torn_seq = first;
                        sh->first_torn_word = v;
                    }
                    break;
                }
            }
            w->sink += sh->writes;   /* plain read: TSan checks readers vs writers */
            __atomic_fetch_sub(&sh->readers, 1, __ATOMIC_RELAXED);
            lops->read_unlock(w->b->lock, x);
        }
    }
    w->done = i;
    return NULL;
}

static void lfail(struct lock_check *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lfail(struct lock_check *l, const char *fmt, ...)
{
    if (l->verdict == CHECK_FAIL)
        return;             /* the first one says it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->detail, sizeof l->detail, fmt, ap);
    va_end(ap);
    l->verdict = CHECK_FAIL;
}

const char *lock_check_kind_name(enum lock_check_kind k)
{
    static const char *const names[] = { "mutex", "rw" };
    return k < LCHECK_KINDS ? names[k] : NULL;
}

enum check_verdict lock_check_run(struct lock_check *l, enum lock_check_kind k)
{
    lops = l->ops;
    l->verdict = CHECK_PASS;
    l->detail[0] = '\0';
    l->acquisitions = 0;
    l->max_readers = 0;
    l->have_stats = false;
    memset(&l->stats, 0, sizeof l->stats);
    unsigned n = l->threads ? l->threads : 1;
    struct lock_config cfg = l->cfg;
    cfg.max_threads = n;
    if (!cfg.numa_nodes)
        cfg.numa_nodes = 1;
    struct lbox b;
    struct lshared *sh = lalloc(sizeof *sh);
    struct lworker *w = calloc(n, sizeof *w);
    if (!sh || !w || !lbox_make(&b, n, &cfg, l->node_mod ? l->node_mod : cfg.numa_nodes)) {
        free(sh);
        free(w);
        lfail(l, "out of memory");
        return l->verdict;
    }
    memset(sh, 0, sizeof *sh);
    uint64_t t0 = mono_ns();
    lock_deadline_ns = l->seconds > 0 ? t0 + (uint64_t)(l->seconds * 1e9) : 0;
    unsigned started = 0;
    for (unsigned i = 0; i < n; i++) {
        w[i] = (struct lworker){ .tid = i, .l = l, .b = &b, .sh = sh };
        if (pthread_create(&w[i].th, NULL, k == LCHECK_RW ? rw_worker : mutex_worker, &w[i]) != 0)
            break;
        started++;
    }
    if (started < n) {
        /* the started ones wait for all at the start: release them with no work */
        l->iters = 0;
        __atomic_store_n(&sh->threads_ready, n, __ATOMIC_RELEASE);
    }
    uint64_t done = 0, writes = 0, contended = 0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(w[i].th, NULL);
        done += w[i].done;
        writes += w[i].writes_done;
        contended += w[i].contended;
    }
    lock_deadline_ns = 0;
    double dt = (double)(mono_ns() - t0) / 1e9;
    l->acquisitions = done;
    if (started < n) {
        lfail(l, "pthread_create failed (%u of %u threads)", started, n);
    } else if (k == LCHECK_MUTEX) {
        if (sh->counter != done)
            lfail(l, "counter expected %llu got %llu (%llu increments lost: no mutual exclusion, %u threads)",
                  (unsigned long long)done, (unsigned long long)sh->counter,
                  (unsigned long long)(done - sh->counter), n);
        else if (sh->plain != done)
            lfail(l, "plain counter expected %llu got %llu (%u threads)", (unsigned long long)done,
                  (unsigned long long)sh->plain, n);
        if (sh->overlaps)
            lfail(l, "threads inside the critical section expected at most 1 got 2, %d times (%u threads)",
                  sh->overlaps, n);
        if (l->log) {
            fprintf(l->log, "%s: %u threads x %llu acquisitions in %.2f s (%.0f/s)", lops->name, n,
                    (unsigned long long)(done / n), dt, dt > 0 ? (double)done / dt : 0);
            if (lops->is_locked)
                fprintf(l->log, ", %.1f%% found it taken", done ? 100.0 * (double)contended / (double)done : 0);
            fprintf(l->log, "\n");
        }
    } else {
        if (sh->torn)
            lfail(l, "read record expected 8 equal words got %llu and %llu (%llu mixed records, %u threads)",
                  (unsigned long long)sh->first_torn_seq, (unsigned long long)sh->first_torn_word,
                  (unsigned long long)sh->torn, n);
        if (sh->bad_writer)
            lfail(l, "writer expected alone inside got another thread there, %llu times (%u threads)",
                  (unsigned long long)sh->bad_writer, n);
        if (sh->bad_reader)
            lfail(l, "reader expected no writer inside got one, %llu times (%u threads)",
                  (unsigned long long)sh->bad_reader, n);
        if (sh->writes != writes || sh->rec[0] != writes)
            lfail(l, "write counter expected %llu got %llu, record %llu (%u threads)", (unsigned long long)writes,
                  (unsigned long long)sh->writes, (unsigned long long)sh->rec[0], n);
        l->max_readers = sh->max_readers;
        if (l->log)
            fprintf(l->log, "%s: %u threads x %llu ops (1 in %u writes: %llu writes) in %.2f s, max readers "
                    "inside %d\n", lops->name, n, (unsigned long long)(done / n), l->write_one_in,
                    (unsigned long long)writes, dt, sh->max_readers);
    }
    l->have_stats = lops->stats || lops->ctx_stats;
    if (lops->stats)
        lops->stats(b.lock, &l->stats);
    for (unsigned i = 0; lops->ctx_stats && i < n; i++)
        lops->ctx_stats(lbox_ctx(&b, i), &l->stats);
    const struct lock_stats *s = &l->stats;
    if (k == LCHECK_MUTEX && lops->ctx_stats && started == n) {
        if (s->acquisitions != done)
            lfail(l, "stats acquisitions expected %llu got %llu", (unsigned long long)done,
                  (unsigned long long)s->acquisitions);
        else if (s->tx_commits + s->fallbacks != s->acquisitions)
            lfail(l, "stats commits + fallbacks expected %llu (acquisitions) got %llu + %llu",
                  (unsigned long long)s->acquisitions, (unsigned long long)s->tx_commits,
                  (unsigned long long)s->fallbacks);
        else if (s->tx_begins != s->tx_commits + s->tx_aborts)
            lfail(l, "stats begins expected %llu (commits + aborts) got %llu", (unsigned long long)(s->tx_commits +
                  s->tx_aborts), (unsigned long long)s->tx_begins);
        else if (s->abort_conflict > s->tx_aborts || s->abort_capacity > s->tx_aborts ||
                 s->abort_explicit > s->tx_aborts || s->abort_retry > s->tx_aborts || s->abort_other > s->tx_aborts)
            lfail(l, "stats: an abort cause exceeds the aborts (%llu)", (unsigned long long)s->tx_aborts);
    }
    for (unsigned i = 0; l->each_ctx && i < started; i++)
        l->each_ctx(lbox_ctx(&b, i), i, l->arg);
    if (lops->destroy)
        lops->destroy(b.lock);
    free(b.lock);
    free(b.ctx);
    free(w);
    free(sh);
    if (l->verdict == CHECK_PASS && k == LCHECK_RW)
        snprintf(l->detail, sizeof l->detail, "%llu ops, %llu writes, %u threads, most readers inside at once %d",
                 (unsigned long long)done, (unsigned long long)writes, n, l->max_readers);
    else if (l->verdict == CHECK_PASS)
        snprintf(l->detail, sizeof l->detail, "%llu acquisitions, %u threads", (unsigned long long)done, n);
    return l->verdict;
}
