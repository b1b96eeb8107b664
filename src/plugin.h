/* plugin.h - tables and locks from shared objects loaded at run time
 * (include/cht_plugin.h, docs/plugins.md). */
#ifndef CHT_PLUGIN_LOADER_H
#define CHT_PLUGIN_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include "registry.h"

/* Loads one plugin and adds its tables and locks to the registry. `source`
 * names where the path came from ("--plugin", "CHTBENCH_PLUGINS") for the
 * message. Returns 0 (also for a file already loaded: a no-op), or -1 with
 * err set to one line "SOURCE PATH: reason": the caller stops (exit 2). A
 * refused plugin adds nothing to the registry, except when the registry
 * fills up midway (more than 128 plugin tables or locks). */
int plugin_load(const char *path, const char *source, char *err, size_t len);

/* Loads CHTBENCH_PLUGINS (colon separated), then every --plugin PATH and
 * --plugin=PATH of argv (up to "--"), before the command line is parsed.
 * Returns 0, or prints "chtbench: ..." and returns EXIT_USAGE. */
int plugin_load_all(int argc, char **argv);

/* true if arg (the very string of argv) was loaded by plugin_load_all: the command line
 * refuses a --plugin spelling the scan did not see (an abbreviation). */
bool plugin_arg_loaded(const char *arg);

/* The loaded plugins, in load order; NULL past the end. */
const struct registry_plugin *plugin_at(unsigned i);

/* sha256 of the file at path as 64 hex digits + NUL; -1 (errno set) when it cannot be read. */
int plugin_sha256_file(const char *path, char hex[65]);

#endif
