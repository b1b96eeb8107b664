/*
 * spin.c - the test-and-set family: tas, ttas, ttas-backoff.
 *
 * Source: the 2017 Hunan Univ. thesis, §5.3.1: algorithm
 * 5.1 (TAS: spin on an atomic exchange of `true`, release by storing
 * `false`) and 5.2 (TTAS: spin reading the word in the local cache and only
 * try the exchange when it reads free, which stops the bus traffic of TAS
 * while the lock is held but still lets every waiter storm the line on
 * release). ttas-backoff adds randomised exponential backoff after a failed
 * exchange (Anderson 1990; Herlihy & Shavit, "The Art of Multiprocessor
 * Programming" ch. 7.4): the delay window doubles from BACKOFF_MIN to
 * BACKOFF_MAX pauses, which spreads the release storm out. It needs no
 * per-thread state and any thread may release it, so it serves as the
 * thread-oblivious global lock of the C-BO-MCS cohort lock (cohort.c).
 *
 * Lock word: one 32-bit flag, 0 free, 1 held. The exchange is seq_cst so the
 * NUMA RW locks (numa_rw.c) can order it against their reader indicators.
 */
#include <stdint.h>
#include "lock_internal.h"

#define BACKOFF_MIN 16u      /* pauses */
#define BACKOFF_MAX 16384u

struct spin_lock {
    uint32_t held;
};

static void spin_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    CHT_ST(&((struct spin_lock *)l)->held, 0, RELAXED);
}
static void spin_destroy(void *l) { (void)l; }

static inline bool spin_try(struct spin_lock *s)
{
    return CHT_XCHG(&s->held, 1, SEQ_CST) == 0;
}

static bool spin_trylock(void *l, void *ctx)
{
    (void)ctx;
    struct spin_lock *s = l;
    return CHT_LD(&s->held, RELAXED) == 0 && spin_try(s);
}

static void spin_unlock(void *l, void *ctx)
{
    (void)ctx;
    CHT_ST(&((struct spin_lock *)l)->held, 0, RELEASE);
}

static bool spin_is_locked(void *l)
{
    return CHT_LD(&((struct spin_lock *)l)->held, SEQ_CST) != 0;
}

/* Algorithm 5.1 */
static void tas_lock(void *l, void *ctx)
{
    (void)ctx;
    struct spin_lock *s = l;
    struct spin_wait w = SPIN_WAIT_INIT;
    while (!spin_try(s))
        spin_wait(&w);
}

/* Algorithm 5.2 */
static void ttas_lock(void *l, void *ctx)
{
    (void)ctx;
    struct spin_lock *s = l;
    struct spin_wait w = SPIN_WAIT_INIT;
    for (;;) {
        while (CHT_LD(&s->held, RELAXED))
            spin_wait(&w);
        if (spin_try(s))
            return;
    }
}

/* xorshift32 per thread: only to de-synchronise the backoff of the waiters. */
static __thread uint32_t backoff_seed;

static inline uint32_t backoff_rand(void)
{
    uint32_t x = backoff_seed;
    if (x == 0)
        x = (uint32_t)(uintptr_t)&backoff_seed | 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    backoff_seed = x;
    return x;
}

static void ttas_backoff_lock(void *l, void *ctx)
{
    (void)ctx;
    struct spin_lock *s = l;
    struct spin_wait w = SPIN_WAIT_INIT;
    uint32_t limit = BACKOFF_MIN;
    for (;;) {
        while (CHT_LD(&s->held, RELAXED))
            spin_wait(&w);
        if (spin_try(s))
            return;
        /* lost the race for a free lock: back off before looking again */
        uint32_t delay = backoff_rand() & (limit - 1);
        for (uint32_t i = 0; i < delay; i++)
            spin_wait(&w);
        if (limit < BACKOFF_MAX)
            limit <<= 1;
    }
}

const struct lock_ops lock_ops_tas = {
    .name = "tas",
    .summary = "test-and-set spinlock (thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 5.1)",
    .caps = LOCK_CAP_TRYLOCK,
    .lock_size = sizeof(struct spin_lock),
    .init = spin_init, .destroy = spin_destroy,
    .lock = tas_lock, .trylock = spin_trylock, .unlock = spin_unlock,
    .read_lock = tas_lock, .read_unlock = spin_unlock,
    .is_locked = spin_is_locked,
};

const struct lock_ops lock_ops_ttas = {
    .name = "ttas",
    .summary = "test-and-test-and-set spinlock (thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 5.2)",
    .caps = LOCK_CAP_TRYLOCK,
    .lock_size = sizeof(struct spin_lock),
    .init = spin_init, .destroy = spin_destroy,
    .lock = ttas_lock, .trylock = spin_trylock, .unlock = spin_unlock,
    .read_lock = ttas_lock, .read_unlock = spin_unlock,
    .is_locked = spin_is_locked,
};

const struct lock_ops lock_ops_ttas_backoff = {
    .name = "ttas-backoff",
    .summary = "TTAS with randomised exponential backoff, 16..16384 pauses (Anderson, \"The Performance of Spin Lock Alternatives for Shared-Memory Multiprocessors\", IEEE TPDS 1990)",
    .caps = LOCK_CAP_TRYLOCK,
    .lock_size = sizeof(struct spin_lock),
    .init = spin_init, .destroy = spin_destroy,
    .lock = ttas_backoff_lock, .trylock = spin_trylock, .unlock = spin_unlock,
    .read_lock = ttas_backoff_lock, .read_unlock = spin_unlock,
    .is_locked = spin_is_locked,
};
