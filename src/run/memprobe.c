/* run/memprobe.c - before any run, the table's bytes per key measured with a
 * small table, against the memory left; with --initial-capacity, that the
 * table grows from that size. */
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner.h"
#include "team.h"
#include "registry.h"

/* ---------------- memory estimate before a run (docs/cli.md "The run", step 1) ---------------- */

struct probe {
    const struct cht_ops *ops;
    void *table;
    uint64_t n;
    size_t bytes;
    bool full;
};

static void *probe_main(void *arg)
{
    struct probe *pr = arg;
    if (pr->ops->thread_init)
        pr->ops->thread_init(pr->table, 0);
    for (uint64_t k = 1; k <= pr->n; k++)
        if (!pr->ops->insert(pr->table, k * 0x9e3779b97f4a7c15ull % CHT_KEY_MAX + 1, k))
            pr->full = true;
    if (pr->ops->stats) {
        struct cht_stats st = { 0 };
        pr->ops->stats(pr->table, &st);
        pr->bytes = st.bytes;
    }
    if (pr->ops->thread_exit)
        pr->ops->thread_exit(pr->table, 0);
    return NULL;
}

/* "KEY: N kB" of a /proc file, in bytes; 0 when absent */
static uint64_t proc_bytes(const char *path, const char *key)
{
    uint64_t bytes = 0;
    size_t kl = strlen(key);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':')
            bytes = strtoull(line + kl + 1, NULL, 10) * 1024ull;
    fclose(f);
    return bytes;
}

/* Bytes the process may still use: MemAvailable, and the address-space
 * limit (ulimit -v) less what is mapped already. */
static uint64_t memory_headroom(const char **which)
{
    uint64_t avail = proc_bytes("/proc/meminfo", "MemAvailable");
    *which = "MemAvailable";
    if (!avail)
        avail = UINT64_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        uint64_t mapped = proc_bytes("/proc/self/status", "VmSize");
        uint64_t room = rl.rlim_cur > mapped ? rl.rlim_cur - mapped : 0;
        if (room < avail) {
            avail = room;
            *which = "the address-space limit (ulimit -v)";
        }
    }
    return avail;
}

#define PROBE_KEYS (1u << 16)
#define GROW_PROBE_KEYS 4096u

/* --initial-capacity / --grow: a table whose options keep it from growing (cuckoo:resize=0) is
 * refused before any run, as a fixed-capacity one is by the command line's checks: created at the
 * capacity asked, it must take min(initial, 4096) fresh keys. 0, or -2 with err set. */
static int check_growth(const struct bench_config *cfg, const struct table_choice *t, char *err, size_t len)
{
    const struct cht_ops *ops = t->ops;
    uint64_t n = cfg->initial < GROW_PROBE_KEYS ? cfg->initial : GROW_PROBE_KEYS;
    if (!cfg->initial_capacity || cfg->initial_capacity >= n || (ops->caps & CHT_CAP_NO_DATA))
        return 0;
    struct cht_config tc = { .initial = cfg->initial_capacity, .density = cfg->density, .range = 2 * n,
                             .max_threads = 1, .numa_nodes = 1, .value_size = cfg->value_size,
                             .hugepages = cfg->hugepages };
    registry_apply_choice(t, &tc);
    char cerr[256] = "";
    struct probe pr = { .ops = ops, .n = n };
    if (!(pr.table = ops->create(&tc, cerr, sizeof cerr))) {
        snprintf(err, len, "--initial-capacity %llu: table %s cannot be created at that size: %s",
                 (unsigned long long)cfg->initial_capacity, ops->name, cerr[0] ? cerr : "unknown error");
        return -2;
    }
    pthread_t th;
    int sp = team_spawn_blocked(&th, probe_main, &pr);
    if (sp == 0)
        pthread_join(th, NULL);
    ops->destroy(pr.table);
    if (sp == 0 && pr.full) {
        snprintf(err, len, "--initial-capacity %llu%s: table %s%s%s does not grow (with these options): created for "
                 "%llu keys it refused one of %llu fresh keys", (unsigned long long)cfg->initial_capacity,
                 cfg->initial_capacity == 1 ? " (--grow)" : "", ops->name,
                 t->options_text[0] ? ":" : "", t->options_text, (unsigned long long)cfg->initial_capacity,
                 (unsigned long long)n);
        return -2;
    }
    return 0;
}

int runner_check_memory(const struct bench_config *cfg, const struct table_choice *t, char *err, size_t len)
{
    const struct cht_ops *ops = t->ops;
    int grc = check_growth(cfg, t, err, len);
    if (grc)
        return grc;
    if (cfg->initial <= PROBE_KEYS || !ops->stats || (ops->caps & CHT_CAP_NO_DATA))
        return 0;
    struct cht_config tc = { .initial = PROBE_KEYS, .density = cfg->density, .range = 2 * PROBE_KEYS,
                             .max_threads = 1, .numa_nodes = 1, .value_size = cfg->value_size,
                             .hugepages = cfg->hugepages };
    registry_apply_choice(t, &tc);
    char cerr[256] = "";
    struct probe pr = { .ops = ops, .n = PROBE_KEYS };
    pr.table = ops->create(&tc, cerr, sizeof cerr);
    if (!pr.table) {
        snprintf(err, len, "--table %s: cannot create a %u-key table to measure its memory: %s", ops->name,
                 PROBE_KEYS, cerr[0] ? cerr : "unknown error");
        return -1;
    }
    pthread_t th;
    int sp = team_spawn_blocked(&th, probe_main, &pr);
    if (sp == 0)
        pthread_join(th, NULL);
    ops->destroy(pr.table);
    if (sp != 0) {   /* no thread, no estimate: say so rather than run unchecked into the limit */
        const char *which;
        uint64_t room = memory_headroom(&which);
        snprintf(err, len, "--initial %llu: cannot start a thread to measure table %s's memory (%s; %.1f GiB left "
                 "under %s)", (unsigned long long)cfg->initial, ops->name, strerror(sp), (double)room / (1 << 30),
                 which);
        return -1;
    }
    if (!pr.bytes || pr.full)
        return 0;
    double per_key = (double)pr.bytes / PROBE_KEYS, need = per_key * (double)cfg->initial;
    const char *which;
    uint64_t room = memory_headroom(&which);
    if (need <= (double)room)
        return 0;
    snprintf(err, len,
             "--initial %llu: table %s needs about %.1f GiB (%.0f bytes/key, measured with %u keys at --density %g), "
             "more than the %.1f GiB of %s: lower --initial",
             (unsigned long long)cfg->initial, ops->name, need / (1 << 30), per_key, PROBE_KEYS, cfg->density,
             (double)room / (1 << 30), which);
    return -1;
}
