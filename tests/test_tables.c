/*
 * test_tables.c - table behaviour at the edges (issue 13), per table:
 *
 *   test_tables MODE TABLE[:opts]
 *
 * tid-bound  death test: a child process that calls thread_init(t, tid) with
 *            tid == max_threads (then one insert and one remove) must die of
 *            SIGABRT (the assert in cht_thread_slot / thread_init); a control
 *            child with tid == max_threads - 1 must exit normally. Skipped
 *            (77) in release builds, where NDEBUG removes assertions.
 * oom        out of memory under RLIMIT_AS (as `ulimit -v`): prefill 1000
 *            keys, cap the address space at the current size + 48 MiB, insert
 *            fresh keys until 500 in a row are refused. Every refusal must be
 *            counted in stats.alloc_failures (exactly; never full_failures),
 *            size() must equal the accepted inserts, every accepted key must
 *            be found and every refused one absent; then, with the limit
 *            lifted, inserts must succeed again. Prints the cost of one
 *            refused insert. Skipped (77) under sanitizers (their runtimes
 *            reserve terabytes of address space, so RLIMIT_AS cannot work).
 * sizes      unrepresentable sizes are refused by create() with a message, at
 *            once: --initial 2^61 at --density 0.1, --initial 1M at --density
 *            1e-9, --initial 2^63; a fixed-capacity table (CHT_CAP_FIXED_CAP
 *            or cuckoo resize=0) refuses --initial 1M at --density 64 with a
 *            message naming --density and --initial; --initial 1000 at
 *            density 0.5 is accepted.
 * rtm-aborts clht-rtm in a workload without conflicts: 2 threads on disjoint
 *            buckets (hash=identity), one reading its keys, one linking
 *            overflow buckets (the shared overflow count of issue 13 point
 *            11). With RTM (release build): aborts must stay below 3% of
 *            transaction begins (every shared write on a line transactions
 *            read makes it ~15%). Without RTM: the same workload through the
 *            abort simulation of locks/rtm.c, checking that every operation
 *            is one acquisition counted in the table's tx statistics
 *            (begins == aborts, no commits, fallbacks == operations) and the
 *            results are exact; the abort-rate check is reported as skipped.
 * lock-config  a table that takes a lock (CHT_CAP_LOCK_PARAM) runs under a
 *            recording lock defined here: every lock instance must be inited
 *            with the run's lock_config (cht_config.lock_config: --handoff,
 *            --waiters), with numa_nodes and max_threads of the table's own
 *            config, and destroyed once; every ctx inited with its thread's
 *            NUMA node; every lock operation must come with the calling
 *            thread's own ctx and leave no lock held. Then again with no
 *            lock_config: the defaults (CHT_LOCK_HANDOFF_DEFAULT, 0). Without
 *            lock=NAME the registry must hand the table its .default_lock.
 * tests/meson.build lists every table for sizes, batch and lock-config: a table
 * the mode does not apply to (no data, no get_batch, no CHT_CAP_LOCK_PARAM) skips.
 * Exit 0 pass, 1 fail, 77 skip (meson).
 */
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cht.h"
#include "lock.h"
#include "registry.h"
#include "rtm.h"
#include "test_check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#define SKIP 77

static struct table_choice choice;
static const struct cht_ops *ops;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *make(size_t initial, double density, unsigned threads, char *err, size_t len)
{
    struct cht_config cfg = { .initial = initial, .density = density, .range = CHT_KEY_MAX,
                              .max_threads = threads, .numa_nodes = 1 };
    registry_apply_choice(&choice, &cfg);
    err[0] = 0;
    return ops->create(&cfg, err, len);
}

static struct cht_stats stats_of(void *t)
{
    struct cht_stats s;
    memset(&s, 0, sizeof s);
    if (ops->stats)
        ops->stats(t, &s);
    return s;
}

/* ---------------- tid-bound ---------------- */

#ifndef NDEBUG
/* 0: exited 0; SIGABRT: aborted; else -1 */
static int child_with_tid(unsigned tid, unsigned max_threads)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        char err[256];
        void *t = make(64, 0.5, max_threads, err, sizeof err);
        if (!t)
            _exit(3);
        ops->thread_init(t, tid);
        ops->insert(t, 7, 7);
        ops->remove(t, 7);
        if (ops->thread_exit)
            ops->thread_exit(t, tid);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 0 ? 0 : -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}
#endif

static int mode_tid_bound(void)
{
#ifdef NDEBUG
    printf("SKIP tid-bound %s: release build (NDEBUG): assertions are compiled out; the death test "
           "runs in the debugoptimized (sanitizer) builds\n", choice.text);
    return SKIP;
#else
    if (!ops->thread_init) {
        printf("SKIP tid-bound %s: no thread_init, no per-thread state\n", choice.text);
        return SKIP;
    }
    const unsigned max = 2;
    int ok = child_with_tid(max - 1, max);
    CHECK(ok == 0, "%s: thread_init(tid=%u) with max_threads=%u did not run cleanly (%d)", choice.text,
          max - 1, max, ok);
    printf("tid-bound %s: expecting an assertion failure from the child with tid=%u:\n", choice.text, max);
    int bad = child_with_tid(max, max);
    CHECK(bad == SIGABRT, "%s: thread_init(tid=%u) with max_threads=%u was not refused (child %s %d)",
          choice.text, max, max, bad > 0 ? "got signal" : "status", bad);
    if (failures)
        return 1;
    printf("PASS tid-bound %s\n", choice.text);
    return 0;
#endif
}

/* ---------------- oom ---------------- */

static size_t vm_size_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static int mode_oom(void)
{
    if (UNDER_SANITIZER) {
        printf("SKIP oom %s: sanitizer build: its runtime reserves terabytes of shadow address space, "
               "so RLIMIT_AS (ulimit -v) cannot be used; the release build runs this test\n", choice.text);
        return SKIP;
    }
    char err[256];
    /* a table that never grows (chain) gets its buckets for ~2M keys up
     * front, so that its chains stay short until memory runs out; the
     * others start small and must grow */
    bool grows = ops->caps & CHT_CAP_RESIZE;
    void *t = make(grows ? 1024 : 2u << 20, 0.5, 1, err, sizeof err);
    if (!t) {
        fprintf(stderr, "FAIL create: %s\n", err);
        return 1;
    }
    if (ops->thread_init)
        ops->thread_init(t, 0);
    const uint64_t max_keys = 64u << 20;
    uint8_t *state = calloc(max_keys + 1, 1);     /* 1 accepted, 2 refused; allocated before the cap */
    size_t accepted = 0, refused = 0;
    cht_key_t k = 1;
    for (; k <= 1000; k++) {
        bool ok = ops->insert(t, k, k * 3);
        CHECK(ok, "prefill insert(%llu) refused", (unsigned long long)k);
        state[k] = ok ? 1 : 2;
        accepted += ok;
    }
    struct rlimit old;
    getrlimit(RLIMIT_AS, &old);
    size_t cap = vm_size_bytes() + (48u << 20);
    struct rlimit lim = { .rlim_cur = cap, .rlim_max = old.rlim_max };
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < cap)
        lim.rlim_cur = old.rlim_cur;
    if (setrlimit(RLIMIT_AS, &lim) != 0) {
        perror("setrlimit");
        return 1;
    }
    unsigned in_a_row = 0;
    double t_ref = 0, t0 = now_s();
    for (; k < max_keys && refused < 1000; k++) {
        double a = now_s();
        bool ok = ops->insert(t, k, k * 3);
        if (ok) {
            accepted++;
            state[k] = 1;
            in_a_row = 0;
        } else {
            t_ref += now_s() - a;
            refused++;
            state[k] = 2;
            in_a_row++;
        }
    }
    double t_all = now_s() - t0;
    struct cht_stats s = stats_of(t);
    size_t size = ops->size(t);
    setrlimit(RLIMIT_AS, &old);
    printf("oom %s: address space capped at %.0f MiB: %zu inserts accepted, %zu refused in %.2f s "
           "(%.1f us per refused insert); alloc_failures %llu, full_failures %llu\n",
           choice.text, (double)cap / 1048576.0, accepted, refused, t_all,
           refused ? t_ref / (double)refused * 1e6 : 0.0, (unsigned long long)s.alloc_failures,
           (unsigned long long)s.full_failures);
    CHECK(refused >= 1000, "%s: memory never ran out (%zu keys accepted under a %.0f MiB cap)", choice.text,
          accepted, (double)cap / 1048576.0);
    CHECK(s.alloc_failures == refused, "%s: %zu inserts refused, stats.alloc_failures %llu", choice.text,
          refused, (unsigned long long)s.alloc_failures);
    CHECK(s.full_failures == 0, "%s: out of memory counted as full (%llu)", choice.text,
          (unsigned long long)s.full_failures);
    CHECK(size == accepted, "%s: size() %zu, accepted inserts %zu", choice.text, size, accepted);
    /* libcuckoo 0.3.1 loses its bucket array when a doubling throws: the
     * adapter then refuses everything (tables/libcuckoo.cpp); only the
     * accounting and the absence of a crash can be checked */
    bool unrecoverable = strcmp(ops->name, "libcuckoo") == 0;
    size_t wrong = 0;
    for (cht_key_t j = 1; j < k && !unrecoverable; j++) {
        cht_val_t v = 0;
        bool found = ops->get(t, j, &v);
        if (found != (state[j] == 1) || (found && v != j * 3))
            wrong++;
    }
    CHECK(wrong == 0, "%s: %zu keys answer get() against their insert's result", choice.text, wrong);
    /* memory is back: the table must take keys again */
    size_t again = 0;
    for (cht_key_t j = k; j < k + 1000; j++)
        again += ops->insert(t, j, j * 3);
    if (unrecoverable) {
        struct cht_stats s2 = stats_of(t);
        CHECK(again == 0 && s2.alloc_failures == refused + 1000,
              "%s: a broken table accepted %zu inserts / counted %llu failures", choice.text, again,
              (unsigned long long)s2.alloc_failures);
        again = 1000;   /* the checks below then hold for the accounting */
        accepted -= 1000;
    }
    CHECK(again == 1000, "%s: only %zu of 1000 inserts succeed after the limit was lifted", choice.text, again);
    CHECK(ops->size(t) == accepted + again, "%s: size() %zu after recovery, want %zu", choice.text,
          ops->size(t), accepted + again);
    if (ops->thread_exit)
        ops->thread_exit(t, 0);
    ops->destroy(t);
    free(state);
    if (failures)
        return 1;
    printf("PASS oom %s\n", choice.text);
    return 0;
}

/* ---------------- sizes ---------------- */

static void expect_refused(size_t initial, double density, const char *must_name)
{
    char err[512];
    double t0 = now_s();
    void *t = make(initial, density, 2, err, sizeof err);
    double dt = now_s() - t0;
    CHECK(!t, "%s: create(initial=%zu, density=%g) accepted", choice.text, initial, density);
    if (t) {
        ops->destroy(t);
        return;
    }
    CHECK(err[0], "%s: create(initial=%zu, density=%g) refused without a message", choice.text, initial,
          density);
    CHECK(dt < 5, "%s: create(initial=%zu, density=%g) took %.1f s to refuse", choice.text, initial, density,
          dt);
    if (must_name)
        CHECK(strstr(err, "--density") && strstr(err, "--initial"),
              "%s: create(initial=%zu, density=%g): message does not name --density and --initial: %s",
              choice.text, initial, density, err);
    printf("  initial=%zu density=%g: %s\n", initial, density, err);
}

static int mode_sizes(void)
{
    char err[512];
    void *t = make(1000, 0.5, 2, err, sizeof err);
    CHECK(t, "%s: create(initial=1000, density=0.5) refused: %s", choice.text, err);
    if (t)
        ops->destroy(t);
    expect_refused((size_t)1 << 61, 0.1, NULL);
    expect_refused((size_t)1 << 63, 0.5, NULL);
    if (strcmp(ops->name, "hotring") != 0)   /* hotring sizes itself from ratio=, not --density */
        expect_refused(1u << 20, 1e-9, NULL);
    const char *resize = cht_option_get(choice.options, "resize");
    bool fixed = (ops->caps & CHT_CAP_FIXED_CAP) ||
                 (strcmp(ops->name, "cuckoo") == 0 && resize && strcmp(resize, "0") == 0);
    if (fixed)
        expect_refused(1u << 20, 64, "--density");
    if (failures)
        return 1;
    printf("PASS sizes %s%s\n", choice.text, fixed ? " (fixed capacity)" : "");
    return 0;
}

/* ---------------- rtm-aborts ---------------- */

#define RA_NB (1u << 16)          /* buckets: initial 98304 at density 0.5, 3 keys per bucket */
#define RA_HALF (RA_NB / 2)

struct ra_worker {
    alignas(64) void *t;
    unsigned tid;
    pthread_barrier_t *bar;
    int *writer_done;
    uint64_t ops, wrong;
};

/* key j (1..3 resident, 4 the overflow one) of bucket b: hash=identity puts k in k & (RA_NB-1) */
static inline cht_key_t ra_key(unsigned b, unsigned j) { return (cht_key_t)b + (cht_key_t)j * RA_NB; }

static void prefault_heap(void)
{
    /* touch a few MiB of this thread's arena and give them back to it, so
     * that the overflow buckets allocated inside transactions do not fault */
    enum { N = 16384 };
    static __thread void *blk[N];
    for (int i = 0; i < N; i++) {
        blk[i] = aligned_alloc(64, 192);
        if (blk[i])
            memset(blk[i], 1, 192);
    }
    for (int i = 0; i < N; i++)
        free(blk[i]);
}

static void *ra_thread(void *arg)
{
    struct ra_worker *w = arg;
    ops->thread_init(w->t, w->tid);
    unsigned lo = w->tid * RA_HALF;
    for (unsigned b = lo; b < lo + RA_HALF; b++)      /* 3 keys: the bucket is full */
        for (unsigned j = 1; j <= 3; j++)
            w->wrong += !ops->insert(w->t, ra_key(b, j), ra_key(b, j));
    prefault_heap();
    pthread_barrier_wait(w->bar);                     /* measured from here */
    pthread_barrier_wait(w->bar);
    if (w->tid == 1) {
        /* writer: link an overflow bucket in every 2nd of its buckets (16384
         * links in all, under the resize threshold nb/2), reading between */
        for (unsigned b = lo; b < lo + RA_HALF; b += 2) {
            w->wrong += !ops->insert(w->t, ra_key(b, 4), ra_key(b, 4));
            cht_val_t v;
            w->wrong += !ops->get(w->t, ra_key(b + 1, 1), &v) || v != ra_key(b + 1, 1);
            w->ops += 2;
        }
        __atomic_store_n(w->writer_done, 1, __ATOMIC_RELEASE);
    } else {
        /* reader: gets of its own keys until the writer is done */
        for (unsigned i = 0; !__atomic_load_n(w->writer_done, __ATOMIC_ACQUIRE) || i < 1000; i++) {
            unsigned b = lo + (i * 7919u) % RA_HALF;
            cht_val_t v;
            cht_key_t k = ra_key(b, 1 + i % 3);
            w->wrong += !ops->get(w->t, k, &v) || v != k;
            w->ops++;
        }
    }
    pthread_barrier_wait(w->bar);                     /* measured until here */
    if (ops->thread_exit)
        ops->thread_exit(w->t, w->tid);
    return NULL;
}

static int mode_rtm_aborts(void)
{
    if (strcmp(ops->name, "clht-rtm") != 0 || choice.lock) {
        fprintf(stderr, "rtm-aborts: needs clht-rtm with its default (RTM) lock\n");
        return 2;
    }
    char why[256] = "";
    bool hw = cht_rtm_available(why, sizeof why);
    if (!hw) {
        printf("rtm-aborts: no RTM here (%s): running the workload through the abort simulation; "
               "the abort-rate check needs an RTM CPU and is skipped\n", why);
        cht_rtm_simulate_aborts(true);
    }
    static const struct cht_option opts[] = { { "hash", "identity" }, { NULL, NULL } };
    struct cht_config cfg = { .initial = RA_NB * 3 / 2, .density = 0.5, .range = (uint64_t)RA_NB * 5,
                              .max_threads = 3, .numa_nodes = 1 };
    registry_apply_choice(&choice, &cfg);   /* the default lock, by name (.default_lock) */
    cfg.options = opts;
    char err[256];
    void *t = ops->create(&cfg, err, sizeof err);
    if (!t) {
        fprintf(stderr, "FAIL create: %s\n", err);
        return 1;
    }
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 3);
    int writer_done = 0;
    struct ra_worker w[2];
    pthread_t th[2];
    for (unsigned i = 0; i < 2; i++) {
        w[i] = (struct ra_worker){ .t = t, .tid = i, .bar = &bar, .writer_done = &writer_done };
        pthread_create(&th[i], NULL, ra_thread, &w[i]);
    }
    pthread_barrier_wait(&bar);                       /* prefilled */
    struct cht_stats a = stats_of(t);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);                       /* done */
    struct cht_stats b = stats_of(t);
    for (unsigned i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    uint64_t begins = b.tx_begins - a.tx_begins, commits = b.tx_commits - a.tx_commits;
    uint64_t aborts = b.tx_aborts - a.tx_aborts, fallbacks = b.tx_fallbacks - a.tx_fallbacks;
    uint64_t nops = w[0].ops + w[1].ops;
    printf("rtm-aborts (%s): %llu operations: tx begins %llu commits %llu aborts %llu (%.2f%% of begins) "
           "fallbacks %llu; resizes %llu\n", hw ? "RTM" : "simulated", (unsigned long long)nops,
           (unsigned long long)begins, (unsigned long long)commits, (unsigned long long)aborts,
           begins ? 100.0 * (double)aborts / (double)begins : 0.0, (unsigned long long)fallbacks,
           (unsigned long long)b.resizes);
    CHECK(w[0].wrong + w[1].wrong == 0, "%llu operations answered wrongly",
          (unsigned long long)(w[0].wrong + w[1].wrong));
    CHECK(b.resizes == 0, "the workload resized the table (%llu): not conflict-free", (unsigned long long)b.resizes);
    CHECK(ops->size(t) == (size_t)RA_NB * 3 + RA_HALF / 2, "size() %zu, want %u", ops->size(t),
          RA_NB * 3 + RA_HALF / 2);
    CHECK(begins == commits + aborts, "begins %llu != commits %llu + aborts %llu", (unsigned long long)begins,
          (unsigned long long)commits, (unsigned long long)aborts);
    CHECK(commits + fallbacks == nops, "commits %llu + fallbacks %llu != %llu operations",
          (unsigned long long)commits, (unsigned long long)fallbacks, (unsigned long long)nops);
    if (!hw) {
        CHECK(commits == 0 && begins > 0 && aborts == begins && fallbacks == nops,
              "simulation: every transaction must abort and every operation fall back");
        cht_rtm_simulate_aborts(false);
    } else if (UNDER_SANITIZER) {
        printf("rtm-aborts: sanitizer build: abort rate reported, not checked (instrumentation inside "
               "transactions)\n");
    } else {
        CHECK(begins > 0 && (double)aborts <= 0.03 * (double)begins,
              "%.2f%% of transactions aborted in a workload without conflicts (limit 3%%): a shared write "
              "shares a cache line that every transaction reads", 100.0 * (double)aborts / (double)begins);
    }
    ops->destroy(t);
    pthread_barrier_destroy(&bar);
    if (failures)
        return 1;
    printf("PASS rtm-aborts%s\n", hw ? "" : " (simulated; abort-rate check skipped: no RTM)");
    return 0;
}

/* ---------------- batch: get_batch == n gets ----------------
 * One thread: after random inserts and removes, get_batch of every batch
 * size 1..CHT_BATCH_MAX over present and absent keys answers exactly as
 * get() does (found and value). Then 2 writers churn the even keys while
 * 2 readers batch-get odd keys that never change: each must be found with
 * its value in every batch (no lost or torn answer under concurrency). */
struct bt_arg {
    void *t;
    unsigned tid;
    uint64_t n;
    int writer;
    uint64_t errors;
    int *stop;
};

static void *bt_thread(void *arg)
{
    struct bt_arg *a = arg;
    if (ops->thread_init)
        ops->thread_init(a->t, a->tid);
    uint64_t x = 88172645463325252ull + a->tid;
    cht_key_t keys[CHT_BATCH_MAX];
    cht_val_t vals[CHT_BATCH_MAX];
    bool found[CHT_BATCH_MAX];
    while (!__atomic_load_n(a->stop, __ATOMIC_RELAXED)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (a->writer) {
            cht_key_t k = 2 + 2 * (x % a->n);            /* even keys */
            if (x >> 63)
                ops->insert(a->t, k, k * 3);
            else
                ops->remove(a->t, k);
        } else {
            unsigned b = 1 + (unsigned)(x % CHT_BATCH_MAX);
            for (unsigned i = 0; i < b; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                keys[i] = 1 + 2 * (x % a->n);              /* odd keys: always present */
            }
            ops->get_batch(a->t, keys, b, vals, found);
            for (unsigned i = 0; i < b; i++)
                a->errors += !found[i] || vals[i] != keys[i] * 3;
        }
    }
    if (ops->thread_exit)
        ops->thread_exit(a->t, a->tid);
    return NULL;
}

static int mode_batch(void)
{
    char err[256];
    const uint64_t n = 20000;
    void *t = make(2 * n, 0.5, 5, err, sizeof err);
    CHECK(t, "%s: create: %s", choice.text, err);
    if (!t)
        return 1;
    if (ops->thread_init)
        ops->thread_init(t, 0);
    uint64_t x = 12345, mismatches = 0, checked = 0;
    for (uint64_t i = 0; i < 3 * n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        cht_key_t k = 1 + x % (2 * n);
        if (i % 3 == 2)
            ops->remove(t, k);
        else
            ops->insert(t, k, k * 3);
    }
    cht_key_t keys[CHT_BATCH_MAX];
    cht_val_t vals[CHT_BATCH_MAX];
    bool found[CHT_BATCH_MAX];
    for (unsigned b = 1; b <= CHT_BATCH_MAX; b++)
        for (unsigned round = 0; round < 50; round++) {
            for (unsigned i = 0; i < b; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                keys[i] = 1 + x % (4 * n);                  /* about 3/8 present */
            }
            ops->get_batch(t, keys, b, vals, found);
            for (unsigned i = 0; i < b; i++) {
                cht_val_t v = 0;
                bool f = ops->get(t, keys[i], &v);
                mismatches += f != found[i] || (f && v != vals[i]);
                checked++;
            }
        }
    CHECK(mismatches == 0, "%s: get_batch differs from get() for %llu of %llu keys", choice.text,
          (unsigned long long)mismatches, (unsigned long long)checked);
    /* concurrent: odd keys 1..2n-1 present throughout */
    for (uint64_t k = 1; k < 2 * n; k += 2) {
        ops->remove(t, k);
        ops->insert(t, k, k * 3);
    }
    if (ops->thread_exit)
        ops->thread_exit(t, 0);
    int stop = 0;
    struct bt_arg a[4];
    pthread_t th[4];
    for (unsigned i = 0; i < 4; i++) {
        a[i] = (struct bt_arg){ .t = t, .tid = i + 1, .n = n, .writer = i < 2, .stop = &stop };
        pthread_create(&th[i], NULL, bt_thread, &a[i]);
    }
    struct timespec ts = { 0, 300000000 };
    nanosleep(&ts, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    uint64_t errors = 0;
    for (unsigned i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        errors += a[i].errors;
    }
    CHECK(errors == 0, "%s: %llu stable keys missed or torn in concurrent batches", choice.text,
          (unsigned long long)errors);
    ops->destroy(t);
    printf("%s: get_batch == get() on %llu keys; concurrent batches clean\n", choice.text,
           (unsigned long long)checked);
    return failures ? 1 : 0;
}

/* ---------------- lock-config ---------------- */

struct rec_lock {
    alignas(64) unsigned held;
    struct lock_config seen;    /* what init() was given */
    unsigned magic;
};
struct rec_ctx {
    unsigned magic, tid, node;
};
#define REC_MAGIC 0x10c4c0f9u

static unsigned rec_inits, rec_destroys, rec_ctx_inits, rec_ops, rec_bad_ctx, rec_busy;
static struct lock_config rec_first;    /* the first init's config (all must equal it) */
static unsigned rec_mismatch;
static __thread unsigned rec_tid;       /* the table thread this OS thread plays now */

static void rec_init(void *l, const struct lock_config *cfg)
{
    struct rec_lock *r = l;
    r->held = 0;
    r->seen = *cfg;
    r->magic = REC_MAGIC;
    if (rec_inits++ == 0)
        rec_first = *cfg;
    else if (memcmp(&rec_first, cfg, sizeof *cfg) != 0)
        rec_mismatch++;
}

static void rec_destroy(void *l)
{
    struct rec_lock *r = l;
    rec_destroys++;
    rec_busy += r->held != 0;
    r->magic = 0;
}

static void rec_ctx_init(void *c, unsigned tid, unsigned node)
{
    struct rec_ctx *x = c;
    x->magic = REC_MAGIC, x->tid = tid, x->node = node;
    rec_ctx_inits++;
}

static void rec_check_ctx(void *c)
{
    const struct rec_ctx *x = c;
    rec_bad_ctx += !x || x->magic != REC_MAGIC || x->tid != rec_tid;
}

static void rec_lock(void *l, void *c)
{
    struct rec_lock *r = l;
    rec_check_ctx(c);
    rec_busy += r->magic != REC_MAGIC || __atomic_exchange_n(&r->held, 1u, __ATOMIC_ACQUIRE) != 0;
    rec_ops++;
}

static bool rec_trylock(void *l, void *c)
{
    rec_lock(l, c);
    return true;
}

static void rec_unlock(void *l, void *c)
{
    struct rec_lock *r = l;
    rec_check_ctx(c);
    rec_busy += __atomic_exchange_n(&r->held, 0u, __ATOMIC_RELEASE) != 1;
}

static const struct lock_ops rec_lock_ops = {
    .name = "recording", .summary = "test_tables: records its lock_config and checks its ctx",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct rec_lock), .ctx_size = sizeof(struct rec_ctx),
    .init = rec_init, .destroy = rec_destroy, .ctx_init = rec_ctx_init,
    .lock = rec_lock, .trylock = rec_trylock, .unlock = rec_unlock,
    .read_lock = rec_lock, .read_unlock = rec_unlock,
};

/* One table under the recording lock with lock_config lc (NULL: none). */
static void lock_config_run(const struct lock_config *lc, unsigned want_handoff, unsigned want_waiters)
{
    enum { THREADS = 3 };
    static const unsigned nodes[THREADS] = { 1, 0, 1 };
    rec_inits = rec_destroys = rec_ctx_inits = rec_ops = rec_bad_ctx = rec_busy = rec_mismatch = 0;
    struct cht_config cfg = { .initial = 64, .density = 0.5, .range = CHT_KEY_MAX,
                              .max_threads = THREADS, .numa_nodes = 2, .thread_node = nodes };
    registry_apply_choice(&choice, &cfg);
    cfg.lock = &rec_lock_ops;
    cfg.lock_config = lc;
    char err[512] = "";
    void *t = ops->create(&cfg, err, sizeof err);
    CHECK(t, "%s: create under the recording lock: %s", ops->name, err);
    if (!t)
        return;
    CHECK(rec_inits >= 1, "%s: no lock inited", ops->name);
    CHECK(!rec_mismatch, "%s: %u of %u locks inited with another config than the first", ops->name,
          rec_mismatch, rec_inits);
    CHECK(rec_first.handoff_bound == want_handoff, "%s: locks got handoff_bound %u, the run's is %u", ops->name,
          rec_first.handoff_bound, want_handoff);
    CHECK(rec_first.waiter_threshold == want_waiters, "%s: locks got waiter_threshold %u, the run's is %u",
          ops->name, rec_first.waiter_threshold, want_waiters);
    CHECK(rec_first.numa_nodes == 2 && rec_first.max_threads == THREADS,
          "%s: locks got numa_nodes %u, max_threads %u; the table's config says 2, %u", ops->name,
          rec_first.numa_nodes, rec_first.max_threads, THREADS);
    CHECK(rec_ctx_inits >= THREADS, "%s: %u ctxs inited for %u threads", ops->name, rec_ctx_inits, THREADS);
    /* each thread in turn on this OS thread: its ops must hand the lock its own ctx */
    for (unsigned tid = 0; tid < THREADS; tid++) {
        rec_tid = tid;
        if (ops->thread_init)
            ops->thread_init(t, tid);
        for (cht_key_t k = 1 + tid * 100; k <= 20 + tid * 100; k++) {
            CHECK(ops->insert(t, k, k), "%s: insert %llu", ops->name, (unsigned long long)k);
            cht_val_t v = 0;
            /* a filter answers membership only */
            CHECK(ops->get(t, k, &v) && (v == k || (ops->caps & CHT_CAP_APPROXIMATE)), "%s: get %llu", ops->name,
                  (unsigned long long)k);
        }
        for (cht_key_t k = 1 + tid * 100; k <= 10 + tid * 100; k++)
            CHECK(ops->remove(t, k), "%s: remove %llu", ops->name, (unsigned long long)k);
        if (ops->thread_exit)
            ops->thread_exit(t, tid);
    }
    CHECK(ops->size(t) == 30, "%s: size %zu, expected 30", ops->name, ops->size(t));
    CHECK(rec_ops > 0, "%s: no operation took the lock", ops->name);
    CHECK(!rec_bad_ctx, "%s: %u lock calls without the calling thread's ctx", ops->name, rec_bad_ctx);
    unsigned inits = rec_inits;
    ops->destroy(t);
    CHECK(!rec_busy, "%s: %u acquisitions of a held lock, releases of a free one or locks destroyed held",
          ops->name, rec_busy);
    CHECK(rec_destroys == inits, "%s: %u locks inited, %u destroyed", ops->name, inits, rec_destroys);
}

static int mode_lock_config(void)
{
    /* no lock chosen: the registry gives the table its .default_lock (NULL: built-in locking) */
    struct table_choice bare = choice;
    bare.lock = NULL;
    struct cht_config c0 = { 0 };
    registry_apply_choice(&bare, &c0);
    if (ops->default_lock)
        CHECK(c0.lock && strcmp(c0.lock->name, ops->default_lock) == 0, "%s: default_lock %s resolved to %s",
              ops->name, ops->default_lock, c0.lock ? c0.lock->name : "nothing");
    else
        CHECK(!c0.lock, "%s: no default_lock, yet the registry gave lock %s", ops->name, c0.lock->name);
    /* numa_nodes and max_threads here differ from the table's: the table's own win */
    struct lock_config lc = { .numa_nodes = 5, .max_threads = 77, .handoff_bound = 7, .waiter_threshold = 3 };
    lock_config_run(&lc, 7, 3);
    lock_config_run(NULL, CHT_LOCK_HANDOFF_DEFAULT, CHT_LOCK_WAITER_THRESHOLD_DEFAULT);
    if (!failures)
        printf("ok %s: handoff_bound and waiter_threshold of the run reach its locks; ctxs per thread\n",
               ops->name);
    return failures ? 1 : 0;
}

/* Why MODE does not apply to the table (its caps, its ops), or NULL: every table is listed for
 * the modes below (tests/meson.build), and this picks those they test. */
static const char *mode_not_for(const char *mode)
{
    if (strcmp(mode, "batch") == 0 && !ops->get_batch)
        return "has no get_batch";
    if (strcmp(mode, "lock-config") == 0 && !(ops->caps & CHT_CAP_LOCK_PARAM))
        return "takes no lock (no CHT_CAP_LOCK_PARAM)";
    if (strcmp(mode, "sizes") == 0 && (ops->caps & CHT_CAP_NO_DATA))
        return "stores nothing (CHT_CAP_NO_DATA): no size to refuse";
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s tid-bound|oom|sizes|rtm-aborts|batch|lock-config TABLE[:opts]\n", argv[0]);
        return 2;
    }
    char err[512];
    /* the simulation makes RTM locks available: decide before parsing */
    bool rtm_mode = strcmp(argv[1], "rtm-aborts") == 0;
    if (rtm_mode && !cht_rtm_available(NULL, 0))
        cht_rtm_simulate_aborts(true);
    if (registry_parse_table(argv[2], &choice, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    ops = choice.ops;
    const char *not_for = mode_not_for(argv[1]);
    if (not_for) {
        printf("SKIP %s: %s\n", choice.text, not_for);
        return SKIP;
    }
    char why[256];
    /* lock-config swaps in its recording lock: only the table itself must be able to run here */
    bool runs = strcmp(argv[1], "lock-config") == 0 ? !ops->available || ops->available(why, sizeof why)
                                                    : registry_choice_available(&choice, why, sizeof why);
    if (!runs) {
        printf("SKIP %s: %s\n", ops->name, why);
        return SKIP;
    }
    if (rtm_mode)
        cht_rtm_simulate_aborts(false);
    if (strcmp(argv[1], "tid-bound") == 0)
        return mode_tid_bound();
    if (strcmp(argv[1], "oom") == 0)
        return mode_oom();
    if (strcmp(argv[1], "sizes") == 0)
        return mode_sizes();
    if (rtm_mode)
        return mode_rtm_aborts();
    if (strcmp(argv[1], "batch") == 0)
        return mode_batch();
    if (strcmp(argv[1], "lock-config") == 0)
        return mode_lock_config();
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
