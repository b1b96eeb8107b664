/*
 * locks.c - the lock suite (check.h): what tests/test_locks runs on the
 * built-in locks and `chtbench check` on anyone's.
 *
 * mutex: the critical section increments a counter with a relaxed atomic
 * load + store (an increment is lost exactly when exclusion fails), a plain
 * shadow counter (the thread sanitizer then checks the lock's
 * happens-before edges), and counts threads inside; every 1024
 * acquisitions a thread yields, so all threads interleave. Both counters
 * must come out exact and no overlap may be seen. Locks with ctx_stats
 * (RTM): the counters must add up.
 * rw: writers store a sequence number into an 8-word record, readers must
 * never see a mixed record nor a writer inside.
 */
#include <sched.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "team.h"
#include "util.h"            /* now_ns */

/* deadline 0: none */
static inline bool lock_out_of_time(uint64_t deadline_ns, uint64_t i)
{
    /* every 64: a convoying lock (16 FIFO waiters on 2 CPUs) may take a millisecond an acquisition */
    return deadline_ns && (i & 63) == 63 && now_ns() > deadline_ns;
}

struct lbox {
    const struct lock_ops *ops;
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
static bool lbox_make(struct lbox *b, const struct lock_ops *lops, unsigned threads, const struct lock_config *c,
                      unsigned mod)
{
    *b = (struct lbox){ .ops = lops, .threads = threads };
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
    /* rw */
    alignas(64) uint64_t rec[8];
    alignas(64) uint64_t writes;        /* plain, written under the write lock */
    alignas(64) int readers, writers, max_readers;
    alignas(64) uint64_t torn, bad_writer, bad_reader;
    uint64_t first_torn_seq, first_torn_word;   /* the first mixed record a reader saw */
};

struct lworker {
    unsigned tid;
    const struct lock_check *l;
    struct lbox *b;
    struct lshared *sh;
    struct team *team;                  /* met once all are ready: the start */
    uint64_t deadline_ns;               /* > 0: stop acquiring after it */
    uint64_t done, writes_done, contended, sink;
};

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
    const struct lock_ops *lops = w->b->ops;
    void *x = lbox_ctx(w->b, w->tid);
    unsigned every = lops->trylock ? w->l->trylock_every : 0;
    team_wait(w->team);
    uint64_t i;
    for (i = 0; i < w->l->iters && !lock_out_of_time(w->deadline_ns, i); i++) {
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
    const struct lock_ops *lops = w->b->ops;
    void *x = lbox_ctx(w->b, w->tid);
    unsigned write_one_in = w->l->write_one_in, read_spin = w->l->read_spin;
    uint32_t rnd = 0x9e3779b9u * (w->tid + 1);
    team_wait(w->team);
    uint64_t i;
    for (i = 0; i < w->l->iters && !lock_out_of_time(w->deadline_ns, i); i++) {
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

/* what the threads did, summed after the join */
struct lock_tally {
    unsigned n;                         /* threads */
    uint64_t done, writes, contended;
    double seconds;
};

static void mutex_verdict(struct lock_check *l, const struct lshared *sh, const struct lock_tally *t)
{
    const unsigned n = t->n;
    if (sh->counter != t->done)
        lfail(l, "counter expected %llu got %llu (%llu increments lost: no mutual exclusion, %u threads)",
              (unsigned long long)t->done, (unsigned long long)sh->counter,
              (unsigned long long)(t->done - sh->counter), n);
    else if (sh->plain != t->done)
        lfail(l, "plain counter expected %llu got %llu (%u threads)", (unsigned long long)t->done,
              (unsigned long long)sh->plain, n);
    if (sh->overlaps)
        lfail(l, "threads inside the critical section expected at most 1 got 2, %d times (%u threads)",
              sh->overlaps, n);
    if (l->log) {
        const double dt = t->seconds;
        fprintf(l->log, "%s: %u threads x %llu acquisitions in %.2f s (%.0f/s)", l->ops->name, n,
                (unsigned long long)(t->done / n), dt, dt > 0 ? (double)t->done / dt : 0);
        if (l->ops->is_locked)
            fprintf(l->log, ", %.1f%% found it taken",
                    t->done ? 100.0 * (double)t->contended / (double)t->done : 0);
        fprintf(l->log, "\n");
    }
}

static void rw_verdict(struct lock_check *l, const struct lshared *sh, const struct lock_tally *t)
{
    const unsigned n = t->n;
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
    if (sh->writes != t->writes || sh->rec[0] != t->writes)
        lfail(l, "write counter expected %llu got %llu, record %llu (%u threads)", (unsigned long long)t->writes,
              (unsigned long long)sh->writes, (unsigned long long)sh->rec[0], n);
    l->max_readers = sh->max_readers;
    if (l->log)
        fprintf(l->log, "%s: %u threads x %llu ops (1 in %u writes: %llu writes) in %.2f s, max readers "
                "inside %d\n", l->ops->name, n, (unsigned long long)(t->done / n), l->write_one_in,
                (unsigned long long)t->writes, t->seconds, sh->max_readers);
}

/* locks with ctx_stats (RTM): the counters of a mutex run must add up */
static void tx_stats_verdict(struct lock_check *l, uint64_t done)
{
    const struct lock_stats *s = &l->stats;
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

enum check_verdict lock_check_run(struct lock_check *l, enum lock_check_kind k)
{
    const struct lock_ops *lops = l->ops;
    l->verdict = CHECK_PASS;
    l->detail[0] = '\0';
    l->acquisitions = 0;
    l->max_readers = 0;
    l->have_stats = false;
    memset(&l->stats, 0, sizeof l->stats);
    const unsigned n = l->threads ? l->threads : 1;
    struct lock_config cfg = l->cfg;
    cfg.max_threads = n;
    if (!cfg.numa_nodes)
        cfg.numa_nodes = 1;
    struct lbox b;
    struct lshared *sh = lalloc(sizeof *sh);
    struct lworker *w = calloc(n, sizeof *w);
    if (!sh || !w || !lbox_make(&b, lops, n, &cfg, l->node_mod ? l->node_mod : cfg.numa_nodes)) {
        free(sh);
        free(w);
        lfail(l, "out of memory");
        return l->verdict;
    }
    memset(sh, 0, sizeof *sh);
    const uint64_t t0 = now_ns();
    struct team team;
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct lworker){ .tid = i, .l = l, .b = &b, .sh = sh, .team = &team,
                                 .deadline_ns = l->seconds > 0 ? t0 + (uint64_t)(l->seconds * 1e9) : 0 };
    unsigned started;
    if (team_start_or_none(&team, n, false, k == LCHECK_RW ? rw_worker : mutex_worker, w, sizeof *w,
                           &started) == 0)
        team_join(&team);
    struct lock_tally t = { .n = n };
    for (unsigned i = 0; i < n; i++) {
        t.done += w[i].done;
        t.writes += w[i].writes_done;
        t.contended += w[i].contended;
    }
    t.seconds = (double)(now_ns() - t0) / 1e9;
    l->acquisitions = t.done;
    if (started < n)
        lfail(l, "pthread_create failed (%u of %u threads)", started, n);
    else if (k == LCHECK_MUTEX)
        mutex_verdict(l, sh, &t);
    else
        rw_verdict(l, sh, &t);
    l->have_stats = lops->stats || lops->ctx_stats;
    if (lops->stats)
        lops->stats(b.lock, &l->stats);
    for (unsigned i = 0; lops->ctx_stats && i < n; i++)
        lops->ctx_stats(lbox_ctx(&b, i), &l->stats);
    if (k == LCHECK_MUTEX && lops->ctx_stats && started == n)
        tx_stats_verdict(l, t.done);
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
                 (unsigned long long)t.done, (unsigned long long)t.writes, n, l->max_readers);
    else if (l->verdict == CHECK_PASS)
        snprintf(l->detail, sizeof l->detail, "%llu acquisitions, %u threads", (unsigned long long)t.done, n);
    return l->verdict;
}
