/*
 * filter.c - the filter suite (check.h, check_internal.h): the variants of
 * model, disjoint, stable and stress that approximate tables
 * (CHT_CAP_APPROXIMATE: filters) run instead of the table suite's.
 *
 * A filter stores fingerprints: get() may say yes for a key never inserted
 * (a false positive, counted and reported, never a failure), but never no
 * for a key inserted and not removed (a false negative: a failure, also
 * under concurrency). insert() adds one more copy (a multiset: it fails only
 * when full, counting full_failures); remove() is issued only for keys the
 * caller knows to be present (its own inserts) and must then succeed.
 * size() stays exact: successful inserts minus successful removes.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check_internal.h"
#include "keygen.h"          /* cht_rng */
#include "registry.h"        /* struct table_choice */

struct filter_worker {
    alignas(64) unsigned tid;
    const struct check_run *run;   /* ops, deadline: read only while the team runs */
    void *t;
    uint64_t seed, nops, range, nthreads;
    uint64_t ins_suc, rem_suc, fp_queries, fp_hits;
    struct team *team;          /* met after thread_init and before thread_exit; NULL: the model */
    uint32_t *own;              /* copies this thread (or the model) holds, per key */
    uint32_t *base;             /* copies no worker may remove (prefill), per key; may be NULL */
    bool shared;                /* keys from all of [1, range], else only tid+1 (mod nthreads) */
    unsigned ins_pct;           /* insert share of ops, percent (0: 20) */
    int errors;
    uint64_t done;
    char cex[200];
};

static void filter_report(const struct check_run *r, const char *mode, uint64_t queries, uint64_t hits)
{
    check_note(r, "%s: %s false positives %llu of %llu gets of absent keys (%.4f%%)\n", mode, r->choice->text,
               (unsigned long long)hits, (unsigned long long)queries,
               queries ? 100.0 * (double)hits / (double)queries : 0);
}

/* one op of the approximate model: insert 20% (ins_pct), remove (of a held
 * key) 50%, else get; `held` copies of k are known present (own + base) */
static void filter_step(struct filter_worker *w, cht_key_t k, unsigned op)
{
    const struct cht_ops *ops = w->run->ops;
    uint32_t held = w->own[k] + (w->base ? w->base[k] : 0);
    if (op < (w->ins_pct ? w->ins_pct : 20)) {
        uint64_t ff = full_failures(ops, w->t);
        bool ok = ops->insert(w->t, k, 0);
        if (!ok && full_failures(ops, w->t) == ff)
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

static int filter_run_model(struct check_run *r, size_t initial, double density, uint64_t range, uint64_t nops,
                        uint64_t seed, uint64_t *q, uint64_t *h)
{
    const struct cht_ops *ops = r->ops;
    void *t = table_create(r, initial, density, 1, range);
    if (!t)
        return -1;
    t_init(ops, t, 0);
    struct filter_worker w = { .run = r, .t = t, .own = calloc(range + 1, sizeof(uint32_t)) };
    struct cht_rng rng;
    cht_rng_seed(&rng, seed, 0);
    uint64_t i;
    for (i = 0; i < nops && !out_of_time(r, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), range);
        int before = w.errors;
        filter_step(&w, k, (unsigned)cht_rng_below(x, 100));
        if (w.errors != before) {
            check_fail(r, "%s (op %llu, seed %llu)", w.cex, (unsigned long long)i, (unsigned long long)seed);
            w.errors = 0;
        }
        if ((i & 4095) == 0)
            CHECK(r, ops->size(t) == w.ins_suc - w.rem_suc,
                  "size() expected %llu got %zu (after op %llu, seed %llu)", (unsigned long long)(w.ins_suc - w.rem_suc),
                  ops->size(t), (unsigned long long)i, (unsigned long long)seed);
    }
    r->ops_total += i;
    CHECK(r, ops->size(t) == w.ins_suc - w.rem_suc, "final size() expected %llu got %zu (seed %llu)",
          (unsigned long long)(w.ins_suc - w.rem_suc), ops->size(t), (unsigned long long)seed);
    for (cht_key_t k = 1; k <= range; k++) {
        bool ok = ops->get(t, k, NULL);
        CHECK(r, ok || !w.own[k],
              "key %llu final get expected true got false (%u copies inserted: a false negative)",
              (unsigned long long)k, w.own[k]);
        if (!w.own[k]) { w.fp_queries++; w.fp_hits += ok; }
    }
    /* remove every held copy: the filter must end empty */
    for (cht_key_t k = 1; k <= range; k++)
        for (; w.own[k]; w.own[k]--)
            CHECK(r, ops->remove(t, k), "key %llu drain remove expected true got false (%u copies held)",
                  (unsigned long long)k, w.own[k]);
    CHECK(r, ops->size(t) == 0, "size() after the drain expected 0 got %zu", ops->size(t));
    *q += w.fp_queries;
    *h += w.fp_hits;
    t_exit(ops, t, 0);
    ops->destroy(t);
    free(w.own);
    return 0;
}

int filter_model(struct check_run *r)
{
    uint64_t n = scaled(r, 200000), q = 0, h = 0;
    check_time_slice(r, 0, 3);
    if (filter_run_model(r, 2048, 0.5, 4096, n, 1, &q, &h) != 0)
        return -1;
    check_time_slice(r, 1, 3);
    /* tiny (capacity = initial at density 1): full most of the time */
    if (filter_run_model(r, 16, 1.0, 4096, n, 2, &q, &h) != 0)
        return -1;
    check_time_slice(r, 2, 3);
    if (filter_run_model(r, 50000, 0.5, 100000, n, 3, &q, &h) != 0)
        return -1;
    filter_report(r, "model", q, h);
    check_note(r, "model: %s passed 3 runs of %llu ops (approximate: no false negatives, exact size)\n",
               r->choice->text, (unsigned long long)n);
    return 0;
}

static void *filter_worker_fn(void *arg)
{
    struct filter_worker *w = arg;
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    uint64_t per = w->range / w->nthreads;   /* disjoint: own keys tid+1 + j*nthreads */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = w->shared ? 1 + cht_rng_below(cht_rng_next(&rng), w->range)
                                : w->tid + 1 + cht_rng_below(cht_rng_next(&rng), per) * w->nthreads;
        filter_step(w, k, (unsigned)cht_rng_below(x, 100));
    }
    w->done = i;
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

/* T threads; `shared`: every thread draws from all of [1, range] (each
 * tracks only its own copies: a key another thread holds may read as absent
 * to it, so only the disjoint runs count false positives), else each owns
 * the keys tid+1 (mod T). Checks no false negative during and after, exact
 * size(). */
static int filter_threads(struct check_run *r, const char *mode, unsigned n, uint64_t range, size_t initial,
                      size_t prefill, uint64_t nops, uint64_t seed, bool shared, unsigned ins_pct, uint64_t *q,
                      uint64_t *h)
{
    const struct cht_ops *ops = r->ops;
    void *t = table_create(r, initial, 0.5, n, range);
    if (!t)
        return -1;
    uint32_t *own = calloc((size_t)n * (range + n + 1), sizeof *own);
    uint32_t *base = calloc(range + n + 1, sizeof *base);
    t_init(ops, t, 0);
    size_t pre = 0;
    for (cht_key_t k = 1; pre < prefill && k <= range; k += 2) {
        bool ok = ops->insert(t, k, 0);
        CHECK(r, ok || full_failures(ops, t) > 0,
              "key %llu prefill insert expected true or a counted full failure got false", (unsigned long long)k);
        if (ok) { base[k]++; pre++; }
    }
    t_exit(ops, t, 0);
    struct team team;
    struct filter_worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct filter_worker){ .tid = i, .run = r, .t = t, .seed = seed, .nops = nops, .range = range,
                                   .nthreads = n, .team = &team, .shared = shared, .ins_pct = ins_pct,
                                   .own = own + (size_t)i * (range + n + 1), .base = base };
    if (check_team_run(r, &team, n, filter_worker_fn, w, sizeof *w) != 0) {
        ops->destroy(t);
        free(w);
        free(own);
        free(base);
        return -1;
    }
    uint64_t ins = 0, rem = 0;
    int errors = 0;
    const char *first = NULL;
    unsigned ft = 0;
    for (unsigned i = 0; i < n; i++) {
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
        errors += w[i].errors;
        r->ops_total += w[i].done;
        if (w[i].errors && !first) {
            first = w[i].cex;
            ft = i;
        }
        *q += w[i].fp_queries;
        *h += w[i].fp_hits;
    }
    CHECK(r, errors == 0, "thread %u %s; %d wrong results in all, %u threads", ft, first ? first : "", errors, n);
    t_init(ops, t, 0);
    CHECK(r, ops->size(t) == pre + ins - rem, "size() expected %zu + %llu - %llu got %zu", pre,
          (unsigned long long)ins, (unsigned long long)rem, ops->size(t));
    size_t held_keys = 0;
    for (cht_key_t k = 1; k <= range + n; k++) {
        uint64_t held = base[k];
        for (unsigned i = 0; i < n; i++)
            held += w[i].own[k];
        held_keys += held > 0;
        bool ok = ops->get(t, k, NULL);
        CHECK(r, ok || !held, "key %llu final get expected true got false (%llu copies held: a false negative)",
              (unsigned long long)k, (unsigned long long)held);
    }
    t_exit(ops, t, 0);
    ops->destroy(t);
    free(w);
    free(own);
    free(base);
    check_note(r, "%s: %s passed with %u threads, %zu keys held at the end, size %zu\n", mode, r->choice->text, n,
               held_keys, pre + ins - rem);
    return 0;
}

int filter_disjoint(struct check_run *r)
{
    uint64_t q = 0, h = 0;
    check_time_slice(r, 0, 2);
    if (filter_threads(r, "disjoint", nthr(r, 4), 4096, 2048, 0, scaled(r, 100000), 7, false, 0, &q, &h) != 0)
        return -1;
    check_time_slice(r, 1, 2);
    if (filter_threads(r, "disjoint", 2 * nthr(r, 4), 20000, 10000, 0, scaled(r, 100000), 8, false, 0, &q, &h) != 0)
        return -1;
    filter_report(r, "disjoint", q, h);
    return 0;
}

int filter_stable(struct check_run *r)
{
    /* odd keys prefilled (base copies, never removed); all threads churn
     * and read all keys, each removing only its own copies */
    uint64_t q = 0, h = 0;
    check_time_slice(r, 0, 1);
    return filter_threads(r, "stable", nthr(r, 6), 20000, 20000, 10000, scaled(r, 200000), 11, true, 0, &q, &h);
}

int filter_stress(struct check_run *r)
{
    uint64_t q = 0, h = 0;
    unsigned runs = (unsigned)scaled(r, 40);
    /* alternate a roomy filter and a tiny one that stays full (every failed
     * insert then searches `retries` kicks while the others move fingerprints).
     * 64 keys, 16 threads: inserts are 8% of ops, or the multiset's copies of
     * one key pass 2*ways (refused as full) most of the time. */
    unsigned n = stress_threads(r);
    for (unsigned run = 0; run < runs; run++) {
        check_time_slice(r, run, runs);
        if (filter_threads(r, "stress", n, 64, run % 2 ? 32 : 512, 32, scaled(r, run % 2 ? 2000 : 20000), 100 + run,
                       true, 8, &q, &h) != 0)
            return -1;
    }
    check_note(r, "stress: %s passed %u runs x %u threads, r=64\n", r->choice->text, runs, n);
    return 0;
}
