/*
 * cht_env.h - the one place chtbench reads its environment (src/env.c).
 *
 * Settings reach tables and locks through cht_config / lock_config and the
 * command line; the environment only carries
 *   - test hooks, all named CHTBENCH_TEST_* (docs/cli.md "Test hooks"): they
 *     make the harness misbehave on purpose so that a test can see a check
 *     fire. They are for testing chtbench, never for measurements.
 *   - CHTBENCH_PLUGINS, plugins to load as if given with --plugin
 *     (docs/plugins.md).
 *   - conventions of other tools that chtbench only reads: GLIBC_TUNABLES
 *     (--hugepages thp), likwid-perfctr's LIKWID_MODE/EVENTS/FILEPATH, and
 *     CHTBENCH_HUGEPAGES_REEXEC and CHTBENCH_ALLOCATOR_REEXEC, the markers
 *     chtbench sets on its own re-executed self (--hugepages thp,
 *     --allocator; the latter with LD_PRELOAD, read for it).
 * Every variable is read once, at the first cht_env() call, into one struct
 * that the rest of the code reads; nothing else in src/, tables/, locks/,
 * workloads/ or include/ calls getenv (tests/test_env.py checks it). The test
 * binaries link this with the tables and locks, so a hook works there too.
 */
#ifndef CHT_ENV_H
#define CHT_ENV_H

#include <stdbool.h>
#include <stdint.h>

struct cht_env {
    /* Test hooks. Counts: a positive decimal integer, anything else = unset (0).
     * Flags: set, non-empty and not "0" = true. */
    uint64_t fault_drop_insert;   /* CHTBENCH_TEST_FAULT_DROP_INSERT (src/faults.h: all FAULT_*) */
    uint64_t fault_drop_remove;   /* CHTBENCH_TEST_FAULT_DROP_REMOVE */
    uint64_t fault_stale_get;     /* CHTBENCH_TEST_FAULT_STALE_GET */
    uint64_t fault_miss_get;      /* CHTBENCH_TEST_FAULT_MISS_GET */
    uint64_t fault_torn_get;      /* CHTBENCH_TEST_FAULT_TORN_GET */
    uint64_t fault_unwritten_get; /* CHTBENCH_TEST_FAULT_UNWRITTEN_GET */
    uint64_t fault_drop_update;   /* CHTBENCH_TEST_FAULT_DROP_UPDATE */
    uint64_t fault_pipe_miss_get; /* CHTBENCH_TEST_FAULT_PIPE_MISS_GET */
    uint64_t fault_drop_pair;     /* CHTBENCH_TEST_FAULT_DROP_PAIR */
    uint64_t fault_filter_always; /* CHTBENCH_TEST_FAULT_FILTER_ALWAYS */
    uint64_t fault_size_skew;     /* CHTBENCH_TEST_FAULT_SIZE_SKEW */
    bool rtm_disable;             /* CHTBENCH_TEST_RTM_DISABLE: RTM locks report "unavailable" */
    bool lockbench_no_lock;       /* CHTBENCH_TEST_LOCKBENCH_NO_LOCK: lock bench skips every lock call */
    bool inject_get_delay_set;    /* CHTBENCH_TEST_INJECT_GET_DELAY=M: a -Dinject_get_delay build's */
    unsigned inject_get_delay;    /*   clht-lb get runs M rounds instead of the built-in N (0 allowed) */
    const char *test_allocator_dir; /* CHTBENCH_TEST_ALLOCATOR_DIR=DIR: --allocator looks for its library in
                                     * DIR alone (src/alloc.c), NULL when unset or empty */

    /* Settings (docs/cli.md "Environment"). */
    const char *plugins;          /* CHTBENCH_PLUGINS: plugin paths, colon separated (src/plugin.c) */

    /* Other tools' conventions (NULL / false when unset). */
    const char *glibc_tunables;   /* GLIBC_TUNABLES as at start-up */
    bool hugepages_reexec;        /* CHTBENCH_HUGEPAGES_REEXEC: this process is chtbench re-executed */
    const char *ld_preload;       /* LD_PRELOAD as at start-up (--allocator) */
    const char *allocator_reexec; /* CHTBENCH_ALLOCATOR_REEXEC: this process is chtbench re-executed with
                                   * --allocator's library preloaded (src/alloc.c) */
    bool likwid_marker_env;       /* LIKWID_MODE, LIKWID_EVENTS and LIKWID_FILEPATH all set
                                   * (likwid-perfctr -m runs us) */
};

/* The variable chtbench sets before it re-executes itself for --hugepages thp. */
#define CHT_ENV_HUGEPAGES_REEXEC "CHTBENCH_HUGEPAGES_REEXEC"

/* The variable chtbench sets before it re-executes itself for --allocator. */
#define CHT_ENV_ALLOCATOR_REEXEC "CHTBENCH_ALLOCATOR_REEXEC"

/* The environment as read at the first call; thread-safe. */
const struct cht_env *cht_env(void);

#endif
