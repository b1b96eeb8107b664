/*
 * ebr.c - epoch-based reclamation; the scheme and the API are described in ebr.h.
 */
#include <stdlib.h>
#include <string.h>
#include "ebr.h"

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

struct ebr *ebr_create(unsigned max_threads)
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
    /* order the unlinking stores (and the epoch read) before reading the slots */
    full_barrier();
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
