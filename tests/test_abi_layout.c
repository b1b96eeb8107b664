/*
 * test_abi_layout.c - the plugin ABI (include/cht.h, lock.h, cht_plugin.h) as
 * the compiler lays it out, against the layout pinned for its CHT_ABI_VERSION.
 *
 * A plugin is read by this chtbench through these structs; one built against
 * other headers with the same CHT_ABI_VERSION is misread (the loader's size
 * check, cht_plugin.sizes, catches a changed size but not moved members of the
 * same size). So every change to a shared struct - a member added, removed,
 * moved, grown or retyped - or to a shared constant must come with a new
 * CHT_ABI_VERSION and a new pinned table below (docs/plugins.md "The ABI and its
 * versioning rule"); this test fails until both are there. Checked per struct:
 * size and alignment; per member: offset and type (__builtin_types_compatible_p,
 * function pointers with their full prototypes); then the constants plugins
 * compile in (caps bits, pipe kinds, CHT_PIPE_AGAIN and CHT_PIPE_POISON, key
 * range). tests/test_rust_abi.py checks that the members pinned here are every
 * member the headers declare, in order. LP64 only (elsewhere: skipped, 77).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cht_plugin.h"

struct pin {
    const char *strukt, *member;   /* member NULL: the struct's size and alignment */
    size_t want, got;              /* offset of the member, or size of the struct */
    size_t want_align, got_align;  /* structs only */
    bool type_ok;                  /* members only: declared with the pinned type */
};

#define SIZE(s, size, align) { #s, NULL, size, sizeof(struct s), align, _Alignof(struct s), true }
#define PIN(s, m, off, ...) \
    { #s, #m, off, offsetof(struct s, m), 0, 0, __builtin_types_compatible_p(__typeof__(((struct s *)0)->m), __VA_ARGS__) }

struct constant {
    const char *name;
    long long want, got;
};
#define CONST(name, value) { #name, value, (long long)(name) }

#if CHT_ABI_VERSION == 4
static const struct pin pins[] = {
    SIZE(cht_option, 16, 8),
    PIN(cht_option, key, 0, const char *),
    PIN(cht_option, val, 8, const char *),

    SIZE(cht_option_spec, 16, 8),
    PIN(cht_option_spec, key, 0, const char *),
    PIN(cht_option_spec, help, 8, const char *),

    SIZE(cht_config, 80, 8),
    PIN(cht_config, initial, 0, size_t),
    PIN(cht_config, density, 8, double),
    PIN(cht_config, range, 16, uint64_t),
    PIN(cht_config, max_threads, 24, unsigned),
    PIN(cht_config, numa_nodes, 28, unsigned),
    PIN(cht_config, thread_node, 32, const unsigned *),
    PIN(cht_config, lock, 40, const struct lock_ops *),
    PIN(cht_config, lock_config, 48, const struct lock_config *),
    PIN(cht_config, options, 56, const struct cht_option *),
    PIN(cht_config, value_size, 64, size_t),
    PIN(cht_config, hugepages, 72, bool),

    SIZE(cht_stats, 80, 8),
    PIN(cht_stats, bytes, 0, size_t),
    PIN(cht_stats, buckets, 8, size_t),
    PIN(cht_stats, resizes, 16, uint64_t),
    PIN(cht_stats, full_failures, 24, uint64_t),
    PIN(cht_stats, alloc_failures, 32, uint64_t),
    PIN(cht_stats, tx_begins, 40, uint64_t),
    PIN(cht_stats, tx_commits, 48, uint64_t),
    PIN(cht_stats, tx_aborts, 56, uint64_t),
    PIN(cht_stats, tx_fallbacks, 64, uint64_t),
    PIN(cht_stats, fp_bits, 72, unsigned),
    PIN(cht_stats, fp_bucket_slots, 76, unsigned),

    SIZE(cht_pipe_op, 48, 8),
    PIN(cht_pipe_op, key, 0, uint64_t),
    PIN(cht_pipe_op, val, 8, uint64_t),
    PIN(cht_pipe_op, kind, 16, uint32_t),
    PIN(cht_pipe_op, stage, 20, uint32_t),
    PIN(cht_pipe_op, result, 24, int32_t),
    PIN(cht_pipe_op, pad, 28, uint32_t),
    PIN(cht_pipe_op, state, 32, uint64_t[2]),

    SIZE(cht_ops, 160, 8),
    PIN(cht_ops, name, 0, const char *),
    PIN(cht_ops, summary, 8, const char *),
    PIN(cht_ops, caps, 16, unsigned),
    PIN(cht_ops, options, 24, const struct cht_option_spec *),
    PIN(cht_ops, available, 32, bool (*)(char *why, size_t len)),
    PIN(cht_ops, create, 40, void *(*)(const struct cht_config *cfg, char *err, size_t len)),
    PIN(cht_ops, destroy, 48, void (*)(void *t)),
    PIN(cht_ops, thread_init, 56, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, thread_exit, 64, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, get, 72, bool (*)(void *t, uint64_t k, uint64_t *v)),
    PIN(cht_ops, insert, 80, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, remove, 88, bool (*)(void *t, uint64_t k)),
    PIN(cht_ops, update, 96, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, size, 104, size_t (*)(void *t)),
    PIN(cht_ops, stats, 112, void (*)(void *t, struct cht_stats *s)),
    PIN(cht_ops, get_batch, 120, void (*)(void *t, const uint64_t *keys, size_t n, uint64_t *vals, bool *found)),
    PIN(cht_ops, probe_lines, 128, unsigned (*)(void *t, uint64_t k)),
    PIN(cht_ops, default_lock, 136, const char *),
    PIN(cht_ops, pipe_start, 144, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),
    PIN(cht_ops, pipe_step, 152, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),

    SIZE(lock_config, 16, 4),
    PIN(lock_config, numa_nodes, 0, unsigned),
    PIN(lock_config, max_threads, 4, unsigned),
    PIN(lock_config, handoff_bound, 8, unsigned),
    PIN(lock_config, waiter_threshold, 12, unsigned),

    SIZE(lock_stats, 80, 8),
    PIN(lock_stats, acquisitions, 0, uint64_t),
    PIN(lock_stats, fallbacks, 8, uint64_t),
    PIN(lock_stats, tx_begins, 16, uint64_t),
    PIN(lock_stats, tx_commits, 24, uint64_t),
    PIN(lock_stats, tx_aborts, 32, uint64_t),
    PIN(lock_stats, abort_conflict, 40, uint64_t),
    PIN(lock_stats, abort_capacity, 48, uint64_t),
    PIN(lock_stats, abort_explicit, 56, uint64_t),
    PIN(lock_stats, abort_retry, 64, uint64_t),
    PIN(lock_stats, abort_other, 72, uint64_t),

    SIZE(lock_ops, 144, 8),
    PIN(lock_ops, name, 0, const char *),
    PIN(lock_ops, summary, 8, const char *),
    PIN(lock_ops, caps, 16, unsigned),
    PIN(lock_ops, lock_size, 24, size_t),
    PIN(lock_ops, ctx_size, 32, size_t),
    PIN(lock_ops, available, 40, bool (*)(char *why, size_t len)),
    PIN(lock_ops, init, 48, void (*)(void *lock, const struct lock_config *cfg)),
    PIN(lock_ops, destroy, 56, void (*)(void *lock)),
    PIN(lock_ops, ctx_init, 64, void (*)(void *ctx, unsigned tid, unsigned numa_node)),
    PIN(lock_ops, lock, 72, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, trylock, 80, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, unlock, 88, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_lock, 96, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_unlock, 104, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, stats, 112, void (*)(void *lock, struct lock_stats *s)),
    PIN(lock_ops, is_locked, 120, bool (*)(void *lock)),
    PIN(lock_ops, has_waiters, 128, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, ctx_stats, 136, void (*)(void *ctx, struct lock_stats *s)),

    SIZE(cht_abi_sizes, 36, 4),
    PIN(cht_abi_sizes, cht_ops, 0, uint32_t),
    PIN(cht_abi_sizes, cht_config, 4, uint32_t),
    PIN(cht_abi_sizes, cht_stats, 8, uint32_t),
    PIN(cht_abi_sizes, cht_pipe_op, 12, uint32_t),
    PIN(cht_abi_sizes, cht_option, 16, uint32_t),
    PIN(cht_abi_sizes, cht_option_spec, 20, uint32_t),
    PIN(cht_abi_sizes, lock_ops, 24, uint32_t),
    PIN(cht_abi_sizes, lock_config, 28, uint32_t),
    PIN(cht_abi_sizes, lock_stats, 32, uint32_t),

    SIZE(cht_plugin, 72, 8),
    PIN(cht_plugin, abi_version, 0, unsigned),
    PIN(cht_plugin, name, 8, const char *),
    PIN(cht_plugin, tables, 16, const struct cht_ops *const *),
    PIN(cht_plugin, locks, 24, const struct lock_ops *const *),
    PIN(cht_plugin, sizes, 32, struct cht_abi_sizes),
};

static const struct constant constants[] = {
    CONST(CHT_CAP_RESIZE, 1), CONST(CHT_CAP_UPDATE, 2), CONST(CHT_CAP_LOCK_PARAM, 4), CONST(CHT_CAP_NEEDS_RTM, 8),
    CONST(CHT_CAP_APPROXIMATE, 16), CONST(CHT_CAP_FIXED_CAP, 32), CONST(CHT_CAP_NO_DATA, 64),
    CONST(CHT_CAP_VALUE_OOL, 128),
    CONST(CHT_PIPE_GET, 0), CONST(CHT_PIPE_INSERT, 1), CONST(CHT_PIPE_REMOVE, 2), CONST(CHT_PIPE_UPDATE, 3),
    CONST(CHT_PIPE_AGAIN, -1), CONST(CHT_PIPE_POISON, INT32_MIN),
    CONST(CHT_KEY_MIN, 1), CONST(CHT_KEY_MAX, 1ll << 62),
    CONST(LOCK_CAP_TRYLOCK, 1), CONST(LOCK_CAP_RW, 2), CONST(LOCK_CAP_FIFO, 4), CONST(LOCK_CAP_NUMA, 8),
    CONST(LOCK_CAP_NEEDS_CTX, 16), CONST(LOCK_CAP_PARKS, 32), CONST(LOCK_CAP_RTM, 64),
    CONST(sizeof(cht_key_t), 8), CONST(sizeof(cht_val_t), 8),
};
#define PINNED 1
#elif CHT_ABI_VERSION == 5
/* 4 + the table-counter channel at the end of struct cht_stats */
static const struct pin pins[] = {
    SIZE(cht_option, 16, 8),
    PIN(cht_option, key, 0, const char *),
    PIN(cht_option, val, 8, const char *),

    SIZE(cht_option_spec, 16, 8),
    PIN(cht_option_spec, key, 0, const char *),
    PIN(cht_option_spec, help, 8, const char *),

    SIZE(cht_config, 80, 8),
    PIN(cht_config, initial, 0, size_t),
    PIN(cht_config, density, 8, double),
    PIN(cht_config, range, 16, uint64_t),
    PIN(cht_config, max_threads, 24, unsigned),
    PIN(cht_config, numa_nodes, 28, unsigned),
    PIN(cht_config, thread_node, 32, const unsigned *),
    PIN(cht_config, lock, 40, const struct lock_ops *),
    PIN(cht_config, lock_config, 48, const struct lock_config *),
    PIN(cht_config, options, 56, const struct cht_option *),
    PIN(cht_config, value_size, 64, size_t),
    PIN(cht_config, hugepages, 72, bool),

    SIZE(cht_stats, 96, 8),
    PIN(cht_stats, bytes, 0, size_t),
    PIN(cht_stats, buckets, 8, size_t),
    PIN(cht_stats, resizes, 16, uint64_t),
    PIN(cht_stats, full_failures, 24, uint64_t),
    PIN(cht_stats, alloc_failures, 32, uint64_t),
    PIN(cht_stats, tx_begins, 40, uint64_t),
    PIN(cht_stats, tx_commits, 48, uint64_t),
    PIN(cht_stats, tx_aborts, 56, uint64_t),
    PIN(cht_stats, tx_fallbacks, 64, uint64_t),
    PIN(cht_stats, fp_bits, 72, unsigned),
    PIN(cht_stats, fp_bucket_slots, 76, unsigned),
    PIN(cht_stats, counter, 80, void (*)(void *, const char *, double)),
    PIN(cht_stats, counter_ctx, 88, void *),

    SIZE(cht_pipe_op, 48, 8),
    PIN(cht_pipe_op, key, 0, uint64_t),
    PIN(cht_pipe_op, val, 8, uint64_t),
    PIN(cht_pipe_op, kind, 16, uint32_t),
    PIN(cht_pipe_op, stage, 20, uint32_t),
    PIN(cht_pipe_op, result, 24, int32_t),
    PIN(cht_pipe_op, pad, 28, uint32_t),
    PIN(cht_pipe_op, state, 32, uint64_t[2]),

    SIZE(cht_ops, 160, 8),
    PIN(cht_ops, name, 0, const char *),
    PIN(cht_ops, summary, 8, const char *),
    PIN(cht_ops, caps, 16, unsigned),
    PIN(cht_ops, options, 24, const struct cht_option_spec *),
    PIN(cht_ops, available, 32, bool (*)(char *why, size_t len)),
    PIN(cht_ops, create, 40, void *(*)(const struct cht_config *cfg, char *err, size_t len)),
    PIN(cht_ops, destroy, 48, void (*)(void *t)),
    PIN(cht_ops, thread_init, 56, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, thread_exit, 64, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, get, 72, bool (*)(void *t, uint64_t k, uint64_t *v)),
    PIN(cht_ops, insert, 80, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, remove, 88, bool (*)(void *t, uint64_t k)),
    PIN(cht_ops, update, 96, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, size, 104, size_t (*)(void *t)),
    PIN(cht_ops, stats, 112, void (*)(void *t, struct cht_stats *s)),
    PIN(cht_ops, get_batch, 120, void (*)(void *t, const uint64_t *keys, size_t n, uint64_t *vals, bool *found)),
    PIN(cht_ops, probe_lines, 128, unsigned (*)(void *t, uint64_t k)),
    PIN(cht_ops, default_lock, 136, const char *),
    PIN(cht_ops, pipe_start, 144, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),
    PIN(cht_ops, pipe_step, 152, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),

    SIZE(lock_config, 16, 4),
    PIN(lock_config, numa_nodes, 0, unsigned),
    PIN(lock_config, max_threads, 4, unsigned),
    PIN(lock_config, handoff_bound, 8, unsigned),
    PIN(lock_config, waiter_threshold, 12, unsigned),

    SIZE(lock_stats, 80, 8),
    PIN(lock_stats, acquisitions, 0, uint64_t),
    PIN(lock_stats, fallbacks, 8, uint64_t),
    PIN(lock_stats, tx_begins, 16, uint64_t),
    PIN(lock_stats, tx_commits, 24, uint64_t),
    PIN(lock_stats, tx_aborts, 32, uint64_t),
    PIN(lock_stats, abort_conflict, 40, uint64_t),
    PIN(lock_stats, abort_capacity, 48, uint64_t),
    PIN(lock_stats, abort_explicit, 56, uint64_t),
    PIN(lock_stats, abort_retry, 64, uint64_t),
    PIN(lock_stats, abort_other, 72, uint64_t),

    SIZE(lock_ops, 144, 8),
    PIN(lock_ops, name, 0, const char *),
    PIN(lock_ops, summary, 8, const char *),
    PIN(lock_ops, caps, 16, unsigned),
    PIN(lock_ops, lock_size, 24, size_t),
    PIN(lock_ops, ctx_size, 32, size_t),
    PIN(lock_ops, available, 40, bool (*)(char *why, size_t len)),
    PIN(lock_ops, init, 48, void (*)(void *lock, const struct lock_config *cfg)),
    PIN(lock_ops, destroy, 56, void (*)(void *lock)),
    PIN(lock_ops, ctx_init, 64, void (*)(void *ctx, unsigned tid, unsigned numa_node)),
    PIN(lock_ops, lock, 72, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, trylock, 80, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, unlock, 88, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_lock, 96, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_unlock, 104, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, stats, 112, void (*)(void *lock, struct lock_stats *s)),
    PIN(lock_ops, is_locked, 120, bool (*)(void *lock)),
    PIN(lock_ops, has_waiters, 128, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, ctx_stats, 136, void (*)(void *ctx, struct lock_stats *s)),

    SIZE(cht_abi_sizes, 36, 4),
    PIN(cht_abi_sizes, cht_ops, 0, uint32_t),
    PIN(cht_abi_sizes, cht_config, 4, uint32_t),
    PIN(cht_abi_sizes, cht_stats, 8, uint32_t),
    PIN(cht_abi_sizes, cht_pipe_op, 12, uint32_t),
    PIN(cht_abi_sizes, cht_option, 16, uint32_t),
    PIN(cht_abi_sizes, cht_option_spec, 20, uint32_t),
    PIN(cht_abi_sizes, lock_ops, 24, uint32_t),
    PIN(cht_abi_sizes, lock_config, 28, uint32_t),
    PIN(cht_abi_sizes, lock_stats, 32, uint32_t),

    SIZE(cht_plugin, 72, 8),
    PIN(cht_plugin, abi_version, 0, unsigned),
    PIN(cht_plugin, name, 8, const char *),
    PIN(cht_plugin, tables, 16, const struct cht_ops *const *),
    PIN(cht_plugin, locks, 24, const struct lock_ops *const *),
    PIN(cht_plugin, sizes, 32, struct cht_abi_sizes),
};

static const struct constant constants[] = {
    CONST(CHT_CAP_RESIZE, 1), CONST(CHT_CAP_UPDATE, 2), CONST(CHT_CAP_LOCK_PARAM, 4), CONST(CHT_CAP_NEEDS_RTM, 8),
    CONST(CHT_CAP_APPROXIMATE, 16), CONST(CHT_CAP_FIXED_CAP, 32), CONST(CHT_CAP_NO_DATA, 64),
    CONST(CHT_CAP_VALUE_OOL, 128),
    CONST(CHT_PIPE_GET, 0), CONST(CHT_PIPE_INSERT, 1), CONST(CHT_PIPE_REMOVE, 2), CONST(CHT_PIPE_UPDATE, 3),
    CONST(CHT_PIPE_AGAIN, -1), CONST(CHT_PIPE_POISON, INT32_MIN),
    CONST(CHT_KEY_MIN, 1), CONST(CHT_KEY_MAX, 1ll << 62),
    CONST(LOCK_CAP_TRYLOCK, 1), CONST(LOCK_CAP_RW, 2), CONST(LOCK_CAP_FIFO, 4), CONST(LOCK_CAP_NUMA, 8),
    CONST(LOCK_CAP_NEEDS_CTX, 16), CONST(LOCK_CAP_PARKS, 32), CONST(LOCK_CAP_RTM, 64),
    CONST(sizeof(cht_key_t), 8), CONST(sizeof(cht_val_t), 8),
    CONST(CHT_COUNTER_NAME_MAX, 48), CONST(CHT_COUNTERS_MAX, 32),
};
#define PINNED 1
#elif CHT_ABI_VERSION == 6
/* 5 + byte-string keys: four ops at the end of struct cht_ops, the key kind and lengths at the end of
 * struct cht_config (in the padding after hugepages and past it) */
static const struct pin pins[] = {
    SIZE(cht_option, 16, 8),
    PIN(cht_option, key, 0, const char *),
    PIN(cht_option, val, 8, const char *),

    SIZE(cht_option_spec, 16, 8),
    PIN(cht_option_spec, key, 0, const char *),
    PIN(cht_option_spec, help, 8, const char *),

    SIZE(cht_config, 88, 8),
    PIN(cht_config, initial, 0, size_t),
    PIN(cht_config, density, 8, double),
    PIN(cht_config, range, 16, uint64_t),
    PIN(cht_config, max_threads, 24, unsigned),
    PIN(cht_config, numa_nodes, 28, unsigned),
    PIN(cht_config, thread_node, 32, const unsigned *),
    PIN(cht_config, lock, 40, const struct lock_ops *),
    PIN(cht_config, lock_config, 48, const struct lock_config *),
    PIN(cht_config, options, 56, const struct cht_option *),
    PIN(cht_config, value_size, 64, size_t),
    PIN(cht_config, hugepages, 72, bool),
    PIN(cht_config, key_kind, 76, uint32_t),
    PIN(cht_config, key_len_min, 80, uint32_t),
    PIN(cht_config, key_len_max, 84, uint32_t),

    SIZE(cht_stats, 96, 8),
    PIN(cht_stats, bytes, 0, size_t),
    PIN(cht_stats, buckets, 8, size_t),
    PIN(cht_stats, resizes, 16, uint64_t),
    PIN(cht_stats, full_failures, 24, uint64_t),
    PIN(cht_stats, alloc_failures, 32, uint64_t),
    PIN(cht_stats, tx_begins, 40, uint64_t),
    PIN(cht_stats, tx_commits, 48, uint64_t),
    PIN(cht_stats, tx_aborts, 56, uint64_t),
    PIN(cht_stats, tx_fallbacks, 64, uint64_t),
    PIN(cht_stats, fp_bits, 72, unsigned),
    PIN(cht_stats, fp_bucket_slots, 76, unsigned),
    PIN(cht_stats, counter, 80, void (*)(void *, const char *, double)),
    PIN(cht_stats, counter_ctx, 88, void *),

    SIZE(cht_pipe_op, 48, 8),
    PIN(cht_pipe_op, key, 0, uint64_t),
    PIN(cht_pipe_op, val, 8, uint64_t),
    PIN(cht_pipe_op, kind, 16, uint32_t),
    PIN(cht_pipe_op, stage, 20, uint32_t),
    PIN(cht_pipe_op, result, 24, int32_t),
    PIN(cht_pipe_op, pad, 28, uint32_t),
    PIN(cht_pipe_op, state, 32, uint64_t[2]),

    SIZE(cht_ops, 192, 8),
    PIN(cht_ops, name, 0, const char *),
    PIN(cht_ops, summary, 8, const char *),
    PIN(cht_ops, caps, 16, unsigned),
    PIN(cht_ops, options, 24, const struct cht_option_spec *),
    PIN(cht_ops, available, 32, bool (*)(char *why, size_t len)),
    PIN(cht_ops, create, 40, void *(*)(const struct cht_config *cfg, char *err, size_t len)),
    PIN(cht_ops, destroy, 48, void (*)(void *t)),
    PIN(cht_ops, thread_init, 56, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, thread_exit, 64, void (*)(void *t, unsigned tid)),
    PIN(cht_ops, get, 72, bool (*)(void *t, uint64_t k, uint64_t *v)),
    PIN(cht_ops, insert, 80, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, remove, 88, bool (*)(void *t, uint64_t k)),
    PIN(cht_ops, update, 96, bool (*)(void *t, uint64_t k, uint64_t v)),
    PIN(cht_ops, size, 104, size_t (*)(void *t)),
    PIN(cht_ops, stats, 112, void (*)(void *t, struct cht_stats *s)),
    PIN(cht_ops, get_batch, 120, void (*)(void *t, const uint64_t *keys, size_t n, uint64_t *vals, bool *found)),
    PIN(cht_ops, probe_lines, 128, unsigned (*)(void *t, uint64_t k)),
    PIN(cht_ops, default_lock, 136, const char *),
    PIN(cht_ops, pipe_start, 144, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),
    PIN(cht_ops, pipe_step, 152, void (*)(void *t, struct cht_pipe_op *ops, unsigned n)),
    PIN(cht_ops, get_bytes, 160, bool (*)(void *t, const void *key, size_t len, uint64_t *v)),
    PIN(cht_ops, insert_bytes, 168, bool (*)(void *t, const void *key, size_t len, uint64_t v)),
    PIN(cht_ops, remove_bytes, 176, bool (*)(void *t, const void *key, size_t len)),
    PIN(cht_ops, update_bytes, 184, bool (*)(void *t, const void *key, size_t len, uint64_t v)),

    SIZE(lock_config, 16, 4),
    PIN(lock_config, numa_nodes, 0, unsigned),
    PIN(lock_config, max_threads, 4, unsigned),
    PIN(lock_config, handoff_bound, 8, unsigned),
    PIN(lock_config, waiter_threshold, 12, unsigned),

    SIZE(lock_stats, 80, 8),
    PIN(lock_stats, acquisitions, 0, uint64_t),
    PIN(lock_stats, fallbacks, 8, uint64_t),
    PIN(lock_stats, tx_begins, 16, uint64_t),
    PIN(lock_stats, tx_commits, 24, uint64_t),
    PIN(lock_stats, tx_aborts, 32, uint64_t),
    PIN(lock_stats, abort_conflict, 40, uint64_t),
    PIN(lock_stats, abort_capacity, 48, uint64_t),
    PIN(lock_stats, abort_explicit, 56, uint64_t),
    PIN(lock_stats, abort_retry, 64, uint64_t),
    PIN(lock_stats, abort_other, 72, uint64_t),

    SIZE(lock_ops, 144, 8),
    PIN(lock_ops, name, 0, const char *),
    PIN(lock_ops, summary, 8, const char *),
    PIN(lock_ops, caps, 16, unsigned),
    PIN(lock_ops, lock_size, 24, size_t),
    PIN(lock_ops, ctx_size, 32, size_t),
    PIN(lock_ops, available, 40, bool (*)(char *why, size_t len)),
    PIN(lock_ops, init, 48, void (*)(void *lock, const struct lock_config *cfg)),
    PIN(lock_ops, destroy, 56, void (*)(void *lock)),
    PIN(lock_ops, ctx_init, 64, void (*)(void *ctx, unsigned tid, unsigned numa_node)),
    PIN(lock_ops, lock, 72, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, trylock, 80, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, unlock, 88, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_lock, 96, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, read_unlock, 104, void (*)(void *lock, void *ctx)),
    PIN(lock_ops, stats, 112, void (*)(void *lock, struct lock_stats *s)),
    PIN(lock_ops, is_locked, 120, bool (*)(void *lock)),
    PIN(lock_ops, has_waiters, 128, bool (*)(void *lock, void *ctx)),
    PIN(lock_ops, ctx_stats, 136, void (*)(void *ctx, struct lock_stats *s)),

    SIZE(cht_abi_sizes, 36, 4),
    PIN(cht_abi_sizes, cht_ops, 0, uint32_t),
    PIN(cht_abi_sizes, cht_config, 4, uint32_t),
    PIN(cht_abi_sizes, cht_stats, 8, uint32_t),
    PIN(cht_abi_sizes, cht_pipe_op, 12, uint32_t),
    PIN(cht_abi_sizes, cht_option, 16, uint32_t),
    PIN(cht_abi_sizes, cht_option_spec, 20, uint32_t),
    PIN(cht_abi_sizes, lock_ops, 24, uint32_t),
    PIN(cht_abi_sizes, lock_config, 28, uint32_t),
    PIN(cht_abi_sizes, lock_stats, 32, uint32_t),

    SIZE(cht_plugin, 72, 8),
    PIN(cht_plugin, abi_version, 0, unsigned),
    PIN(cht_plugin, name, 8, const char *),
    PIN(cht_plugin, tables, 16, const struct cht_ops *const *),
    PIN(cht_plugin, locks, 24, const struct lock_ops *const *),
    PIN(cht_plugin, sizes, 32, struct cht_abi_sizes),
};

static const struct constant constants[] = {
    CONST(CHT_CAP_RESIZE, 1), CONST(CHT_CAP_UPDATE, 2), CONST(CHT_CAP_LOCK_PARAM, 4), CONST(CHT_CAP_NEEDS_RTM, 8),
    CONST(CHT_CAP_APPROXIMATE, 16), CONST(CHT_CAP_FIXED_CAP, 32), CONST(CHT_CAP_NO_DATA, 64),
    CONST(CHT_CAP_VALUE_OOL, 128), CONST(CHT_CAP_BYTE_KEYS, 256), CONST(CHT_KEYS_U64, 0), CONST(CHT_KEYS_BYTES, 1),
    CONST(CHT_PIPE_GET, 0), CONST(CHT_PIPE_INSERT, 1), CONST(CHT_PIPE_REMOVE, 2), CONST(CHT_PIPE_UPDATE, 3),
    CONST(CHT_PIPE_AGAIN, -1), CONST(CHT_PIPE_POISON, INT32_MIN),
    CONST(CHT_KEY_MIN, 1), CONST(CHT_KEY_MAX, 1ll << 62),
    CONST(LOCK_CAP_TRYLOCK, 1), CONST(LOCK_CAP_RW, 2), CONST(LOCK_CAP_FIFO, 4), CONST(LOCK_CAP_NUMA, 8),
    CONST(LOCK_CAP_NEEDS_CTX, 16), CONST(LOCK_CAP_PARKS, 32), CONST(LOCK_CAP_RTM, 64),
    CONST(sizeof(cht_key_t), 8), CONST(sizeof(cht_val_t), 8),
    CONST(CHT_COUNTER_NAME_MAX, 48), CONST(CHT_COUNTERS_MAX, 32),
};
#define PINNED 1
#endif

int main(void)
{
#if !defined(__LP64__)
    printf("SKIP: the layouts are pinned for LP64 targets\n");
    return 77;
#elif !defined(PINNED)
    printf("FAIL: no layout pinned for CHT_ABI_VERSION %u: pin its structs in tests/test_abi_layout.c "
           "(keep the earlier versions' tables)\n", CHT_ABI_VERSION);
    return 1;
#else
    unsigned failures = 0, checked = 0;
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++, checked++) {
        const struct pin *p = &pins[i];
        if (!p->member && (p->got != p->want || p->got_align != p->want_align)) {
            printf("FAIL struct %s: %zu bytes aligned to %zu, pinned for CHT_ABI_VERSION %u: %zu aligned to %zu\n",
                   p->strukt, p->got, p->got_align, CHT_ABI_VERSION, p->want, p->want_align);
            failures++;
        } else if (p->member && (p->got != p->want || !p->type_ok)) {
            printf("FAIL struct %s: member %s at offset %zu%s, pinned for CHT_ABI_VERSION %u: offset %zu%s\n",
                   p->strukt, p->member, p->got, p->type_ok ? "" : " with another type", CHT_ABI_VERSION, p->want,
                   p->type_ok ? "" : " and the pinned type");
            failures++;
        }
    }
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++, checked++)
        if (constants[i].got != constants[i].want) {
            printf("FAIL %s is %lld, pinned for CHT_ABI_VERSION %u: %lld\n", constants[i].name, constants[i].got,
                   CHT_ABI_VERSION, constants[i].want);
            failures++;
        }
    if (failures)
        printf("%u of %u pins differ: a change to the plugin ABI needs a new CHT_ABI_VERSION and its own pinned "
               "table here (docs/plugins.md)\n", failures, checked);
    else
        printf("ok: %u pins of CHT_ABI_VERSION %u\n", checked, CHT_ABI_VERSION);
    return failures != 0;
#endif
}
