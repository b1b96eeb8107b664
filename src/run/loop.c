/*
 * run/loop.c - the plain timed loop (and the warm-up's): ops from the
 * source, dispatched to the table, outcomes counted.
 *
 * The loop only dispatches operations to the table and counts outcomes;
 * which operation on which key comes from the op source
 * (workloads/opsource.h: uniform, Zipf, hotspot, YCSB, traces, pre-drawn
 * buffers). Measurement (docs/measurement.md): the loop is instantiated per source
 * kind and per measurement mode (LOOP_LAT: TSC stamps around every EVERY-th
 * op into the thread's preallocated buffers; LOOP_TL: the op count published
 * to the worker's own cache line every 1024 ops; LOOP_HIST: ops on watched
 * keys recorded); --pipeline has a loop of its own (pipe.c). The plain
 * instantiation has no measurement code at all. It allocates nothing and
 * makes no system call; its counters are locals (registers) written once to
 * the worker's own cache line at the end.
 */
#include "worker.h"

/* The table calls of the loops. loop_bytes.c compiles this file again with CHT_LOOP_BYTES_UNIT: its
 * loop calls the byte-key table's ops on the arena's keys (op_runner_bytes); here they are the
 * integer ops, the code as it always was. */
#ifdef CHT_LOOP_BYTES_UNIT
#define OP_KEY_(r, k) key_arena_key(op_arena(r), k), key_arena_len(op_arena(r), k)
#define OP_GET(r, k, v) ((op_get_bytes_fn)(void (*)(void))(r)->get)((r)->t, OP_KEY_(r, k), v)
#define OP_INSERT(r, k, v) ((op_insert_bytes_fn)(void (*)(void))(r)->insert)((r)->t, OP_KEY_(r, k), v)
#define OP_REMOVE(r, k) ((op_remove_bytes_fn)(void (*)(void))(r)->remove)((r)->t, OP_KEY_(r, k))
#define OP_UPDATE(r, k, v) ((op_insert_bytes_fn)(void (*)(void))(r)->update)((r)->t, OP_KEY_(r, k), v)
#else
#define OP_GET(r, k, v) (r)->get((r)->t, k, v)
#define OP_INSERT(r, k, v) (r)->insert((r)->t, k, v)
#define OP_REMOVE(r, k) (r)->remove((r)->t, k)
#define OP_UPDATE(r, k, v) (r)->update((r)->t, k, v)
#endif

/* LOOP_APPROX, an insert or a remove: sent to the filter only where the
 * harness' bitmap says it means something (see shadow_test). */
static inline __attribute__((always_inline)) unsigned run_filter_op(const struct op_runner *r, struct tally *n,
                                                                    struct op op)
{
    cht_key_t k = owned_key(op.key, r->tid, r->nthreads, r->range);
    bool present = k && shadow_test(r->shadow, k), ok;
    if (op.kind == OP_INSERT) {
        n->skip_ins += !k || present;
        ok = k && !present && r->insert(r->t, k, run_val(k, r->vbits, tally_seq(r, n)));
        if (ok)
            shadow_set(r->shadow, k, true);
        n->is += ok;
        n->inf += !ok;
        return INS_SUC + !ok;
    }
    n->skip_rem += !present;
    ok = present && r->remove(r->t, k);
    if (ok)
        shadow_set(r->shadow, k, false);
    n->rs += ok;
    n->rf += !ok;
    return REM_SUC + !ok;
}

/* Runs op on the table and counts its outcome (returned, for LOOP_LAT).
 * Counters are branch-free sums in registers. */
static inline __attribute__((always_inline)) unsigned run_op(const struct op_runner *r, struct tally *n,
                                                             struct opsrc *src, const unsigned kind,
                                                             const int mode, struct op op)
{
    bool ok;
    if (op.kind == OP_GET) {
        cht_val_t v;
        ok = OP_GET(r, op.key, &v);
        n->gs += ok;
        n->gf += !ok;
        return GET_SUC + !ok;
    }
    op.key = opsrc_write_key(src, kind, op.key);
    const cht_key_t k = op.key;
    if ((mode & LOOP_APPROX) && (op.kind == OP_INSERT || op.kind == OP_REMOVE))
        return run_filter_op(r, n, op);
    if (op.kind == OP_INSERT) {
        ok = OP_INSERT(r, k, run_val(k, r->vbits, tally_seq(r, n)));
        n->keysum += k & -(uint64_t)ok;
        n->is += ok;
        n->inf += !ok;
        opsrc_done(src, kind, op);
        return INS_SUC + !ok;
    }
    if (op.kind == OP_REMOVE) {
        ok = OP_REMOVE(r, k);
        n->keysum -= k & -(uint64_t)ok;
        n->rs += ok;
        n->rf += !ok;
        return REM_SUC + !ok;
    }
    /* update; F's read-modify-write: read, then write back this thread's version, counted once as an update */
    cht_val_t v;
    ok = (op.kind == OP_UPDATE || OP_GET(r, k, &v)) && OP_UPDATE(r, k, run_val(k, r->vbits, tally_seq(r, n)));
    n->us += ok;
    n->uf += !ok;
    return UPD_SUC + !ok;
}

/* LOOP_HIST, an op on a watched key: run_op's work, with the clock read
 * around each table call and the op recorded (history.h). Out of line: the
 * loop's unwatched ops pay the watch test alone. */
static __attribute__((noinline)) unsigned run_op_recorded(const struct op_runner *r, struct tally *n,
                                                          struct opsrc *src, const unsigned kind, struct op op)
{
    const cht_key_t k = op.key;
    cht_val_t v = 0;
    uint64_t t0 = hist_clock_start();
    bool ok;
    switch (op.kind) {
    case OP_GET:
        ok = r->get(r->t, k, &v);
        hist_put(r->hist, k, v, t0, hist_clock_end(), r->tid, HIST_GET, ok);
        n->gs += ok;
        n->gf += !ok;
        return GET_SUC + !ok;
    case OP_INSERT:
        v = run_val(k, r->vbits, tally_seq(r, n));
        ok = r->insert(r->t, k, v);
        hist_put(r->hist, k, v, t0, hist_clock_end(), r->tid, HIST_INSERT, ok);
        n->keysum += k & -(uint64_t)ok;
        n->is += ok;
        n->inf += !ok;
        if (kind & OPSRC_LATEST)
            opsrc_done(src, OPSRC_LATEST, op);
        return INS_SUC + !ok;
    case OP_REMOVE:
        ok = r->remove(r->t, k);
        hist_put(r->hist, k, 0, t0, hist_clock_end(), r->tid, HIST_REMOVE, ok);
        n->keysum -= k & -(uint64_t)ok;
        n->rs += ok;
        n->rf += !ok;
        return REM_SUC + !ok;
    default:                         /* an update; F's read-modify-write is a get, then an update, each recorded */
        ok = true;
        if (op.kind == OP_RMW) {
            ok = r->get(r->t, k, &v);
            hist_put(r->hist, k, v, t0, hist_clock_end(), r->tid, HIST_GET, ok);
            t0 = hist_clock_start();
        }
        if (ok) {
            v = run_val(k, r->vbits, tally_seq(r, n));
            ok = r->update(r->t, k, v);
            hist_put(r->hist, k, v, t0, hist_clock_end(), r->tid, HIST_UPDATE, ok);
        }
        n->us += ok;
        n->uf += !ok;
        return UPD_SUC + !ok;
    }
}

/* LOOP_HIST: the write key first (the watch test needs it), then the op,
 * recorded when its key is watched. */
static inline __attribute__((always_inline)) unsigned run_op_watched(const struct op_runner *r, struct tally *n,
                                                                     struct opsrc *src, const unsigned kind,
                                                                     struct op op)
{
    if (op.kind != OP_GET)
        op.key = opsrc_write_key(src, kind, op.key);
    if (__builtin_expect(hist_watched(&r->watch, op.key), 0))
        return run_op_recorded(r, n, src, kind, op);
    return run_op(r, n, src, kind & ~OPSRC_SHIFT, LOOP_PLAIN, op);   /* its key already shifted */
}

/* ---------------- the timed loops ---------------- */

/* --batch without a table get_batch: n single gets */
static const struct cht_ops *batch_fallback_ops;
static void batch_fallback(void *t, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found)
{
    bool (*get)(void *, cht_key_t, cht_val_t *) = batch_fallback_ops->get;
    for (size_t i = 0; i < n; i++)
        found[i] = get(t, keys[i], &vals[i]);
}

/* Before the workers start: the table the fallback calls. */
#ifndef CHT_LOOP_BYTES_UNIT
void run_loop_prepare(const struct cht_ops *ops) { batch_fallback_ops = ops; }
#endif

/* A timed loop's state besides the source and the tally: LOOP_BATCH's queue,
 * LOOP_LAT's countdown, LOOP_TL's op count (timed_loop_run's, by pointer) */
struct loop_vars {
    void (*get_batch)(void *, const cht_key_t *, size_t, cht_val_t *, bool *);
    cht_key_t *bkeys;
    cht_val_t *bvals;
    bool *bfound;
    unsigned batch, nb;
    uint64_t every, overhead, countdown, done;
};

/* Up to `remaining` ops of timed_loop_for's loop, until the stop flag:
 * returns the ops it did not run. Inlined, its pointers are the caller's
 * locals (in registers). */
static inline __attribute__((always_inline)) uint64_t
timed_loop_run(struct worker *w, const struct op_runner *run, struct opsrc *src, struct tally *n,
               struct loop_vars *v, uint64_t remaining, const int *stop, const unsigned kind, const int mode)
{
    struct lat_buf *lb = &w->lat;
    for (; remaining && !__atomic_load_n(stop, __ATOMIC_RELAXED); remaining--) {
        struct op op = opsrc_next(src, kind);
        bool sample = false;
        uint64_t t0 = 0;
        unsigned store;
        if (mode & LOOP_LAT) {
            sample = --v->countdown == 0;
            if (sample) {
                v->countdown = v->every;
                t0 = lat_stamp_begin();
            }
        }
        if ((mode & LOOP_BATCH) && op.kind == OP_GET) {
            v->bkeys[v->nb++] = op.key;
            if (v->nb == v->batch) {
                v->get_batch(run->t, v->bkeys, v->nb, v->bvals, v->bfound);
                for (unsigned i = 0; i < v->nb; i++) {
                    n->gs += v->bfound[i];
                    n->gf += !v->bfound[i];
                }
                v->nb = 0;
            }
            store = GET_SUC;
        } else if (mode & LOOP_HIST) {
            store = run_op_watched(run, n, src, kind, op);
        } else {
            store = run_op(run, n, src, kind, mode, op);
        }
        if (mode & LOOP_LAT) {
            if (sample) {
                uint64_t d = lat_stamp_end() - t0;
                lat_record(lb, store, d > v->overhead ? d - v->overhead : 0);
            }
        } else {
            (void)store;
        }
        if (mode & LOOP_TL) {
            if ((++v->done & 1023) == 0)
                __atomic_store_n(&w->progress, v->done, __ATOMIC_RELAXED);
        }
    }
    return remaining;
}

/* The timed phase (and the warm-up): ops from the source, dispatched to the
 * table, outcomes counted. Instantiated once per source kind and measurement
 * mode (both constants inside), so the plain loop keeps its source's state
 * in registers and calls nothing but the table. LOOP_LAT: TSC stamps around
 * every EVERY-th op into the thread's preallocated buffers; LOOP_TL: the op
 * count published to the worker's own cache line every 1024 ops; LOOP_BATCH:
 * gets queue up to `batch` keys, then one get_batch call. OPSRC_SHIFT: the
 * buffer's first round runs as a plain buffer's loop (its writes' keys are
 * as drawn), the rounds after it in a loop that shifts them, so that a run
 * that never goes round its buffer pays nothing for the shift. */
static inline __attribute__((always_inline)) void timed_loop_for(struct worker *w, const unsigned kind,
                                                                 const int mode, const bool warm)
{
    struct shared *s = w->s;
    const struct bench_config *cfg = s->p->cfg;
    struct op_runner run;
    op_runner_init(&run, w);
#ifdef CHT_LOOP_BYTES_UNIT
    op_runner_bytes(&run, s);
#endif
    struct opsrc src = w->src;
    struct tally n = { 0 };
    uint64_t remaining = loop_ops(w, warm);
    const int *stop = warm ? &s->warm_stop : &s->stop;
    cht_key_t bkeys[(mode & LOOP_BATCH) ? CHT_BATCH_MAX : 1];
    cht_val_t bvals[(mode & LOOP_BATCH) ? CHT_BATCH_MAX : 1];
    bool bfound[(mode & LOOP_BATCH) ? CHT_BATCH_MAX : 1];
    struct loop_vars v = {
        .get_batch = s->ops->get_batch ? s->ops->get_batch : batch_fallback,
        .bkeys = bkeys, .bvals = bvals, .bfound = bfound,
        .batch = (mode & LOOP_BATCH) ? cfg->batch : 1,
        .every = cfg->latency_every, .countdown = cfg->latency_every,
        .overhead = s->p->lat_clock ? s->p->lat_clock->overhead_cycles : 0,
    };

    if (!warm)
        clock_start(w);
    /* each call returns at the flag; a chase slice's value goes on after it */
#define RUN_SLICED(left, kindv)                                                              \
    do                                                                                       \
        left = timed_loop_run(w, &run, &src, &n, &v, left, stop, kindv, mode);               \
    while (left && run_slice_chase(w, stop))
    if (kind & OPSRC_SHIFT) {
        const uint64_t round = src.mask - (src.pos & src.mask) + 1;     /* the first round's ops left */
        uint64_t first = remaining < round ? remaining : round;
        remaining -= first;
        RUN_SLICED(first, kind & ~OPSRC_SHIFT);
        if (remaining && !first)        /* first > 0: the flag said stop */
            RUN_SLICED(remaining, kind);
    } else {
        RUN_SLICED(remaining, kind);
    }
#undef RUN_SLICED
    if ((mode & LOOP_BATCH) && v.nb) {       /* the last, partial batch: inside the timed phase */
        v.get_batch(run.t, bkeys, v.nb, bvals, bfound);
        for (unsigned i = 0; i < v.nb; i++) {
            n.gs += bfound[i];
            n.gf += !bfound[i];
        }
    }
    if (!warm)
        clock_stop(w);
    if (mode & LOOP_TL) {
        __atomic_store_n(&w->progress, v.done, __ATOMIC_RELAXED);
        __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
    }
    n.seq = tally_seq(&run, &n);
    loop_finish(w, &src, &n, warm);
}

#ifndef CHT_LOOP_BYTES_UNIT   /* loop_bytes.c compiles this file again for run_bytes_timed_loop alone */
/* --warmup: the same operations, uncounted in throughput, no measurement */
void run_warmup_loop(struct worker *w)
{
    unsigned kind = run_source_kind(w, true);
#define WARM_PLAIN(k) timed_loop_for(w, k, LOOP_PLAIN, true)
#define WARM_APPROX(k) timed_loop_for(w, k, LOOP_APPROX, true)
    if (w->s->shadow)
        FOR_SOURCE(kind, true, WARM_APPROX);
    else
        FOR_SOURCE(kind, true, WARM_PLAIN);
}

/* --verify history's loops (pipelined: pipe.c), out of line like the pipelined ones */
static __attribute__((noinline)) void hist_timed_loop(struct worker *w, unsigned kind)
{
#define HIST(k_) timed_loop_for(w, k_, LOOP_HIST, false)
    FOR_SOURCE(kind, false, HIST);
}


void run_timed_loop(struct worker *w)
{
    const struct bench_config *cfg = w->s->p->cfg;
    const unsigned kind = run_source_kind(w, false);
    int mode = (cfg->latency_every ? LOOP_LAT : 0) | (cfg->timeline_ms ? LOOP_TL : 0) |
               (cfg->batch > 1 ? LOOP_BATCH : 0);
#define PLAIN(k_) timed_loop_for(w, k_, LOOP_PLAIN, false)
#define LAT(k_) timed_loop_for(w, k_, LOOP_LAT, false)
#define TL(k_) timed_loop_for(w, k_, LOOP_TL, false)
#define LAT_TL(k_) timed_loop_for(w, k_, LOOP_LAT | LOOP_TL, false)
#define BATCH(k_) timed_loop_for(w, k_, LOOP_BATCH, false)
#define BATCH_TL(k_) timed_loop_for(w, k_, LOOP_BATCH | LOOP_TL, false)
#define APPROX(k_) timed_loop_for(w, k_, LOOP_APPROX | LOOP_LAT | LOOP_TL, false)
    if (w->s->shadow) {      /* a filter: one instantiation, with every measurement mode's code */
        FOR_SOURCE(kind, false, APPROX);
        return;
    }
    if (w->s->pipe_w) {      /* --pipeline excludes --latency and --batch; run_pipe_choose orders a history's */
        run_pipe_loop(w, kind, w->s->hist_on ? LOOP_HIST : mode);
        return;
    }
    if (w->s->hist_on) {     /* --verify history excludes --latency, --batch and --timeline */
        hist_timed_loop(w, kind);
        return;
    }
    switch (mode) {
    case LOOP_PLAIN: FOR_SOURCE(kind, false, PLAIN); break;
    case LOOP_LAT: FOR_SOURCE(kind, false, LAT); break;
    case LOOP_TL: FOR_SOURCE(kind, false, TL); break;
    case LOOP_BATCH: FOR_SOURCE(kind, false, BATCH); break;          /* --batch excludes --latency */
    case LOOP_BATCH | LOOP_TL: FOR_SOURCE(kind, false, BATCH_TL); break;
    default: FOR_SOURCE(kind, false, LAT_TL); break;
    }
}
#else
/* A byte-key run without fault hooks (s->bytes_ops; run.c): the plain loop calls the table's byte
 * ops on the arena's keys itself (OP_GET ..), one indirect call an op as with integer keys. The
 * other modes (latency, timeline, batch, pipeline, history) run run_timed_loop through the
 * adapter (src/run/bytekeys.c). Apart from run_timed_loop, so that its integer instantiations are
 * the code they were. */
void run_bytes_timed_loop(struct worker *w)
{
    const struct shared *s = w->s;
    const struct bench_config *cfg = s->p->cfg;
    if (cfg->latency_every || cfg->timeline_ms || cfg->batch > 1 || s->pipe_w || s->hist_on || s->shadow) {
        run_timed_loop(w);
        return;
    }
    const unsigned kind = run_source_kind(w, false);
#define BYTES(k_) timed_loop_for(w, k_, LOOP_PLAIN, false)
    FOR_SOURCE(kind, false, BYTES);
}
#endif
