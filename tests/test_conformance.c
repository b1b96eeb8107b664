/*
 * test_conformance.c - the suite every registered table must pass.
 *
 *   test_conformance MODE TABLE[:opts]
 *
 * model     one thread, >= 100k random get/insert/remove/update against a
 *           reference map: every return value, every value, size() exact;
 *           then the same from a tiny start (density 8.0: resizes forced).
 * disjoint  T threads, each owning the keys k = tid (mod T): each keeps its
 *           own model, so the final table state is known exactly.
 * stable    "odd" keys prefilled and never touched; writers churn the even
 *           keys (growing resizable tables) while readers must find every
 *           odd key with its value on every read.
 * stress    16 threads on a tiny range (r = 64, u = 50), many short runs:
 *           size == i + ins_suc - rem_suc exactly after every run, every
 *           value read back belongs to its key, the key count found by get()
 *           equals size().
 * values    (tables with CHT_CAP_VALUE_OOL, any value size) 8 keys, never
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
 *
 *   test_conformance MODE TABLE[:opts] [VALUE_SIZE]
 * runs MODE with cht_config.value_size = VALUE_SIZE bytes (default 8; over 8
 * only for tables with CHT_CAP_VALUE_OOL, which then store and read back
 * every word of each value).
 * Scale with CHT_TEST_SCALE (percent, default 100; sanitizer builds use less).
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include "cht.h"
#include "registry.h"
#include "plugin.h"
#include "keygen.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

static struct table_choice choice;
static const struct cht_ops *ops;
static size_t value_size = 8;   /* argv[3] */
static const char *spec_text = "";  /* argv[2] */
#include "test_check.h"

static void *make_table_or_null(size_t initial, double density, unsigned threads, uint64_t range,
                                char *err, size_t len)
{
    struct cht_config cfg = { .initial = initial, .density = density, .range = range,
                              .max_threads = threads, .numa_nodes = 1, .value_size = value_size };
    registry_apply_choice(&choice, &cfg);
    return ops->create(&cfg, err, len);
}

static void *make_table(size_t initial, double density, unsigned threads, uint64_t range)
{
    char err[256] = "";
    void *t = make_table_or_null(initial, density, threads, range, err, sizeof err);
    if (!t) {
        fprintf(stderr, "FAIL create(%s, initial=%zu, density=%g): %s\n", ops->name, initial, density, err);
        exit(1);
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
    for (uint64_t i = 0; i < nops; i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), range);
        unsigned op = (unsigned)cht_rng_below(x, 100);
        cht_val_t v = val_for(k, x >> 56 | 1);
        if (op < 30) {
            uint64_t ff = full_failures(t);
            bool ok = ops->insert(t, k, v);
            if (!ok && !ref[k] && full_failures(t) > ff)
                continue;       /* a table may refuse when full, if it counts the refusal */
            CHECK(ok == !ref[k], "op %llu insert(%llu) returned %d, key %s", (unsigned long long)i,
                  (unsigned long long)k, ok, ref[k] ? "present" : "absent");
            if (ok) { ref[k] = v; count++; }
        } else if (op < 60) {
            bool ok = ops->remove(t, k);
            CHECK(ok == !!ref[k], "op %llu remove(%llu) returned %d, key %s", (unsigned long long)i,
                  (unsigned long long)k, ok, ref[k] ? "present" : "absent");
            if (ok) { ref[k] = 0; count--; }
        } else if (op < 70 && ops->update) {
            bool ok = ops->update(t, k, v);
            CHECK(ok == !!ref[k], "op %llu update(%llu) returned %d, key %s", (unsigned long long)i,
                  (unsigned long long)k, ok, ref[k] ? "present" : "absent");
            if (ok) ref[k] = v;
        } else {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            CHECK(ok == !!ref[k], "op %llu get(%llu) returned %d, key %s", (unsigned long long)i,
                  (unsigned long long)k, ok, ref[k] ? "present" : "absent");
            CHECK(!ok || got == ref[k], "get(%llu) value %llx, expected %llx", (unsigned long long)k,
                  (unsigned long long)got, (unsigned long long)ref[k]);
        }
        if ((i & 4095) == 0)
            CHECK(ops->size(t) == count, "size() %zu, model %zu after %llu ops", ops->size(t), count,
                  (unsigned long long)i);
    }
    CHECK(ops->size(t) == count, "final size() %zu, model %zu", ops->size(t), count);
    for (cht_key_t k = 1; k <= range; k++) {
        cht_val_t got = 0;
        bool ok = ops->get(t, k, &got);
        CHECK(ok == !!ref[k] && (!ok || got == ref[k]), "final get(%llu) = %d", (unsigned long long)k, ok);
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
    run_model(2048, 0.5, 4096, n, 1);            /* sized for its load */
    run_model(16, 8.0, 4096, n, 2);              /* tiny start: resizes forced */
    run_model(50000, 0.5, 100000, n, 3);          /* larger, sparse hits */
    printf("model: %s passed 3 runs of %llu ops\n", choice.text, (unsigned long long)n);
}

/* ---------------- concurrent helpers ---------------- */

struct worker {
    alignas(64) unsigned tid;
    void *t;
    uint64_t seed, nops, range, nthreads;
    uint64_t ins_suc, rem_suc, ops_done;
    pthread_barrier_t *bar;
    cht_val_t *own;           /* disjoint: model of own keys, indexed by k */
    int errors;
};

static void run_threads(struct worker *w, unsigned n, void *(*fn)(void *))
{
    pthread_t *th = calloc(n, sizeof *th);
    for (unsigned i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, &w[i]) != 0) {
            fprintf(stderr, "FAIL pthread_create\n");
            exit(1);
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
    for (uint64_t i = 0; i < w->nops; i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&r), per) * w->nthreads;
        unsigned op = (unsigned)cht_rng_below(x, 100);
        cht_val_t v = val_for(k, w->tid);
        if (op < 35) {
            bool ok = ops->insert(w->t, k, v);
            if (!ok && !w->own[k] && full_failures(w->t) > 0)
                continue;       /* refused: the table is (or was) full and counts it */
            if (ok != !w->own[k]) w->errors++;
            if (ok) { w->own[k] = v; w->ins_suc++; }
        } else if (op < 70) {
            bool ok = ops->remove(w->t, k);
            if (ok != !!w->own[k]) w->errors++;
            if (ok) { w->own[k] = 0; w->rem_suc++; }
        } else {
            cht_val_t got;
            bool ok = ops->get(w->t, k, &got);
            if (ok != !!w->own[k] || (ok && got != w->own[k])) w->errors++;
        }
    }
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
        unsigned n = round ? 8 : 4;
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
        int errors = 0;
        for (unsigned i = 0; i < n; i++)
            errors += w[i].errors;
        CHECK(errors == 0, "disjoint: %d wrong return values (%u threads)", errors, n);
        t_init(t, 0);
        for (cht_key_t k = 1; k <= range + n; k++) {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            expect += own[k] != 0;
            CHECK(ok == !!own[k] && (!ok || got == own[k]), "disjoint final get(%llu) = %d, model %s",
                  (unsigned long long)k, ok, own[k] ? "present" : "absent");
        }
        CHECK(ops->size(t) == expect, "disjoint: size() %zu, exact state has %zu", ops->size(t), expect);
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
        free(w);
        free(own);
        printf("disjoint: %s passed with %u threads, %zu keys at the end\n", choice.text, n, expect);
    }
}

/* ---------------- stable ---------------- */

static volatile int stable_stop;

static void *stable_worker(void *arg)
{
    struct worker *w = arg;
    t_init(w->t, w->tid);
    pthread_barrier_wait(w->bar);
    struct cht_rng r;
    cht_rng_seed(&r, w->seed, w->tid);
    bool writer = w->tid % 2 == 0;
    for (uint64_t i = 0; i < w->nops; i++) {
        uint64_t x = cht_rng_next(&r);
        if (writer) {
            cht_key_t k = 2 * (1 + cht_rng_below(x, w->range / 2));          /* even keys */
            if (cht_rng_next(&r) >> 63)
                w->ins_suc += ops->insert(w->t, k, val_for(k, 1));
            else
                w->rem_suc += ops->remove(w->t, k);
        } else {
            cht_key_t k = 2 * cht_rng_below(x, w->range / 2) + 1;            /* odd keys: always present */
            cht_val_t got = 0;
            if (!ops->get(w->t, k, &got) || got != val_for(k, 3))
                w->errors++;
        }
    }
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void ax_stable(void);

static void mode_stable(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_stable();
    unsigned n = 6;
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
                CHECK(false, "stable: prefill insert(%llu) failed", (unsigned long long)k);
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
    int errors = 0;
    uint64_t ins = 0, rem = 0;
    for (unsigned i = 0; i < n; i++) {
        errors += w[i].errors;
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
    }
    CHECK(errors == 0, "stable: readers missed a never-removed key (or read a wrong value) %d times", errors);
    CHECK(ops->size(t) == stable + ins - rem, "stable: size() %zu != %zu + %llu - %llu", ops->size(t), stable,
          (unsigned long long)ins, (unsigned long long)rem);
    struct cht_stats s = { 0 };
    if (ops->stats)
        ops->stats(t, &s);
    t_exit(t, 0);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    free(w);
    printf("stable: %s passed (%llu inserts, %llu removes, %llu resizes)\n", choice.text,
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
    for (uint64_t i = 0; i < w->nops; i++) {
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
                w->errors++;
        }
    }
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void ax_stress(void);

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
    for (uint64_t i = 0; i < w->nops; i++) {
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
            if (!ops->update(w->t, k, val_for(k, i + w->tid)))
                w->errors++;            /* the key is never removed */
        } else {
            cht_val_t got = 0;
            if (!ops->get(w->t, k, &got) || got == CHT_VAL_TORN || !val_ok(k, got))
                w->errors++;
            w->ops_done++;
        }
    }
    pthread_barrier_wait(w->bar);
    t_exit(w->t, w->tid);
    return NULL;
}

static void mode_values(void)
{
    if (!ops->update) {
        printf("values: %s has no update(); nothing to check\n", ops->name);
        return;
    }
    const unsigned n = 12;
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned phase = 0; phase < 2; phase++) {
        void *t = make_table(VAL_KEYS, 0.5, n, 2 * VAL_CHURN_BASE);
        t_init(t, 0);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++)
            CHECK(ops->insert(t, k, val_for(k, 0)), "values: prefill insert(%llu) failed", (unsigned long long)k);
        t_exit(t, 0);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, n);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .t = t, .seed = 300 + phase, .nops = scaled(100000),
                                    .range = phase ? 2 * VAL_CHURN_BASE : VAL_KEYS, .nthreads = n, .bar = &bar };
        run_threads(w, n, values_worker);
        uint64_t ins = 0, rem = 0, reads = 0;
        int errors = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
            reads += w[i].ops_done;
            errors += w[i].errors;
        }
        CHECK(errors == 0, "values (phase %u, value size %zu): %d gets missed a key, read a torn value or one of "
              "another key, or updates failed (%llu gets)", phase, value_size, errors, (unsigned long long)reads);
        t_init(t, 0);
        CHECK(ops->size(t) == VAL_KEYS + ins - rem, "values (phase %u): size() %zu != %d + %llu - %llu", phase,
              ops->size(t), VAL_KEYS, (unsigned long long)ins, (unsigned long long)rem);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++) {
            cht_val_t got = 0;
            CHECK(ops->get(t, k, &got) && got != CHT_VAL_TORN && val_ok(k, got), "values: key %llu reads %llx at the end",
                  (unsigned long long)k, (unsigned long long)got);
        }
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
        printf("values: %s, value size %zu, phase %u (%s): %llu gets checked, %d errors\n", choice.text, value_size,
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
                    w->errors++;
            } else {
                if (!ops->remove(w->t, k) || !ops->insert(w->t, k, val_for(k, x >> 56)))
                    w->errors++;
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
        CHECK(ops->insert(t, k, val_for(k, 0)), "steady: prefill insert(%llu) failed", (unsigned long long)k);
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
        for (unsigned i = 0; i < n; i++)
            errors += w[i].errors;
        CHECK(errors == 0, "steady (%u threads, round %u): %d updates, removes or inserts of present keys failed",
              n, round, errors);
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
    CHECK(ops->size(t) == STEADY_KEYS, "steady: size() %zu, expected %d", ops->size(t), STEADY_KEYS);
    for (cht_key_t k = 1; k <= STEADY_KEYS; k++) {
        cht_val_t got = 0;
        CHECK(ops->get(t, k, &got) && val_ok(k, got), "steady: key %llu lost (%llx)", (unsigned long long)k,
              (unsigned long long)got);
    }
    t_exit(t, 0);
    ops->destroy(t);
    if (n > 1)
        pthread_barrier_destroy(&bar);
    free(w);
    printf("steady: %s, value size %zu, %u thread(s), %d rounds of %llu ops: KB after each round (stats bytes/"
           "allocated by %s): %s\n", spec_text, value_size, n, STEADY_ROUNDS,
           (unsigned long long)(bursts * n * STEADY_BURST), src, trace);
    CHECK(bmax <= bbound, "steady (%u threads): stats() bytes grew from %zu after the first round to %zu (bound %zu)",
          n, bfirst, bmax, bbound);
    CHECK(!have_a || amax <= abound, "steady (%u threads): %s grew from %zu after the first round to %zu (bound %zu)",
          n, src, afirst, amax, abound);
}

static void mode_steady(void)
{
    if (!ops->update && !(ops->caps & CHT_CAP_VALUE_OOL)) {
        printf("steady: %s has neither update() nor out-of-line values; nothing to check\n", ops->name);
        return;
    }
    if (!ops->stats)
        printf("steady: %s has no stats(); allocated bytes only\n", ops->name);
    steady_phase(1);
    steady_phase(4);
}

static void mode_stress(void)
{
    if (ops->caps & CHT_CAP_APPROXIMATE)
        return ax_stress();
    const unsigned n = 16;
    const uint64_t range = 64, initial = 32;
    unsigned runs = (unsigned)scaled(40);
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned run = 0; run < runs; run++) {
        /* alternate a well-sized table and a tiny one that must grow (or chain) */
        bool tiny = run % 2 && !(ops->caps & CHT_CAP_FIXED_CAP);
        void *t = make_table(tiny ? 4 : initial, tiny ? 8.0 : 0.5, n, range);
        t_init(t, 0);
        size_t pre = 0;
        for (cht_key_t k = 1; pre < initial && k <= range; k += 2)
            pre += ops->insert(t, k, val_for(k, 0));
        CHECK(pre == initial || full_failures(t) > 0, "stress: prefill refused keys without counting full_failures");
        CHECK(ops->size(t) == pre, "stress: size after prefill %zu != %zu", ops->size(t), pre);
        t_exit(t, 0);
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, n);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .t = t, .seed = 100 + run, .nops = scaled(20000),
                                    .range = range, .nthreads = n, .bar = &bar };
        run_threads(w, n, stress_worker);
        uint64_t ins = 0, rem = 0;
        int errors = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
            errors += w[i].errors;
        }
        t_init(t, 0);
        size_t size = ops->size(t);
        CHECK(size == pre + ins - rem, "stress run %u: size() %zu != %zu + %llu - %llu", run, size, pre,
              (unsigned long long)ins, (unsigned long long)rem);
        CHECK(errors == 0, "stress run %u: %d values read back under the wrong key", run, errors);
        if (!(ops->caps & CHT_CAP_NO_DATA)) {
            size_t found = 0;
            for (cht_key_t k = 1; k <= range; k++) {
                cht_val_t got = 0;
                if (ops->get(t, k, &got)) {
                    found++;
                    CHECK(val_ok(k, got), "stress run %u: key %llu holds value %llx", run,
                          (unsigned long long)k, (unsigned long long)got);
                }
            }
            CHECK(found == size, "stress run %u: get() finds %zu keys, size() says %zu", run, found, size);
        }
        t_exit(t, 0);
        ops->destroy(t);
        pthread_barrier_destroy(&bar);
    }
    free(w);
    printf("stress: %s passed %u runs x %u threads, r=%llu, u=50\n", choice.text, runs, n,
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
};

static void ax_report(const char *mode, uint64_t queries, uint64_t hits)
{
    printf("%s: %s false positives %llu of %llu gets of absent keys (%.4f%%)\n", mode, choice.text,
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
            w->errors++;        /* refused without counting it as full */
        if (ok) { w->own[k]++; w->ins_suc++; }
    } else if (op >= 50 && w->own[k]) {
        if (!ops->remove(w->t, k))
            w->errors++;        /* a held key must be removable */
        else { w->own[k]--; w->rem_suc++; }
    } else {
        cht_val_t got;
        bool ok = ops->get(w->t, k, &got);
        if (held && !ok)
            w->errors++;        /* false negative */
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
    for (uint64_t i = 0; i < nops; i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&r), range);
        int before = w.errors;
        ax_step(&w, k, (unsigned)cht_rng_below(x, 100));
        CHECK(w.errors == before, "op %llu on key %llu (held %u copies): wrong answer (false negative, "
              "failed remove or unexplained refused insert)", (unsigned long long)i, (unsigned long long)k,
              w.own[k]);
        if ((i & 4095) == 0)
            CHECK(ops->size(t) == w.ins_suc - w.rem_suc, "size() %zu, model %llu after %llu ops", ops->size(t),
                  (unsigned long long)(w.ins_suc - w.rem_suc), (unsigned long long)i);
    }
    CHECK(ops->size(t) == w.ins_suc - w.rem_suc, "final size() %zu, model %llu", ops->size(t),
          (unsigned long long)(w.ins_suc - w.rem_suc));
    for (cht_key_t k = 1; k <= range; k++) {
        bool ok = ops->get(t, k, NULL);
        CHECK(ok || !w.own[k], "final get(%llu) = 0 with %u copies inserted: false negative",
              (unsigned long long)k, w.own[k]);
        if (!w.own[k]) { w.fp_queries++; w.fp_hits += ok; }
    }
    /* remove every held copy: the filter must end empty */
    for (cht_key_t k = 1; k <= range; k++)
        for (; w.own[k]; w.own[k]--)
            CHECK(ops->remove(t, k), "drain: remove(%llu) failed with %u copies held", (unsigned long long)k,
                  w.own[k]);
    CHECK(ops->size(t) == 0, "drained: size() %zu, expected 0", ops->size(t));
    *q += w.fp_queries;
    *h += w.fp_hits;
    t_exit(t, 0);
    ops->destroy(t);
    free(w.own);
}

static void ax_model(void)
{
    uint64_t n = scaled(200000), q = 0, h = 0;
    ax_run_model(2048, 0.5, 4096, n, 1, &q, &h);
    ax_run_model(16, 1.0, 4096, n, 2, &q, &h);      /* tiny (capacity = initial at density 1): full most of the time */
    ax_run_model(50000, 0.5, 100000, n, 3, &q, &h);
    ax_report("model", q, h);
    printf("model: %s passed 3 runs of %llu ops (approximate: no false negatives, exact size)\n", choice.text,
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
    for (uint64_t i = 0; i < w->nops; i++) {
        uint64_t x = cht_rng_next(&r);
        cht_key_t k = w->shared ? 1 + cht_rng_below(cht_rng_next(&r), w->range)
                                : w->tid + 1 + cht_rng_below(cht_rng_next(&r), per) * w->nthreads;
        ax_step(w, k, (unsigned)cht_rng_below(x, 100));
    }
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
        CHECK(ok || full_failures(t) > 0, "%s: prefill insert(%llu) refused without counting it", mode,
              (unsigned long long)k);
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
        CHECK(pthread_create(&th[i], NULL, ax_worker_fn, &w[i]) == 0, "pthread_create");
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
    uint64_t ins = 0, rem = 0;
    int errors = 0;
    for (unsigned i = 0; i < n; i++) {
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
        errors += w[i].errors;
        *q += w[i].fp_queries;
        *h += w[i].fp_hits;
    }
    CHECK(errors == 0, "%s: %d false negatives / failed removes of held keys / uncounted refusals (%u threads)",
          mode, errors, n);
    t_init(t, 0);
    CHECK(ops->size(t) == pre + ins - rem, "%s: size() %zu != %zu + %llu - %llu", mode, ops->size(t), pre,
          (unsigned long long)ins, (unsigned long long)rem);
    size_t held_keys = 0;
    for (cht_key_t k = 1; k <= range + n; k++) {
        uint64_t held = base[k];
        for (unsigned i = 0; i < n; i++)
            held += w[i].own[k];
        held_keys += held > 0;
        bool ok = ops->get(t, k, NULL);
        CHECK(ok || !held, "%s: final get(%llu) = 0 with %llu copies held: false negative", mode,
              (unsigned long long)k, (unsigned long long)held);
    }
    t_exit(t, 0);
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    free(w);
    free(own);
    free(base);
    printf("%s: %s passed with %u threads, %zu keys held at the end, size %zu\n", mode, choice.text, n,
           held_keys, pre + ins - rem);
}

static void ax_disjoint(void)
{
    uint64_t q = 0, h = 0;
    ax_threads("disjoint", 4, 4096, 2048, 0, scaled(100000), 7, false, 0, &q, &h);
    ax_threads("disjoint", 8, 20000, 10000, 0, scaled(100000), 8, false, 0, &q, &h);
    ax_report("disjoint", q, h);
}

static void ax_stable(void)
{
    /* odd keys prefilled (base copies, never removed); all threads churn
     * and read all keys, each removing only its own copies */
    uint64_t q = 0, h = 0;
    ax_threads("stable", 6, 20000, 20000, 10000, scaled(200000), 11, true, 0, &q, &h);
}

static void ax_stress(void)
{
    uint64_t q = 0, h = 0;
    unsigned runs = (unsigned)scaled(40);
    /* alternate a roomy filter and a tiny one that stays full (every failed
     * insert then searches `retries` kicks while the others move fingerprints).
     * 64 keys, 16 threads: inserts are 8% of ops, or the multiset's copies of
     * one key pass 2*ways (refused as full) most of the time. */
    for (unsigned run = 0; run < runs; run++)
        ax_threads("stress", 16, 64, run % 2 ? 32 : 512, 32, scaled(run % 2 ? 2000 : 20000), 100 + run, true, 8,
                   &q, &h);
    printf("stress: %s passed %u runs x 16 threads, r=64\n", choice.text, runs);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s model|disjoint|stable|stress|values|steady TABLE[:opts] [VALUE_SIZE]\n", argv[0]);
        return 2;
    }
    char err[512];
    if (plugin_load_all(1, argv) != 0)   /* default plugins and CHTBENCH_PLUGINS: their tables too */
        return 1;
    if (registry_parse_table(argv[2], &choice, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    ops = choice.ops;
    spec_text = argv[2];
    if (argc == 4) {
        char *end;
        unsigned long long vs = strtoull(argv[3], &end, 10);
        if (*end || vs < 8 || vs > CHT_VALUE_MAX) {
            fprintf(stderr, "VALUE_SIZE: expected 8..%u bytes (got '%s')\n", CHT_VALUE_MAX, argv[3]);
            return 2;
        }
        if (vs > 8 && !(ops->caps & CHT_CAP_VALUE_OOL)) {
            fprintf(stderr, "%s: no CHT_CAP_VALUE_OOL, cannot store %llu-byte values\n", ops->name, vs);
            return 2;
        }
        value_size = (size_t)vs;
    }
    char why[256];
    if (!registry_choice_available(&choice, why, sizeof why)) {
        if ((ops->caps & CHT_CAP_NEEDS_RTM) && UNDER_TSAN) {
            /* a TSan build never uses RTM (locks/rtm.c): test the fallback path */
            printf("%s: %s; testing the fallback path\n", ops->name, why);
        } else {
            printf("SKIP %s: %s\n", ops->name, why);
            return 77;      /* meson's skip code */
        }
    }
    const char *s = getenv("CHT_TEST_SCALE");
    if (s && atoi(s) > 0)
        scale_pct = (unsigned)atoi(s);
    bool data = !(ops->caps & CHT_CAP_NO_DATA);
    if (strcmp(argv[1], "model") == 0) {
        if (data) mode_model();
    } else if (strcmp(argv[1], "disjoint") == 0) {
        if (data) mode_disjoint();
    } else if (strcmp(argv[1], "stable") == 0) {
        if (data) mode_stable();
    } else if (strcmp(argv[1], "stress") == 0) {
        mode_stress();
    } else if (strcmp(argv[1], "values") == 0) {
        if (data) mode_values();
    } else if (strcmp(argv[1], "steady") == 0) {
        if (data) mode_steady();
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    if (!data && strcmp(argv[1], "stress") != 0)
        printf("%s: %s stores nothing; only the stress accounting applies\n", argv[1], ops->name);
    if (failures) {
        fprintf(stderr, "%s %s: %d checks failed\n", argv[1], choice.text, failures);
        return 1;
    }
    return 0;
}
