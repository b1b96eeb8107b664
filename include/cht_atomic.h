/*
 * cht_atomic.h - atomics and spin-waiting shared by tables/ and locks/.
 *
 *  - cht_pause(): the spin-loop hint (x86 pause, aarch64 yield, else a
 *    compiler barrier);
 *  - cht_spin_yield(&n, period): one step of a table's bounded spin: pause,
 *    except that every period-th step gives the CPU away with sched_yield()
 *    instead, so that an oversubscribed run lets a preempted holder finish;
 *  - cht_spin_wait(&n, period): the same for the locks of locks/ (spin_wait,
 *    locks/lock_internal.h, period LOCK_SPIN_YIELD): pause, and yield too;
 *  - LD/ST/XCHG/FADD/CAS: the __atomic builtins with the memory order spelled
 *    in the call (CHT_LD(p, ACQUIRE)), so every access states its order;
 *  - CHT_UNDER_TSAN: 1 in a ThreadSanitizer build, for code paths TSan
 *    cannot model (RTM; plain loads that only a seqlock makes safe).
 *
 * Header-only and `static inline`: the helpers compile to the instruction
 * they wrap. Every macro is CHT_-prefixed: the header is installed with the
 * SDK and lands in every plugin's namespace (tests/test_sdk_prefix.py).
 */
#ifndef CHT_ATOMIC_H
#define CHT_ATOMIC_H

#include <sched.h>
#include <stdbool.h>

/* GCC says so by __SANITIZE_THREAD__, clang by __has_feature */
#if defined(__SANITIZE_THREAD__)
#define CHT_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHT_UNDER_TSAN 1
#endif
#endif
#ifndef CHT_UNDER_TSAN
#define CHT_UNDER_TSAN 0
#endif

static inline void cht_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* One step of a table's spin loop whose counter *n starts at 0: pause, but
 * on every period-th step (period: a power of two) sched_yield() instead. */
static inline void cht_spin_yield(unsigned *n, unsigned period)
{
    if (++*n & (period - 1))
        cht_pause();
    else
        sched_yield();
}

/* One step of a lock's spin loop (spin_wait, locks/lock_internal.h), counter
 * *n from 0: pause, and on every period-th step (period >= 1) sched_yield()
 * too, the counter starting again at 0. Same pacing as cht_spin_yield; kept
 * apart because the counter restarting after the call need not survive it:
 * an uncontended acquisition (ttas_lock) saves one register fewer, where in
 * a table's larger operations this form costs instructions instead (dense,
 * cuckoo, cuckoo-filter +0.3..2.2 a get under cachegrind). */
static inline void cht_spin_wait(unsigned *n, unsigned period)
{
    cht_pause();
    if (++*n >= period) {
        *n = 0;
        sched_yield();
    }
}

/* mo, fmo: RELAXED, ACQUIRE, RELEASE, ACQ_REL, SEQ_CST (fmo: the order of a failed CAS) */
#define CHT_LD(p, mo)       __atomic_load_n((p), __ATOMIC_##mo)
#define CHT_ST(p, v, mo)    __atomic_store_n((p), (v), __ATOMIC_##mo)
#define CHT_XCHG(p, v, mo)  __atomic_exchange_n((p), (v), __ATOMIC_##mo)
#define CHT_FADD(p, v, mo)  __atomic_fetch_add((p), (v), __ATOMIC_##mo)
#define CHT_CAS(p, expp, v, mo, fmo) \
    __atomic_compare_exchange_n((p), (expp), (v), false, __ATOMIC_##mo, __ATOMIC_##fmo)

#endif /* CHT_ATOMIC_H */
