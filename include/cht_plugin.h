/*
 * cht_plugin.h - tables and locks from a shared object loaded at run time.
 *
 * A plugin exports one C function, cht_plugin(), returning a description
 * that lives as long as the object is loaded. chtbench loads it with
 * `--plugin PATH` (or CHTBENCH_PLUGINS=PATH:PATH) before the command line is
 * validated; its tables and locks then behave exactly like built-in ones.
 * Refused: another CHT_ABI_VERSION, a name that already exists, an ops
 * struct with a required member NULL. Guide: docs/plugins.md.
 */
#ifndef CHT_PLUGIN_H
#define CHT_PLUGIN_H

#include "cht.h"
#include "lock.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cht_plugin {
    unsigned abi_version;                 /* CHT_ABI_VERSION the plugin was built against */
    const char *name;                     /* short plugin name, e.g. "rust" */
    const struct cht_ops *const *tables;  /* NULL-terminated; may be NULL */
    const struct lock_ops *const *locks;  /* NULL-terminated; may be NULL */
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
