/*
 * runner.c - one CHTBench run (thesis 000 lines 717-750; DESIGN.md "The run").
 *
 *   main: create table -> spawn n workers
 *   worker: pin -> thread_init -> B1 -> prefill (thread 0, or a slice each)
 *           -> B2 -> thread 0 checks size()==i -> B3 (start) -> timed loop
 *           -> B4 -> thread 0 checks size()==i+ins-rem -> B5 -> thread_exit
 *   main joins B1..B5; in --duration mode it sets the stop flag d ms after B3.
 *
 * All table calls come from worker threads after their thread_init (tables
 * with RCU registration need that); size() is called by worker 0.
 * The timed loop allocates nothing and makes no system call; its counters are
 * locals (registers) written once to the worker's own cache line at the end.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "runner.h"
#include "util.h"

struct shared {
    const struct run_params *p;
    const struct cht_ops *ops;
    void *table;
    pthread_barrier_t bar;
    alignas(CHT_CACHE_LINE) int stop;        /* read by every op: its own line */
    alignas(CHT_CACHE_LINE) size_t prefill_size, final_size;
};

struct worker {
    alignas(CHT_CACHE_LINE) unsigned tid;
    struct shared *s;
    uint64_t count[N_OUTCOMES];
    uint64_t t_start, t_end;
    struct cht_rng rng;          /* this thread's key stream */
    bool prefill_full;           /* an insert of a fresh key was refused */
    char pin_error[160];         /* pin_apply failed: why */
};

static void barrier(struct shared *s) { pthread_barrier_wait(&s->bar); }

/* Prefill keys perm(first+1 .. first+n): distinct by construction, so each
 * insert must succeed; a refusal means a fixed-capacity table is full. */
static void prefill_slice(struct worker *w, uint64_t first, uint64_t n)
{
    const struct shared *s = w->s;
    bool (*insert)(void *, cht_key_t, cht_val_t) = s->ops->insert;
    for (uint64_t j = first + 1; j <= first + n; j++) {
        cht_key_t k = keygen_scramble(s->p->perm, j);
        if (!insert(s->table, k, k))
            w->prefill_full = true;
    }
}

static void prefill(struct worker *w)
{
    const struct run_params *p = w->s->p;
    uint64_t i = p->cfg->initial;
    if (p->cfg->prefill == PREFILL_SINGLE) {
        if (w->tid == 0)
            prefill_slice(w, 0, i);
        return;
    }
    uint64_t per = i / p->threads, extra = i % p->threads;
    uint64_t first = w->tid * per + (w->tid < extra ? w->tid : extra);
    prefill_slice(w, first, per + (w->tid < extra));
}

/* The timed phase. Op choice per thesis line 732: c in [0,100): c < ins ->
 * insert, c < ins+rem -> remove, else get. Counters are branch-free sums in
 * registers. Instantiated once per distribution (dist is a constant inside),
 * so the uniform loop keeps its PRNG state in registers and calls nothing but
 * the table. */
static inline __attribute__((always_inline)) void timed_loop_for(struct worker *w, enum keygen_dist dist)
{
    struct shared *s = w->s;
    const struct run_params *p = s->p;
    void *t = s->table;
    bool (*get)(void *, cht_key_t, cht_val_t *) = s->ops->get;
    bool (*insert)(void *, cht_key_t, cht_val_t) = s->ops->insert;
    bool (*remove)(void *, cht_key_t) = s->ops->remove;
    const struct keygen *keys = p->keys;
    const uint64_t range = keys->range;
    const uint64_t ins_below = p->cfg->insert, rem_below = p->cfg->insert + p->cfg->remove;
    uint64_t remaining = p->cfg->ops ? p->cfg->ops : UINT64_MAX;
    const int *stop = &s->stop;
    struct cht_rng rng = w->rng;
    uint64_t gs = 0, gf = 0, is = 0, inf = 0, rs = 0, rf = 0;

    w->t_start = now_ns();
    for (; remaining && !__atomic_load_n(stop, __ATOMIC_RELAXED); remaining--) {
        uint64_t c = cht_rng_below(cht_rng_next(&rng), 100);
        cht_key_t k = dist == KEYGEN_UNIFORM ? 1 + cht_rng_below(cht_rng_next(&rng), range)
                                             : keygen_next_zipf(keys, &rng);
        if (c < ins_below) {
            bool ok = insert(t, k, k);
            is += ok;
            inf += !ok;
        } else if (c < rem_below) {
            bool ok = remove(t, k);
            rs += ok;
            rf += !ok;
        } else {
            cht_val_t v;
            bool ok = get(t, k, &v);
            gs += ok;
            gf += !ok;
        }
    }
    w->t_end = now_ns();
    w->rng = rng;
    w->count[GET_SUC] = gs;
    w->count[GET_FAIL] = gf;
    w->count[INS_SUC] = is;
    w->count[INS_FAIL] = inf;
    w->count[REM_SUC] = rs;
    w->count[REM_FAIL] = rf;
}

static void timed_loop(struct worker *w)
{
    cht_rng_seed(&w->rng, w->s->p->cfg->seed + w->s->p->rep, w->tid);
    if (w->s->p->keys->dist == KEYGEN_UNIFORM)
        timed_loop_for(w, KEYGEN_UNIFORM);
    else
        timed_loop_for(w, KEYGEN_ZIPF);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->s;
    const struct run_params *p = s->p;
    if (pin_apply(p->topo, p->plan, w->tid, w->pin_error, sizeof w->pin_error) != 0 && !w->pin_error[0])
        snprintf(w->pin_error, sizeof w->pin_error, "--pin: cannot pin thread %u", w->tid);
    if (s->ops->thread_init)
        s->ops->thread_init(s->table, w->tid);
    barrier(s);                              /* B1: all registered */
    prefill(w);
    barrier(s);                              /* B2: prefill done */
    if (w->tid == 0)
        s->prefill_size = s->ops->size(s->table);
    barrier(s);                              /* B3: start */
    timed_loop(w);
    barrier(s);                              /* B4: all stopped */
    if (w->tid == 0)
        s->final_size = s->ops->size(s->table);
    barrier(s);                              /* B5 */
    if (s->ops->thread_exit)
        s->ops->thread_exit(s->table, w->tid);
    return NULL;
}

static void sleep_ms(uint64_t ms)
{
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* --mem: the policy applies to the main thread while it creates the table
 * and is inherited by the workers it spawns (prefill allocations). */
static void mem_policy_set(const struct bench_config *cfg)
{
#ifdef HAVE_NUMA
    if (cfg->mem == MEM_INTERLEAVE)
        numa_set_interleave_mask(numa_all_nodes_ptr);
    else if (cfg->mem == MEM_NODE)
        numa_set_preferred(cfg->mem_node);
#else
    (void)cfg;
#endif
}

static void mem_policy_reset(const struct bench_config *cfg)
{
#ifdef HAVE_NUMA
    if (cfg->mem != MEM_LOCAL)
        numa_set_localalloc();
#else
    (void)cfg;
#endif
}

int runner_run(const struct run_params *p, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    memset(r, 0, sizeof *r);
    struct shared *s = aligned_alloc(CHT_CACHE_LINE, sizeof *s);
    struct worker *w = aligned_alloc(CHT_CACHE_LINE, sizeof *w * p->threads);
    pthread_t *th = calloc(p->threads, sizeof *th);
    unsigned *nodes = calloc(p->threads, sizeof *nodes);
    if (!s || !w || !th || !nodes) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto fail_alloc;
    }
    memset(s, 0, sizeof *s);
    memset(w, 0, sizeof *w * p->threads);
    s->p = p;
    s->ops = p->table->ops;
    for (unsigned i = 0; i < p->threads; i++)
        nodes[i] = pin_plan_node(p->plan, i);

    struct cht_config tc = {
        .initial = cfg->initial, .density = cfg->density, .range = cfg->range,
        .max_threads = p->threads, .numa_nodes = p->plan->numa_nodes ? p->plan->numa_nodes : 1,
        .thread_node = nodes,
    };
    registry_apply_choice(p->table, &tc);
    mem_policy_set(cfg);
    char err[256] = "";
    s->table = s->ops->create(&tc, err, sizeof err);
    if (!s->table) {
        mem_policy_reset(cfg);
        snprintf(r->error, sizeof r->error, "--table %s: cannot create the table: %s", s->ops->name,
                 err[0] ? err : "unknown error");
        goto fail_alloc;
    }

    pthread_barrier_init(&s->bar, NULL, p->threads + 1);
    unsigned started = 0;
    for (; started < p->threads; started++) {
        w[started].tid = started;
        w[started].s = s;
        if (pthread_create(&th[started], NULL, worker_main, &w[started]) != 0)
            break;
    }
    if (started < p->threads) {
        /* cannot unwind a partial barrier cleanly: this is fatal for the process */
        fprintf(stderr, "chtbench: cannot start thread %u of %u\n", started, p->threads);
        exit(EXIT_FAILED);
    }
    barrier(s);                   /* B1 */
    barrier(s);                   /* B2 */
    barrier(s);                   /* B3: go */
    if (cfg->duration_ms) {
        sleep_ms(cfg->duration_ms);
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    }
    barrier(s);                   /* B4 */
    barrier(s);                   /* B5 */
    for (unsigned i = 0; i < p->threads; i++)
        pthread_join(th[i], NULL);
    mem_policy_reset(cfg);
    pthread_barrier_destroy(&s->bar);

    uint64_t t0 = UINT64_MAX, t1 = 0;
    bool full = false;
    const char *pin_error = NULL;
    for (unsigned i = 0; i < p->threads; i++) {
        if (w[i].pin_error[0] && !pin_error)
            pin_error = w[i].pin_error;
        for (int o = 0; o < N_OUTCOMES; o++)
            r->count[o] += w[i].count[o];
        t0 = w[i].t_start < t0 ? w[i].t_start : t0;
        t1 = w[i].t_end > t1 ? w[i].t_end : t1;
        full |= w[i].prefill_full;
    }
    for (int o = 0; o < N_OUTCOMES; o++)
        r->total_ops += r->count[o];
    r->elapsed_s = (double)(t1 - t0) / 1e9;
    r->mops = r->elapsed_s > 0 ? (double)r->total_ops / r->elapsed_s / 1e6 : 0;
    r->prefill_size = s->prefill_size;
    r->final_size = s->final_size;
    r->prefill_ok = !full && s->prefill_size == cfg->initial;
    r->expected_size = cfg->initial + r->count[INS_SUC] - r->count[REM_SUC];
    r->size_ok = r->prefill_ok && r->final_size == r->expected_size;
    if (full)
        snprintf(r->error, sizeof r->error, "prefill: the table refused a fresh key (full at --density %g?)",
                 cfg->density);
    if (s->ops->stats)
        s->ops->stats(s->table, &r->stats);
    s->ops->destroy(s->table);
    if (pin_error) {
        snprintf(r->error, sizeof r->error, "%s", pin_error);
        goto fail_alloc;
    }
    free(th);
    free(w);
    free(s);
    free(nodes);
    return 0;
fail_alloc:
    free(th);
    free(w);
    free(s);
    free(nodes);
    return -1;
}
