/*
 * history.h - --verify history[:K]: the answers of the timed run, checked
 * for watched keys (docs/cli.md "Answers checked during the run").
 *
 * About K keys spread over the range are watched: the multiples of an odd D
 * (about r / K), tested with one multiply and a compare (k * D^-1 mod 2^64 <=
 * (2^64 - 1) / D holds exactly for the multiples of D). Every op of the timed
 * loop on a watched key is recorded, with the clock read before and after
 * it, into its thread's preallocated buffer; other ops cost the test alone.
 * After the run, each watched key's history is checked for linearizability
 * as a register with insert/remove/update/get semantics (one key at a time,
 * as Porcupine and Knossos partition a map; the search is Lowe's
 * just-in-time linearization: Lowe, "Testing for linearizability",
 * Concurrency and Computation: Practice and Experience 29(4), 2017, §4,
 * after Wing and Gong, "Testing and verifying concurrent objects", JPDC
 * 17(1), 1993).
 *
 * Values are unique per write (runner.h run_val), so a lost update, a stale
 * read and an answer "absent" for a present key are each a history that no
 * order of the ops explains.
 */
#ifndef CHT_HISTORY_H
#define CHT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "cht.h"

enum hist_op { HIST_GET, HIST_INSERT, HIST_REMOVE, HIST_UPDATE };

/* One op on a watched key: its value (the one written, or the one a get
 * read), its answer, and CLOCK_MONOTONIC before the call and after it. */
struct hist_rec {
    cht_key_t key;
    cht_val_t val;
    uint64_t t0, t1;
    uint16_t thread;
    uint8_t op;        /* enum hist_op */
    uint8_t ok;        /* the op's answer (get: found) */
    uint8_t known;     /* the checker's: 0 for an op its cut left without an answer */
};

/* The clock around a recorded op (CLOCK_MONOTONIC, one clock for all CPUs).
 * Real-time order is only sound if the stamps bound the op's memory
 * accesses: an op's loads must not run ahead of its start stamp (a load
 * fence after the clock read: RDTSC is not ordered with later loads), and
 * its stores must be visible to every thread by its end stamp (a full fence
 * first: on x86 a store can sit in the store buffer, its line not yet owned,
 * for ~100 ns after the call returns; unfenced, clht-lb's in-place updates
 * then look like lost updates to a get that starts after that end). */
static inline uint64_t hist_clock_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("lfence" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hist_clock_end(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One thread's records; `lost` counts watched ops past its capacity. */
struct hist_buf {
    struct hist_rec *rec;
    uint64_t n, cap, lost;
};

/* The watched keys: the multiples of d. */
struct hist_watch {
    uint64_t d, inv, lim;
};

static inline bool hist_watched(const struct hist_watch *w, cht_key_t k)
{
    return k * w->inv <= w->lim;
}

static inline void hist_put(struct hist_buf *b, cht_key_t k, cht_val_t v, uint64_t t0, uint64_t t1,
                            unsigned thread, enum hist_op op, bool ok)
{
    if (b->n < b->cap)
        b->rec[b->n++] = (struct hist_rec){ .key = k, .val = v, .t0 = t0, .t1 = t1, .thread = (uint16_t)thread,
                                            .op = (uint8_t)op, .ok = ok };
    else
        b->lost++;
}

/* About `keys` watched keys over [1, range]: d = range / keys, made odd (at least 1). */
void hist_watch_init(struct hist_watch *w, uint64_t range, uint64_t keys);

/* The records all threads may keep: 64 MiB of them, split evenly. */
#define HIST_BYTES (64ull << 20)
/* Allocates and touches (off the clock) a buffer of cap records; -1 when out of memory. */
int hist_buf_init(struct hist_buf *b, uint64_t cap);
void hist_buf_free(struct hist_buf *b);

/* A watched key's state when the timed phase starts (read by one thread). */
struct hist_init {
    cht_key_t key;
    cht_val_t val;
    bool present;
};

/* The watched keys among the table keys of dense keys 1..max (mapped by
 * keygen_sparse when sparse), sorted; *n their count. NULL when out of memory. */
cht_key_t *hist_watched_keys(const struct hist_watch *w, uint64_t max, bool sparse, size_t *n);

/* What the checker found. */
struct hist_result {
    uint64_t keys;              /* watched keys that ops touched */
    uint64_t ops;               /* ops recorded and checked */
    uint64_t lost;              /* watched ops past a buffer's capacity (not recorded) */
    uint64_t unanswered;        /* ops the cut left without an answer (checked as pending) */
    uint64_t covered_ns;        /* the timed phase's first covered_ns: every watched op in them checked */
    uint64_t violations;        /* keys whose history no order explains (outcome not_linearizable) */
    uint64_t undecided;         /* keys the search gave up on (more than 64 ops open, or too many states) */
    double check_s;             /* the checker's time */
    char window[2048];          /* the first violation: its key, the op, the ops open then and just before */
};

/* Checks every watched key's history. init: the watched keys' initial states,
 * sorted by key (a key not among them starts absent); t_start: the timed
 * phase's start (times are printed from it). Sorts the buffers' records in
 * place. Returns -1 when out of memory. */
int hist_check(struct hist_buf *bufs, unsigned nthreads, const struct hist_init *init, size_t ninit,
               uint64_t t_start, uint64_t t_end, struct hist_result *out);

#endif
