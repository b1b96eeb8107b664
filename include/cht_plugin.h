/*
 * cht_plugin.h - tables and locks from a shared object loaded at run time.
 *
 * A plugin exports one C function, cht_plugin(), returning a description
 * that lives as long as the object is loaded. chtbench loads it with
 * `--plugin PATH` (or CHTBENCH_PLUGINS=PATH:PATH) before the command line is
 * validated; its tables and locks then behave exactly like built-in ones.
 * Refused: another CHT_ABI_VERSION, a shared struct whose size differs from
 * this chtbench's (cht_plugin.sizes, set it with CHT_ABI_SIZES), a name that
 * already exists, an ops struct with a required member NULL.
 * Guide: docs/plugins.md.
 */
#ifndef CHT_PLUGIN_H
#define CHT_PLUGIN_H

#include "cht.h"
#include "lock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The size of every struct the plugin shares with chtbench, as the plugin's
 * compiler laid it out. The loader compares each with its own and refuses a
 * plugin whose headers differ (a struct grown without a CHT_ABI_VERSION bump,
 * headers edited by hand, another language's mirror gone stale) before
 * reading any ops struct. */
struct cht_abi_sizes {
    uint32_t cht_ops, cht_config, cht_stats, cht_pipe_op, cht_option, cht_option_spec;
    uint32_t lock_ops, lock_config, lock_stats;
};

/* Initialises cht_plugin.sizes: .sizes = CHT_ABI_SIZES */
#define CHT_ABI_SIZES                                                                        \
    {                                                                                        \
        .cht_ops = sizeof(struct cht_ops), .cht_config = sizeof(struct cht_config),          \
        .cht_stats = sizeof(struct cht_stats), .cht_pipe_op = sizeof(struct cht_pipe_op),    \
        .cht_option = sizeof(struct cht_option),                                             \
        .cht_option_spec = sizeof(struct cht_option_spec),                                   \
        .lock_ops = sizeof(struct lock_ops), .lock_config = sizeof(struct lock_config),      \
        .lock_stats = sizeof(struct lock_stats),                                             \
    }

struct cht_plugin {
    unsigned abi_version;                 /* CHT_ABI_VERSION the plugin was built against */
    const char *name;                     /* short plugin name, e.g. "rust" */
    const struct cht_ops *const *tables;  /* NULL-terminated; may be NULL */
    const struct lock_ops *const *locks;  /* NULL-terminated; may be NULL */
    struct cht_abi_sizes sizes;           /* CHT_ABI_SIZES (since version 4) */
    /* later ABI versions may append members here */
};

/* The one symbol a plugin exports. */
#define CHT_PLUGIN_SYMBOL "cht_plugin"
typedef const struct cht_plugin *(*cht_plugin_fn)(void);

#if defined(__GNUC__)
#define CHT_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CHT_PLUGIN_EXPORT
#endif

/* What a plugin defines (declared here so plugins build clean under -Wmissing-prototypes). */
CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void);

#ifdef __cplusplus
}
#endif
#endif /* CHT_PLUGIN_H */
