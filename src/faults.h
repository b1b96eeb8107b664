/*
 * faults.h - fault injection for testing the harness itself (docs/cli.md
 * "Testing the final check"): CHTBENCH_FAULT_DROP_INSERT=N makes every N-th
 * insert of a key that is absent report success without inserting it, while
 * size() still counts it, as a table whose per-thread counters survive a lost
 * key would. Only the final check (--verify) can catch that.
 */
#ifndef CHT_FAULTS_H
#define CHT_FAULTS_H

#include "cht.h"

/* The ops to run: inner itself, or a wrapper when fault injection is asked
 * for in the environment. Call fault_reset() before each run. */
const struct cht_ops *fault_wrap(const struct cht_ops *inner);
void fault_reset(void);

#endif
