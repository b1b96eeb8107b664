/*
 * ebr.c - epoch-based and quiescent-state-based reclamation; the schemes and
 * the API are described in ebr.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif
#include "ebr.h"

static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;
static int membarrier_ok;

static void membarrier_probe(void)
{
#if defined(__linux__) && defined(__NR_membarrier)
    long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        membarrier_ok = 1;
#endif
}

/* A full barrier on every CPU that runs a thread of this process. */
static void heavy_barrier(struct ebr *e)
{
#if defined(__linux__) && defined(__NR_membarrier)
    if (e->asym && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        abort();                /* registered at create: cannot fail */
#else
    (void)e;
#endif
}

/* A full memory barrier. On x86 a locked add to the stack (as Linux's smp_mb):
 * cheaper than mfence, and the thread sanitizer does not warn about it as it
 * does about atomic_thread_fence. */
static inline void full_barrier(void)
{
#if defined(__x86_64__)
    __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc");
#elif defined(__i386__)
    __asm__ __volatile__("lock; addl $0,-4(%%esp)" ::: "memory", "cc");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

struct ebr *ebr_create(unsigned max_threads, bool fence)
{
    unsigned n = max_threads ? max_threads : 1;
    struct ebr *e = aligned_alloc(64, sizeof *e);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->slot = aligned_alloc(64, sizeof *e->slot * n);
    if (!e->slot) {
        free(e);
        return NULL;
    }
    memset(e->slot, 0, sizeof *e->slot * n);
    e->nslots = n;
    e->epoch = 1;
    if (!fence)
        pthread_once(&membarrier_once, membarrier_probe);
    e->asym = !fence && membarrier_ok;
    pthread_mutex_init(&e->lock, NULL);
    return e;
}

/* Frees every limbo node retired at an epoch <= limit; caller holds e->lock. */
static void free_upto(struct ebr *e, uint64_t limit)
{
    struct ebr_node **pp = &e->limbo;
    while (*pp) {
        struct ebr_node *n = *pp;
        if (n->epoch <= limit) {
            *pp = n->next;
            e->pending--;
            n->free_fn(n);
        } else {
            pp = &n->next;
        }
    }
}

/* One attempt to advance the epoch; caller holds e->lock. */
static void try_advance(struct ebr *e)
{
    uint64_t g = __atomic_load_n(&e->epoch, __ATOMIC_SEQ_CST);
    /* order the unlinking stores (and the epoch read) before reading the slots,
     * and, with membarrier, every reader's announcement before them too */
    full_barrier();
    heavy_barrier(e);
    for (unsigned i = 0; i < e->nslots; i++) {
        uint64_t s = __atomic_load_n(&e->slot[i].state, __ATOMIC_ACQUIRE);
        if ((s & 1) && (s >> 1) != g)
            return;                 /* a thread is still in an older epoch */
    }
    __atomic_store_n(&e->epoch, g + 1, __ATOMIC_SEQ_CST);
}

void ebr_collect(struct ebr *e)
{
    pthread_mutex_lock(&e->lock);
    if (e->limbo) {
        for (int i = 0; i < 2; i++)
            try_advance(e);
        uint64_t g = __atomic_load_n(&e->epoch, __ATOMIC_RELAXED);
        if (g >= 2)
            free_upto(e, g - 2);
    }
    pthread_mutex_unlock(&e->lock);
}

void ebr_retire(struct ebr *e, struct ebr_node *node, void (*free_fn)(struct ebr_node *))
{
    /* the caller's unlinking store happens before this epoch read */
    full_barrier();
    pthread_mutex_lock(&e->lock);
    node->epoch = __atomic_load_n(&e->epoch, __ATOMIC_SEQ_CST);
    node->free_fn = free_fn;
    node->next = e->limbo;
    e->limbo = node;
    e->pending++;
    pthread_mutex_unlock(&e->lock);
    ebr_collect(e);
}

void ebr_thread_offline(struct ebr *e, unsigned tid)
{
    ebr_exit(e, tid);
    ebr_collect(e);
}

size_t ebr_pending(struct ebr *e)
{
    pthread_mutex_lock(&e->lock);
    size_t n = e->pending;
    pthread_mutex_unlock(&e->lock);
    return n;
}

void ebr_destroy(struct ebr *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    free_upto(e, UINT64_MAX);
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_destroy(&e->lock);
    free(e->slot);
    free(e);
}

/* ---------------- QSBR ---------------- */

struct qsbr *qsbr_create(unsigned max_threads)
{
    unsigned n = max_threads ? max_threads : 1;
    struct qsbr *q = aligned_alloc(64, sizeof *q);
    if (!q)
        return NULL;
    memset(q, 0, sizeof *q);
    q->slot = aligned_alloc(64, sizeof *q->slot * n);
    if (!q->slot) {
        free(q);
        return NULL;
    }
    memset(q->slot, 0, sizeof *q->slot * n);
    q->nslots = n;
    q->period = 1;
    pthread_mutex_init(&q->lock, NULL);
    return q;
}

void qsbr_online(struct qsbr *q, unsigned tid)
{
    __atomic_store_n(&q->slot[tid].seen, __atomic_load_n(&q->period, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
    full_barrier();             /* the announcement before any read of the table */
}

/* Frees what every online thread has passed a quiescent point since; caller
 * holds q->lock. */
static void qsbr_free_safe(struct qsbr *q)
{
    uint64_t min = UINT64_MAX;
    for (unsigned i = 0; i < q->nslots; i++) {
        uint64_t s = __atomic_load_n(&q->slot[i].seen, __ATOMIC_ACQUIRE);
        if (s && s < min)
            min = s;
    }
    struct ebr_node **pp = &q->limbo;
    while (*pp) {
        struct ebr_node *n = *pp;
        if (n->epoch < min) {
            *pp = n->next;
            __atomic_store_n(&q->pending, q->pending - 1, __ATOMIC_RELAXED);
            n->free_fn(n);
        } else {
            pp = &n->next;
        }
    }
}

void qsbr_collect(struct qsbr *q)
{
    pthread_mutex_lock(&q->lock);
    qsbr_free_safe(q);
    pthread_mutex_unlock(&q->lock);
}

void qsbr_collect_try(struct qsbr *q)
{
    if (pthread_mutex_trylock(&q->lock) != 0)
        return;                 /* someone else is collecting or retiring */
    qsbr_free_safe(q);
    pthread_mutex_unlock(&q->lock);
}

void qsbr_offline(struct qsbr *q, unsigned tid)
{
    __atomic_store_n(&q->slot[tid].seen, 0, __ATOMIC_RELEASE);
    qsbr_collect(q);
}

void qsbr_retire(struct qsbr *q, struct ebr_node *node, void (*free_fn)(struct ebr_node *))
{
    /* the caller's unlinking store before the period read and the slot reads */
    full_barrier();
    pthread_mutex_lock(&q->lock);
    uint64_t p = __atomic_load_n(&q->period, __ATOMIC_RELAXED);
    node->epoch = p;
    node->free_fn = free_fn;
    node->next = q->limbo;
    q->limbo = node;
    __atomic_store_n(&q->pending, q->pending + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&q->period, p + 1, __ATOMIC_RELEASE);
    qsbr_free_safe(q);
    pthread_mutex_unlock(&q->lock);
}

size_t qsbr_pending(struct qsbr *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = (size_t)q->pending;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void qsbr_destroy(struct qsbr *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    while (q->limbo) {
        struct ebr_node *n = q->limbo;
        q->limbo = n->next;
        n->free_fn(n);
    }
    q->pending = 0;
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_destroy(&q->lock);
    free(q->slot);
    free(q);
}
