/*
 * pthread_locks.c - the POSIX locks behind lock_ops: pthread-mutex (futex,
 * parks waiters), pthread-spin and pthread-rwlock (readers share).
 * They are the baselines the spinlocks of "Concurrent Hashing on Multi-core
 * Systems" (PhD thesis, Hunan University, 2017, chapter 5) and the waiter-count
 * lock of Cui's thesis (Tsinghua University, 2012, §3.3) are measured against.
 */
#include <pthread.h>
#include "lock.h"

static void mutex_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    pthread_mutex_init(l, NULL);
}
static void mutex_destroy(void *l) { pthread_mutex_destroy(l); }
static void mutex_lock(void *l, void *ctx) { (void)ctx; pthread_mutex_lock(l); }
static bool mutex_trylock(void *l, void *ctx) { (void)ctx; return pthread_mutex_trylock(l) == 0; }
static void mutex_unlock(void *l, void *ctx) { (void)ctx; pthread_mutex_unlock(l); }

const struct lock_ops lock_ops_pthread_mutex = {
    .name = "pthread-mutex",
    .summary = "POSIX mutex (glibc futex lock; waiters sleep)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_PARKS,
    .lock_size = sizeof(pthread_mutex_t),
    .init = mutex_init, .destroy = mutex_destroy,
    .lock = mutex_lock, .trylock = mutex_trylock, .unlock = mutex_unlock,
    .read_lock = mutex_lock, .read_unlock = mutex_unlock,
};

static void spin_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE);
}
static void spin_destroy(void *l) { pthread_spin_destroy(l); }
static void spin_lock(void *l, void *ctx) { (void)ctx; pthread_spin_lock(l); }
static bool spin_trylock(void *l, void *ctx) { (void)ctx; return pthread_spin_trylock(l) == 0; }
static void spin_unlock(void *l, void *ctx) { (void)ctx; pthread_spin_unlock(l); }

const struct lock_ops lock_ops_pthread_spin = {
    .name = "pthread-spin",
    .summary = "POSIX spinlock (glibc test-and-test-and-set)",
    .caps = LOCK_CAP_TRYLOCK,
    .lock_size = sizeof(pthread_spinlock_t),
    .init = spin_init, .destroy = spin_destroy,
    .lock = spin_lock, .trylock = spin_trylock, .unlock = spin_unlock,
    .read_lock = spin_lock, .read_unlock = spin_unlock,
};

static void rw_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    pthread_rwlock_init(l, NULL);
}
static void rw_destroy(void *l) { pthread_rwlock_destroy(l); }
static void rw_wrlock(void *l, void *ctx) { (void)ctx; pthread_rwlock_wrlock(l); }
static bool rw_trywrlock(void *l, void *ctx) { (void)ctx; return pthread_rwlock_trywrlock(l) == 0; }
static void rw_rdlock(void *l, void *ctx) { (void)ctx; pthread_rwlock_rdlock(l); }
static void rw_unlock(void *l, void *ctx) { (void)ctx; pthread_rwlock_unlock(l); }

const struct lock_ops lock_ops_pthread_rwlock = {
    .name = "pthread-rwlock",
    .summary = "POSIX reader-writer lock (glibc, reader preference)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_RW | LOCK_CAP_PARKS,
    .lock_size = sizeof(pthread_rwlock_t),
    .init = rw_init, .destroy = rw_destroy,
    .lock = rw_wrlock, .trylock = rw_trywrlock, .unlock = rw_unlock,
    .read_lock = rw_rdlock, .read_unlock = rw_unlock,
};
