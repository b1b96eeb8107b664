/* mode_list.h - every benchmark mode, once: the enum bench_kind (config.h),
 * the CLI mode bits (cli.h), the --bench choices and the per-mode checks
 * (src/cli/) and mode_of (modes.c) are made from this list. A new mode is one
 * file (its struct mode, which names its schema), one line here and its
 * flags (src/cli/run_flags.c's option table says which modes each flag applies to).
 *
 *   X(ID, NAME, MODE, CHECK)
 *   ID     BENCH_ID (enum bench_kind) and CLI_ID (its bit in a flag's modes)
 *   NAME   its --bench value
 *   MODE   its struct mode (mode.h)
 *   CHECK  src/cli/run_checks.c's check of a command line of this mode, after the flags are read
 *
 * The table run comes first: it is the default (no --bench). */
#ifndef CHT_MODE_LIST_H
#define CHT_MODE_LIST_H

#define CHT_BENCH_MODES(X)                                          \
    X(TABLE, "table", table_mode, check_table_run)                  \
    X(MUTEX, "mutex", mutex_mode, check_table_run)                  \
    X(RWLOCK, "rwlock", rwlock_mode, check_table_run)               \
    X(MEMORY, "memory", memory_mode, check_memory_run)              \
    X(OCCUPANCY, "occupancy", occupancy_mode, check_occupancy)

#endif
