/*
 * faults.h - fault injection for testing the harness' own checks (docs/cli.md
 * "Testing the final check", "Test hooks"). Each hook is an environment
 * variable, read through cht_env() (include/cht_env.h); the
 * wrapped table misbehaves in one way that exactly one check must catch:
 *
 *   CHTBENCH_TEST_FAULT_DROP_INSERT=N:
 *     every N-th insert of an absent key reports success without inserting,
 *     while size() still counts it (per-thread counters that survive a lost
 *     key): the count of keys found catches it.
 *   CHTBENCH_TEST_FAULT_DROP_REMOVE=N: every N-th remove of a present key
 *     reports success without removing it, size() agreeing: keys too many.
 *   CHTBENCH_TEST_FAULT_STALE_GET=N: every N-th get that finds its key
 *     returns the value of the previous successful get (of another key, as a
 *     reader of a recycled slot would): the value check catches it.
 *   CHTBENCH_TEST_FAULT_MISS_GET=N: every N-th get that finds its key
 *     answers "absent" (a filter's false negative): the count catches it.
 *   CHTBENCH_TEST_FAULT_TORN_GET=N: every N-th get that finds its key returns
 *     CHT_VAL_TORN, what cht_value_read gives for a half-overwritten block.
 *   CHTBENCH_TEST_FAULT_UNWRITTEN_GET=N: every N-th get that finds its key
 *     returns its value with the write sequence set to 2^32 - 1 (run_val),
 *     one its writer never used: a value never written, which the value
 *     check catches.
 *   CHTBENCH_TEST_FAULT_DROP_UPDATE=N: every N-th update of a present key
 *     reports success without writing (a lost update): the table's counts
 *     and values stay consistent; only --verify history sees it, when a
 *     later get of a watched key reads the value the update replaced.
 *   CHTBENCH_TEST_FAULT_PIPE_MISS_GET=N: every N-th pipelined get whose
 *     completing step found its key answers "absent" (pipe_step wrapped):
 *     --verify history with --pipeline catches it.
 *   CHTBENCH_TEST_FAULT_DROP_PAIR=N: from the N-th remove on, the first
 *     remove of a present key B reports success without removing, and then
 *     the first insert of an absent key A != B reports success without
 *     inserting. size(), the counts and every value stay consistent; only the
 *     key sum sees that B is there and A is not.
 *   CHTBENCH_TEST_FAULT_FILTER_ALWAYS=1: get() answers "present" for every
 *     key (a broken filter): the false-positive bound catches it.
 *   CHTBENCH_TEST_FAULT_SIZE_SKEW=N: size() says N keys more than there are
 *     (a miscounting size()): the size check, and only it, catches it.
 */
#ifndef CHT_FAULTS_H
#define CHT_FAULTS_H

#include "cht.h"

/* The ops to run: inner itself, or a wrapper when fault injection is asked
 * for in the environment (a value that is not a positive integer: no hook).
 * Call fault_reset() before each run. */
const struct cht_ops *fault_wrap(const struct cht_ops *inner);
void fault_reset(void);

#endif
