/*
 * table_steady.c - the table suite's steady check (check.h,
 * check_internal.h), for tables with update() or CHT_CAP_VALUE_OOL: the
 * steady state does not grow. A constant key count (512 keys, at most one
 * per thread missing at a time), 6 rounds: updates (half to one hot key per
 * thread) and remove/insert pairs, 4 of updates only (7/8 of them to one hot
 * key per thread, the rest over its keys), pairs only; by one thread, then
 * by 4 threads in bursts of 128 ops between barriers (a burst bounds what
 * EBR may hold back while a thread is preempted). After every round, all
 * threads offline, the bytes from stats() and the process's allocated bytes
 * (jemalloc's stats.allocated, glibc's mallinfo2 uordblks + hblkhd, or the
 * sanitizer allocator's count) must stay within 64 KB + 1/8 of their value
 * after the first round (+ 256 x (value size + 64) bytes per thread with 4
 * threads) (issue 22: hotring's RCU update kept every old version of a head
 * item linked while only updates ran).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "check_internal.h"
#include "keygen.h"          /* cht_rng */


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
    const struct check_run *run;   /* ops: read only while the team runs */
    void *t;
    uint64_t seed, bursts;
    struct team *team;        /* met after every burst; NULL: one thread */
    int errors;
    char cex[200];            /* the first failed op */
};

/* one round: bursts of updates and/or of remove/insert pairs (w->what), on
 * the keys k = tid + 1 (mod nthreads) in 1..STEADY_KEYS; the key count never
 * drops by more than one per thread */
static void *steady_worker_fn(void *arg)
{
    struct steady_worker *w = arg;
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    uint64_t per = STEADY_KEYS / w->nthreads;
    cht_key_t hot = w->tid + 1;
    for (uint64_t b = 0; b < w->bursts; b++) {
        bool pairs = !ops->update || w->what == 2 || (w->what == 0 && b >= w->bursts * 3 / 4);
        for (unsigned i = 0; i < STEADY_BURST; i++) {
            uint64_t x = cht_rng_next(&rng);
            cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&rng), per) * w->nthreads;
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
        if (w->team)
            team_wait(w->team);
    }
    t_exit(ops, w->t, w->tid);
    return NULL;
}

static int steady_phase(struct check_run *r, unsigned n)
{
    const struct cht_ops *ops = r->ops;
    void *t = table_create(r, STEADY_KEYS, 0.5, n, 2 * STEADY_KEYS);
    if (!t)
        return -1;
    t_init(ops, t, 0);
    for (cht_key_t k = 1; k <= STEADY_KEYS; k++)
        CHECK(r, ops->insert(t, k, val_for(k, 0)), "key %llu prefill insert expected true got false",
              (unsigned long long)k);
    t_exit(ops, t, 0);
    struct team team;
    struct steady_worker *w = aligned_alloc(64, sizeof *w * n);
    uint64_t bursts = scaled(r, 160) / n;          /* per thread and round: 20K ops per round in all */
    if (bursts < 4)
        bursts = 4;
    size_t b0 = 0, a0 = 0, bmax = 0, amax = 0, bfirst = 0, afirst = 0;
    /* the stated bound: 64 KB + 1/8 of the first round's value, and with
     * several threads 256 objects of value size + 64 per thread: what
     * per-thread free lists and reclamation batches may hold (their fill
     * when a round ends depends on the interleaving). A leak of one object
     * per update adds a round's update count of them. */
    size_t slack = 65536 + (n > 1 ? (size_t)n * 256 * (r->value_size + 64) : 0);
    const char *src = "none";
    bool have_a = false;
    char trace[512] = "";
    size_t tl = 0;
    for (unsigned round = 0; round < STEADY_ROUNDS; round++) {
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct steady_worker){ .tid = i, .nthreads = n, .run = r, .t = t,
                                           .seed = 500 + 10 * round + n,
                                           .what = round == 0 ? 0 : round + 1 < STEADY_ROUNDS ? 1 : 2,
                                           .bursts = bursts, .team = n > 1 ? &team : NULL };
        if (n == 1) {
            steady_worker_fn(&w[0]);
        } else if (check_team_run(r, &team, n, steady_worker_fn, w, sizeof *w) != 0) {
            ops->destroy(t);
            free(w);
            return -1;
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
        r->ops_total += bursts * n * STEADY_BURST;
        CHECK(r, errors == 0, "thread %u %s; %d failed ops in all, %u thread(s), round %u", ft, first ? first : "",
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
    t_init(ops, t, 0);
    CHECK(r, ops->size(t) == STEADY_KEYS, "final size() expected %d got %zu (%u thread(s))", STEADY_KEYS,
          ops->size(t), n);
    for (cht_key_t k = 1; k <= STEADY_KEYS; k++) {
        cht_val_t got = 0;
        CHECK(r, ops->get(t, k, &got) && val_ok(k, got), "key %llu final get expected its value got %llx",
              (unsigned long long)k, (unsigned long long)got);
    }
    t_exit(ops, t, 0);
    ops->destroy(t);
    free(w);
    check_note(r, "steady: %s, value size %zu, %u thread(s), %d rounds of %llu ops: KB after each round (stats bytes/"
               "allocated by %s): %s\n", r->spec_text, r->value_size, n, STEADY_ROUNDS,
               (unsigned long long)(bursts * n * STEADY_BURST), src, trace);
    CHECK(r, bmax <= bbound, "%u threads: stats() bytes grew from %zu after the first round to %zu (bound %zu)",
          n, bfirst, bmax, bbound);
    CHECK(r, !have_a || amax <= abound, "%u threads: %s grew from %zu after the first round to %zu (bound %zu)",
          n, src, afirst, amax, abound);
    return 0;
}

int check_steady(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    if (!ops->update && !(ops->caps & CHT_CAP_VALUE_OOL)) {
        check_note(r, "steady: %s has neither update() nor out-of-line values; nothing to check\n", ops->name);
        r->skip_why = "neither update() nor out-of-line values";
        return 0;
    }
    if (!ops->stats)
        check_note(r, "steady: %s has no stats(); allocated bytes only\n", ops->name);
    if (steady_phase(r, 1) != 0)
        return -1;
    /* 2..64 threads: each needs keys of its own among the 512 */
    return steady_phase(r, nthr(r, 4) < 2 ? 2 : nthr(r, 4) > 64 ? 64 : nthr(r, 4));
}

