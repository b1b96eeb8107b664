/*
 * runner.c - one CHTBench run (the 2017 thesis §3.3; DESIGN.md "The run").
 *
 *   main: create table -> spawn n workers
 *   worker: pin -> thread_init -> B1 -> prefill (thread 0, or a slice each)
 *           -> B2 -> thread 0 checks size()==i -> B3 (start)
 *           -> [--warmup: uncounted loop until main raises warm_stop -> BW]
 *           -> timed loop -> B4 -> thread 0 takes size() -> B5
 *           -> verify: each worker get()s its slice of the key range -> B6
 *           -> thread_exit
 *   main joins B1..B6; in --duration mode it sets the stop flag d ms after
 *   B3 (after BW with --warmup).
 *
 * --ceiling-slices MS (docs/cli.md "Memory ceiling"): thread 0 builds the
 * memory bench's chase buffer before B3; during the timed phase main sets
 * the stop flag to a chase value (STOP_CHASE_K32/K16, in turn) every other
 * MS ms and back to 0 between them. The loops read the flag as always (no
 * new load on the hot path): a nonzero flag leaves the plain loop, or keeps
 * the pipelined loop from drawing, and slice_chase runs the chase until the
 * slice ends. Each thread's chase time is left out of its timed time.
 *
 * The final check (docs/cli.md "The final check"): size() of most tables is
 * a sum of per-thread counters, so size()==i+ins-rem holds by construction
 * even if a table loses keys. The verify sweep counts the keys get() finds
 * over the whole key range (or a uniform sample of it when the range is too
 * large to sweep in about a second) and compares with what must be there;
 * it also checks every found value (a hash of the key and a version, run_val)
 * and, in a full sweep, the sum of the keys found (verify_contents).
 *
 * All table calls come from worker threads after their thread_init (tables
 * with RCU registration need that); size() is called by worker 0.
 * The timed loop allocates nothing and makes no system call; its counters are
 * locals (registers) written once to the worker's own cache line at the end.
 *
 * The timed loop only dispatches operations to the table and counts
 * outcomes; which operation on which key comes from the op source
 * (workloads/opsource.h: uniform, Zipf, hotspot, YCSB, traces, pre-drawn
 * buffers). Measurement (docs/cli.md): the loop is instantiated per source
 * kind and per measurement mode (LOOP_LAT: TSC stamps around every EVERY-th
 * op into the thread's preallocated buffers; LOOP_TL: the op count published
 * to the worker's own cache line every 1024 ops); --pipeline has a loop of its
 * own. The plain instantiation has no measurement code at all. PAPI event sets start right
 * after B3 and stop right after the loop; likwid regions "prefill" and "run"
 * wrap the prefill and the timed loop. Memory snapshots: main before create
 * and after the run, thread 0 after the prefill check.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "runner.h"
#include "faults.h"
#include "opsource.h"
#include "trace.h"
#include "marker.h"
#include "util.h"
#include "table_support.h"     /* cht_private_cache_bytes */
#include "membench.h"          /* --ceiling-slices */
#include "history.h"           /* --verify history */

/* SIGINT/SIGTERM: the handler raises the current run's stop flag (workers
 * check it on every op) and records the signal; main finishes cleanly. */
volatile int runner_interrupted;
static int *volatile current_stop[2];        /* the run's warm_stop and stop */

static void on_signal(int sig)
{
    __atomic_store_n(&runner_interrupted, sig, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++) {
        int *p = current_stop[i];
        if (p)
            __atomic_store_n(p, 1, __ATOMIC_RELAXED);
    }
}

void runner_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void runner_watch_stop(int *warm_stop, int *stop)
{
    current_stop[0] = warm_stop;
    current_stop[1] = stop;
    if (runner_interrupted) {
        if (warm_stop)
            __atomic_store_n(warm_stop, 1, __ATOMIC_RELAXED);
        if (stop)
            __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
    }
}

/* The long phases outside the timed loop (prefill, key buffers, the final
 * check) look at the signal every 4096 keys: an interrupted run is no result. */
static inline bool stop_requested(void) { return __atomic_load_n(&runner_interrupted, __ATOMIC_RELAXED) != 0; }

/* Workers leave signals to the main thread, whose sleeps they interrupt. */
static int spawn_blocked(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

struct shared {
    const struct run_params *p;
    const struct cht_ops *ops;
    void *table;
    pthread_barrier_t bar;
    alignas(CHT_CACHE_LINE) int stop;        /* read by every op: its own line; 1 ends the timed phase,
                                              * STOP_CHASE_* asks for a chase slice (--ceiling-slices) */
    alignas(CHT_CACHE_LINE) int warm_stop;   /* ends the --warmup loop */
    alignas(CHT_CACHE_LINE) uint64_t hot_base;  /* hotspot: where the hot set starts (moves with shift=) */
    struct ycsb_latest ycsb;                 /* YCSB D: the keys claimed and acknowledged */
    struct op_mix mix;                       /* -u or the YCSB workload's */
    uint64_t *shadow;                        /* approximate tables: the keys present, one bit each */
    struct worker *workers;
    uint64_t *wrote;                         /* [v]: the write sequences writer v used, 0 .. wrote[v] - 1 (0: the
                                              * prefill; t + 1: worker t), set by thread 0 before the verify sweep */
    int shifter_stop;
    const struct keygen *verify_perm;        /* VERIFY_SAMPLE: the sample is verify_perm(1..verify_n) */
    enum verify_mode verify;
    uint64_t verify_n;                       /* keys to look up in all */
    alignas(CHT_CACHE_LINE) size_t prefill_size, final_size;
    size_t table_bytes_after_prefill;
    struct memsnap mem_after_prefill;
    unsigned pipe_w;                         /* --pipeline: ops in flight (0: single ops), set before B3 */
    unsigned pipe_chunks;                    /* ... cut into this many chunks (pipe_loop_for) */
    enum pipe_mode pipe_mode;
    bool pipe_ordered;                       /* ... ops on one key complete in draw order (clash tests) */
    struct ceiling_chase *chase;             /* --ceiling-slices: built by thread 0 before B3, freed after B6 */
    bool sliced;                             /* ... it was built: the timed phase ran in slices */
    char chase_error[160];                   /* ... why it could not be */
    bool hist_on;                            /* --verify history: the watched keys' ops recorded */
    struct hist_watch hist_watch;            /* ... which keys */
    struct hist_init *hist_init;             /* ... their states at the timed phase's start (thread 0's read) */
    size_t hist_ninit;
    bool hist_init_failed;                   /* ... out of memory for them */
};

/* the stop flag's values besides 0 (run) and 1 (stop: main, or a signal) */
#define STOP_CHASE_K32 2
#define STOP_CHASE_K16 3

struct worker {
    alignas(CHT_CACHE_LINE) unsigned tid;
    struct shared *s;
    uint64_t count[N_OUTCOMES];
    uint64_t warm_count[N_OUTCOMES];
    uint64_t prefilled;          /* prefill inserts that succeeded */
    uint64_t verify_found;       /* keys of this worker's verify slice that get() found */
    uint64_t verify_present, verify_present_found;   /* approximate tables: present keys, and of them found */
    uint64_t seq;                /* the write sequences its values used: 0 .. seq - 1 (run_val) */
    uint64_t keysum;             /* sum of the keys this worker's prefill, warm-up and timed inserts added,
                                  * minus those its removes took away (mod 2^64) */
    uint64_t verify_keysum;      /* sum of the keys of its verify slice that get() found */
    uint64_t verify_bad;         /* ... found with a value the run did not write */
    uint64_t bad_key, bad_value; /* ... the first of them */
    uint64_t pipe_bad;           /* --pipeline: steps that left an impossible result */
    struct pipe_bad_answer pipe_first_bad;   /* ... the first of them */
    uint64_t skipped[2];         /* filters: timed inserts of present / removes of absent keys (not sent) */
    uint64_t *opbuf;             /* --keybuf: pre-drawn ops (opbuf_entry), or a --trace share; NULL: in the loop */
    uint64_t opbuf_ns;           /* time to fill it */
    bool opbuf_failed;           /* could not allocate it */
    bool opbuf_wrapped;          /* the timed loop went round it */
    uint64_t ops_limit;          /* --trace: this thread's share of the trace */
    uint64_t t_start, t_end;
    uint64_t cpu_ns;             /* CPU time this thread spent in its timed loop (CLOCK_THREAD_CPUTIME_ID) */
    struct opsrc src;            /* this thread's op source (the warm-up's, then the timed loop's) */
    struct opsrc_rounds rounds;  /* its OPSRC_SHIFT state */
    bool prefill_full;           /* an insert of a fresh key was refused */
    char pin_error[160];         /* pin_apply failed: why */
    struct lat_buf lat;          /* --latency */
    struct counter_thread cnt;   /* --counters */
    alignas(CHT_CACHE_LINE) uint64_t progress;   /* --timeline: ops done, published every 1024 */
    int finished;                /* --timeline: the loop has ended */
    char *chase_q[MEMBENCH_MAX_K];   /* --ceiling-slices: this thread's chains, from slice to slice */
    uint64_t chase_loads[2], chase_ns[2];   /* ... loads and time at k = 32, at k = 16 */
    struct hist_buf hist;        /* --verify history: this thread's ops on watched keys */
};

/* ---------------- approximate tables (filters, CHT_CAP_APPROXIMATE) ----------------
 * A filter cannot say whether a key is present (false positives) and may
 * store a key twice (a multiset of fingerprints) or lose another key's
 * fingerprint when asked to remove an absent key. So the harness keeps the
 * truth: a bitmap of the keys present, and updates only where they are
 * meaningful: an insert only of an absent key, a remove only of a present
 * one (else counted as a failed insert / remove without calling the
 * table, and as filter_skipped_ins / _rem). Updates are done by the key's
 * owner thread ((k - 1) mod n; an update drawn for another thread's key goes
 * to the nearest key of this thread's), so the bitmap and the filter never disagree under
 * concurrency. The final check then finds every present key (no false
 * negatives, exactly) and counts the absent keys answered "present": the
 * false-positive rate. */
static inline bool shadow_test(const uint64_t *bm, uint64_t k)
{
    return __atomic_load_n(&bm[(k - 1) >> 6], __ATOMIC_RELAXED) >> ((k - 1) & 63) & 1;
}
static inline void shadow_set(uint64_t *bm, uint64_t k, bool on)
{
    uint64_t bit = 1ull << ((k - 1) & 63);
    if (on)
        __atomic_fetch_or(&bm[(k - 1) >> 6], bit, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&bm[(k - 1) >> 6], ~bit, __ATOMIC_RELAXED);
}
/* this thread's key nearest to k: keys k with (k - 1) mod n == tid */
static inline cht_key_t owned_key(cht_key_t k, unsigned tid, unsigned n, uint64_t range)
{
    cht_key_t o = k - (k - 1) % n + tid;
    return o > range ? (o > n ? o - n : 0) : o;
}

static inline bool counting(const struct run_params *p) { return p->counters && p->counters->active; }

static void barrier(struct shared *s) { pthread_barrier_wait(&s->bar); }

/* Prefill keys perm(first+1 .. first+n): distinct by construction, so each
 * insert must succeed; a refusal means a fixed-capacity table is full. */
static void prefill_slice(struct worker *w, uint64_t first, uint64_t n)
{
    const struct shared *s = w->s;
    bool (*insert)(void *, cht_key_t, cht_val_t) = s->ops->insert;
    uint64_t done = 0, ks = 0;
    for (uint64_t j = first + 1; j <= first + n; j++) {
        if (!(j & 4095) && stop_requested())
            break;
        cht_key_t k = keygen_scramble(s->p->perm, j);
        if (s->p->cfg->keys_sparse)
            k = keygen_sparse(k);
        bool ok = insert(s->table, k, run_val(k, 0, 0));   /* the prefill's keys are distinct: seq 0 */
        if (!ok) {                   /* full or out of memory: the outcome says which; no point going on */
            w->prefill_full = true;
            break;
        }
        done++;
        ks += k;
        if (s->shadow)
            shadow_set(s->shadow, k, true);
    }
    w->prefilled = done;
    w->keysum += ks;
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

/* This thread's CPU time: on a machine shared with other work the timed
 * loop is descheduled part of its wall time; cpu_share (report.c) says how much. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


/* ---------------- the op stream (workloads/opsource.h; docs/cli.md "What is timed") ----------------
 * A costly key distribution (Zipf: ~35 ns a draw, more than many tables'
 * whole operation) would make the timed loop measure the generator. So each
 * worker draws its ops before the start barrier, with the same PRNG stream
 * and draw order as the in-loop source (same seed, same ops), into a buffer
 * of opbuf_len entries that the loop reads in order, cycling when an op
 * count exceeds it. */

/* The source that draws this run's ops in the loop (or into its buffers). */
static unsigned drawn_kind(const struct run_params *p)
{
    if (p->cfg->workload == WL_NONE && p->keys->dist == KEYGEN_UNIFORM)
        return OPSRC_UNIFORM;   /* YCSB's uniform keys take two PRNG steps, as they always did */
    return p->keys->dist == KEYGEN_HOTSPOT ? OPSRC_HOTSPOT : OPSRC_KEYGEN;
}

/* The source of this worker's timed loop, or of its warm-up, which draws its
 * own ops in the loop, except YCSB's and a trace's (read from the buffer). */
static unsigned source_kind(const struct worker *w, bool warm)
{
    const struct bench_config *cfg = w->s->p->cfg;
    unsigned kind;
    if (w->opbuf && (cfg->workload || w->s->p->trace || !warm)) {
        kind = OPSRC_BUFFER;
        /* uniform dense keys with writes: each round of the buffer shifted (opsource.h) */
        if (!w->s->p->trace && drawn_kind(w->s->p) == OPSRC_UNIFORM && !cfg->keys_sparse &&
            !op_mix_reads_only(&w->s->mix))
            kind |= OPSRC_SHIFT;
    } else
        kind = drawn_kind(w->s->p) | (warm && cfg->keys_sparse ? OPSRC_MAP : 0);
    return kind | (cfg->workload == WL_YCSB_D ? OPSRC_LATEST : 0);
}

static void source_init(struct worker *w, uint64_t seed)
{
    struct shared *s = w->s;
    uint64_t len = s->p->trace ? UINT64_MAX : s->p->opbuf_len;
    opsrc_init(&w->src, s->p->keys, &s->mix, seed, w->tid, w->opbuf, len, &s->hot_base, &s->ycsb, &w->rounds);
}

/* This thread's ops, drawn off the clock (and NUMA-local): --keybuf, or its share of a --trace. */
static void opbuf_prepare(struct worker *w)
{
    const struct run_params *p = w->s->p;
    const struct bench_config *cfg = p->cfg;
    if (p->trace) {                          /* t, t+n, t+2n, ... */
        const struct trace *tr = p->trace;
        uint64_t share = tr->n / p->threads + (w->tid < tr->n % p->threads);
        w->opbuf = malloc((share ? share : 1) * sizeof *w->opbuf);
        if (!w->opbuf) {
            w->opbuf_failed = true;
            return;
        }
        for (uint64_t j = 0; j < share; j++)
            w->opbuf[j] = tr->op[w->tid + j * p->threads];
        w->ops_limit = share;                /* 0: more threads than operations, this one does nothing */
    } else if (p->opbuf_len) {
        w->opbuf = malloc(p->opbuf_len * sizeof *w->opbuf);
        if (!w->opbuf) {
            w->opbuf_failed = true;
            return;
        }
        struct opsrc fill;
        opsrc_init(&fill, p->keys, &w->s->mix, cfg->seed + p->rep, w->tid, NULL, 0, NULL, NULL, NULL);
        uint64_t t0 = now_ns();
        opsrc_fill(&fill, drawn_kind(p) | (cfg->keys_sparse ? OPSRC_MAP : 0), w->opbuf, p->opbuf_len,
                   &runner_interrupted);
        w->opbuf_ns = now_ns() - t0;
    }
}

/* ---------------- running one op ---------------- */

/* the loop's measurement modes (constants in each instantiation) */
enum { LOOP_PLAIN = 0, LOOP_LAT = 1, LOOP_TL = 2, LOOP_BATCH = 4, LOOP_APPROX = 8, LOOP_HIST = 16 };

/* The loop's constants: the table and what the final check needs written. */
struct op_runner {
    void *t;
    bool (*get)(void *, cht_key_t, cht_val_t *);
    bool (*insert)(void *, cht_key_t, cht_val_t);
    bool (*remove)(void *, cht_key_t);
    bool (*update)(void *, cht_key_t, cht_val_t);
    uint64_t vbits;            /* values carry this thread's writer number (run_val) */
    uint64_t seq0;             /* ... and a write sequence from here on (the warm-up's writes came first) */
    uint64_t *shadow;          /* LOOP_APPROX: the keys present */
    unsigned tid, nthreads;
    uint64_t range;
    struct hist_watch watch;   /* LOOP_HIST: the watched keys */
    struct hist_buf *hist;     /* ... this thread's records */
};

/* The loop's counts, in registers: outcomes, and the keys inserts added and removes took away. */
struct tally {
    uint64_t gs, gf, is, inf, rs, rf, us, uf;
    uint64_t keysum;
    uint64_t seq;                    /* set at the loop's end: the write sequences used so far (tally_seq) */
    uint64_t skip_ins, skip_rem;     /* LOOP_APPROX: inserts of present, removes of absent keys */
};

static inline __attribute__((always_inline)) void op_runner_init(struct op_runner *r, struct worker *w)
{
    const struct shared *s = w->s;
    *r = (struct op_runner){ .t = s->table, .get = s->ops->get, .insert = s->ops->insert, .remove = s->ops->remove,
                             .update = s->ops->update, .vbits = run_val_writer_bits(w->tid + 1),
                             .shadow = s->shadow, .tid = w->tid, .nthreads = s->p->threads,
                             .range = s->p->keys->range, .watch = s->hist_watch, .hist = &w->hist,
                             .seq0 = w->seq };
}

/* The next write's sequence: seq0 + the loop's inserts and updates so far
 * (each counts one, written or not), so that no counter of its own stays
 * live in the loop (one costs the buffered loop 1.25 instructions an op in
 * reloads: callgrind, noop -u 10). */
static inline __attribute__((always_inline)) uint64_t tally_seq(const struct op_runner *r, const struct tally *n)
{
    return r->seq0 + n->is + n->inf + n->us + n->uf;
}

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
        ok = r->get(r->t, op.key, &v);
        n->gs += ok;
        n->gf += !ok;
        return GET_SUC + !ok;
    }
    op.key = opsrc_write_key(src, kind, op.key);
    const cht_key_t k = op.key;
    if ((mode & LOOP_APPROX) && (op.kind == OP_INSERT || op.kind == OP_REMOVE))
        return run_filter_op(r, n, op);
    if (op.kind == OP_INSERT) {
        ok = r->insert(r->t, k, run_val(k, r->vbits, tally_seq(r, n)));
        n->keysum += k & -(uint64_t)ok;
        n->is += ok;
        n->inf += !ok;
        opsrc_done(src, kind, op);
        return INS_SUC + !ok;
    }
    if (op.kind == OP_REMOVE) {
        ok = r->remove(r->t, k);
        n->keysum -= k & -(uint64_t)ok;
        n->rs += ok;
        n->rf += !ok;
        return REM_SUC + !ok;
    }
    /* update; F's read-modify-write: read, then write back this thread's version, counted once as an update */
    cht_val_t v;
    ok = (op.kind == OP_UPDATE || r->get(r->t, k, &v)) && r->update(r->t, k, run_val(k, r->vbits, tally_seq(r, n)));
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

/* the ops this loop may do: a trace share, --ops, or until the stop flag */
static inline uint64_t loop_ops(const struct worker *w, bool warm)
{
    const struct bench_config *cfg = w->s->p->cfg;
    return warm ? UINT64_MAX : w->s->p->trace ? w->ops_limit : cfg->ops ? cfg->ops : UINT64_MAX;
}

static void clock_start(struct worker *w)
{
    w->cpu_ns = thread_cpu_ns();    /* two calls per run, off the loop */
    w->t_start = now_ns();
}

static void clock_stop(struct worker *w)
{
    w->t_end = now_ns();
    w->cpu_ns = thread_cpu_ns() - w->cpu_ns;
}

/* After a loop: the counts go to the worker's own line, once. */
static inline __attribute__((always_inline)) void loop_finish(struct worker *w, const struct opsrc *src,
                                                              const struct tally *n, bool warm)
{
    if (!warm && !w->s->p->trace && w->opbuf && src->pos > w->s->p->opbuf_len)
        w->opbuf_wrapped = true;
    w->keysum += n->keysum;
    w->seq = n->seq;
    if (!warm) {
        w->skipped[0] = n->skip_ins;
        w->skipped[1] = n->skip_rem;
    }
    uint64_t *count = warm ? w->warm_count : w->count;
    count[GET_SUC] = n->gs;
    count[GET_FAIL] = n->gf;
    count[INS_SUC] = n->is;
    count[INS_FAIL] = n->inf;
    count[REM_SUC] = n->rs;
    count[REM_FAIL] = n->rf;
    count[UPD_SUC] = n->us;
    count[UPD_FAIL] = n->uf;
}

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

/* --ceiling-slices: the loop met a nonzero stop flag. While it holds a
 * chase value, this thread chases (the k it names) and counts the loads and
 * the time. Returns whether the timed phase goes on (the flag back at 0);
 * false at 1 (the end, a signal, or the warm-up's flag). */
static __attribute__((noinline, cold)) bool slice_chase(struct worker *w, const int *stop)
{
    for (;;) {
        const int v = __atomic_load_n(stop, __ATOMIC_RELAXED);
        if (v != STOP_CHASE_K32 && v != STOP_CHASE_K16)
            return v == 0;
        const unsigned i = v == STOP_CHASE_K16;
        const uint64_t t0 = now_ns();
        w->chase_loads[i] += ceiling_chase_while(w->chase_q, i ? 16 : 32, stop, v);
        w->chase_ns[i] += now_ns() - t0;
    }
}

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
    while (left && slice_chase(w, stop))
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

/* --pipeline W (DRAMHiT's pipelining: Narayanan et al., EuroSys'23, §3-4),
 * in a loop of its own so the plain loop carries none of it. W is cut into
 * k chunks of about PIPE_CHUNK ops (k = 1 below 2 * PIPE_CHUNK), and the
 * table sees one call per chunk (pipe_start, pipe_step), so no indirect call
 * is made per op. The chunks rotate through a ring of k + 1 slots; each turn:
 *  A. parked ops complete (those that answered CHT_PIPE_AGAIN, their second
 *     line prefetched then) in one pipe_step call per list, whose second
 *     steps must complete them: the ops parked k turns ago, then those
 *     parked last turn as urgent (below); then the last turn's held ops
 *     (below) one by one, in draw order;
 *  B. the chunk drawn k turns ago, by now (mostly) on cached lines, is
 *     stepped in draw order: most ops complete; those that answer "again" (a
 *     second cuckoo bucket, a dense run past its first lines, a clht-lb overflow
 *     bucket) are parked for k turns, so their dependent miss overlaps W
 *     other ops instead of stalling one: ops complete out of order;
 *  C. a new chunk is drawn and started (hashed, its first lines prefetched)
 *     into the slot A emptied.
 * So W ops are on their way at every turn, W - W / k at least: the core's
 * miss slots stay about as full all the time, where one batch of W started
 * at once and stepped at once fills them in a burst and lets them drain
 * while it is stepped (docs/measurements/pipeline.md "2026-12-02, 03:00").
 * Program order per key: chunks are stepped in the order they were drawn.
 * An op whose key an earlier op of its chunk has (found as the chunk is
 * drawn: a 256-bit mask of key hashes, then an exact look) is held: not
 * stepped in B, so no call steps two ops of one key, but completed in the
 * next turn's A, after the parked ops, in draw order. A parked op is urgent,
 * completed in the next turn's A, where a chunk stepped before k turns pass
 * has its key (that chunk's mask folded to 64 bits, then an exact look), or
 * where its own chunk has held ops; a chunk drawn after it is stepped k turns
 * after it at the earliest. So every op on a key completes before any later op on that
 * key is stepped: one thread's ops on one key complete in the order they
 * were drawn. YCSB-F's read-modify-write is held and runs as get + update.
 * A run whose ops are all gets (-u 0, YCSB C; not a trace) skips the clash
 * tests (pipe_ordered): nothing writes, so no get can tell in which order two
 * gets of one key ran; it runs a copy of the loop of its own (`ordered`
 * false: no values drawn, no clash test, its gets counted as the ops
 * completed). Completed ops are counted without a branch on their kind
 * (struct pipe_count). Each completing step linearizes its op inside that
 * call (cht.h), so every op takes effect between its draw and its
 * completion. The stop flag is read once a turn; after it no op is drawn and
 * those in flight complete, still timed (a chase slice's value instead
 * pauses the loop there for the slice: slice_chase). Excludes --latency and --batch
 * (cli.c); a filter runs single ops (pipe_choose). */
#define PIPE_CHUNK 16
#define PIPE_HOLD_WATCHED 0x80
#define PIPE_CHUNK_CAP (2 * PIPE_CHUNK)                 /* W / k rounded up stays below 2 * PIPE_CHUNK */
#define PIPE_RING (CHT_PIPELINE_MAX / PIPE_CHUNK + 1)   /* k + 1 slots */
struct pipe_ring {
    struct cht_pipe_op slot[PIPE_RING][PIPE_CHUNK_CAP];
    uint8_t n[PIPE_RING], nh[PIPE_RING];            /* each slot's ops and held ops */
    uint8_t hold[PIPE_RING][PIPE_CHUNK_CAP];        /* indexes of each chunk's held ops, in draw order */
    uint8_t hold_kind[PIPE_RING][PIPE_CHUNK_CAP];   /* their enum op_kind (OP_RMW apart from OP_UPDATE),
                                                     * | PIPE_HOLD_WATCHED for a watched key's (LOOP_HIST) */
    uint64_t bits[PIPE_RING];                       /* each slot's keys' pipe_key_bit()s (ordered runs) */
    struct cht_pipe_op park[PIPE_RING][PIPE_CHUNK_CAP];   /* parked, by turn mod k */
    uint8_t npark[PIPE_RING];
    struct cht_pipe_op urgent[PIPE_CHUNK_CAP];      /* parked last turn, to complete in this one */
};

/* The pipelined loop's counts. A run that may write counts by enum op_kind
 * and outcome without a branch on either (at u = 50 such a branch per op
 * mispredicts about half the time): n[kind][ok], and the keys of successful
 * ops by kind (the key sum is inserted - removed). A run of gets only counts
 * them apart, in registers (a local whose address stays here). */
struct pipe_count {
    bool mixed;
    uint64_t gets_ok, gets_all;     /* gets only: gets_all is the loop's `done` at the end */
    uint64_t n[OP_RMW + 1][2];
    uint64_t keys_ok[OP_RMW + 1];
};

/* Steps that left an impossible result (pipe_bad), counted as failures; apart from struct
 * pipe_count, whose address must not escape (its counters stay in registers). */
struct pipe_bads {
    uint64_t bad;
    struct pipe_bad_answer first_bad;
};

/* An op whose step left a result it may not give: the poison the driver stored (the step
 * never answered it), CHT_PIPE_AGAIN from a second step, anything but 1/0. Off the hot path:
 * the callers' one test on the result (> 1 as unsigned) already parts "again" from 1/0. */
static __attribute__((noinline, cold)) void pipe_bad(struct pipe_bads *c, const struct cht_pipe_op *op,
                                                     unsigned step)
{
    if (!c->bad++)
        c->first_bad = (struct pipe_bad_answer){ .key = op->key, .kind = op->kind, .result = op->result,
                                                 .step = step };
}

/* an op of ops[0..n) with key k */
static __attribute__((noinline)) bool pipe_key_in(const struct cht_pipe_op *ops, unsigned n, cht_key_t k)
{
    unsigned any = 0;
    for (unsigned j = 0; j < n; j++)
        any |= ops[j].key == k;
    return any;
}

/* a key's hash into a chunk's 256-bit key mask: bit x & 63 of word x >> 6 */
static inline unsigned pipe_key_hash(cht_key_t k)
{
    return (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 56);
}

/* its bit in a mask of 64 (the 256 folded) */
static inline uint64_t pipe_key_bit(cht_key_t k)
{
    return 1ull << (pipe_key_hash(k) & 63);
}

/* counts a completed op as run_op would */
static inline __attribute__((always_inline)) void pipe_tally(struct pipe_count *c, struct opsrc *src,
                                                             const unsigned kind, unsigned okind, cht_key_t k, int r)
{
    const uint64_t ok = r != 0;
    if (!c->mixed) {
        c->gets_ok += ok;
        return;
    }
    c->n[okind][ok]++;
    c->keys_ok[okind] += k & (0 - ok);
    if ((kind & OPSRC_LATEST) && okind == OP_INSERT)
        opsrc_done(src, kind, (struct op){ OP_INSERT, k });
}

/* the counts into run_op's tally */
static void pipe_tally_into(const struct pipe_count *c, struct tally *n)
{
    n->gs += c->n[OP_GET][1] + c->gets_ok;
    n->gf += c->n[OP_GET][0] + c->gets_all - c->gets_ok;
    n->is += c->n[OP_INSERT][1];
    n->inf += c->n[OP_INSERT][0];
    n->rs += c->n[OP_REMOVE][1];
    n->rf += c->n[OP_REMOVE][0];
    n->us += c->n[OP_UPDATE][1] + c->n[OP_RMW][1];
    n->uf += c->n[OP_UPDATE][0] + c->n[OP_RMW][0];
    n->keysum += c->keys_ok[OP_INSERT] - c->keys_ok[OP_REMOVE];
}

/* The op kind of a stepped or parked op: its cht_pipe_kind, which is its enum
 * op_kind (only a held op can be OP_RMW, run apart in A); masked, so that a
 * table that wrote the driver's field cannot count outside n[][]. */
static inline __attribute__((always_inline)) unsigned pipe_okind(const struct pipe_count *c,
                                                                 const struct cht_pipe_op *op)
{
    return c->mixed ? op->kind & 3 : OP_GET;
}

/* A: parked ops[0..n) take their second steps (one call), which complete them */
static inline __attribute__((always_inline)) void pipe_complete(struct pipe_count *c, struct pipe_bads *bads,
                                                                struct cht_pipe_op *ops,
                                                                unsigned n, const struct op_runner *run,
                                                                void (*step)(void *, struct cht_pipe_op *, unsigned),
                                                                struct opsrc *src, const unsigned kind)
{
    step(run->t, ops, n);
    for (unsigned i = 0; i < n; i++) {
        int r = ops[i].result;
        if (__builtin_expect((unsigned)r > 1u, 0))   /* a second step must complete its op */
            pipe_bad(bads, &ops[i], 2), r = 0;
        pipe_tally(c, src, kind, pipe_okind(c, &ops[i]), ops[i].key, r);
    }
}

/* B for ops[a..e) of a chunk: one pipe_step call, then each op counted or parked */
static inline __attribute__((always_inline)) unsigned
pipe_step_run(struct cht_pipe_op *park, struct pipe_count *c, struct pipe_bads *bads, struct cht_pipe_op *ops,
              unsigned a, unsigned e,
              unsigned np, const struct op_runner *run, void (*step)(void *, struct cht_pipe_op *, unsigned),
              struct opsrc *src, const unsigned kind)
{
    step(run->t, ops + a, e - a);
    for (unsigned i = a; i < e; i++) {
        int r = ops[i].result;
        if (__builtin_expect((unsigned)r > 1u, 0)) {   /* one test for "again" and impossible answers */
            if (r == CHT_PIPE_AGAIN && ops[i].stage == 1) {
                park[np] = ops[i];
                park[np++].result = CHT_PIPE_POISON;    /* its second step must answer */
                continue;
            }
            pipe_bad(bads, &ops[i], 1);
            r = 0;
        }
        pipe_tally(c, src, kind, pipe_okind(c, &ops[i]), ops[i].key, r);
    }
    return np;
}

/* C's draw: nd ops from src into in (slot `slot` of the ring), the chunk's
 * key mask folded to 64 bits into R->bits (ordered runs); returns how many
 * it holds (their places in R's hold lists). An op is held where an earlier
 * op of its chunk has its key (a 256-bit mask of key hashes; a false clash,
 * an exact look, for ~3% of ops in chunks of 16), or is a read-modify-write.
 * The mask is the draw's own array and the source a copy for the chunk
 * (only its PRNG and buffer position change): the loop then reads neither
 * through a pointer that the stores into `in` might alias, 2.4 instructions
 * an op fewer than with both the caller's (callgrind, clht-lb -u 10). */
static inline __attribute__((always_inline)) unsigned pipe_draw(struct pipe_ring *R, unsigned slot,
                                                                struct cht_pipe_op *in, unsigned nd,
                                                                struct opsrc *src, uint64_t vbits, uint64_t seq,
                                                                const struct hist_watch *watch,
                                                                const unsigned kind, const bool ordered,
                                                                const bool hist)
{
    struct opsrc s = *src;
    uint64_t seen[4] = { 0 };
    unsigned nh = 0;
    for (unsigned i = 0; i < nd; i++) {
        struct op op = opsrc_next(&s, kind);
        if (kind & OPSRC_SHIFT) {   /* a select, not a branch on the kind (a coin toss at -u 50) */
            const cht_key_t wkey = opsrc_write_key(&s, kind, op.key);
            op.key = op.kind == OP_GET ? op.key : wkey;
        }
        in[i].key = op.key;
        in[i].stage = 0;
        in[i].result = CHT_PIPE_POISON;   /* a step that does not answer is caught (pipe_bad) */
        in[i].kind = op.kind;    /* = enum cht_pipe_kind but for OP_RMW (held, below) */
        if (!ordered) {          /* gets only: a get's val is the table's answer */
            assert(op.kind == OP_GET);
        } else {
            in[i].val = run_val(op.key, vbits, seq + i);   /* seq: this thread's draws so far (unique) */
            const unsigned x = pipe_key_hash(op.key);
            const uint64_t bit = 1ull << (x & 63), old = seen[x >> 6];
            seen[x >> 6] = old | bit;
            const bool watched = hist && hist_watched(watch, op.key);
            if (__builtin_expect(((old & bit) != 0) | (op.kind == OP_RMW) | watched, 0) &&
                (watched || op.kind == OP_RMW || pipe_key_in(in, i, op.key))) {
                in[i].kind = op.kind == OP_RMW ? CHT_PIPE_UPDATE : op.kind;
                R->hold_kind[slot][nh] = (uint8_t)(op.kind | (watched ? PIPE_HOLD_WATCHED : 0));
                R->hold[slot][nh++] = (uint8_t)i;
            }
        }
    }
    src->rng = s.rng;
    src->pos = s.pos;
    if (ordered)
        R->bits[slot] = seen[0] | seen[1] | seen[2] | seen[3];
    return nh;
}

/* A held op (not a read-modify-write) stepped alone: a second step at once
 * where the first answers "again"; an impossible answer is counted (pipe_bad)
 * and taken as 0. Returns the answer. */
static inline __attribute__((always_inline)) int pipe_held_step(void *t, struct cht_pipe_op *op,
                                                                void (*step)(void *, struct cht_pipe_op *, unsigned),
                                                                struct pipe_bads *bads)
{
    step(t, op, 1);
    unsigned nstep = 1;
    int r = op->result;
    if (r == CHT_PIPE_AGAIN && op->stage == 1) {
        op->result = CHT_PIPE_POISON;
        step(t, op, 1);
        r = op->result;
        nstep = 2;
    }
    if ((unsigned)r > 1u)
        pipe_bad(bads, op, nstep), r = 0;
    return r;
}

/* LOOP_HIST: a held op on a watched key (pipe_draw holds them all), run as
 * the held ops are and recorded: its completing step linearizes it (cht.h),
 * so its interval is that of its steps. A read-modify-write is a get and an
 * update, each recorded. Returns its answer. */
static __attribute__((noinline)) int pipe_held_recorded(const struct op_runner *run, struct cht_pipe_op *op,
                                                        unsigned okind,
                                                        void (*step)(void *, struct cht_pipe_op *, unsigned),
                                                        struct pipe_bads *bads)
{
    uint64_t t0 = hist_clock_start();
    if (okind == OP_RMW) {
        cht_val_t v = 0;
        int r = run->get(run->t, op->key, &v);
        hist_put(run->hist, op->key, v, t0, hist_clock_end(), run->tid, HIST_GET, r);
        if (r) {
            t0 = hist_clock_start();
            r = run->update(run->t, op->key, op->val);
            hist_put(run->hist, op->key, op->val, t0, hist_clock_end(), run->tid, HIST_UPDATE, r);
        }
        return r;
    }
    const int r = pipe_held_step(run->t, op, step, bads);
    hist_put(run->hist, op->key, op->val, t0, hist_clock_end(), run->tid, (enum hist_op)okind, r);
    return r;
}

static inline __attribute__((always_inline)) void pipe_loop_for(struct worker *w, const unsigned kind,
                                                                const int mode, const bool ordered)
{
    struct shared *s = w->s;
    struct op_runner run;
    op_runner_init(&run, w);
    struct opsrc src = w->src;
    struct tally n = { 0 };
    uint64_t remaining = loop_ops(w, false), done = 0, drawn = 0;
    void (*start)(void *, struct cht_pipe_op *, unsigned) = s->ops->pipe_start;
    void (*step)(void *, struct cht_pipe_op *, unsigned) = s->ops->pipe_step;
    /* k chunks: W / k ops each, the first W % k of them one more */
    const unsigned k = s->pipe_chunks, chunk_lo = s->pipe_w / k, chunk_more = s->pipe_w % k;
    struct pipe_ring R;
    struct pipe_count c = { .mixed = ordered };
    struct pipe_bads bads = { 0 };
    /* slots: cur is stepped this turn, prev was stepped last turn (its held
     * ops complete in A) and takes the new chunk; chunks drawn so far mod k;
     * the park list of this turn mod k; parked, and urgent, last turn */
    unsigned cur = 0, prev = k, nth = 0, pk = 0, np, nu = 0;
    memset(R.bits, 0, sizeof R.bits);
    memset(R.npark, 0, sizeof R.npark);
    memset(R.n, 0, sizeof R.n);
    memset(R.nh, 0, sizeof R.nh);

    clock_start(w);
    for (;;) {
        /* A: the ops parked k turns ago and the urgent ones of the last turn
         * (second steps: they complete), then the last turn's held ops */
        if ((np = R.npark[pk])) {
            pipe_complete(&c, &bads, R.park[pk], np, &run, step, &src, kind);
            done += np;
        }
        if (ordered && nu) {
            pipe_complete(&c, &bads, R.urgent, nu, &run, step, &src, kind);
            done += nu;
        }
        if (ordered) {
            for (unsigned i = 0; i < R.nh[prev]; i++) {
                struct cht_pipe_op *op = &R.slot[prev][R.hold[prev][i]];
                const unsigned hk = R.hold_kind[prev][i], ok = hk & ~PIPE_HOLD_WATCHED;
                int r;
                if ((mode & LOOP_HIST) && (hk & PIPE_HOLD_WATCHED)) {
                    r = pipe_held_recorded(&run, op, ok, step, &bads);
                } else if (ok == OP_RMW) {
                    cht_val_t v;
                    r = run.get(run.t, op->key, &v) && run.update(run.t, op->key, op->val);
                } else {
                    r = pipe_held_step(run.t, op, step, &bads);
                }
                pipe_tally(&c, &src, kind, ok, op->key, r);
            }
            done += R.nh[prev];
        }
        /* B: the chunk drawn k turns ago is stepped, but for its held ops */
        const unsigned nb = R.n[cur], nh = ordered ? R.nh[cur] : 0;
        struct cht_pipe_op *ops = R.slot[cur];
        np = 0;
        if (__builtin_expect(!nh, 1)) {
            if (nb)
                np = pipe_step_run(R.park[pk], &c, &bads, ops, 0, nb, 0, &run, step, &src, kind);
        } else {                     /* the runs between held ops (hold[cur] ascends) */
            unsigned a = 0;
            for (unsigned j = 0; j <= nh; j++) {
                const unsigned e = j < nh ? R.hold[cur][j] : nb;
                if (a < e)
                    np = pipe_step_run(R.park[pk], &c, &bads, ops, a, e, np, &run, step, &src, kind);
                a = e + 1;
            }
        }
        done += nb - np - nh;
        nu = 0;
        if (ordered && np && k > 1) {
            /* a parked op waits k turns unless a chunk stepped before then
             * has its key, or its own chunk has held ops (maybe of its key) */
            uint64_t ahead = 0;
            unsigned sl = cur;
            for (unsigned j = 1; j < k; j++) {
                sl = sl == k ? 0 : sl + 1;
                ahead |= R.bits[sl];
            }
            struct cht_pipe_op *park = R.park[pk];
            unsigned keep = 0;
            for (unsigned i = 0; i < np; i++) {
                bool urgent = nh != 0;
                if (!urgent && (ahead & pipe_key_bit(park[i].key))) {
                    sl = cur;
                    for (unsigned j = 1; j < k && !urgent; j++) {
                        sl = sl == k ? 0 : sl + 1;
                        urgent = pipe_key_in(R.slot[sl], R.n[sl], park[i].key);
                    }
                }
                if (urgent)
                    R.urgent[nu++] = park[i];
                else if (keep++ != i)
                    park[keep - 1] = park[i];
            }
            np = keep;
        }
        R.npark[pk] = (uint8_t)np;
        pk = pk + 1 == k ? 0 : pk + 1;
        if (mode & LOOP_TL)
            __atomic_store_n(&w->progress, done, __ATOMIC_RELAXED);
        /* C: a new chunk into slot prev, whose held ops A completed (pipe_draw) */
        unsigned nd = 0, nh_drawn = 0;
        int flag;   /* a chase slice's value (--ceiling-slices): chase, then draw on unless it ended the run */
        if (remaining && (!(flag = __atomic_load_n(&s->stop, __ATOMIC_RELAXED)) ||
                          (flag > 1 && slice_chase(w, &s->stop)))) {
            nd = chunk_lo + (nth < chunk_more);
            nth = nth + 1 == k ? 0 : nth + 1;
            if (nd > remaining)
                nd = (unsigned)remaining;
            remaining -= nd;
            const uint64_t seq = w->seq + drawn;
            drawn += nd;
            struct cht_pipe_op *in = R.slot[prev];
            /* OPSRC_SHIFT: a chunk in the buffer's first round draws as a plain
             * buffer's (its writes' keys as drawn), one past it shifts them */
            if ((kind & OPSRC_SHIFT) && __builtin_expect(src.pos + nd > src.mask + 1, 0))
                nh_drawn = pipe_draw(&R, prev, in, nd, &src, run.vbits, seq, &run.watch, kind, ordered,
                                     mode & LOOP_HIST);
            else
                nh_drawn = pipe_draw(&R, prev, in, nd, &src, run.vbits, seq, &run.watch, kind & ~OPSRC_SHIFT,
                                     ordered, mode & LOOP_HIST);
            start(run.t, in, nd);
        } else if (done == drawn) {
            break;
        }
        R.n[prev] = (uint8_t)nd;
        if (ordered && !nd)
            R.bits[prev] = 0;
        R.nh[prev] = (uint8_t)nh_drawn;
        prev = cur;
        cur = cur == k ? 0 : cur + 1;
    }
    clock_stop(w);
    if (mode & LOOP_TL) {
        __atomic_store_n(&w->progress, done, __ATOMIC_RELAXED);
        __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
    }
    if (!ordered)
        c.gets_all = done;
    w->pipe_bad = bads.bad;
    w->pipe_first_bad = bads.first_bad;
    pipe_tally_into(&c, &n);
    n.seq = w->seq + drawn;
    loop_finish(w, &src, &n, false);
}

/* One instantiation of LOOP(kind) per source kind a run can have; OPSRC_MAP
 * only where WARM (the timed loop reads mapped keys from its buffer),
 * OPSRC_SHIFT only where not (the warm-up draws its own). */
#define FOR_SOURCE(kindv, WARM, LOOP)                                                       \
    do {                                                                                    \
        switch (kindv) {                                                                    \
        case OPSRC_UNIFORM: LOOP(OPSRC_UNIFORM); break;                                     \
        case OPSRC_KEYGEN: LOOP(OPSRC_KEYGEN); break;                                       \
        case OPSRC_HOTSPOT: LOOP(OPSRC_HOTSPOT); break;                                     \
        case OPSRC_BUFFER: LOOP(OPSRC_BUFFER); break;                                       \
        case OPSRC_BUFFER | OPSRC_SHIFT: if (!WARM) LOOP(OPSRC_BUFFER | OPSRC_SHIFT); break;\
        case OPSRC_KEYGEN | OPSRC_LATEST: LOOP(OPSRC_KEYGEN | OPSRC_LATEST); break;         \
        case OPSRC_BUFFER | OPSRC_LATEST: LOOP(OPSRC_BUFFER | OPSRC_LATEST); break;         \
        case OPSRC_UNIFORM | OPSRC_MAP: if (WARM) LOOP(OPSRC_UNIFORM | OPSRC_MAP); break;   \
        case OPSRC_KEYGEN | OPSRC_MAP: if (WARM) LOOP(OPSRC_KEYGEN | OPSRC_MAP); break;     \
        default: abort();           /* source_kind yields no other kind */                  \
        }                                                                                   \
    } while (0)

/* --warmup: the same operations, uncounted in throughput, no measurement */
static void warmup_loop(struct worker *w)
{
    unsigned kind = source_kind(w, true);
#define WARM_PLAIN(k) timed_loop_for(w, k, LOOP_PLAIN, true)
#define WARM_APPROX(k) timed_loop_for(w, k, LOOP_APPROX, true)
    if (w->s->shadow)
        FOR_SOURCE(kind, true, WARM_APPROX);
    else
        FOR_SOURCE(kind, true, WARM_PLAIN);
}

/* --pipeline's loops, one per source kind, in a function of their own: inlined
 * into timed_loop they cost its plain loop an instruction per op (cachegrind) */
static __attribute__((noinline)) void pipe_timed_loop(struct worker *w, unsigned kind, int mode)
{
#define PIPE(k_) pipe_loop_for(w, k_, LOOP_PLAIN, true)
#define PIPE_TL(k_) pipe_loop_for(w, k_, LOOP_TL, true)
#define PIPE_GETS(k_) pipe_loop_for(w, k_, LOOP_PLAIN, false)
#define PIPE_GETS_TL(k_) pipe_loop_for(w, k_, LOOP_TL, false)
    const bool ordered = w->s->pipe_ordered;
    if (mode & LOOP_TL) {
        if (ordered)
            FOR_SOURCE(kind, false, PIPE_TL);
        else
            FOR_SOURCE(kind, false, PIPE_GETS_TL);
    } else if (ordered) {
        FOR_SOURCE(kind, false, PIPE);
    } else {
        FOR_SOURCE(kind, false, PIPE_GETS);
    }
}

/* --verify history's loops, out of line like the pipelined ones */
static __attribute__((noinline)) void hist_timed_loop(struct worker *w, unsigned kind)
{
#define HIST(k_) timed_loop_for(w, k_, LOOP_HIST, false)
#define PIPE_HIST(k_) pipe_loop_for(w, k_, LOOP_HIST, true)
    if (w->s->pipe_w)        /* pipe_choose makes a history's run ordered */
        FOR_SOURCE(kind, false, PIPE_HIST);
    else
        FOR_SOURCE(kind, false, HIST);
}

static void timed_loop(struct worker *w)
{
    const struct bench_config *cfg = w->s->p->cfg;
    const unsigned kind = source_kind(w, false);
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
    if (w->s->hist_on) {     /* --verify history excludes --latency, --batch and --timeline */
        hist_timed_loop(w, kind);
        return;
    }
    if (w->s->pipe_w) {      /* --pipeline excludes --latency and --batch */
        pipe_timed_loop(w, kind, mode);
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


/* --pipeline auto: a table within a few times the core's private cache (L2)
 * is mostly cached; its ops hit anyway, and the hooks and the batch
 * bookkeeping are pure overhead (-4..-61% at i = 1K); a larger one misses
 * in L2 and the TLB on most ops, in the L3 too or not, and W ops in flight
 * overlap that (L2 2 MiB, L3 300 MiB: 0.8-1.2x at 2-4 MB, 1.1-1.4x at
 * 8-17 MB, 1.4-2.9x at 34-68 MB; docs/measurements/pipeline.md). */
#define PIPE_AUTO_L2_FACTOR 4
/* W for large tables: 32. One thread, i = 1M, 4M, 16M, against W = 16: on
 * an Intel Xeon guest (35-39 M misses/s at 254 ns: ~10 in flight) gets 1.14-1.30x
 * on clht-lb (one line per op), 0.97-1.08x on cuckoo and dense (three:
 * bucket or two slot lines, and a seqlock word), and with writes 0.92-0.95x
 * (-u 10: cuckoo, dense at 1M and 4M; -u 50: clht-lb at 16M); on an AMD
 * EPYC guest (~127 M misses/s, 257 ns: Little's law wants ~33 misses in
 * flight) with writes 1.04-1.49x on all three (medians of 5 rounds), gets
 * more still at W = 64. One W for both, the larger one: a few percent lost
 * where the core overlaps ~10 misses, up to half gained where it overlaps
 * ~33. docs/measurements/pipeline.md */
#define PIPE_AUTO_W 32

/* Thread 0, after the prefill, before the start barrier (off the clock):
 * the W every worker's timed loop uses. Filters (a shadow) and tables
 * without the pipe hooks run single ops; the row says which (report.c). */
static void pipe_choose(struct shared *s)
{
    const struct bench_config *cfg = s->p->cfg;
    s->pipe_w = 0;
    s->pipe_mode = PIPE_OFF;
    if (!cfg->pipeline && !cfg->pipeline_auto)
        return;
    if (!s->ops->pipe_start || !s->ops->pipe_step || s->shadow) {
        s->pipe_mode = PIPE_FALLBACK;
        return;
    }
    if (cfg->pipeline_auto) {
        uint64_t l2 = cht_private_cache_bytes();
        if (l2 && s->table_bytes_after_prefill <= PIPE_AUTO_L2_FACTOR * l2) {
            s->pipe_mode = PIPE_PLAIN;
            return;
        }
        s->pipe_w = PIPE_AUTO_W;
    } else {
        s->pipe_w = cfg->pipeline;
    }
    s->pipe_mode = PIPE_HOOKS;
    s->pipe_chunks = s->pipe_w >= 2 * PIPE_CHUNK ? s->pipe_w / PIPE_CHUNK : 1;
    s->pipe_ordered = s->p->trace || !op_mix_reads_only(&s->mix) || s->hist_on;   /* history: pipe_draw holds */
}

/* --ceiling-slices: thread 0, after the prefill (off the clock), builds the
 * chase over ceiling_size(the table's bytes) in the table's pages, as
 * --ceiling measures (tablemode.c); NULL and chase_error when it cannot,
 * NULL alone for a table without stats() (no slices: the run is plain). */
static void chase_build(struct shared *s)
{
    const struct bench_config *cfg = s->p->cfg;
    if (!cfg->ceiling_slice_ms)
        return;
    const uint64_t bytes = s->table_bytes_after_prefill;
    if (!bytes)                 /* a table without stats(): no size, no ceiling (as --ceiling) */
        return;
    const bool thp = ceiling_on_thp(cfg->hugepages, &s->mem_after_prefill, bytes);
    s->chase = ceiling_chase_new(bytes, thp, s->p->threads, s->chase_error, sizeof s->chase_error);
    s->sliced = s->chase != NULL;
}

/* This worker's share of the final check: keys first+1..first+n of the
 * range (VERIFY_FULL) or of the sample bijection (VERIFY_SAMPLE). */
static void verify_slice(struct worker *w)
{
    const struct shared *s = w->s;
    if (s->verify == VERIFY_OFF)
        return;
    unsigned n = s->p->threads;
    uint64_t per = s->verify_n / n, extra = s->verify_n % n;
    uint64_t first = w->tid * per + (w->tid < extra ? w->tid : extra), cnt = per + (w->tid < extra);
    bool (*get)(void *, cht_key_t, cht_val_t *) = s->ops->get;
    const uint64_t *wrote = s->wrote;
    const bool check_values = !s->shadow;       /* a filter stores no values */
    uint64_t found = 0, present = 0, present_found = 0, ks = 0, bad = 0;
    for (uint64_t j = first + 1; j <= first + cnt; j++) {
        if (!(j & 4095) && stop_requested())
            break;
        cht_key_t k = s->verify == VERIFY_FULL ? j : keygen_scramble(s->verify_perm, j);
        if (s->p->cfg->keys_sparse)
            k = keygen_sparse(k);
        cht_val_t v = 0;
        bool f = get(s->table, k, &v);
        found += f;
        ks += k & -(uint64_t)f;
        if (f && check_values) {
            const unsigned wr = run_val_writer(v);
            /* its key's hash, a writer of the run, a sequence that writer used (all, once past 2^32) */
            if ((v & (RUN_VAL_KEY_MASK | 1ull << 63)) != run_val_keybits(k) || wr > n ||
                (run_val_seq(v) >= wrote[wr] && wrote[wr] <= RUN_VAL_SEQ_MASK)) {
                if (!bad++) {
                    w->bad_key = k;
                    w->bad_value = v;
                }
            }
        }
        if (s->shadow && k <= s->p->range) {
            bool in = shadow_test(s->shadow, k);
            present += in;
            present_found += in && f;
        }
    }
    w->verify_keysum = ks;
    w->verify_bad = bad;
    w->verify_found = found;
    w->verify_present = present;
    w->verify_present_found = present_found;
}

/* --verify history: the watched keys' states as the timed phase starts
 * (thread 0, between barriers: nothing else runs). Keys of the range, and
 * YCSB-D's new keys so far above it. */
static void hist_read_initial(struct shared *s)
{
    const struct run_params *p = s->p;
    uint64_t max = p->range;
    if (p->cfg->workload == WL_YCSB_D && s->ycsb.next > max)
        max = s->ycsb.next;
    size_t n = 0;
    cht_key_t *keys = hist_watched_keys(&s->hist_watch, max, p->cfg->keys_sparse, &n);
    struct hist_init *init = keys ? malloc((n ? n : 1) * sizeof *init) : NULL;
    if (!init) {
        free(keys);
        s->hist_init_failed = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        init[i] = (struct hist_init){ .key = keys[i] };
        init[i].present = s->ops->get(s->table, keys[i], &init[i].val);
    }
    free(keys);
    s->hist_init = init;
    s->hist_ninit = n;
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
    const struct bench_config *cfg = p->cfg;
    if (cfg->likwid_marker)
        marker_thread_init();
    if (counting(p))
        counters_thread_init(p->counters, &w->cnt);
    opbuf_prepare(w);
    barrier(s);                              /* B1: all registered */
    if (cfg->likwid_marker)
        marker_start("prefill");
    prefill(w);
    if (cfg->likwid_marker)
        marker_stop("prefill");
    barrier(s);                              /* B2: prefill done */
    if (w->tid == 0) {
        s->prefill_size = s->ops->size(s->table);
        if (s->ops->stats) {
            struct cht_stats st = { 0 };
            s->ops->stats(s->table, &st);
            s->table_bytes_after_prefill = st.bytes;
        }
        memstat_take(&s->mem_after_prefill);
        pipe_choose(s);
        chase_build(s);
    }
    barrier(s);                              /* B3: start */
    if (s->chase)
        ceiling_chase_chains(s->chase, w->tid, w->chase_q);
    if (cfg->warmup_ms) {
        /* its own key stream, so the timed phase draws the same keys with or without it */
        source_init(w, (cfg->seed + p->rep) ^ 0x7761726d75700000ull);
        warmup_loop(w);
        barrier(s);                          /* BW: warm-up over */
    }
    if (s->hist_on) {
        if (w->tid == 0)
            hist_read_initial(s);
        barrier(s);                          /* BH: the watched keys' states read */
    }
    source_init(w, cfg->seed + p->rep);
    if (counting(p))
        counters_thread_start(&w->cnt);
    if (cfg->likwid_marker)
        marker_start("run");
    timed_loop(w);
    if (cfg->likwid_marker)
        marker_stop("run");
    if (counting(p))
        counters_thread_stop(&w->cnt);
    barrier(s);                              /* B4: all stopped */
    if (w->tid == 0) {
        s->final_size = s->ops->size(s->table);
        s->wrote[0] = 1;                     /* the prefill's seq 0 */
        for (unsigned t = 0; t < p->threads; t++) {
            const uint64_t *c = s->workers[t].count, *wc = s->workers[t].warm_count;
            const bool wrote_any = c[INS_SUC] + c[UPD_SUC] + wc[INS_SUC] + wc[UPD_SUC] > 0;
            s->wrote[t + 1] = wrote_any ? s->workers[t].seq : 0;
        }
        if (cfg->workload == WL_YCSB_D && s->verify == VERIFY_FULL)
            s->verify_n = s->ycsb.next;      /* the new keys lie above the range */
    }
    barrier(s);                              /* B5 */
    verify_slice(w);
    barrier(s);                              /* B6: verified */
    if (s->ops->thread_exit)
        s->ops->thread_exit(s->table, w->tid);
    if (counting(p))
        counters_thread_exit(&w->cnt);
    free(w->opbuf);
    w->opbuf = NULL;
    return NULL;
}

/* Sleeps ms, or less when a signal interrupts the run. */
static void sleep_ms(uint64_t ms)
{
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
    if (stop_requested())   /* the signal came before the sleep (in the prefill): none to wait for */
        return;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !runner_interrupted)
        ;
}

/* --ceiling-slices: the timed phase cut into slices of ms, from its start:
 * even slices the table's, odd ones a chase's (k = 32, then 16, in turn),
 * until d ms or a signal; the caller then raises stop. The flag moves by
 * compare-and-swap, so a signal's 1 is never overwritten. */
static void slice_phase(struct shared *s, uint64_t duration_ms, unsigned ms)
{
    const uint64_t t0 = now_ns(), end = t0 + duration_ms * 1000000ull;
    int flag = 0;
    for (uint64_t j = 1; !runner_interrupted; j++) {
        const uint64_t at = t0 + j * ms * 1000000ull;
        if (at >= end) {
            const uint64_t now = now_ns();
            if (now < end)
                sleep_ms((end - now + 999999) / 1000000);
            return;
        }
        for (uint64_t now; (now = now_ns()) < at && !runner_interrupted;) {
            struct timespec ts = { .tv_sec = (time_t)((at - now) / 1000000000ull),
                                   .tv_nsec = (long)((at - now) % 1000000000ull) };
            nanosleep(&ts, NULL);
        }
        const int next = !(j & 1) ? 0 : (j / 2) & 1 ? STOP_CHASE_K16 : STOP_CHASE_K32;
        if (!__atomic_compare_exchange_n(&s->stop, &flag, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;                     /* a signal raised it */
        flag = next;
    }
}

/* hotspot shift=MS: moves the hot set to the next disjoint block of keys
 * every MS ms of the timed phase; workers read hot_base on every op, so all
 * switch within one op of each other. */
static void *shifter_main(void *arg)
{
    struct shared *s = arg;
    const struct keygen *g = s->p->keys;
    uint64_t period = g->spec.shift_ms * 1000000ull, t0 = now_ns(), k = 1;
    while (!__atomic_load_n(&s->shifter_stop, __ATOMIC_ACQUIRE)) {
        uint64_t now = now_ns(), due = t0 + k * period;
        if (now >= due) {
            uint64_t b = __atomic_load_n(&s->hot_base, __ATOMIC_RELAXED) + g->hot_n;
            __atomic_store_n(&s->hot_base, b >= g->range ? b - g->range : b, __ATOMIC_RELAXED);
            k++;
            continue;
        }
        uint64_t step = due - now < 1000000ull ? due - now : 1000000ull;
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* --timeline: the main thread reads every worker's published op count each
 * interval (--duration: until d ms, then raises stop; --ops: until every
 * worker has finished). The last row holds the exact remainder, so the rows'
 * ops sum to total_ops. */
static void timeline_sample(struct shared *s, struct worker *w, unsigned n, struct run_result *r)
{
    const struct bench_config *cfg = s->p->cfg;
    size_t cap = 64;
    r->timeline = malloc(cap * sizeof *r->timeline);
    r->ntimeline = 0;
    uint64_t t0 = now_ns(), prev = 0;
    uint64_t end = cfg->duration_ms ? t0 + cfg->duration_ms * 1000000ull : UINT64_MAX;
    for (uint64_t k = 1;; k++) {
        uint64_t next = t0 + k * cfg->timeline_ms * 1000000ull, now = now_ns();
        uint64_t until = next < end ? next : end;
        bool last = false;
        /* sleep until the interval's end, waking every ms in --ops mode to see the end */
        while (now < until && !runner_interrupted) {
            uint64_t step = until - now;
            if (!cfg->duration_ms && step > 1000000ull)
                step = 1000000ull;
            struct timespec ts = { .tv_sec = (time_t)(step / 1000000000ull), .tv_nsec = (long)(step % 1000000000ull) };
            nanosleep(&ts, NULL);
            now = now_ns();
            if (!cfg->duration_ms) {
                unsigned fin = 0;
                for (unsigned i = 0; i < n; i++)
                    fin += (unsigned)__atomic_load_n(&w[i].finished, __ATOMIC_ACQUIRE);
                if (fin == n) {
                    last = true;
                    break;
                }
            }
        }
        if ((cfg->duration_ms && now >= end) || runner_interrupted) {
            __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
            last = true;
        }
        if (last) {                       /* wait for every worker's final count */
            for (unsigned i = 0; i < n; i++)
                while (!__atomic_load_n(&w[i].finished, __ATOMIC_ACQUIRE))
                    sched_yield();
            now = now_ns();
        }
        uint64_t sum = 0;
        for (unsigned i = 0; i < n; i++)
            sum += __atomic_load_n(&w[i].progress, __ATOMIC_RELAXED);
        if (r->timeline && r->ntimeline == cap) {
            struct tl_sample *nt = realloc(r->timeline, (cap *= 2) * sizeof *nt);
            if (!nt) {
                free(r->timeline);
                r->timeline = NULL;
            }
            r->timeline = nt;
        }
        if (r->timeline)
            r->timeline[r->ntimeline++] = (struct tl_sample){ .t_ms = (double)(now - t0) / 1e6, .ops = sum - prev,
                                                              .hot_base = __atomic_load_n(&s->hot_base, __ATOMIC_RELAXED) };
        prev = sum;
        if (last)
            break;
        while (t0 + (k + 1) * cfg->timeline_ms * 1000000ull <= now)   /* overslept: skip, never an empty row */
            k++;
    }
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

/* The final check's extent (docs/cli.md "The final check"): the whole key
 * range when it is at most VERIFY_FULL_MAX keys (about a second of get()s at
 * the slowest tables' rates on 2 threads), else a uniform sample of
 * VERIFY_SAMPLE_KEYS distinct keys. Tables that store nothing are not checked. */
#define VERIFY_FULL_MAX (1ull << 24)
#define VERIFY_SAMPLE_KEYS (1ull << 20)

static void choose_verify(const struct run_params *p, struct shared *s)
{
    enum verify_mode m = p->cfg->verify;
    uint64_t range = p->range;
    if (s->ops->caps & CHT_CAP_NO_DATA)
        m = VERIFY_OFF;
    if (m == VERIFY_AUTO)
        m = range <= VERIFY_FULL_MAX ? VERIFY_FULL : VERIFY_SAMPLE;
    if (m == VERIFY_SAMPLE && (range <= VERIFY_SAMPLE_KEYS || !p->verify_perm))
        m = range <= VERIFY_SAMPLE_KEYS ? VERIFY_FULL : VERIFY_OFF;   /* a "sample" that is the whole range */
    s->verify = m;
    s->verify_n = m == VERIFY_FULL ? range : m == VERIFY_SAMPLE ? VERIFY_SAMPLE_KEYS : 0;
    s->verify_perm = p->verify_perm;
}

/* Full: exactly the keys that must be present are found (a filter,
 * CHT_CAP_APPROXIMATE, may find more, never fewer). Sample of m of the r
 * keys, P present: the count found is hypergeometric with mean m*P/r; it
 * must lie within 6 standard deviations (+1) of it: that catches losing a
 * fraction above about 6*sqrt((1-q)/(m*q)) of the keys, q = P/r (0.6% at
 * q = 1/2, 3.3% at q = 1/32 with m = 2^20), never one key in a million. */
static void verify_judge(const struct shared *s, struct run_result *r, uint64_t found, uint64_t present_seen,
                         uint64_t present_found)
{
    bool approx = s->ops->caps & CHT_CAP_APPROXIMATE;
    uint64_t present = r->expected_size, range = s->p->range;
    if (s->p->cfg->workload == WL_YCSB_D && s->verify == VERIFY_SAMPLE)
        present = r->prefilled;       /* D never removes; its inserts lie above the sampled range */
    r->verify_mode = s->verify;
    r->verified_keys = s->verify_n;
    r->verify_found = found;
    r->verify_ok = true;
    if (s->verify == VERIFY_FULL) {
        r->verify_expected = present;
        r->verify_ok = approx ? found >= present : found == present;
    } else if (s->verify == VERIFY_SAMPLE) {
        double m = (double)s->verify_n, q = range ? (double)present / (double)range : 0;
        double mu = m * q, var = m * q * (1 - q) * (range > 1 ? ((double)range - m) / ((double)range - 1) : 0);
        double tol = 6 * sqrt(var > 0 ? var : 0) + 1, f = (double)found;
        r->verify_expected = (uint64_t)llround(mu);
        r->verify_ok = approx ? f + tol >= mu : fabs(f - mu) <= tol;
    }
    if (s->shadow && s->verify != VERIFY_OFF) {
        /* a filter: every key the harness knows present must be found (no false negative, exactly), the
         * harness' count must be the expected one (full) or plausible (sample); the absent keys found are
         * the false positives */
        uint64_t absent = s->verify_n - present_seen, absent_found = found - present_found;
        r->fp_checked = absent;
        r->fp_rate = absent ? (double)absent_found / (double)absent : 0;
        r->false_negatives = present_seen - present_found;
        if (s->verify == VERIFY_FULL) {
            r->verify_expected = present;
            r->verify_ok = present_found == present_seen && present_seen == present;
        } else {
            double m = (double)s->verify_n, q = range ? (double)present / (double)range : 0;
            double sd = sqrt(m * q * (1 - q) > 0 ? m * q * (1 - q) : 0);
            r->verify_ok = present_found == present_seen && fabs((double)present_seen - m * q) <= 6 * sd + 1;
        }
    }
}

/* Values and the key sum (docs/cli.md "The final check"). Every found key's
 * value must be one the run wrote for it (run_val): its hash, a writer that
 * wrote (0, or t + 1 for a worker t that inserted or updated), and a
 * sequence that writer used. A value of another key, one never written,
 * garbage, or CHT_VAL_TORN (bit 63) fails.
 * A full sweep of an exact table also sums the keys found: that must be the
 * prefill's keys + the inserted - the removed ones (mod 2^64), so a lost key
 * and a key that should be gone cannot cancel in the count. */
static void verify_contents(const struct shared *s, struct run_result *r, const struct worker *w, unsigned n)
{
    uint64_t expect = 0, got = 0;
    for (unsigned i = 0; i < n; i++) {
        expect += w[i].keysum;
        got += w[i].verify_keysum;
        if (w[i].verify_bad && !r->verify_bad_values) {
            r->bad_key = w[i].bad_key;
            r->bad_value = w[i].bad_value;
            const unsigned wr = run_val_writer(r->bad_value);
            r->bad_writer_seqs = wr <= n ? s->wrote[wr] : 0;
        }
        r->verify_bad_values += w[i].verify_bad;
        if (s->wrote[i + 1])
            r->max_version = i + 1;
    }
    r->keysum_checked = s->verify == VERIFY_FULL && !s->shadow;
    r->keysum_expected = expect;
    r->keysum_found = got;
    r->keysum_ok = !r->keysum_checked || got == expect;
}

/* A filter's false positives (docs/cli.md "The cuckoo filter"): with f-bit
 * fingerprints (values 1 .. 2^f - 1) and b slots in each of an absent key's
 * two buckets, at most 2b fingerprints can match it, each with probability
 * 1/(2^f - 1): rate p <= 1 - (1 - 1/(2^f - 1))^(2b), about 2b/2^f. Of the
 * m absent keys looked up, more than m p + 6 sqrt(m p (1 - p)) + 3 answered
 * "present" fails the run: 6 binomial standard deviations, and 3 keys more so
 * that a tiny m p (where the binomial is far from normal) cannot fail a
 * correct filter by chance (P(Poisson(0.1) >= 4) ~ 4e-6, >= 6 ~ 1e-9). */
#define FP_SD 6
#define FP_SLACK 3
static void filter_bound(struct run_result *r)
{
    const struct cht_stats *st = &r->stats;
    if (!st->fp_bits || !st->fp_bucket_slots || !r->fp_checked)
        return;
    double q = 1.0 / (ldexp(1.0, (int)st->fp_bits) - 1);
    double p = 1 - pow(1 - q, 2.0 * st->fp_bucket_slots), m = (double)r->fp_checked;
    double limit = m * p + FP_SD * sqrt(m * p * (1 - p)) + FP_SLACK;
    r->fp_bound = p;
    r->fp_limit = limit / m;
    r->fp_excess = r->fp_rate * m > limit;
}

/* ---------------- memory estimate before a run (docs/cli.md "Memory") ---------------- */

struct probe {
    const struct cht_ops *ops;
    void *table;
    uint64_t n;
    size_t bytes;
    bool full;
};

static void *probe_main(void *arg)
{
    struct probe *pr = arg;
    if (pr->ops->thread_init)
        pr->ops->thread_init(pr->table, 0);
    for (uint64_t k = 1; k <= pr->n; k++)
        if (!pr->ops->insert(pr->table, k * 0x9e3779b97f4a7c15ull % CHT_KEY_MAX + 1, k))
            pr->full = true;
    if (pr->ops->stats) {
        struct cht_stats st = { 0 };
        pr->ops->stats(pr->table, &st);
        pr->bytes = st.bytes;
    }
    if (pr->ops->thread_exit)
        pr->ops->thread_exit(pr->table, 0);
    return NULL;
}

/* "KEY: N kB" of a /proc file, in bytes; 0 when absent */
static uint64_t proc_bytes(const char *path, const char *key)
{
    uint64_t bytes = 0;
    size_t kl = strlen(key);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':')
            bytes = strtoull(line + kl + 1, NULL, 10) * 1024ull;
    fclose(f);
    return bytes;
}

/* Bytes the process may still use: MemAvailable, and the address-space
 * limit (ulimit -v) less what is mapped already. */
static uint64_t memory_headroom(const char **which)
{
    uint64_t avail = proc_bytes("/proc/meminfo", "MemAvailable");
    *which = "MemAvailable";
    if (!avail)
        avail = UINT64_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        uint64_t mapped = proc_bytes("/proc/self/status", "VmSize");
        uint64_t room = rl.rlim_cur > mapped ? rl.rlim_cur - mapped : 0;
        if (room < avail) {
            avail = room;
            *which = "the address-space limit (ulimit -v)";
        }
    }
    return avail;
}

#define PROBE_KEYS (1u << 16)

int runner_check_memory(const struct bench_config *cfg, const struct table_choice *t, char *err, size_t len)
{
    const struct cht_ops *ops = t->ops;
    if (cfg->initial <= PROBE_KEYS || !ops->stats || (ops->caps & CHT_CAP_NO_DATA))
        return 0;
    struct cht_config tc = { .initial = PROBE_KEYS, .density = cfg->density, .range = 2 * PROBE_KEYS,
                             .max_threads = 1, .numa_nodes = 1, .value_size = cfg->value_size,
                             .hugepages = cfg->hugepages };
    registry_apply_choice(t, &tc);
    char cerr[256] = "";
    struct probe pr = { .ops = ops, .n = PROBE_KEYS };
    pr.table = ops->create(&tc, cerr, sizeof cerr);
    if (!pr.table) {
        snprintf(err, len, "--table %s: cannot create a %u-key table to measure its memory: %s", ops->name,
                 PROBE_KEYS, cerr[0] ? cerr : "unknown error");
        return -1;
    }
    pthread_t th;
    int sp = spawn_blocked(&th, probe_main, &pr);
    if (sp == 0)
        pthread_join(th, NULL);
    ops->destroy(pr.table);
    if (sp != 0) {   /* no thread, no estimate: say so rather than run unchecked into the limit */
        const char *which;
        uint64_t room = memory_headroom(&which);
        snprintf(err, len, "--initial %llu: cannot start a thread to measure table %s's memory (%s; %.1f GiB left "
                 "under %s)", (unsigned long long)cfg->initial, ops->name, strerror(sp), (double)room / (1 << 30),
                 which);
        return -1;
    }
    if (!pr.bytes || pr.full)
        return 0;
    double per_key = (double)pr.bytes / PROBE_KEYS, need = per_key * (double)cfg->initial;
    const char *which;
    uint64_t room = memory_headroom(&which);
    if (need <= (double)room)
        return 0;
    snprintf(err, len,
             "--initial %llu: table %s needs about %.1f GiB (%.0f bytes/key, measured with %u keys at --density %g), "
             "more than the %.1f GiB of %s: lower --initial",
             (unsigned long long)cfg->initial, ops->name, need / (1 << 30), per_key, PROBE_KEYS, cfg->density,
             (double)room / (1 << 30), which);
    return -1;
}

/* Undoes run_create's steps before the table exists. */
static void run_create_undo(const struct run_params *p, struct worker *w)
{
    mem_policy_reset(p->cfg);
    for (unsigned i = 0; p->cfg->latency_every && i < p->threads; i++)
        lat_buf_free(&w[i].lat);
}

/* The table with the run's settings, the latency buffers and a filter's
 * bitmap; 0, or -1 with r->error set and nothing of them left. */
static int run_create(const struct run_params *p, struct shared *s, struct worker *w, const unsigned *nodes,
                      struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    /* the run's lock settings reach the table's locks as they reach a lock bench's (lockbench.c) */
    struct lock_config lc = {
        .numa_nodes = p->plan->numa_nodes ? p->plan->numa_nodes : 1,
        .max_threads = p->threads,
        .handoff_bound = cfg->handoff_bound,
        .waiter_threshold = cfg->waiter_threshold,
    };
    struct cht_config tc = {
        .initial = cfg->initial, .density = cfg->density, .range = p->range,
        .max_threads = p->threads, .numa_nodes = lc.numa_nodes,
        .thread_node = nodes, .lock_config = &lc, .value_size = cfg->value_size, .hugepages = cfg->hugepages,
    };
    registry_apply_choice(p->table, &tc);
    if (cfg->latency_every) {
        /* per thread and store; a budget of 2^24 samples per store in all, 4096..2^20 per thread */
        uint64_t cap = (1ull << 24) / p->threads;
        cap = cap < 4096 ? 4096 : cap > LAT_CAP_PER_STORE ? LAT_CAP_PER_STORE : cap;
        for (unsigned i = 0; i < p->threads; i++)
            if (lat_buf_init(&w[i].lat, cap) != 0) {
                for (unsigned j = 0; j < i; j++)
                    lat_buf_free(&w[j].lat);
                snprintf(r->error, sizeof r->error, "--latency: out of memory for the sample buffers");
                return -1;
            }
    }
    memstat_take(&r->mem_before_create);
    mem_policy_set(cfg);
    char err[256] = "";
    s->table = s->ops->create(&tc, err, sizeof err);
    if (!s->table) {
        run_create_undo(p, w);
        snprintf(r->error, sizeof r->error, "--table %s: cannot create the table: %s", s->ops->name,
                 err[0] ? err : "unknown error");
        return -1;
    }
    if (s->ops->caps & CHT_CAP_APPROXIMATE) {
        s->shadow = calloc((p->range + 63) / 64, sizeof *s->shadow);
        if (!s->shadow) {
            s->ops->destroy(s->table);
            run_create_undo(p, w);
            snprintf(r->error, sizeof r->error, "out of memory for the membership bitmap of a filter (%llu keys)",
                     (unsigned long long)p->range);
            return -1;
        }
    }
    return 0;
}

/* Main's side of the barriers (the file's header): starts the workers, ends
 * the warm-up and (--duration, --timeline) the timed phase, moves a shifting
 * hot set, times the final check, joins. */
static void run_phases(const struct run_params *p, struct shared *s, struct worker *w, pthread_t *th,
                       struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    runner_watch_stop(&s->warm_stop, &s->stop);
    pthread_barrier_init(&s->bar, NULL, p->threads + 1);
    unsigned started = 0;
    for (; started < p->threads; started++) {
        w[started].tid = started;
        w[started].s = s;
        if (spawn_blocked(&th[started], worker_main, &w[started]) != 0)
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
    if (cfg->warmup_ms) {
        sleep_ms(cfg->warmup_ms);
        __atomic_store_n(&s->warm_stop, 1, __ATOMIC_RELAXED);
        barrier(s);               /* BW */
    }
    if (s->hist_on)
        barrier(s);               /* BH: thread 0 has read the watched keys (the duration starts after it) */
    pthread_t shifter;
    bool shifting = p->keys->dist == KEYGEN_HOTSPOT && p->keys->spec.shift_ms &&
                    spawn_blocked(&shifter, shifter_main, s) == 0;
    if (cfg->timeline_ms) {
        timeline_sample(s, w, p->threads, r);
    } else if (cfg->duration_ms) {
        if (s->chase)
            slice_phase(s, cfg->duration_ms, cfg->ceiling_slice_ms);
        else
            sleep_ms(cfg->duration_ms);
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    }
    barrier(s);                   /* B4 */
    clock_gettime(CLOCK_REALTIME, &r->end_time);
    if (shifting) {
        __atomic_store_n(&s->shifter_stop, 1, __ATOMIC_RELEASE);
        pthread_join(shifter, NULL);
    }
    barrier(s);                   /* B5 */
    uint64_t v0 = now_ns();
    barrier(s);                   /* B6 */
    r->verify_s = (double)(now_ns() - v0) / 1e9;
    runner_watch_stop(NULL, NULL);
    for (unsigned i = 0; i < p->threads; i++)
        pthread_join(th[i], NULL);
    mem_policy_reset(cfg);
    pthread_barrier_destroy(&s->bar);
}

/* --ceiling-slices: the ceiling is the better k's summed per-thread chase
 * rate (as --bench memory sums its threads), and the timed phase is the
 * table's slices: each thread's chase time leaves elapsed_s (their mean)
 * and cpu_ns (their sum). */
static void slices_collect(const struct worker *w, unsigned n, struct run_result *r)
{
    double rate[2] = { 0, 0 };
    uint64_t chase_ns = 0;
    for (unsigned t = 0; t < n; t++)
        for (unsigned i = 0; i < 2; i++) {
            chase_ns += w[t].chase_ns[i];
            rate[i] += w[t].chase_ns[i] ? (double)w[t].chase_loads[i] * 1e3 / (double)w[t].chase_ns[i] : 0;
        }
    r->ceiling_slices_k = rate[1] > rate[0] ? 16 : 32;
    r->ceiling_mops = rate[1] > rate[0] ? rate[1] : rate[0];
    r->ceiling_slices_s = (double)chase_ns / n / 1e9;
    r->elapsed_s = r->elapsed_s > r->ceiling_slices_s ? r->elapsed_s - r->ceiling_slices_s : 0;
    r->cpu_ns = r->cpu_ns > chase_ns ? r->cpu_ns - chase_ns : 0;
}

/* The workers' counts and times summed into r, the size accounting and the
 * final check judged. Returns whether a prefill insert was refused; sets
 * *pin_error (the first thread's) and *opbuf_failed. */
static bool run_collect(const struct run_params *p, const struct shared *s, const struct worker *w,
                        struct run_result *r, const char **pin_error, bool *opbuf_failed)
{
    uint64_t t0 = UINT64_MAX, t1 = 0, found = 0, present_seen = 0, present_found = 0, warm[N_OUTCOMES] = { 0 };
    bool full = false;
    *pin_error = NULL;
    *opbuf_failed = false;
    for (unsigned i = 0; i < p->threads; i++) {
        if (w[i].pin_error[0] && !*pin_error)
            *pin_error = w[i].pin_error;
        for (int o = 0; o < N_OUTCOMES; o++) {
            r->count[o] += w[i].count[o];
            warm[o] += w[i].warm_count[o];
        }
        t0 = w[i].t_start < t0 ? w[i].t_start : t0;
        t1 = w[i].t_end > t1 ? w[i].t_end : t1;
        r->cpu_ns += w[i].cpu_ns;
        full |= w[i].prefill_full;
        r->prefilled += w[i].prefilled;
        found += w[i].verify_found;
        present_seen += w[i].verify_present;
        present_found += w[i].verify_present_found;
        r->filter_skipped[0] += w[i].skipped[0];
        r->filter_skipped[1] += w[i].skipped[1];
        r->opbuf_ns += w[i].opbuf_ns;
        r->opbuf_wrapped |= w[i].opbuf_wrapped;
        *opbuf_failed |= w[i].opbuf_failed;
        if (w[i].opbuf_failed && !r->error[0])
            snprintf(r->error, sizeof r->error, "--keybuf: out of memory for %llu entries per thread",
                     (unsigned long long)p->opbuf_len);
    }
    r->opbuf_len = p->opbuf_len;
    memcpy(r->warmup_count, warm, sizeof warm);
    for (int o = 0; o < N_OUTCOMES; o++)
        r->total_ops += r->count[o];
    r->elapsed_s = (double)(t1 - t0) / 1e9;
    if (s->sliced)
        slices_collect(w, p->threads, r);
    r->mops = r->elapsed_s > 0 ? (double)r->total_ops / r->elapsed_s / 1e6 : 0;
    r->prefill_size = s->prefill_size;
    r->final_size = s->final_size;
    r->prefill_ok = s->prefill_size == r->prefilled;
    r->expected_size = r->prefilled + r->count[INS_SUC] + warm[INS_SUC] - r->count[REM_SUC] - warm[REM_SUC];
    r->size_ok = r->prefill_ok && r->final_size == r->expected_size;
    r->interrupted = runner_interrupted != 0;
    for (unsigned i = 0; i < p->threads; i++) {   /* the answers of the timed loop (--pipeline) */
        if (w[i].pipe_bad && !r->pipe_bad)
            r->pipe_first_bad = w[i].pipe_first_bad;
        r->pipe_bad += w[i].pipe_bad;
    }
    verify_judge(s, r, found, present_seen, present_found);
    verify_contents(s, r, w, p->threads);
    return full;
}

/* --verify history: the watched keys, and each thread's buffer (its share
 * of HIST_BYTES), allocated and touched before the threads start. */
static int hist_prepare(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r)
{
    const uint64_t keys = p->cfg->history_keys;
    if (!keys)
        return 0;
    s->hist_on = true;
    hist_watch_init(&s->hist_watch, p->range, keys);
    const uint64_t cap = HIST_BYTES / sizeof(struct hist_rec) / p->threads;
    for (unsigned i = 0; i < p->threads; i++)
        if (hist_buf_init(&w[i].hist, cap ? cap : 1) != 0) {
            snprintf(r->error, sizeof r->error, "--verify history: out of memory for the records");
            return -1;
        }
    return 0;
}

/* --verify history, after the run: every watched key's history checked. */
static int hist_collect(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r)
{
    if (s->hist_init_failed) {
        snprintf(r->error, sizeof r->error, "--verify history: out of memory for the watched keys' states");
        return -1;
    }
    struct hist_buf *bufs = malloc(p->threads * sizeof *bufs);
    if (!bufs) {
        snprintf(r->error, sizeof r->error, "--verify history: out of memory");
        return -1;
    }
    uint64_t t_start = UINT64_MAX, t_end = 0;
    for (unsigned i = 0; i < p->threads; i++) {
        bufs[i] = w[i].hist;
        t_start = w[i].t_start < t_start ? w[i].t_start : t_start;
        t_end = w[i].t_end > t_end ? w[i].t_end : t_end;
    }
    r->hist_on = true;
    r->hist_watch_every = s->hist_watch.d;
    r->hist_watched = s->hist_ninit;
    const int rc = hist_check(bufs, p->threads, s->hist_init, s->hist_ninit, t_start, t_end, &r->hist);
    free(bufs);
    if (rc != 0)
        snprintf(r->error, sizeof r->error, "--verify history: out of memory for the checker");
    return rc;
}

/* What the repetition amounts to; of several failed checks, the last in enum run_outcome's order. */
static enum run_outcome run_outcome_of(const struct run_result *r, bool prefill_full)
{
    if (r->pipe_bad)
        return OUTCOME_BAD_ANSWER;
    if (r->hist_on && r->hist.violations)
        return OUTCOME_NOT_LINEARIZABLE;
    if (!r->size_ok || !r->verify_ok)
        return OUTCOME_MISMATCH;
    if (r->verify_bad_values)
        return OUTCOME_VALUE_MISMATCH;
    if (!r->keysum_ok)
        return OUTCOME_KEYSUM_MISMATCH;
    if (r->fp_excess)
        return OUTCOME_FP_EXCESS;
    if (r->stats.alloc_failures)
        return OUTCOME_OOM;
    if (prefill_full || r->stats.full_failures)
        return OUTCOME_FULL;
    return OUTCOME_OK;
}

/* --counters per op and --latency's merged histograms; frees the latency buffers. */
static void run_collect_measures(const struct run_params *p, struct worker *w, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    if (counting(p)) {
        r->counters_ok = true;
        for (unsigned i = 0; i < p->threads; i++)
            r->counters_ok &= w[i].cnt.ok;
        for (unsigned e = 0; e < p->counters->n && r->counters_ok; e++) {
            double sum = 0;
            for (unsigned i = 0; i < p->threads; i++)
                sum += (double)w[i].cnt.v[e];
            r->counter_per_op[e] = r->total_ops ? sum / (double)r->total_ops : 0;
        }
    }
    if (cfg->latency_every) {
        struct lat_buf *bufs = malloc(p->threads * sizeof *bufs);
        r->lat.on = bufs != NULL;
        r->lat.every = cfg->latency_every;
        r->lat.tsc_hz = p->lat_clock->tsc_hz;
        r->lat.overhead_cycles = p->lat_clock->overhead_cycles;
        for (unsigned i = 0; bufs && i < p->threads; i++)
            bufs[i] = w[i].lat;
        if (bufs && lat_merge(bufs, p->threads, &r->lat) != 0)
            r->lat.on = false;
        free(bufs);
        for (unsigned i = 0; i < p->threads; i++)
            lat_buf_free(&w[i].lat);
    }
}

int runner_run(const struct run_params *p, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    int rc = -1;
    memset(r, 0, sizeof *r);
    struct shared *s = aligned_alloc(CHT_CACHE_LINE, sizeof *s);
    struct worker *w = aligned_alloc(CHT_CACHE_LINE, sizeof *w * p->threads);
    pthread_t *th = calloc(p->threads, sizeof *th);
    unsigned *nodes = calloc(p->threads, sizeof *nodes);
    uint64_t *wrote = calloc(p->threads + 1, sizeof *wrote);
    bool cleared = false;                /* s and w zeroed: what out: frees is known */
    if (!s || !w || !th || !nodes || !wrote) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto out;
    }
    memset(s, 0, sizeof *s);
    memset(w, 0, sizeof *w * p->threads);
    cleared = true;
    s->p = p;
    s->workers = w;
    s->wrote = wrote;
    fault_reset();
    s->ops = fault_wrap(p->table->ops);
    batch_fallback_ops = s->ops;
    for (unsigned i = 0; i < p->threads; i++)
        nodes[i] = pin_plan_node(p->plan, i);
    if (run_create(p, s, w, nodes, r) != 0)
        goto out;
    choose_verify(p, s);
    if (hist_prepare(p, s, w, r) != 0)
        goto out;
    ycsb_latest_init(&s->ycsb, p->range);
    s->mix = op_mix_basic(cfg->insert, cfg->remove);
    if (cfg->workload)
        op_mix_ycsb(workload_name(cfg->workload), &s->mix);

    run_phases(p, s, w, th, r);
    ceiling_chase_free(s->chase);     /* the workers are joined; before the memory snapshot after the run */
    s->chase = NULL;

    const char *pin_error;
    bool opbuf_failed;
    bool full = run_collect(p, s, w, r, &pin_error, &opbuf_failed);
    if (full)
        snprintf(r->error, sizeof r->error, "prefill: the table refused a fresh key after %llu of %llu (each "
                 "prefill thread stops at its first refusal)",
                 (unsigned long long)r->prefilled, (unsigned long long)cfg->initial);
    if (s->ops->stats) {
        s->ops->stats(s->table, &r->stats);
        r->has_stats = true;
        r->table_bytes_after_prefill = s->table_bytes_after_prefill;
    }
    r->pipeline_w = s->pipe_w;
    r->pipeline_mode = s->pipe_mode;
    r->mem_after_prefill = s->mem_after_prefill;
    memstat_take(&r->mem_after_run);
    if (s->shadow && s->verify != VERIFY_OFF)
        filter_bound(r);
    if (s->hist_on && hist_collect(p, s, w, r) != 0)
        goto out;
    r->outcome = run_outcome_of(r, full);
    run_collect_measures(p, w, r);
    s->ops->destroy(s->table);
    free(s->shadow);
    rc = 0;
    if (pin_error) {
        snprintf(r->error, sizeof r->error, "%s", pin_error);
        rc = -1;
    } else if (opbuf_failed) {
        rc = -1;                      /* r->error says why */
    } else if (s->chase_error[0]) {
        snprintf(r->error, sizeof r->error, "%s", s->chase_error);
        rc = -1;
    }
out:
    for (unsigned i = 0; cleared && i < p->threads; i++)
        hist_buf_free(&w[i].hist);
    if (cleared)
        free(s->hist_init);
    free(th);
    free(w);
    free(s);
    free(nodes);
    free(wrote);
    return rc;
}
