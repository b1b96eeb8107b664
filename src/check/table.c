/*
 * table.c - the table suite's checks of answers (check.h, check_internal.h):
 * what tests/test_conformance runs on the built-in tables and
 * `chtbench check` on anyone's. Approximate tables (filters) run the
 * filter suite's variants of model, disjoint, stable and stress (filter.c);
 * versions and history are in table_order.c, steady in table_steady.c.
 *
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
 */
#include <stdio.h>
#include <stdlib.h>
#include "check_internal.h"
#include "keygen.h"          /* cht_rng */
#include "registry.h"        /* struct table_choice */

/* ---------------- model ---------------- */

static int run_model(struct check_run *r, size_t initial, double density, uint64_t range, uint64_t nops,
                     uint64_t seed)
{
    const struct cht_ops *ops = r->ops;
    void *t = table_create(r, initial, density, 1, range);
    if (!t)
        return -1;
    t_init(ops, t, 0);
    cht_val_t *ref = calloc(range + 1, sizeof *ref);    /* 0 = absent */
    size_t count = 0;
    struct cht_rng rng;
    cht_rng_seed(&rng, seed, 0);
    uint64_t i;
    for (i = 0; i < nops && !out_of_time(r, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), range);
        unsigned op = (unsigned)cht_rng_below(x, 100);
        cht_val_t v = val_for(k, x >> 56 | 1);
        if (op < 30) {
            uint64_t ff = full_failures(ops, t);
            bool ok = ops->insert(t, k, v);
            if (!ok && !ref[k] && full_failures(ops, t) > ff)
                continue;       /* a table may refuse when full, if it counts the refusal */
            CHECK(r, ok == !ref[k], "key %llu insert expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(!ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) { ref[k] = v; count++; }
        } else if (op < 60) {
            bool ok = ops->remove(t, k);
            CHECK(r, ok == !!ref[k], "key %llu remove expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) { ref[k] = 0; count--; }
        } else if (op < 70 && ops->update) {
            bool ok = ops->update(t, k, v);
            CHECK(r, ok == !!ref[k], "key %llu update expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            if (ok) ref[k] = v;
        } else {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            CHECK(r, ok == !!ref[k], "key %llu get expected %s got %s (op %llu, seed %llu)", (unsigned long long)k,
                  tf(ref[k]), tf(ok), (unsigned long long)i, (unsigned long long)seed);
            CHECK(r, !ok || got == ref[k], "key %llu get expected value %llx got %llx (op %llu, seed %llu)",
                  (unsigned long long)k, (unsigned long long)ref[k], (unsigned long long)got, (unsigned long long)i,
                  (unsigned long long)seed);
        }
        if ((i & 4095) == 0)
            CHECK(r, ops->size(t) == count, "size() expected %zu got %zu (after op %llu, seed %llu)", count,
                  ops->size(t), (unsigned long long)i, (unsigned long long)seed);
    }
    r->ops_total += i;
    CHECK(r, ops->size(t) == count, "final size() expected %zu got %zu (seed %llu)", count, ops->size(t),
          (unsigned long long)seed);
    for (cht_key_t k = 1; k <= range; k++) {
        cht_val_t got = 0;
        bool ok = ops->get(t, k, &got);
        CHECK(r, ok == !!ref[k], "key %llu final get expected %s got %s (seed %llu)", (unsigned long long)k,
              tf(ref[k]), tf(ok), (unsigned long long)seed);
        CHECK(r, !ok || got == ref[k], "key %llu final get expected value %llx got %llx (seed %llu)",
              (unsigned long long)k, (unsigned long long)ref[k], (unsigned long long)got, (unsigned long long)seed);
    }
    t_exit(ops, t, 0);
    ops->destroy(t);
    free(ref);
    return 0;
}

int check_model(struct check_run *r)
{
    uint64_t n = scaled(r, 200000);
    check_time_slice(r, 0, 3);
    if (run_model(r, 2048, 0.5, 4096, n, 1) != 0)            /* sized for its load */
        return -1;
    check_time_slice(r, 1, 3);
    if (run_model(r, 16, 8.0, 4096, n, 2) != 0)              /* tiny start: resizes forced */
        return -1;
    check_time_slice(r, 2, 3);
    if (run_model(r, 50000, 0.5, 100000, n, 3) != 0)         /* larger, sparse hits */
        return -1;
    check_note(r, "model: %s passed 3 runs of %llu ops\n", r->choice->text, (unsigned long long)n);
    return 0;
}

/* ---------------- disjoint ---------------- */

static void *disjoint_worker(void *arg)
{
    struct worker *w = arg;
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    uint64_t per = w->range / w->nthreads;   /* own keys: tid+1 + j*nthreads, j < per */
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = w->tid + 1 + cht_rng_below(cht_rng_next(&rng), per) * w->nthreads;
        unsigned op = (unsigned)cht_rng_below(x, 100);
        /* a value unique to this op (never 0, which marks an absent key in own[]): an older
         * value read back, a lost update, is told from the newest */
        cht_val_t v = (k << 32) | (i & 0xffffffffu);
        if (op < 35) {
            bool ok = ops->insert(w->t, k, v);
            if (!ok && !w->own[k] && full_failures(ops, w->t) > 0)
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
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_disjoint(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    for (int round = 0; round < 2; round++) {
        unsigned n = round ? 2 * nthr(r, 4) : nthr(r, 4);
        check_time_slice(r, (unsigned)round, 2);
        uint64_t range = round ? 20000 : 4096;
        /* round 1 starts tiny so resizable tables grow under concurrency;
         * the others get room for every key instead */
        bool tiny = round && (ops->caps & CHT_CAP_RESIZE);
        void *t = table_create(r, tiny ? 16 : range / 2, tiny ? 8.0 : 0.5, n, range);
        if (!t)
            return -1;
        struct team team;
        struct worker *w = aligned_alloc(64, sizeof *w * n);
        cht_val_t *own = calloc(range + n + 1, sizeof *own);
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 7 + round, .nops = scaled(r, 100000),
                                    .range = range, .nthreads = n, .team = &team, .own = own };
        if (check_team_run(r, &team, n, disjoint_worker, w, sizeof *w) != 0) {
            ops->destroy(t);
            free(w);
            free(own);
            return -1;
        }
        size_t expect = 0;
        workers_check(r, w, n, round && tiny ? "from a tiny table, resizing" : "sized for its keys");
        t_init(ops, t, 0);
        for (cht_key_t k = 1; k <= range + n; k++) {
            cht_val_t got = 0;
            bool ok = ops->get(t, k, &got);
            expect += own[k] != 0;
            CHECK(r, ok == !!own[k], "key %llu final get expected %s got %s (%u threads)", (unsigned long long)k,
                  tf(own[k]), tf(ok), n);
            CHECK(r, !ok || got == own[k], "key %llu final get expected value %llx got %llx (%u threads)",
                  (unsigned long long)k, (unsigned long long)own[k], (unsigned long long)got, n);
        }
        CHECK(r, ops->size(t) == expect, "final size() expected %zu got %zu (%u threads)", expect, ops->size(t), n);
        t_exit(ops, t, 0);
        ops->destroy(t);
        free(w);
        free(own);
        check_note(r, "disjoint: %s passed with %u threads, %zu keys at the end\n", r->choice->text, n, expect);
    }
    return 0;
}

/* ---------------- stable ---------------- */

/* A stable reader's batch through the table's --pipeline hooks (cht.h
 * pipe_start/pipe_step): n odd keys started together, stepped together, the
 * ops that answered CHT_PIPE_AGAIN stepped once more; each must find its key
 * with its value, and a second step must complete its op. Returns the ops run. */
static unsigned stable_read_pipelined(struct worker *w, struct cht_rng *rng, uint64_t i)
{
    enum { STABLE_PIPE_MAX = 16 };
    const struct cht_ops *ops = w->run->ops;
    struct cht_pipe_op op[STABLE_PIPE_MAX], again[STABLE_PIPE_MAX];
    const unsigned n = 1 + (unsigned)(cht_rng_next(rng) % STABLE_PIPE_MAX);
    for (unsigned j = 0; j < n; j++) {
        cht_key_t k = 2 * cht_rng_below(cht_rng_next(rng), w->range / 2) + 1;
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
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    bool writer = w->tid % 2 == 0;
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        if (writer) {
            cht_key_t k = 2 * (1 + cht_rng_below(x, w->range / 2));          /* even keys */
            if (cht_rng_next(&rng) >> 63)
                w->ins_suc += ops->insert(w->t, k, val_for(k, 1));
            else
                w->rem_suc += ops->remove(w->t, k);
        } else if (ops->pipe_start && (x >> 62) == 0) {
            i += stable_read_pipelined(w, &rng, i) - 1;                   /* a quarter of the reads */
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
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_stable(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    unsigned n = nthr(r, 6) < 2 ? 2 : nthr(r, 6);      /* even tids write, odd ones read */
    check_time_slice(r, 0, 1);
    uint64_t range = 20000;
    /* resizable tables start small so that churn resizes under the readers;
     * one that refuses the prefill as full (resize=0) is rebuilt with room */
    void *t = NULL;
    size_t stable = 0;
    for (int attempt = 0; attempt < 2 && !t; attempt++) {
        bool tiny = attempt == 0 && (ops->caps & CHT_CAP_RESIZE);
        char err[256];
        /* a table that cannot grow may refuse density 4 in create() */
        if (tiny)
            t = table_create_or_null(r, 64, 4.0, n, range, err, sizeof err);
        else if (!(t = table_create(r, range, 0.5, n, range)))
            return -1;
        if (!t)
            continue;
        t_init(ops, t, 0);
        stable = 0;
        for (cht_key_t k = 1; k <= range && t; k += 2) {
            if (ops->insert(t, k, val_for(k, 3))) {
                stable++;
            } else if (tiny && full_failures(ops, t) > 0) {
                t_exit(ops, t, 0);
                ops->destroy(t);
                t = NULL;
            } else {
                CHECK(r, false, "key %llu prefill insert expected true got false", (unsigned long long)k);
            }
        }
    }
    struct team team;
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned i = 0; i < n; i++)
        w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 11, .nops = scaled(r, 200000), .range = range,
                                .nthreads = n, .team = &team };
    if (check_team_run(r, &team, n, stable_worker, w, sizeof *w) != 0) {
        t_exit(ops, t, 0);
        ops->destroy(t);
        free(w);
        return -1;
    }
    uint64_t ins = 0, rem = 0;
    for (unsigned i = 0; i < n; i++) {
        ins += w[i].ins_suc;
        rem += w[i].rem_suc;
    }
    workers_check(r, w, n, "readers of never-removed keys");
    CHECK(r, ops->size(t) == stable + ins - rem, "size() expected %zu + %llu - %llu got %zu", stable,
          (unsigned long long)ins, (unsigned long long)rem, ops->size(t));
    struct cht_stats s = { 0 };
    if (ops->stats)
        ops->stats(t, &s);
    snprintf(r->pass_note, sizeof r->pass_note, "%llu resizes under load", (unsigned long long)s.resizes);
    t_exit(ops, t, 0);
    ops->destroy(t);
    free(w);
    check_note(r, "stable: %s passed (%llu inserts, %llu removes, %llu resizes)\n", r->choice->text,
               (unsigned long long)ins, (unsigned long long)rem, (unsigned long long)s.resizes);
    return 0;
}

/* ---------------- stress ---------------- */

static void *stress_worker(void *arg)
{
    struct worker *w = arg;
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    bool check = !(ops->caps & CHT_CAP_NO_DATA);
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), w->range);
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
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_stress(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    const unsigned n = stress_threads(r);    /* more threads than CPUs */
    const uint64_t range = 64, initial = 32;
    unsigned runs = (unsigned)scaled(r, 40);
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned run = 0; run < runs; run++) {
        check_time_slice(r, run, runs);
        /* alternate a well-sized table and a tiny one that must grow (or chain) */
        bool tiny = run % 2 && !(ops->caps & CHT_CAP_FIXED_CAP);
        void *t = table_create(r, tiny ? 4 : initial, tiny ? 8.0 : 0.5, n, range);
        if (!t) {
            free(w);
            return -1;
        }
        t_init(ops, t, 0);
        size_t pre = 0;
        for (cht_key_t k = 1; pre < initial && k <= range; k += 2)
            pre += ops->insert(t, k, val_for(k, 0));
        CHECK(r, pre == initial || full_failures(ops, t) > 0, "prefill: %zu of %llu inserts failed without counting "
              "full_failures", (size_t)initial - pre, (unsigned long long)initial);
        CHECK(r, ops->size(t) == pre, "size() after prefill expected %zu got %zu", pre, ops->size(t));
        t_exit(ops, t, 0);
        struct team team;
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 100 + run, .nops = scaled(r, 20000),
                                    .range = range, .nthreads = n, .team = &team };
        if (check_team_run(r, &team, n, stress_worker, w, sizeof *w) != 0) {
            ops->destroy(t);
            free(w);
            return -1;
        }
        uint64_t ins = 0, rem = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
        }
        t_init(ops, t, 0);
        size_t size = ops->size(t);
        CHECK(r, size == pre + ins - rem, "size() expected %zu + %llu inserted - %llu removed got %zu (run %u)", pre,
              (unsigned long long)ins, (unsigned long long)rem, size, run);
        char what[32];
        snprintf(what, sizeof what, "run %u", run);
        workers_check(r, w, n, what);
        if (!(ops->caps & CHT_CAP_NO_DATA)) {
            size_t found = 0;
            for (cht_key_t k = 1; k <= range; k++) {
                cht_val_t got = 0;
                if (ops->get(t, k, &got)) {
                    found++;
                    CHECK(r, val_ok(k, got), "key %llu final get expected a value of key %llu got %llx (run %u)",
                          (unsigned long long)k, (unsigned long long)k, (unsigned long long)got, run);
                }
            }
            CHECK(r, found == size, "final gets expected size() = %zu keys got %zu (run %u)", size, found, run);
        }
        t_exit(ops, t, 0);
        ops->destroy(t);
    }
    free(w);
    check_note(r, "stress: %s passed %u runs x %u threads, r=%llu, u=50\n", r->choice->text, runs, n,
               (unsigned long long)range);
    return 0;
}



/* ---------------- values: no torn value under concurrent updates ---------------- */

#define VAL_KEYS 8
#define VAL_CHURN_BASE 1000     /* keys inserted and removed beside the updates: 1000 .. 1063 */

static void *values_worker(void *arg)
{
    struct worker *w = arg;
    const struct cht_ops *ops = w->run->ops;
    t_init(ops, w->t, w->tid);
    team_wait(w->team);
    struct cht_rng rng;
    cht_rng_seed(&rng, w->seed, w->tid);
    bool churn = w->range > VAL_KEYS;
    uint64_t i;
    for (i = 0; i < w->nops && !out_of_time(w->run, i); i++) {
        uint64_t x = cht_rng_next(&rng);
        cht_key_t k = 1 + cht_rng_below(cht_rng_next(&rng), VAL_KEYS);
        unsigned c = (unsigned)cht_rng_below(x, 100);
        if (churn && c < 20) {
            cht_key_t ck = VAL_CHURN_BASE + cht_rng_below(cht_rng_next(&rng), 64);
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
    team_wait(w->team);
    t_exit(ops, w->t, w->tid);
    return NULL;
}

int check_values(struct check_run *r)
{
    const struct cht_ops *ops = r->ops;
    if (!ops->update) {
        check_note(r, "values: %s has no update(); nothing to check\n", ops->name);
        r->skip_why = "no update()";
        return 0;
    }
    const unsigned n = nthr(r, 12) < 2 ? 2 : nthr(r, 12);     /* even tids update, odd ones read */
    struct worker *w = aligned_alloc(64, sizeof *w * n);
    for (unsigned phase = 0; phase < 2; phase++) {
        check_time_slice(r, phase, 2);
        void *t = table_create(r, VAL_KEYS, 0.5, n, 2 * VAL_CHURN_BASE);
        if (!t) {
            free(w);
            return -1;
        }
        t_init(ops, t, 0);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++)
            CHECK(r, ops->insert(t, k, val_for(k, 0)), "key %llu prefill insert expected true got false",
                  (unsigned long long)k);
        t_exit(ops, t, 0);
        struct team team;
        for (unsigned i = 0; i < n; i++)
            w[i] = (struct worker){ .tid = i, .run = r, .t = t, .seed = 300 + phase, .nops = scaled(r, 100000),
                                    .range = phase ? 2 * VAL_CHURN_BASE : VAL_KEYS, .nthreads = n, .team = &team };
        if (check_team_run(r, &team, n, values_worker, w, sizeof *w) != 0) {
            ops->destroy(t);
            free(w);
            return -1;
        }
        uint64_t ins = 0, rem = 0, reads = 0;
        for (unsigned i = 0; i < n; i++) {
            ins += w[i].ins_suc;
            rem += w[i].rem_suc;
            reads += w[i].ops_done;
        }
        char what[96];
        snprintf(what, sizeof what, "value size %zu, %s", r->value_size,
                 phase ? "with insert/remove churn" : "updates and gets");
        int errors = workers_check(r, w, n, what);
        t_init(ops, t, 0);
        CHECK(r, ops->size(t) == VAL_KEYS + ins - rem, "size() expected %d + %llu - %llu got %zu (phase %u)",
              VAL_KEYS, (unsigned long long)ins, (unsigned long long)rem, ops->size(t), phase);
        for (cht_key_t k = 1; k <= VAL_KEYS; k++) {
            cht_val_t got = 0;
            CHECK(r, ops->get(t, k, &got) && got != CHT_VAL_TORN && val_ok(k, got),
                  "key %llu final get expected a value written for it got %llx", (unsigned long long)k,
                  (unsigned long long)got);
        }
        t_exit(ops, t, 0);
        ops->destroy(t);
        check_note(r, "values: %s, value size %zu, phase %u (%s): %llu gets checked, %d errors\n", r->choice->text,
                   r->value_size, phase, phase ? "with insert/remove churn" : "updates and gets",
                   (unsigned long long)reads, errors);
    }
    free(w);
    return 0;
}
