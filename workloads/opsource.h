/*
 * opsource.h - where the timed loop's operations come from: an op source
 * yields (operation, key) pairs, and the loop (src/runner.c) only dispatches
 * them to the table and counts outcomes (docs/cli.md "Workloads", "What is
 * timed").
 *
 * Sources (enum opsrc_kind), each a compile-time constant of the loop that
 * uses it, so opsrc_next inlines into a loop of its own per source:
 *   OPSRC_UNIFORM   drawn in the loop: one PRNG step gives a uniform key (the
 *                   integer part of x * range / 2^64) and the die that picks
 *                   the op (the integer part of its fraction * 100). For a
 *                   power-of-two range the two are exactly independent and
 *                   uniform; otherwise the bias is below range / 2^64.
 *   OPSRC_KEYGEN    drawn in the loop: a die, then keygen_next (Zipf; uniform
 *                   under a YCSB workload, two PRNG steps, as it always was).
 *   OPSRC_HOTSPOT   drawn in the loop: a die, then a key around the hot set's
 *                   current start (another thread moves it with shift=MS).
 *   OPSRC_BUFFER    read in order from a buffer drawn before the start barrier
 *                   by opsrc_fill with one of the kinds above (the same PRNG
 *                   stream and draw order: the same ops), cycling when the
 *                   run outlasts it; or a thread's share of a --trace.
 * Flags:
 *   OPSRC_LATEST    YCSB D: an insert claims the next new key (above the
 *                   range), any other op's key is a recency rank r that
 *                   becomes the r-th newest *acknowledged* key (struct ycsb_latest).
 *   OPSRC_MAP       --keys sparse on drawn keys (when filling a buffer, and in
 *                   the untimed warm-up: the timed loop reads mapped keys).
 *   OPSRC_SHIFT     OPSRC_BUFFER of dense uniform keys with writes: each time
 *                   the loop goes round its buffer, it draws a new shift, and
 *                   the key of every write (not get) of that round moves on
 *                   by it, modulo the range (opsrc_write_key: a bijection of
 *                   [1, r], so the writes stay uniform; a drawn shift, not a
 *                   fixed step, so that no two rounds pair the same keys at a
 *                   fixed lag). A round that re-read the same keys would
 *                   insert the keys its last round inserted and remove those
 *                   it removed: where the range holds more keys than a round
 *                   writes (i = 16M, a 2^24-op buffer), nearly every write
 *                   after the first round fails, and the cheap failing writes
 *                   inflate the throughput. Gets re-read their keys as they
 *                   were (a get changes nothing, and the writes keep the
 *                   table's state random), which keeps the shift's work off
 *                   the gets and out of the loop's registers.
 *
 * A buffer entry packs (op << OPBUF_OP_SHIFT) | (key - 1): 3 bits of op over
 * 61 bits of key, the trace format's entry (trace.h) with OP_RMW added.
 *
 * Thread model: struct opsrc is one thread's (copy it into a local in the
 * loop: its fields then live in registers); struct ycsb_latest is shared by
 * all threads of a run.
 */
#ifndef CHT_OPSOURCE_H
#define CHT_OPSOURCE_H

#include <sched.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include "keygen.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the loop does with a key. OP_RMW (YCSB F) is a get, then an update of
 * the key, counted once, as an update. Codes 0..3 are the trace format's. */
enum op_kind { OP_GET = 0, OP_INSERT = 1, OP_REMOVE = 2, OP_UPDATE = 3, OP_RMW = 4 };
_Static_assert((int)OP_GET == TRACE_GET && (int)OP_INSERT == TRACE_INS && (int)OP_REMOVE == TRACE_REM &&
                   (int)OP_UPDATE == TRACE_UPD,
               "a trace share is read as an op buffer");

struct op { enum op_kind kind; cht_key_t key; };

#define OPBUF_OP_SHIFT TRACE_OP_SHIFT
#define OPBUF_KEY_MASK ((1ull << OPBUF_OP_SHIFT) - 1)
static inline uint64_t opbuf_entry(enum op_kind kind, cht_key_t key)
{
    return (uint64_t)kind << OPBUF_OP_SHIFT | (key - 1);
}

/* ---------------- the op mix ---------------- */

/* A die c in [0, 100) picks `first` when c < below1, else `second` when
 * c < below2, else `rest`. -u: inserts, then removes, then gets (the 2017
 * thesis' order); YCSB: reads, then the workload's other op. */
struct op_mix {
    unsigned below1, below2;
    enum op_kind first, second, rest;
};

static inline enum op_kind op_mix_pick(const struct op_mix *m, uint64_t c)
{
    return c < m->below1 ? m->first : c < m->below2 ? m->second : m->rest;
}

/* Every op the mix can pick is a get (-u 0, YCSB C). */
bool op_mix_reads_only(const struct op_mix *m);

/* -u: insert percent, remove percent, the rest gets (insert + remove <= 100). */
struct op_mix op_mix_basic(unsigned insert, unsigned remove);

/* YCSB core workloads (Cooper et al., SoCC'10; HotRing's figure 10) by name,
 * "ycsb-a" | "ycsb-b" | "ycsb-c" | "ycsb-d" | "ycsb-f": A 50% reads 50%
 * updates, B 95/5 updates, C reads only, D 95/5 inserts of new keys, F 50/50
 * read-modify-writes. Returns -1 for another name. */
int op_mix_ycsb(const char *name, struct op_mix *out);

/* ---------------- YCSB D: the latest keys ---------------- */

/* Reads go to the latest *acknowledged* insert (YCSB's acknowledged counter):
 * inserts claim keys in order but complete out of order, so a completed key
 * k marks done[k mod window], and whoever sees the key just above the mark
 * done moves the mark up (a CAS) and clears that flag. Reads never see a key
 * whose insert has not completed. The window bounds the keys in flight: a
 * claim half a window ahead of the mark waits for it (behind a stalled
 * thread, under oversubscription). */
#define YCSB_ACK_WINDOW 65536u   /* a power of two */

struct ycsb_latest {
    alignas(CHT_CACHE_LINE) uint64_t next;    /* the newest key claimed (keys above the range are new) */
    alignas(CHT_CACHE_LINE) uint64_t acked;   /* every key up to here has been inserted */
    alignas(CHT_CACHE_LINE) uint8_t done[YCSB_ACK_WINDOW];   /* key k's insert completed (k mod window) */
};

/* Keys 1..range are loaded: the first new key is range + 1. */
void ycsb_latest_init(struct ycsb_latest *y, uint64_t range);

static inline uint64_t ycsb_claim(struct ycsb_latest *y)
{
    while (__atomic_load_n(&y->next, __ATOMIC_RELAXED) - __atomic_load_n(&y->acked, __ATOMIC_ACQUIRE) >=
           YCSB_ACK_WINDOW / 2)         /* half: room for every thread that passes this test at once */
        sched_yield();
    return __atomic_add_fetch(&y->next, 1, __ATOMIC_RELAXED);
}

/* The insert of claimed key k has completed (succeeded or not). */
static inline void ycsb_ack(struct ycsb_latest *y, uint64_t k)
{
    __atomic_store_n(&y->done[k & (YCSB_ACK_WINDOW - 1)], 1, __ATOMIC_RELEASE);
    for (;;) {
        uint64_t a = __atomic_load_n(&y->acked, __ATOMIC_ACQUIRE);
        uint8_t *f = &y->done[(a + 1) & (YCSB_ACK_WINDOW - 1)];
        if (!__atomic_load_n(f, __ATOMIC_ACQUIRE))
            return;
        if (__atomic_compare_exchange_n(&y->acked, &a, a + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            __atomic_store_n(f, 0, __ATOMIC_RELAXED);
    }
}

/* Recency rank r (1 = the newest) -> the r-th newest acknowledged key (1 when
 * r reaches below the first key). */
static inline cht_key_t ycsb_latest_key(struct ycsb_latest *y, uint64_t rank)
{
    uint64_t top = __atomic_load_n(&y->acked, __ATOMIC_ACQUIRE);
    return top >= rank ? top - rank + 1 : 1;
}

/* ---------------- the source ---------------- */

enum opsrc_kind {
    OPSRC_UNIFORM = 0, OPSRC_KEYGEN = 1, OPSRC_HOTSPOT = 2, OPSRC_BUFFER = 3,
    OPSRC_BASE = 3,                /* mask: the kind without its flags */
    OPSRC_LATEST = 4,
    OPSRC_MAP = 8,
    OPSRC_SHIFT = 16,
};

/* OPSRC_SHIFT: the shift of the writes of round `round` (pos & ~mask) */
struct opsrc_rounds {
    uint64_t round, shift;
    uint64_t range, seed;          /* the keys' range r; the shifts' seed */
};

/* opsrc_next changes rng and pos only (the rest is set up once or reached
 * through a pointer): the pipelined draw (runner.c pipe_draw) works on a
 * copy and writes those two back, so a field it changes must be added there. */
struct opsrc {
    struct cht_rng rng;            /* drawn kinds: this thread's stream */
    const struct keygen *keys;     /* drawn kinds: keys in [1, keys->range] */
    struct op_mix mix;             /* drawn kinds */
    const uint64_t *hot_base;      /* OPSRC_HOTSPOT: where the hot set starts now */
    const uint64_t *buf;           /* OPSRC_BUFFER */
    uint64_t mask;                 /* ... index mask: length - 1 (a power of two; it cycles), or all ones */
    uint64_t pos;                  /* ... entries read */
    struct opsrc_rounds *rounds;   /* OPSRC_SHIFT: the writes' shifts (in memory: the loop keeps them out of its registers) */
    struct ycsb_latest *latest;    /* OPSRC_LATEST */
};

/* A source that draws (seeded with stream `stream` of `seed`) or reads buf
 * (when buf is not NULL: len entries, a power of two that is cycled, or
 * UINT64_MAX for a trace share read once). rounds: OPSRC_SHIFT's state,
 * which opsrc_init sets up (NULL without OPSRC_SHIFT). */
void opsrc_init(struct opsrc *s, const struct keygen *keys, const struct op_mix *mix, uint64_t seed,
                uint64_t stream, const uint64_t *buf, uint64_t len, const uint64_t *hot_base,
                struct ycsb_latest *latest, struct opsrc_rounds *rounds);

/* OPSRC_SHIFT: round `round` (the one that starts at entry `round`, not
 * the first) begins: its shift drawn from (R->seed, round). Out of line:
 * once a round. */
void opsrc_round_begin(struct opsrc_rounds *R, uint64_t round);

/* The next operation. `kind` must be a constant: the switch folds away. */
static inline __attribute__((always_inline)) struct op opsrc_next(struct opsrc *s, const unsigned kind)
{
    struct op op;
    uint64_t c;
    switch (kind & OPSRC_BASE) {
    case OPSRC_UNIFORM: {
        unsigned __int128 m = (unsigned __int128)cht_rng_next(&s->rng) * s->keys->range;
        c = cht_rng_below((uint64_t)m, 100);
        op.key = 1 + (uint64_t)(m >> 64);
        op.kind = op_mix_pick(&s->mix, c);
        break;
    }
    case OPSRC_KEYGEN:
        c = cht_rng_below(cht_rng_next(&s->rng), 100);
        op.key = keygen_next(s->keys, &s->rng);
        op.kind = op_mix_pick(&s->mix, c);
        break;
    case OPSRC_HOTSPOT: {
        bool hot;
        c = cht_rng_below(cht_rng_next(&s->rng), 100);
        op.key = keygen_next_hotspot(s->keys, &s->rng, __atomic_load_n(s->hot_base, __ATOMIC_RELAXED), &hot);
        op.kind = op_mix_pick(&s->mix, c);
        break;
    }
    default: {
        uint64_t e = s->buf[s->pos++ & s->mask];
        op.key = 1 + (e & OPBUF_KEY_MASK);
        op.kind = (enum op_kind)(e >> OPBUF_OP_SHIFT);
        break;
    }
    }
    if ((kind & OPSRC_MAP) && (kind & OPSRC_BASE) != OPSRC_BUFFER)
        op.key = keygen_sparse(op.key);
    if (kind & OPSRC_LATEST)
        op.key = op.kind == OP_INSERT ? ycsb_claim(s->latest) : ycsb_latest_key(s->latest, op.key);
    return op;
}

/* The key a write (insert, remove, update) of the op just read runs on:
 * under OPSRC_SHIFT and past the buffer's first round its key moved by its
 * round's shift, modulo the range; else its own key. Call it after
 * opsrc_next, before the next call. */
static inline __attribute__((always_inline)) cht_key_t opsrc_write_key(struct opsrc *s, const unsigned kind,
                                                                      cht_key_t key)
{
    if (!(kind & OPSRC_SHIFT))
        return key;
    struct opsrc_rounds *R = s->rounds;     /* round 0's shift is 0: its keys as drawn */
    const uint64_t round = (s->pos - 1) & ~s->mask;
    if (__builtin_expect(round != R->round, 0))
        opsrc_round_begin(R, round);
    const uint64_t k = key + R->shift;      /* in [1, 2r) */
    return k > R->range ? k - R->range : k;
}

/* After the table ran op (ok: its outcome): OPSRC_LATEST acknowledges an insert. */
static inline __attribute__((always_inline)) void opsrc_done(struct opsrc *s, const unsigned kind, struct op op)
{
    if ((kind & OPSRC_LATEST) && op.kind == OP_INSERT)
        ycsb_ack(s->latest, op.key);
}

/* Draws n ops with drawn kind `kind` (OPSRC_UNIFORM | KEYGEN | HOTSPOT at base
 * 0, OPSRC_MAP for --keys sparse; no OPSRC_LATEST: D's ranks become keys when
 * read) into buf, as opsrc_next would yield them. Looks at *interrupted every
 * 4096 entries and stops early when it is set; returns the entries written. */
uint64_t opsrc_fill(struct opsrc *s, unsigned kind, uint64_t *buf, uint64_t n, const volatile int *interrupted);

#ifdef __cplusplus
}
#endif
#endif /* CHT_OPSOURCE_H */
