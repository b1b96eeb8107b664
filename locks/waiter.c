/*
 * waiter.c - the waiter-count ("requester") lock of Cui's thesis
 * (Tsinghua 2012) §3.3 (figs. 3.15-3.17), moved from the Linux kernel to user space.
 *
 * Lock thrashing (the thesis' §3.3.1): once a spinlock is contended, the number of
 * waiters grows quickly and every hand-off drags the lock's cache line past
 * all of them. The waiter-count lock wraps a ticket lock {next, owner} and
 * estimates the number of requesters from it, len = next - owner, without
 * any extra atomic counter (the estimate of fig. 3.16):
 *
 *   lock:   if len > T, go to sleep instead of taking a ticket:
 *             enqueue myself on the wait list (under the list's spinlock),
 *             then re-read len (a full barrier in between, as in fig. 3.16);
 *             if the lock turned free (len == 0) the estimate was wrong:
 *             dequeue and go on; otherwise sleep until woken.
 *           then take a ticket and spin as in the ticket lock.
 *   unlock: owner++; full barrier; if the wait list is non-empty (checked
 *           without its lock, fig. 3.17), wake one sleeper.
 * So at most T threads spin on the ticket lock at a time (T =
 * lock_config.waiter_threshold; Cui's thesis found T = 0 best, fig. 3.18)
 * and the rest sleep, woken one at a time. A woken thread takes a ticket right away.
 * No lost wake-up: the sleeper's enqueue and the unlocker's owner++ are
 * seq_cst, each followed by a seq_cst read of the other side, so either the
 * sleeper sees the lock free or the unlocker sees the sleeper.
 *
 * User-space differences from the kernel code: a waiter sleeps on a futex
 * in its own ctx (FUTEX_WAIT_PRIVATE) instead of monitor/mwait; the wait list
 * is one FIFO list (oldest sleeper woken first) rather than one list per CPU
 * scanned round-robin, since a thread has no stable CPU; the waker unlinks
 * the sleeper it wakes, so the sleeper never touches the list after waking.
 * A stale FUTEX_WAKE hitting a later sleep on the same ctx is harmless: a
 * sleeper re-checks its flag after every return from FUTEX_WAIT.
 * trylock as the ticket lock (CAS next from owner to owner+1; sleepers hold no
 * ticket, so it can succeed while others sleep). Not FIFO: sleepers queue in
 * arrival order but a newcomer may take a ticket before a woken sleeper.
 */
#include <stdalign.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lock_internal.h"

struct waiter_node {
    alignas(LOCK_LINE) struct waiter_node *next;
    uint32_t woken;                       /* futex word: 0 sleeping, 1 woken */
};

struct waiter_lock {
    alignas(LOCK_LINE) uint32_t next;     /* ticket lock, on its own line */
    uint32_t owner;
    alignas(LOCK_LINE) uint32_t list_lock; /* TAS lock of the wait list */
    unsigned threshold;
    struct waiter_node *head, *tail;      /* sleepers, oldest first */
};

static void waiter_init(void *l, const struct lock_config *cfg)
{
    struct waiter_lock *w = l;
    CHT_ST(&w->next, 0, RELAXED);
    CHT_ST(&w->owner, 0, RELAXED);
    CHT_ST(&w->list_lock, 0, RELAXED);
    w->threshold = cfg ? cfg->waiter_threshold : 0;
    CHT_ST(&w->head, NULL, RELAXED);
    CHT_ST(&w->tail, NULL, RELAXED);
}
static void waiter_destroy(void *l) { (void)l; }

static void waiter_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid; (void)node;
    struct waiter_node *n = ctx;
    CHT_ST(&n->next, NULL, RELAXED);
    CHT_ST(&n->woken, 0, RELAXED);
}

static void list_acquire(struct waiter_lock *w)
{
    struct spin_wait sw = SPIN_WAIT_INIT;
    for (;;) {
        while (CHT_LD(&w->list_lock, RELAXED))
            spin_wait(&sw);
        if (CHT_XCHG(&w->list_lock, 1, ACQUIRE) == 0)
            return;
    }
}
static void list_release(struct waiter_lock *w) { CHT_ST(&w->list_lock, 0, RELEASE); }

static inline uint32_t requesters(struct waiter_lock *w)
{
    uint32_t o = CHT_LD(&w->owner, SEQ_CST);
    return CHT_LD(&w->next, SEQ_CST) - o;
}

static void futex_wait(uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}
static void futex_wake_one(uint32_t *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Sleep until an unlock wakes me, unless the lock turns out to be free. */
static void waiter_sleep(struct waiter_lock *w, struct waiter_node *me)
{
    list_acquire(w);
    CHT_ST(&me->next, NULL, RELAXED);
    CHT_ST(&me->woken, 0, RELAXED);
    struct waiter_node *prev = CHT_LD(&w->tail, RELAXED);
    if (prev)
        CHT_ST(&prev->next, me, RELAXED);
    else
        CHT_ST(&w->head, me, SEQ_CST);
    CHT_ST(&w->tail, me, SEQ_CST);
    /* Dekker with waiter_unlock: the enqueue above is seq_cst; now re-read */
    if (requesters(w) == 0) {
        /* the estimate was wrong: the lock is free; I am still the tail */
        if (prev)
            CHT_ST(&prev->next, NULL, RELAXED);
        else
            CHT_ST(&w->head, NULL, SEQ_CST);
        CHT_ST(&w->tail, prev, RELAXED);
        list_release(w);
        return;
    }
    list_release(w);
    while (CHT_LD(&me->woken, ACQUIRE) == 0)
        futex_wait(&me->woken, 0);
}

static void waiter_lock(void *l, void *ctx)
{
    struct waiter_lock *w = l;
    if (requesters(w) > w->threshold)
        waiter_sleep(w, ctx);
    uint32_t me = CHT_FADD(&w->next, 1, SEQ_CST);
    struct spin_wait sw = SPIN_WAIT_INIT;
    while (CHT_LD(&w->owner, ACQUIRE) != me)
        spin_wait(&sw);
}

static bool waiter_trylock(void *l, void *ctx)
{
    (void)ctx;
    struct waiter_lock *w = l;
    uint32_t o = CHT_LD(&w->owner, ACQUIRE);
    uint32_t expect = o;
    return CHT_CAS(&w->next, &expect, o + 1, SEQ_CST, RELAXED);
}

static void waiter_unlock(void *l, void *ctx)
{
    (void)ctx;
    struct waiter_lock *w = l;
    CHT_FADD(&w->owner, 1, SEQ_CST);      /* only the holder writes owner */
    if (!CHT_LD(&w->head, SEQ_CST))
        return;
    list_acquire(w);
    struct waiter_node *s = CHT_LD(&w->head, RELAXED);
    if (s) {
        struct waiter_node *after = CHT_LD(&s->next, RELAXED);
        CHT_ST(&w->head, after, RELAXED);
        if (!after)
            CHT_ST(&w->tail, NULL, RELAXED);
        CHT_ST(&s->woken, 1, RELEASE);    /* s may return and reuse its ctx now */
        futex_wake_one(&s->woken);
    }
    list_release(w);
}

static bool waiter_is_locked(void *l)
{
    return requesters(l) != 0;
}

static bool waiter_has_waiters(void *l, void *ctx)
{
    (void)ctx;
    struct waiter_lock *w = l;
    return requesters(w) > 1 || CHT_LD(&w->head, RELAXED) != NULL;
}

const struct lock_ops lock_ops_waiter = {
    .name = "waiter",
    .summary = "waiter-count lock: ticket lock, waiters beyond T sleep on a futex (Yan Cui, \"Research on Scalability of Operating Systems on Multicore Processors\", PhD thesis, Tsinghua Univ., 2012, §3.3)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_PARKS | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct waiter_lock),
    .ctx_size = sizeof(struct waiter_node),
    .init = waiter_init, .destroy = waiter_destroy, .ctx_init = waiter_ctx_init,
    .lock = waiter_lock, .trylock = waiter_trylock, .unlock = waiter_unlock,
    .read_lock = waiter_lock, .read_unlock = waiter_unlock,
    .is_locked = waiter_is_locked,
    .has_waiters = waiter_has_waiters,
};
