/* run/pipe.c - the pipelined timed loop (--pipeline W): its algorithm is
 * described once, below, where its code is. */
#include <assert.h>
#include <string.h>
#include "worker.h"
#include "table_support.h"     /* cht_private_cache_bytes */

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
 * pauses the loop there for the slice: run_slice_chase). Excludes --latency and --batch
 * (src/cli/); a filter runs single ops (run_pipe_choose). */
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
                          (flag > 1 && run_slice_chase(w, &s->stop)))) {
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

/* --pipeline's loops, one per source kind (mode LOOP_TL, LOOP_HIST or plain),
 * in a file of their own: inlined into run_timed_loop they cost its plain loop an
 * instruction per op (cachegrind) */
void run_pipe_loop(struct worker *w, unsigned kind, int mode)
{
#define PIPE(k_) pipe_loop_for(w, k_, LOOP_PLAIN, true)
#define PIPE_TL(k_) pipe_loop_for(w, k_, LOOP_TL, true)
#define PIPE_GETS(k_) pipe_loop_for(w, k_, LOOP_PLAIN, false)
#define PIPE_GETS_TL(k_) pipe_loop_for(w, k_, LOOP_TL, false)
#define PIPE_HIST(k_) pipe_loop_for(w, k_, LOOP_HIST, true)
    const bool ordered = w->s->pipe_ordered;
    if (mode & LOOP_HIST) {  /* run_pipe_choose orders a history's run */
        FOR_SOURCE(kind, false, PIPE_HIST);
    } else if (mode & LOOP_TL) {
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
void run_pipe_choose(struct shared *s)
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
