/*
 * rtm.h - private interface of locks/rtm.c for tests/test_locks.c.
 */
#ifndef CHT_LOCKS_RTM_H
#define CHT_LOCKS_RTM_H

#include <stdbool.h>
#include <stddef.h>

/* RTM status bits (2017 Hunan Univ. thesis, table 4.1; Intel SDM vol. 1 §16.3.5). */
#define RTM_STARTED        (~0u)
#define RTM_ABORT_EXPLICIT (1u << 0)  /* XABORT; the code is in bits 31:24 */
#define RTM_ABORT_RETRY    (1u << 1)  /* the transaction may succeed on a retry */
#define RTM_ABORT_CONFLICT (1u << 2)  /* another processor touched the read/write set */
#define RTM_ABORT_CAPACITY (1u << 3)  /* read/write set overflowed the cache */
#define RTM_ABORT_DEBUG    (1u << 4)  /* debug breakpoint */
#define RTM_ABORT_NESTED   (1u << 5)  /* abort in a nested transaction */
#define RTM_ABORT_CODE(s)  (((s) >> 24) & 0xffu)

/* Whether this CPU executes RTM transactions: CPUID.(EAX=7,ECX=0):EBX[11]
 * and at least one of a few trial transactions commits (on CPUs where TSX is
 * disabled by microcode, XBEGIN always aborts). The test hook
 * CHTBENCH_TEST_RTM_DISABLE=1 (include/cht_env.h) forces "unavailable", and
 * so does a ThreadSanitizer build (TSan cannot model hardware transactions).
 * The result is computed once; why gets the reason. */
bool cht_rtm_available(char *why, size_t len);

/* Just the CPUID bit (no trial transaction), for tests. */
bool cht_rtm_cpuid(void);

/* Test hook: when on, the RTM locks never execute XBEGIN; every transaction
 * "aborts" at once with a status taken in turn from a fixed cycle of causes
 * (conflict|retry, capacity, explicit, retry, none), so the retry, SCM and
 * fallback paths and their counters can be exercised on any CPU, including
 * under ThreadSanitizer. Not for benchmarks. */
void cht_rtm_simulate_aborts(bool on);
/* The statuses of that cycle (n entries), for tests to predict the counters. */
const unsigned *cht_rtm_simulated_cycle(unsigned *n);

#endif
