/*
 * shim.c - the C side of chtbench's Go maps plugin (plugins/go; maps.go has the Go side).
 *
 * cgo compiles this file into the c-shared library. It exports cht_plugin() and lays out
 * struct cht_plugin and the two struct cht_ops with designated initializers (a member the ABI
 * appends is one more line here); every op is a direct call of one exported Go function
 * (_cgo_export.h). The table pointer the driver holds is the Go side's handle (slot + 1), not a
 * pointer: C never holds Go memory.
 *
 * Runtime settings: GOMAXPROCS and GOGC are process-wide. The row has no column for a table's
 * parameters, so the summaries (--list) say what was in force when the plugin loaded (from the
 * environment's GOMAXPROCS/GOGC or Go's defaults), and the options gomaxprocs=N and gogc=N|off set
 * them for one table (until its destroy), which puts them into the row's `options` column.
 */
#include "cht.h"
#include "cht_plugin.h"
#include "_cgo_export.h"

#include <pthread.h>

enum { KIND_SYNC = 0, KIND_XSYNC = 1 };

static const struct cht_option_spec go_options[] = {
    { "gomaxprocs", "1..1024: runtime.GOMAXPROCS while the table lives (default: as loaded, see the summary)" },
    { "gogc", "0..1000000|off: debug.SetGCPercent while the table lives (default: as loaded, see the summary)" },
    { NULL, NULL },
};

static void *go_create(int kind, const char *name, const struct cht_config *cfg, char *err, size_t len)
{
    if (cfg->value_size > 8) {
        snprintf(err, len, "--table %s: values of %zu bytes: only 8-byte values", name, cfg->value_size);
        return NULL;
    }
    uint64_t procs = 0, gogc = 0;
    int gc_set = 0;
    if (!cht_option_uint(cfg->options, name, "gomaxprocs", 1, 1024, &procs, err, len))
        return NULL;
    const char *g = cht_option_get(cfg->options, "gogc");
    if (g && strcmp(g, "off") == 0) {
        gogc = (uint64_t)-1;
        gc_set = 1;
    } else if (g) {
        if (!cht_option_uint(cfg->options, name, "gogc", 0, 1000000, &gogc, err, len)) {
            size_t n = strlen(err);
            snprintf(err + n, len - n, " or off");
            return NULL;
        }
        gc_set = 1;
    }
    double cap = (double)cfg->initial;
    if (cfg->density > 1.0)
        cap /= cfg->density;   /* "tiny start": fuller than the map can be, so it must grow */
    uintptr_t h = chtGoCreate(kind, (uint64_t)cap, (int)procs, gc_set ? (int)(int64_t)gogc : 0, gc_set);
    if (!h) {
        snprintf(err, len, "--table %s: too many tables alive at once", name);
        return NULL;
    }
    return (void *)h;
}

#define H(t) ((uintptr_t)(t))

/* ---- go-syncmap ---- */
static void *sync_create(const struct cht_config *cfg, char *err, size_t len)
{
    return go_create(KIND_SYNC, "go-syncmap", cfg, err, len);
}
static void sync_destroy(void *t) { chtGoDestroy(KIND_SYNC, H(t)); }
static bool sync_get(void *t, cht_key_t k, cht_val_t *v) { return chtGoSyncGet(H(t), k, v); }
static bool sync_insert(void *t, cht_key_t k, cht_val_t v) { return chtGoSyncInsert(H(t), k, v); }
static bool sync_remove(void *t, cht_key_t k) { return chtGoSyncRemove(H(t), k); }
static bool sync_update(void *t, cht_key_t k, cht_val_t v) { return chtGoSyncUpdate(H(t), k, v); }
static size_t sync_size(void *t) { return chtGoSyncSize(H(t)); }

/* ---- go-xsync ---- */
static void *xsync_create(const struct cht_config *cfg, char *err, size_t len)
{
    return go_create(KIND_XSYNC, "go-xsync", cfg, err, len);
}
static void xsync_destroy(void *t) { chtGoDestroy(KIND_XSYNC, H(t)); }
static bool xsync_get(void *t, cht_key_t k, cht_val_t *v) { return chtGoXsyncGet(H(t), k, v); }
static bool xsync_insert(void *t, cht_key_t k, cht_val_t v) { return chtGoXsyncInsert(H(t), k, v); }
static bool xsync_remove(void *t, cht_key_t k) { return chtGoXsyncRemove(H(t), k); }
static bool xsync_update(void *t, cht_key_t k, cht_val_t v) { return chtGoXsyncUpdate(H(t), k, v); }
static size_t xsync_size(void *t) { return chtGoXsyncSize(H(t)); }
static void xsync_stats(void *t, struct cht_stats *s)
{
    uint64_t bytes = 0, buckets = 0, resizes = 0;
    chtGoXsyncStats(H(t), &bytes, &buckets, &resizes);
    s->bytes = (size_t)bytes;
    s->buckets = (size_t)buckets;
    s->resizes = resizes;
}

/* filled once by cht_plugin(), before chtbench reads them */
static char sync_summary[256], xsync_summary[256];

static const struct cht_ops go_syncmap = {
    .name = "go-syncmap",
    .summary = sync_summary,
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = go_options,
    .create = sync_create,
    .destroy = sync_destroy,
    .get = sync_get,
    .insert = sync_insert,
    .remove = sync_remove,
    .update = sync_update,
    .size = sync_size,
};

static const struct cht_ops go_xsync = {
    .name = "go-xsync",
    .summary = xsync_summary,
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = go_options,
    .create = xsync_create,
    .destroy = xsync_destroy,
    .get = xsync_get,
    .insert = xsync_insert,
    .remove = xsync_remove,
    .update = xsync_update,
    .size = xsync_size,
    .stats = xsync_stats,
};

static const struct cht_ops *const go_tables[] = { &go_syncmap, &go_xsync, NULL };

static const struct cht_plugin go_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "go",
    .tables = go_tables,
    .locks = NULL,
    .sizes = CHT_ABI_SIZES,
};

static void fill_summaries(void)
{
    char ver[64], gc[32];
    chtGoVersion(ver, sizeof ver);
    int procs = chtGoGOMAXPROCS(), gogc = chtGoGOGC();
    if (gogc < 0)
        snprintf(gc, sizeof gc, "off");
    else
        snprintf(gc, sizeof gc, "%d", gogc);
    snprintf(sync_summary, sizeof sync_summary,
             "Go %s sync.Map (hash-trie; boxed keys/values), a cgo call per op; GOMAXPROCS=%d GOGC=%s at load",
             ver, procs, gc);
    snprintf(xsync_summary, sizeof xsync_summary,
             "Go %s xsync v4.5.0 Map[uint64,uint64] (CLHT-style buckets), a cgo call per op; GOMAXPROCS=%d GOGC=%s at load",
             ver, procs, gc);
}

const struct cht_plugin *cht_plugin(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_summaries);
    return &go_plugin;
}
