/*
 * test_locks.c - properties every lock in locks/ must have.
 *
 *   test_locks MODE LOCK[:key=val,...] [ITERS]
 *
 * LOCK options (lock_config): nodes=N (NUMA nodes, default 3; thread tid
 * runs on "node" tid % 4, so node numbers >= N also occur), bound=B (cohort
 * hand-off bound, default 8), t=T (waiter-count threshold, default 0).
 *
 * basic    one thread: lock/unlock, read_lock/read_unlock, trylock on a free
 *          lock, is_locked / has_waiters where provided; with 1 and 4 nodes.
 * mutex    16 threads x ITERS (default 125000) acquisitions (lock(); every 8th one by
 *          spinning on trylock where supported; RW locks in write mode). The
 *          critical section increments a counter with a relaxed atomic load
 *          + store (an increment is lost exactly when exclusion fails), a
 *          plain shadow counter (the thread sanitizer then checks the lock's
 *          happens-before edges), and counts threads inside; every 1024
 *          acquisitions a thread yields, so all 16 interleave. Both counters
 *          must come out exact and no overlap may be seen. RTM locks: the
 *          counters of ctx_stats must add up.
 *          (mutex and rw run src/check/locks.c's lock_check_run, as `chtbench check
 *          --lock` does: one implementation of the checks.)
 * rw       16 threads, 1 in 8 operations writes: writers store a sequence
 *          number into an 8-word record, readers must never see a mixed
 *          record nor a writer inside; then a read-only phase (readers
 *          sometimes yield inside) in which locks with LOCK_CAP_RW must show
 *          >= 2 readers inside at once (others must never show 2).
 * trylock  trylock fails on a lock held by another thread (and, for RW locks,
 *          on a read-held lock), succeeds on a free one, and 8 threads that
 *          acquire only by trylock still exclude each other (exact counter).
 * rtm      RTM locks: available() agrees with CPUID and CHTBENCH_TEST_RTM_DISABLE;
 *          where RTM runs, the mutex test with exact statistics; on every
 *          CPU, the retry/SCM/fallback paths in the abort-simulation mode
 *          with the abort-cause counters checked against the simulated
 *          statuses.
 * Exit 0 pass, 1 fail, 77 skip (meson). CHT_TEST_SCALE (percent, default
 * 100) scales the iteration counts (sanitizer builds use less);
 * CHT_TEST_THREADS (default 16) sets the thread count of mutex and rw.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "cht_atomic.h"
#include "cht_env.h"
#include "lock.h"
#include "registry.h"
#include "rtm.h"

#define MAX_TEST_THREADS 64
static unsigned NTHREADS = 16;   /* CHT_TEST_THREADS overrides (1..64) */
#define SKIP 77

#include "test_check.h"


/* ---------------------------------------------------------------- setup */

static const struct lock_ops *ops;
static struct lock_config cfg = { .numa_nodes = 3, .max_threads = MAX_TEST_THREADS,
                                  .handoff_bound = 8, .waiter_threshold = 0 };

struct box {
    void *lock;
    unsigned char *ctx;
    size_t stride;
    unsigned threads;
};

static void *alloc_aligned(size_t n)
{
    n = (n + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, n ? n : 64);
    if (!p) {
        fprintf(stderr, "FAIL out of memory\n");
        exit(1);
    }
    memset(p, 0xa5, n ? n : 64);   /* init/ctx_init must not rely on zeroed memory */
    return p;
}

static struct box box_make(unsigned threads, const struct lock_config *c)
{
    struct box b = { .threads = threads };
    b.lock = alloc_aligned(ops->lock_size);
    b.stride = (ops->ctx_size + 63) & ~(size_t)63;
    b.ctx = b.stride ? alloc_aligned(b.stride * threads) : NULL;
    ops->init(b.lock, c);
    for (unsigned i = 0; b.ctx && i < threads; i++)
        if (ops->ctx_init)
            ops->ctx_init(b.ctx + b.stride * i, i, i % 4);
    return b;
}

static void *box_ctx(struct box *b, unsigned tid)
{
    return b->ctx ? b->ctx + b->stride * tid : NULL;
}

static void box_free(struct box *b)
{
    ops->destroy(b->lock);
    free(b->lock);
    free(b->ctx);
}

static void print_stats(const char *what, const struct lock_stats *s)
{
    printf("%s: acquisitions %llu fallbacks %llu tx begins %llu commits %llu aborts %llu "
           "(conflict %llu capacity %llu explicit %llu retry %llu other %llu)\n", what,
           (unsigned long long)s->acquisitions, (unsigned long long)s->fallbacks,
           (unsigned long long)s->tx_begins, (unsigned long long)s->tx_commits,
           (unsigned long long)s->tx_aborts, (unsigned long long)s->abort_conflict,
           (unsigned long long)s->abort_capacity, (unsigned long long)s->abort_explicit,
           (unsigned long long)s->abort_retry, (unsigned long long)s->abort_other);
}

/* NAME[:nodes=N,bound=B,t=T] */
static void parse_lock(const char *spec)
{
    char name[128];
    snprintf(name, sizeof name, "%s", spec);
    char *colon = strchr(name, ':');
    if (colon)
        *colon = '\0';
    ops = registry_lock(name);
    if (!ops) {
        char names[2048];
        registry_lock_names(names, sizeof names);
        fprintf(stderr, "FAIL unknown lock '%s' (known: %s)\n", name, names);
        exit(1);
    }
    for (char *save = NULL, *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv;
         kv = strtok_r(NULL, ",", &save)) {
        unsigned v;
        if (sscanf(kv, "nodes=%u", &v) == 1 && v >= 1)
            cfg.numa_nodes = v;
        else if (sscanf(kv, "bound=%u", &v) == 1)
            cfg.handoff_bound = v;
        else if (sscanf(kv, "t=%u", &v) == 1)
            cfg.waiter_threshold = v;
        else {
            fprintf(stderr, "FAIL bad lock option '%s' (nodes=N, bound=B, t=T)\n", kv);
            exit(1);
        }
    }
}

/* Returns false (and prints why) if the lock cannot run here. */
static bool lock_runs_here(void)
{
    char why[256] = "";
    if (!registry_lock_available(ops, why, sizeof why)) {
        if ((ops->caps & LOCK_CAP_RTM) && UNDER_TSAN) {
            /* RTM is never used under TSan (locks/rtm.c): what runs is the
             * fallback lock, which TSan does check */
            printf("%s: %s; testing its fallback path\n", ops->name, why);
            return true;
        }
        printf("SKIP %s is not available here: %s\n", ops->name, why);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- basic */

static int mode_basic(void)
{
    for (unsigned nodes = 1; nodes <= 4; nodes += 3) {
        struct lock_config c = cfg;
        c.numa_nodes = nodes;
        struct box b = box_make(2, &c);
        void *x = box_ctx(&b, 1);     /* "node" 1 */
        if (ops->is_locked)
            CHECK(!ops->is_locked(b.lock), "%s: is_locked() on a fresh lock", ops->name);
        for (int i = 0; i < 1000; i++) {
            ops->lock(b.lock, x);
            /* an RTM lock held speculatively is, by design, not visibly locked */
            if (ops->is_locked && !(ops->caps & LOCK_CAP_RTM))
                CHECK(ops->is_locked(b.lock), "%s: is_locked() false while held", ops->name);
            if (ops->has_waiters)
                CHECK(!ops->has_waiters(b.lock, x), "%s: has_waiters() with no waiter", ops->name);
            ops->unlock(b.lock, x);
            if (ops->is_locked)
                CHECK(!ops->is_locked(b.lock), "%s: is_locked() after unlock", ops->name);
            ops->read_lock(b.lock, x);
            if (ops->is_locked && !(ops->caps & LOCK_CAP_RTM))
                CHECK(ops->is_locked(b.lock), "%s: is_locked() false while read-held", ops->name);
            ops->read_unlock(b.lock, x);
            if (ops->trylock) {
                CHECK(ops->trylock(b.lock, x), "%s: trylock on a free lock failed", ops->name);
                ops->unlock(b.lock, x);
            }
        }
        /* the other ctx on the same lock, then a second lock with the same ctx */
        ops->lock(b.lock, box_ctx(&b, 0));
        ops->unlock(b.lock, box_ctx(&b, 0));
        void *l2 = alloc_aligned(ops->lock_size);
        ops->init(l2, &c);
        ops->lock(l2, x);
        ops->unlock(l2, x);
        ops->destroy(l2);
        free(l2);
        box_free(&b);
    }
    if (failures)
        return 1;
    printf("PASS basic %s\n", ops->name);
    return 0;
}

/* ---------------------------------------------------------------- mutex */

/* The mutex and rw checks are src/check/locks.c's (lock_check_run), which `chtbench
 * check --lock` runs too. */
static struct lock_check lcheck(unsigned threads, uint64_t iters)
{
    return (struct lock_check){ .ops = ops, .cfg = cfg, .threads = threads, .iters = iters, .node_mod = 4,
                                .log = stdout };
}

static void lcheck_report(struct lock_check *l)
{
    CHECK(l->verdict != CHECK_FAIL, "%s: %s", ops->name, l->detail);
}

/* threads x iters acquisitions; mix_trylock: every 8th by trylock;
 * only_trylock: all by trylock */
static bool run_mutex(unsigned threads, uint64_t iters, bool mix_trylock, bool only_trylock,
                      struct lock_stats *stats_out)
{
    struct lock_check l = lcheck(threads, iters);
    l.trylock_every = only_trylock ? 1 : mix_trylock ? 8 : 0;
    lock_check_run(&l, LCHECK_MUTEX);
    lcheck_report(&l);
    if (l.have_stats && ops->ctx_stats)
        print_stats(ops->name, &l.stats);
    if (stats_out)
        *stats_out = l.stats;
    return l.verdict != CHECK_FAIL;
}

static uint64_t default_iters(void)
{
    return 125000;      /* x 16 threads = 2M acquisitions */
}

static int mode_mutex(uint64_t iters)
{
    if (!lock_runs_here())
        return SKIP;
    run_mutex(NTHREADS, iters, true, false, NULL);
    if (failures)
        return 1;
    printf("PASS mutex %s\n", ops->name);
    return 0;
}

/* ---------------------------------------------------------------- rw */

static void run_rw(unsigned threads, uint64_t iters, unsigned write_one_in, unsigned read_spin,
                   int *max_readers)
{
    struct lock_check l = lcheck(threads, iters);
    l.write_one_in = write_one_in;
    l.read_spin = read_spin;
    lock_check_run(&l, LCHECK_RW);
    lcheck_report(&l);
    *max_readers = l.max_readers;
}

static int mode_rw(uint64_t iters)
{
    if (!lock_runs_here())
        return SKIP;
    int maxr;
    run_rw(NTHREADS, iters, 8, 16, &maxr);
    /* read-only phase: long read sections, so that readers overlap in time */
    /* read-only phase (not scaled: it is short): long read sections, and
     * readers yield inside them, so that readers overlap even on one core */
    uint64_t reads = 300;
    int maxr2 = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        run_rw(NTHREADS, reads, 0, 300, &maxr2);
        if (maxr2 >= 2 || !(ops->caps & LOCK_CAP_RW))
            break;
    }
    if (ops->caps & LOCK_CAP_RW)
        CHECK(maxr2 >= 2, "%s: readers never overlapped (max %d inside at once)", ops->name, maxr2);
    else
        CHECK(maxr <= 1 && maxr2 <= 1, "%s: not an RW lock but %d readers were inside at once",
              ops->name, maxr > maxr2 ? maxr : maxr2);
    if (failures)
        return 1;
    printf("PASS rw %s\n", ops->name);
    return 0;
}

/* ---------------------------------------------------------------- trylock */

struct holder {
    struct box *b;
    int how;                    /* 0 write (lock or trylock), 1 read */
    int state;                  /* 0 start, 1 held, 2 release, 3 released */
};

static void *holder_thread(void *arg)
{
    struct holder *h = arg;
    void *x = box_ctx(h->b, 1);
    if (h->how == 1)
        ops->read_lock(h->b->lock, x);
    else if (ops->caps & LOCK_CAP_RTM) {
        /* a speculative hold is invisible to others by design: hold it for real */
        while (!ops->trylock(h->b->lock, x))
            cht_pause();
    } else
        ops->lock(h->b->lock, x);
    __atomic_store_n(&h->state, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
    if (h->how == 1)
        ops->read_unlock(h->b->lock, x);
    else
        ops->unlock(h->b->lock, x);
    __atomic_store_n(&h->state, 3, __ATOMIC_RELEASE);
    return NULL;
}

static void trylock_against_holder(struct box *b, int how, const char *what)
{
    struct holder h = { .b = b, .how = how };
    pthread_t th;
    pthread_create(&th, NULL, holder_thread, &h);
    while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
        sched_yield();
    void *x = box_ctx(b, 0);
    for (int i = 0; i < 100; i++) {
        bool got = ops->trylock(b->lock, x);
        CHECK(!got, "%s: trylock succeeded on a %s lock", ops->name, what);
        if (got) {
            ops->unlock(b->lock, x);
            break;
        }
    }
    __atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    CHECK(ops->trylock(b->lock, x), "%s: trylock failed after the %s lock was released",
          ops->name, what);
    ops->unlock(b->lock, x);
}

static int mode_trylock(void)
{
    if (!ops->trylock) {
        printf("SKIP %s has no trylock\n", ops->name);
        return SKIP;
    }
    if (!lock_runs_here())
        return SKIP;
    struct box b = box_make(2, &cfg);
    void *x0 = box_ctx(&b, 0), *x1 = box_ctx(&b, 1);
    CHECK(ops->trylock(b.lock, x0), "%s: trylock on a free lock failed", ops->name);
    /* held by me: another ctx (as another thread would) must fail */
    CHECK(!ops->trylock(b.lock, x1), "%s: second trylock on a held lock succeeded", ops->name);
    ops->unlock(b.lock, x0);
    CHECK(ops->trylock(b.lock, x1), "%s: trylock after unlock failed", ops->name);
    ops->unlock(b.lock, x1);
    trylock_against_holder(&b, 0, "write-held");
    if (ops->caps & LOCK_CAP_RW)
        trylock_against_holder(&b, 1, "read-held");
    box_free(&b);
    /* acquisitions by trylock only must still exclude */
    run_mutex(8, scaled(20000), false, true, NULL);
    if (failures)
        return 1;
    printf("PASS trylock %s\n", ops->name);
    return 0;
}

/* ---------------------------------------------------------------- rtm */

/* the simulated aborts: each thread's counters against the cycle of statuses */
struct sim {
    unsigned ncycle;
    const unsigned *cycle;
    uint64_t iters;
    struct lock_stats tot;
};

static void sim_ctx(void *ctx, unsigned i, void *arg)
{
    struct sim *sm = arg;
    struct lock_stats s, e;
    memset(&s, 0, sizeof s);
    memset(&e, 0, sizeof e);
    ops->ctx_stats(ctx, &s);
    ops->ctx_stats(ctx, &sm->tot);
    for (uint64_t k = 0; k < s.tx_begins; k++) {
        unsigned st = sm->cycle[k % sm->ncycle];
        e.abort_conflict += !!(st & RTM_ABORT_CONFLICT);
        e.abort_capacity += !!(st & RTM_ABORT_CAPACITY);
        e.abort_explicit += !!(st & RTM_ABORT_EXPLICIT);
        e.abort_retry += !!(st & RTM_ABORT_RETRY);
        e.abort_other += !(st & (RTM_ABORT_CONFLICT | RTM_ABORT_CAPACITY | RTM_ABORT_EXPLICIT));
    }
    CHECK(s.acquisitions == sm->iters && s.fallbacks == sm->iters && s.tx_commits == 0 &&
          s.tx_aborts == s.tx_begins && s.tx_begins > 0,
          "%s (simulated) thread %u: acquisitions %llu fallbacks %llu commits %llu begins %llu aborts %llu",
          ops->name, i, (unsigned long long)s.acquisitions, (unsigned long long)s.fallbacks,
          (unsigned long long)s.tx_commits, (unsigned long long)s.tx_begins,
          (unsigned long long)s.tx_aborts);
    CHECK(s.abort_conflict == e.abort_conflict && s.abort_capacity == e.abort_capacity &&
          s.abort_explicit == e.abort_explicit && s.abort_retry == e.abort_retry &&
          s.abort_other == e.abort_other,
          "%s (simulated) thread %u: abort causes do not match the simulated statuses",
          ops->name, i);
}

static int mode_rtm(uint64_t iters)
{
    if (!(ops->caps & LOCK_CAP_RTM)) {
        fprintf(stderr, "FAIL %s is not an RTM lock\n", ops->name);
        return 1;
    }
    char why[256] = "", why2[256] = "";
    bool avail = cht_rtm_available(why, sizeof why);
    bool lock_avail = ops->available(why2, sizeof why2);
    bool cpuid = cht_rtm_cpuid();
    /* read here too, not only through cht_env(): the hook must reach the lock from the environment */
    const char *env = getenv("CHTBENCH_TEST_RTM_DISABLE");
    bool disabled = env && *env && strcmp(env, "0") != 0;
    CHECK(cht_env()->rtm_disable == disabled, "CHTBENCH_TEST_RTM_DISABLE='%s' but cht_env() says %d",
          env ? env : "(unset)", cht_env()->rtm_disable);
    printf("RTM: CPUID bit %s, available %s%s%s\n", cpuid ? "set" : "clear", avail ? "yes" : "no",
           avail ? "" : ": ", avail ? "" : why);
    CHECK(avail == lock_avail, "%s: available() %d but RTM detection %d", ops->name, lock_avail, avail);
    CHECK(avail || (why[0] && strcmp(why, why2) == 0),
          "%s: unavailable without the same reason ('%s' vs '%s')", ops->name, why, why2);
    if (avail)
        CHECK(cpuid, "RTM available although CPUID says no");
    if (UNDER_TSAN)     /* a TSan build never uses RTM (locks/rtm.c) */
        CHECK(!avail && (disabled ? strstr(why, "CHTBENCH_TEST_RTM_DISABLE") : strstr(why, "ThreadSanitizer")),
              "ThreadSanitizer build, but available=%d why='%s'", avail, why);
    else if (!cpuid)
        CHECK(!avail && (disabled ? strstr(why, "CHTBENCH_TEST_RTM_DISABLE") : strstr(why, "CPUID")),
              "no RTM in CPUID, but available=%d why='%s'", avail, why);
    if (disabled)
        CHECK(!avail && strstr(why, "CHTBENCH_TEST_RTM_DISABLE"), "CHTBENCH_TEST_RTM_DISABLE set but available=%d why='%s'",
              avail, why);

    if (avail && !UNDER_TSAN) {
        struct lock_stats s;
        if (run_mutex(NTHREADS, iters, true, false, &s))
            CHECK(s.tx_commits + s.fallbacks >= (uint64_t)NTHREADS * iters, "stats do not add up");
    } else if (avail) {
        printf("SKIP real transactions under the thread sanitizer\n");
    }

    /* simulation: every transaction aborts with a known status */
    cht_rtm_simulate_aborts(true);
    CHECK(ops->available(why2, sizeof why2), "%s: not available in simulation", ops->name);
    struct sim sm = { .iters = scaled(iters / 8 ? iters / 8 : 1) };
    unsigned ncycle = 0;
    sm.cycle = cht_rtm_simulated_cycle(&ncycle);    /* not in the initializer: it writes ncycle */
    sm.ncycle = ncycle;
    struct lock_check l = lcheck(8, sm.iters);
    l.trylock_every = 8;
    l.each_ctx = sim_ctx;
    l.arg = &sm;
    lock_check_run(&l, LCHECK_MUTEX);
    CHECK(l.verdict != CHECK_FAIL, "%s (simulated aborts): %s", ops->name, l.detail);
    struct lock_stats tot = sm.tot;
    print_stats("simulated", &tot);
    cht_rtm_simulate_aborts(false);
    if (failures)
        return 1;
    printf("PASS rtm %s\n", ops->name);
    return 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s basic|mutex|rw|trylock|rtm LOCK[:nodes=N,bound=B,t=T] [ITERS]\n",
                argv[0]);
        return 2;
    }
    const char *sc = getenv("CHT_TEST_SCALE");
    if (sc && atoi(sc) > 0)
        scale_pct = (unsigned)atoi(sc);
    const char *nt = getenv("CHT_TEST_THREADS");
    if (nt && atoi(nt) >= 1 && atoi(nt) <= MAX_TEST_THREADS)
        NTHREADS = (unsigned)atoi(nt);
    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_lock(argv[2]);
    uint64_t iters = argc > 3 ? strtoull(argv[3], NULL, 10) : default_iters();
    iters = scaled(iters);
    const char *mode = argv[1];
    if (strcmp(mode, "basic") == 0)
        return mode_basic();
    if (strcmp(mode, "mutex") == 0)
        return mode_mutex(iters);
    if (strcmp(mode, "rw") == 0)
        return mode_rw(iters);
    if (strcmp(mode, "trylock") == 0)
        return mode_trylock();
    if (strcmp(mode, "rtm") == 0)
        return mode_rtm(iters);
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
}
