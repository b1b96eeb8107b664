/*
 * table_order.c - the table suite's checks of write order (check.h,
 * check_internal.h): versions (every write unique, no lost update or stale
 * read by kind) and history (every answer of a concurrent run linearizable,
 * src/history.c). Tables without values (filters) are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_internal.h"
#include "history.h"
#include "keygen.h"          /* cht_rng */
#include "registry.h"        /* struct table_choice */
#include "runner.h"          /* run_val: the values history.c decodes */

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
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    const uint64_t n = w->nthreads, own = w->nkeys / n;   /* own keys: tid + 1 + j n, j < own */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        if (x & 1) {                          /* half the ops: write an own key, read it back */
            cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&rng), own) * n;
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
            cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), w->nkeys);
            cht_val_t got = 0;
            if (!ops->get(w->t, k, &got))
                W_ERR(w, "key %llu get expected true got false (never removed; op %llu)", (unsigned long long)k,
                      (unsigned long long)i);
            else
                ver_check_read(w, k, got, i);
        }
    }
    w->done = i;
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_versions(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    if (ops->caps & CHT_CAP_APPROXIMATE) {
        check_note(r, "versions: %s stores no values; nothing to check\n", ops->name);
        r->skip_why = "stores no values (a filter)";
        return 0;
    }
    if (!ops->update) {
        check_note(r, "versions: %s has no update(); nothing to check\n", ops->name);
        r->skip_why = "no update()";
        return 0;
    }
    const unsigned n = nthr(r, 8) < 2 ? 2 : nthr(r, 8);
    const uint64_t nkeys = (4 * n > 64 ? 4 * n : 64) / n * n;
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    uint64_t *published = calloc(nkeys + 1, sizeof *published);
    uint64_t *seen = calloc((size_t)n * (nkeys + 1), sizeof *seen);
    void *t = NULL;
    int rc = -1;
    if (!w || !published || !seen) {
        check_fail(r, "out of memory");
        goto out;
    }
    if (!(t = table_create(r, nkeys, 0.5, n, nkeys)))
        goto out;
    t_init(ops, t, 0);
    for (cht_key_t k = 1; k <= nkeys; k++)
        CHECK(r, ops->insert(t, k, ver_val(k, 0, 0)), "key %llu prefill insert expected true got false",
              (unsigned long long)k);
    t_exit(ops, t, 0);
    struct team team;
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 500, .nops = scaled(r, 400000) / n + 1,
                                .nthreads = n, .team = &team, .seen = seen + (size_t)i * (nkeys + 1),
                                .published = published, .nkeys = nkeys };
    if (check_team_run(r, &team, n, versions_worker, w, sizeof *w) != 0)
        goto out;
    /* the end: every key holds its owner's last write */
    uint64_t lost = 0, stale = 0, unwritten = 0, final_lost = 0;
    char first[200] = "";
    t_init(ops, t, 0);
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
    t_exit(ops, t, 0);
    for (unsigned i = 0; i < n; i++) {
        lost += w[i].lost;
        stale += w[i].stale;
        unwritten += w[i].unwritten;
    }
    char what[200];
    snprintf(what, sizeof what, "%llu lost updates, %llu stale reads, %llu values never written, %llu keys not at "
             "their last write at the end; %llu keys", (unsigned long long)lost, (unsigned long long)stale,
             (unsigned long long)unwritten, (unsigned long long)final_lost, (unsigned long long)nkeys);
    int errors = workers_check(r, w, n, what);
    CHECK(r, final_lost == 0, "%s (%llu keys so; %s, %u threads)", first, (unsigned long long)final_lost, what, n);
    ops->destroy(t);
    t = NULL;
    check_note(r, "versions: %s, %u threads, %llu keys: %s, %d errors\n", r->choice->text, n,
               (unsigned long long)nkeys, what, errors);
    rc = 0;
out:
    if (t)
        ops->destroy(t);
    free(w);
    free(published);
    free(seen);
    return rc;
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
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    const uint64_t vbits = run_val_writer_bits(w->tid + 1);
    uint64_t i, seq = 0;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        const unsigned c = (unsigned)cht_rng_below(cht_rng_next(&rng), 100);
        const cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), HIST_CHECK_KEYS);
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
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_history(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    if (ops->caps & CHT_CAP_APPROXIMATE) {
        check_note(r, "history: %s stores no values; nothing to check\n", ops->name);
        r->skip_why = "stores no values (a filter)";
        return 0;
    }
    const unsigned n = nthr(r, 4) < 2 ? 2 : nthr(r, 4);
    const uint64_t per = scaled(r, 1000000) / n + 1;    /* a fault 1 in 10^4 ops is seen ~10 times */
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    struct hist_buf *bufs = calloc(n, sizeof *bufs);
    struct hist_init init[HIST_CHECK_KEYS];
    bool bufs_ok = w && bufs;
    for (unsigned i = 0; bufs_ok && i < n; i++)
        bufs_ok = hist_buf_init(&bufs[i], per) == 0;
    void *t = NULL;
    int rc = -1;
    if (!bufs_ok) {
        check_fail(r, "out of memory");
        goto out;
    }
    if (!(t = table_create(r, HIST_CHECK_KEYS, 0.5, n, HIST_CHECK_KEYS)))
        goto out;
    t_init(ops, t, 0);
    for (cht_key_t k = 1; k <= HIST_CHECK_KEYS; k++) {
        init[k - 1] = (struct hist_init){ .key = k, .val = run_val(k, 0, 0), .present = k % 2 == 1 };
        if (init[k - 1].present)
            CHECK(r, ops->insert(t, k, init[k - 1].val), "key %llu prefill insert expected true got false",
                  (unsigned long long)k);
    }
    t_exit(ops, t, 0);
    struct team team;
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 600, .nops = per, .nthreads = n,
                                .team = &team, .hist = &bufs[i] };
    const uint64_t t_start = now_ns();
    if (check_team_run(r, &team, n, history_worker, w, sizeof *w) != 0)
        goto out;
    struct hist_result h;
    for (unsigned i = 0; i < n; i++)
        r->ops_total += w[i].done;
    CHECK(r, hist_check(bufs, n, init, HIST_CHECK_KEYS, t_start, now_ns(), &h) == 0,
          "out of memory for the history checker");
    for (char *c = h.window; (c = strstr(c, "\n    ")) != NULL;)   /* one line: "; " between the window's ops */
        memmove(c + 2, c + 5, strlen(c + 5) + 1), c[0] = ';', c[1] = ' ';
    CHECK(r, h.violations == 0, "%s (%llu of %llu keys not linearizable; %llu ops, %u threads)", h.window,
          (unsigned long long)h.violations, (unsigned long long)h.keys, (unsigned long long)h.ops, n);
    ops->destroy(t);
    t = NULL;
    check_note(r, "history: %s, %u threads, %u keys: %llu ops, %llu keys not linearizable, %llu undecided\n",
               r->choice->text, n, HIST_CHECK_KEYS, (unsigned long long)h.ops, (unsigned long long)h.violations,
               (unsigned long long)h.undecided);
    rc = 0;
out:
    if (t)
        ops->destroy(t);
    for (unsigned i = 0; bufs && i < n; i++)
        hist_buf_free(&bufs[i]);
    free(bufs);
    free(w);
    return rc;
}

