/*
 * run/worker.h - the table run's state and the pieces its loops share.
 *
 * The table run (one repetition of --bench table) lives in src/run/, one
 * concern a file: run.c the orchestration (threads, barriers, collection),
 * prefill.c and opstream.c what the timed phase starts from, loop.c the
 * plain timed loop (loop_bytes.c: compiled again for byte keys), pipe.c the
 * pipelined one, bytekeys.c byte keys as integer ops, final_check.c the
 * check after it, watched.c --verify history's side of it, slices.c and samplers.c what
 * main does while the workers run (--ceiling-slices, hotspot shifts,
 * --timeline), memprobe.c the memory estimate before a run, signals.c the
 * stop flags. struct shared is the run's, struct worker a thread's (on cache
 * lines of its own); the helpers below are static inline so that every loop
 * instantiation keeps them inlined.
 */
#ifndef CHT_RUN_WORKER_H
#define CHT_RUN_WORKER_H

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "runner.h"
#include "team.h"
#include "opsource.h"
#include "membench.h"          /* --ceiling-slices: the chase */
#include "history.h"           /* --verify history */
#include "util.h"              /* now_ns */

struct shared {
    const struct run_params *p;
    const struct cht_ops *ops;
    void *table;
    struct team team;                        /* the workers, main in their barrier */
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
    uint64_t resizes_at_create, resizes_after_prefill;   /* stats().resizes: thread 0 before B1, after B2 */
    struct alloc_count alloc_before_create, alloc_after_create;   /* main, around create() */
    struct alloc_count alloc_before_prefill, alloc_after_prefill; /* main between B1 and B1b; thread 0 after B2 */
    bool alloc_rss_only;                     /* ... a plugin's table: VmRSS (memstat_alloc_take) */
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
    const struct cht_ops *bytes_ops;         /* byte keys without fault hooks: the table's ops (loop_bytes.c) */
    const struct key_arena *arena;           /* ... the run's key arena */
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
    uint64_t build_start, build_end;   /* its prefill's (run_prefill) start and end, ns */
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

/* The long phases outside the timed loop (prefill, key buffers, the final
 * check) look at the signal every 4096 keys: an interrupted run is no result. */
static inline bool stop_requested(void) { return __atomic_load_n(&runner_interrupted, __ATOMIC_RELAXED) != 0; }

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

/* This thread's CPU time: on a machine shared with other work the timed
 * loop is descheduled part of its wall time; cpu_share (report.c) says how much. */
static inline uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------- running one op ---------------- */

/* the loop's measurement modes (constants in each instantiation) */
enum { LOOP_PLAIN = 0, LOOP_LAT = 1, LOOP_TL = 2, LOOP_BATCH = 4, LOOP_APPROX = 8, LOOP_HIST = 16 };

/* The loop's constants: the table and what the final check needs written. The byte-key loop
 * (loop_bytes.c) keeps the byte-key table's ops in get .. update and the key arena in shadow, each
 * cast to the member's type and back (op_runner_bytes, loop.c's OP_GET ..), so that the struct, and
 * with it the integer loops' code, stays what it was. */
struct op_runner {
    void *t;
    bool (*get)(void *, cht_key_t, cht_val_t *);
    bool (*insert)(void *, cht_key_t, cht_val_t);
    bool (*remove)(void *, cht_key_t);
    bool (*update)(void *, cht_key_t, cht_val_t);
    uint64_t vbits;            /* values carry this thread's writer number (run_val) */
    uint64_t seq0;             /* ... and a write sequence from here on (the warm-up's writes came first) */
    uint64_t *shadow;          /* LOOP_APPROX: the keys present (the byte-key loop: the key arena) */
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

/* the byte-key loop: the runner with the byte-key table's ops and the arena instead (see struct op_runner) */
typedef bool (*op_get_bytes_fn)(void *, const void *, size_t, cht_val_t *);
typedef bool (*op_insert_bytes_fn)(void *, const void *, size_t, cht_val_t);
typedef bool (*op_remove_bytes_fn)(void *, const void *, size_t);
static inline __attribute__((always_inline)) void op_runner_bytes(struct op_runner *r, const struct shared *s)
{
    r->get = (bool (*)(void *, cht_key_t, cht_val_t *))(void (*)(void))s->bytes_ops->get_bytes;
    r->insert = (bool (*)(void *, cht_key_t, cht_val_t))(void (*)(void))s->bytes_ops->insert_bytes;
    r->remove = (bool (*)(void *, cht_key_t))(void (*)(void))s->bytes_ops->remove_bytes;
    r->update = (bool (*)(void *, cht_key_t, cht_val_t))(void (*)(void))s->bytes_ops->update_bytes;
    r->shadow = (uint64_t *)(uintptr_t)s->arena;
}
static inline __attribute__((always_inline)) const struct key_arena *op_arena(const struct op_runner *r)
{
    return (const struct key_arena *)(uintptr_t)r->shadow;
}


/* The next write's sequence: seq0 + the loop's inserts and updates so far
 * (each counts one, written or not), so that no counter of its own stays
 * live in the loop (one costs the buffered loop 1.25 instructions an op in
 * reloads: callgrind, noop -u 10). */
static inline __attribute__((always_inline)) uint64_t tally_seq(const struct op_runner *r, const struct tally *n)
{
    return r->seq0 + n->is + n->inf + n->us + n->uf;
}

/* the ops this loop may do: a trace share, --ops, or until the stop flag */
static inline uint64_t loop_ops(const struct worker *w, bool warm)
{
    const struct bench_config *cfg = w->s->p->cfg;
    return warm ? UINT64_MAX : w->s->p->trace ? w->ops_limit : cfg->ops ? cfg->ops : UINT64_MAX;
}

static inline void clock_start(struct worker *w)
{
    w->cpu_ns = thread_cpu_ns();    /* two calls per run, off the loop */
    w->t_start = now_ns();
}

static inline void clock_stop(struct worker *w)
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
        default: abort();           /* run_source_kind yields no other kind */                  \
        }                                                                                   \
    } while (0)

/* ---------------- between the run's files ---------------- */

/* prefill.c */
void run_prefill(struct worker *w);
void run_build_collect(const struct shared *s, const struct worker *w, unsigned n, struct run_build *b);
/* opstream.c */
unsigned run_source_kind(const struct worker *w, bool warm);
void run_source_init(struct worker *w, uint64_t seed);
void run_opbuf_prepare(struct worker *w);
/* loop.c */
void run_loop_prepare(const struct cht_ops *ops);
void run_bytes_timed_loop(struct worker *w);
void run_warmup_loop(struct worker *w);
void run_timed_loop(struct worker *w);
/* pipe.c */
void run_pipe_choose(struct shared *s);
void run_pipe_loop(struct worker *w, unsigned kind, int mode);
/* slices.c */
bool run_slice_chase(struct worker *w, const int *stop);
void run_slices_build(struct shared *s);
void run_slice_phase(struct shared *s, uint64_t duration_ms, unsigned ms);
void run_slices_collect(const struct worker *w, unsigned n, struct run_result *r);
/* samplers.c */
void *run_shifter_main(void *arg);
void run_timeline_sample(struct shared *s, struct worker *w, unsigned n, struct run_result *r);
/* final_check.c */
void run_choose_verify(const struct run_params *p, struct shared *s);
void run_verify_slice(struct worker *w);
void run_verify_judge(const struct shared *s, struct run_result *r, uint64_t found, uint64_t present_seen,
                      uint64_t present_found);
void run_verify_contents(const struct shared *s, struct run_result *r, const struct worker *w, unsigned n);
void run_filter_bound(struct run_result *r);
/* run/table_counters.c: the table's stats() into st, its counters (cht_stats_counter) into tc */
void run_stats_take(const struct cht_ops *ops, void *table, struct cht_stats *st, struct run_table_counters *tc);
enum run_outcome run_outcome_of(const struct run_result *r, bool prefill_full);
/* watched.c */
int run_hist_prepare(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r);
void run_hist_read_initial(struct shared *s);
int run_hist_collect(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r);

#endif
