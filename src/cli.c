/*
 * cli.c - chtbench's command line. Every bad value is one line on stderr
 * naming the flag and what it accepts, and exit code 2 (docs/design.md "One run",
 * step 1); validation is complete before anything runs or is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "alloc.h"
#include "cli.h"
#include "util.h"
#include "plugin.h"

enum {
    OPT_INSERT = 256, OPT_REMOVE, OPT_OPS, OPT_DENSITY, OPT_DIST, OPT_SEED, OPT_PREFILL, OPT_MEM,
    OPT_TOPOLOGY, OPT_PRINT_PINNING, OPT_CSV, OPT_JSON, OPT_LIST,
    OPT_LATENCY, OPT_LATENCY_CSV, OPT_COUNTERS, OPT_LIKWID_MARKER, OPT_TIMELINE, OPT_TIMELINE_CSV,
    OPT_BENCH, OPT_LOCK, OPT_CS, OPT_NCS, OPT_RCS, OPT_WCS, OPT_WRITE, OPT_HANDOFF, OPT_WAITERS,
    OPT_VERIFY, OPT_WARMUP, OPT_KEYBUF, OPT_WORKLOAD, OPT_TRACE, OPT_SIZE, OPT_CEILING, OPT_BATCH, OPT_HUGEPAGES, OPT_SLOTS, OPT_LOAD,
    OPT_VALUE_SIZE, OPT_KEYS, OPT_VALIDATE, OPT_ALLOCATOR,
    OPT_PLUGIN,
    OPT_SCHEMA,
    OPT_PIPELINE,
};

const char *cli_schema_name;

static const struct option long_options[] = {
    { "table", required_argument, NULL, 't' },
    { "threads", required_argument, NULL, 'n' },
    { "update", required_argument, NULL, 'u' },
    { "insert", required_argument, NULL, OPT_INSERT },
    { "remove", required_argument, NULL, OPT_REMOVE },
    { "initial", required_argument, NULL, 'i' },
    { "range", required_argument, NULL, 'r' },
    { "duration", required_argument, NULL, 'd' },
    { "ops", required_argument, NULL, OPT_OPS },
    { "reps", required_argument, NULL, 'R' },
    { "density", required_argument, NULL, OPT_DENSITY },
    { "dist", required_argument, NULL, OPT_DIST },
    { "seed", required_argument, NULL, OPT_SEED },
    { "prefill", required_argument, NULL, OPT_PREFILL },
    { "pin", required_argument, NULL, 'p' },
    { "mem", required_argument, NULL, OPT_MEM },
    { "topology", required_argument, NULL, OPT_TOPOLOGY },
    { "print-pinning", no_argument, NULL, OPT_PRINT_PINNING },
    { "csv", required_argument, NULL, OPT_CSV },
    { "json", no_argument, NULL, OPT_JSON },
    { "list", optional_argument, NULL, OPT_LIST },
    { "latency", optional_argument, NULL, OPT_LATENCY },
    { "latency-csv", required_argument, NULL, OPT_LATENCY_CSV },
    { "counters", required_argument, NULL, OPT_COUNTERS },
    { "likwid-marker", no_argument, NULL, OPT_LIKWID_MARKER },
    { "timeline", required_argument, NULL, OPT_TIMELINE },
    { "timeline-csv", required_argument, NULL, OPT_TIMELINE_CSV },
    { "bench", required_argument, NULL, OPT_BENCH },
    { "lock", required_argument, NULL, OPT_LOCK },
    { "cs", required_argument, NULL, OPT_CS },
    { "ncs", required_argument, NULL, OPT_NCS },
    { "rcs", required_argument, NULL, OPT_RCS },
    { "wcs", required_argument, NULL, OPT_WCS },
    { "write", required_argument, NULL, OPT_WRITE },
    { "handoff", required_argument, NULL, OPT_HANDOFF },
    { "waiters", required_argument, NULL, OPT_WAITERS },
    { "verify", required_argument, NULL, OPT_VERIFY },
    { "warmup", required_argument, NULL, OPT_WARMUP },
    { "keybuf", required_argument, NULL, OPT_KEYBUF },
    { "workload", required_argument, NULL, OPT_WORKLOAD },
    { "trace", required_argument, NULL, OPT_TRACE },
    { "size", required_argument, NULL, OPT_SIZE },
    { "ceiling", no_argument, NULL, OPT_CEILING },
    { "batch", required_argument, NULL, OPT_BATCH },
    { "pipeline", required_argument, NULL, OPT_PIPELINE },
    { "hugepages", required_argument, NULL, OPT_HUGEPAGES },
    { "keys", required_argument, NULL, OPT_KEYS },
    { "slots", required_argument, NULL, OPT_SLOTS },
    { "load", required_argument, NULL, OPT_LOAD },
    { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
    { "validate", no_argument, NULL, OPT_VALIDATE },
    { "plugin", required_argument, NULL, OPT_PLUGIN },
    { "allocator", required_argument, NULL, OPT_ALLOCATOR },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "schema", optional_argument, NULL, OPT_SCHEMA },
    { NULL, 0, NULL, 0 },
};

void cli_usage(FILE *f)
{
    fputs(
"usage: chtbench [options]\n"
"Runs the CHTBench loop: n threads, u% updates (half insert, half remove),\n"
"i prefilled keys from the range [1, r], for d ms; prints a summary, appends CSV.\n"
"\n"
"  -t, --table LIST        tables, comma separated, each NAME or NAME:key=val,...\n"
"                          (see --list; e.g. clht-lb,locked:lock=pthread-spin)\n"
"  -n, --threads LIST      thread counts: 1,2,4 or 1-8 or 1,2,4-8 (default 1)\n"
"  -u, --update PCT        update percentage 0..100 (default 10), split evenly\n"
"      --insert PCT        insert percentage (uneven split; with --remove)\n"
"      --remove PCT        remove percentage\n"
"  -i, --initial SIZE      keys prefilled, at most 2^38 (default 1M); SIZE: 1000, 64K, 1M, 2^20\n"
"  -r, --range SIZE        keys drawn from [1, r] (default 2*initial)\n"
"  -d, --duration MS       timed phase in ms (default 1000)\n"
"      --ops N             instead: each thread does exactly N operations\n"
"  -R, --reps N            repetitions on fresh tables (default 1)\n"
"      --density D         initial / slot capacity, 0 < D <= 64 (default 0.5)\n"
"      --dist SPEC         uniform | zipf:THETA[,scramble] (default uniform)\n"
"      --keys LAYOUT       dense: keys 1..r | sparse: the same keys spread over 61 bits\n"
"                          by a fixed bijection, off the clock (default dense)\n"
"      --seed N            seed of all key streams (default 1)\n"
"      --prefill MODE      single | parallel (default parallel)\n"
"  -p, --pin POLICY        default | compact | balanced | list:0,2,4-7 (default default)\n"
"      --mem POLICY        local | interleave | node:N (libnuma; default local)\n"
"      --topology SPEC     hwloc synthetic (\"pack:2 core:8 pu:2\") or XML file;\n"
"                          with --print-pinning only\n"
"      --print-pinning     print the plan (thread pu core socket numa) and exit\n"
"      --warmup MS         uncounted operations after the start, before timing (default 100)\n"
"      --keybuf N          ops drawn before the run (all but hotspot), N per thread\n"
"                          (power of two; 0 = in the loop; default auto, see docs/cli.md)\n"
"      --verify MODE       final check: full | sample | off (default: full when the\n"
"                          range is at most 2^24 keys, else a 2^20-key sample)\n"
"      --workload W        ycsb-a|ycsb-b|ycsb-c|ycsb-d|ycsb-f: YCSB's op mix, r = i,\n"
"                          scrambled zipf:0.99 unless --dist (docs/cli.md \"Workloads\")\n"
"      --trace FILE        replay a recorded trace ('OP KEY' lines or binary; each thread\n"
"                          its share; the run ends when it is consumed)\n"
"      --csv FILE          append one row per (table, threads, rep) to FILE ('-': stdout)\n"
"      --json              print one JSON record per run on stdout\n"
"      --latency[=EVERY]   time one op in EVERY with the TSC (default 512; 1 = all)\n"
"      --latency-csv FILE  append per-store log2 latency histograms to FILE\n"
"      --counters SPEC     PAPI counters per op: cache | tlb | ipc | EVENT,EVENT...\n"
"      --likwid-marker     likwid marker regions 'prefill' and 'run' (likwid-perfctr -m)\n"
"      --timeline MS       sample throughput every MS ms (with --timeline-csv FILE)\n"
"      --timeline-csv FILE append the time series to FILE\n"
"      --list[=locks]      list tables (or locks): source, options, availability\n"
"      --lock NAME         without --bench: lock=NAME for every table taking a lock\n"
"Lock-only benchmarks (no table; docs/cli.md \"Lock benchmarks\"):\n"
"      --bench KIND        mutex (shared counters) | rwlock (RWBench, 64-int array) |\n"
"                          memory (pointer-chase latency and MLP per --size; docs/cli.md)\n"
"      --size LIST         --bench memory: working sets (default 16K..256M); -d: ms per point\n"
"      --bench occupancy   fill fixed-capacity --table(s) to each --load of --slots N: hit/miss\n"
"                          gets and insert rate per load, max load (--ops: gets per phase)\n"
"      --ceiling           add ceiling_mops/ceiling_frac: the machine's miss rate at the table's size\n"
"      --batch B           gets in batches of B (1..64) through the table's get_batch (default 1)\n"
"      --pipeline W|auto   keep W ops (0..64, 0: off) in flight per thread: prefetch on entry, run\n"
"                          W-1 draws later (tables with a prefetch hook; default 0)\n"
"      --hugepages MODE    off | thp: transparent huge pages for every table's memory (default off)\n"
"      --allocator NAME    system | jemalloc | mimalloc | tcmalloc: malloc for the whole run,\n"
"                          preloaded by re-executing, checked in the process (default: as built)\n"
"      --value-size BYTES  value bytes 8..1M (default 8); over 8: stored out of line, replaced on\n"
"                          update (tables with that capability only; docs/cli.md \"Value size\")\n"
"      --lock LIST         locks to benchmark, comma separated (see --list=locks)\n"
"      --cs N              mutex: work units inside the critical section (default 4)\n"
"      --ncs N             work units outside it (default 32)\n"
"      --write PCT         rwlock: write iterations, percent (default 10)\n"
"      --rcs N, --wcs N    rwlock: read work units / write pairs (default 4, 4)\n"
"      --handoff N         lock_config.handoff_bound of cohort locks (default 64); also\n"
"                          the locks a table takes (lock=NAME, --lock)\n"
"      --waiters T         lock_config.waiter_threshold of the waiter lock (default 0); also\n"
"                          the locks a table takes\n"
"      --validate          check this command line as its run would (tables created tiny,\n"
"                          trace and results files checked) without running or writing\n"
"                          anything: exit 0 and no output when it would start, else its error\n"
"      --plugin PATH       load tables and locks from a plugin (repeatable; also\n"
"                          CHTBENCH_PLUGINS=PATH:PATH; docs/plugins.md)\n"
"  -V, --version           version and optional features built in\n"
"      --schema[=NAME]     the columns of every results file (or of NAME: table, latency,\n"
"                          timeline, lock, memory, occupancy) as JSON (docs/csv.md)\n"
"  -h, --help              this text\n"
"Exit: 0 ok, 1 a run failed its correctness check, ran out of memory or could not run,\n"
"2 bad usage, 3 a fixed-capacity table filled up, 130/143 interrupted (SIGINT/SIGTERM).\n",
        f);
}

static char usage_msg[768];

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(usage_msg, sizeof usage_msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "chtbench: %s\n", usage_msg);
    return -1;
}

/* " (did you mean 'x'?)" for a misspelt word among the NULL-terminated names, or "" */
static const char *near(const char *word, const char *const *names)
{
    static char buf[192];
    return did_you_mean(word, names, 0, buf, sizeof buf);
}

static int parse_percent(const char *flag, const char *s, unsigned *out)
{
    uint64_t v;
    if (!parse_uint(s, &v) || v > 100)
        return usage_error("%s: expected a percentage 0..100, digits only (got '%s')", flag, s);
    *out = (unsigned)v;
    return 0;
}

/* Splits "a:x=1,y=2,b,c:z=3" into table specs: a token with ':' or without
 * '=' starts a new table, a bare key=val continues the previous one. */
static int add_tables(struct bench_config *cfg, const char *arg)
{
    char *copy = strdup(arg);
    char spec[2048] = "";
    char err[1024];
    int rc = 0;
    bool have = false;
    if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
        free(copy);
        return usage_error("--table: empty element in '%s' (expected NAME or NAME:key=val,..., comma separated)", arg);
    }
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
        bool starts = !tok || strchr(tok, ':') || !strchr(tok, '=');
        if (starts && have) {
            if (cfg->ntables == MAX_TABLES) {
                rc = usage_error("--table: at most %d tables per run", MAX_TABLES);
                break;
            }
            if (registry_parse_table(spec, &cfg->table[cfg->ntables], err, sizeof err) != 0) {
                rc = usage_error("%s", err);
                break;
            }
            cfg->ntables++;
            have = false;
        }
        if (!tok)
            break;
        if (!starts && !have) {
            rc = usage_error("--table: option '%s' before any table name (expected NAME:key=val,...)", tok);
            break;
        }
        if (starts) {
            snprintf(spec, sizeof spec, "%s", tok);
            have = true;
        } else {
            size_t n = strlen(spec);
            snprintf(spec + n, sizeof spec - n, ",%s", tok);
        }
    }
    if (!rc && !cfg->ntables && !have)
        rc = usage_error("--table: expected a table name (see --list)");
    free(copy);
    return rc;
}

/* A results file path: only its presence here. main opens every results
 * file before anything runs (src/outfile.c: regular file, header, locking). */
static int check_csv_path(const char *flag, const char *path)
{
    if (!*path)
        return usage_error("%s: expected a file path ('-' for standard output with --csv)", flag);
    if (strcmp(path, "-") == 0 && strcmp(flag, "--csv") != 0)
        return usage_error("%s: '-' (standard output) is only for --csv", flag);
    return 0;
}

static int parse_mem(const char *s, struct bench_config *cfg)
{
    if (strcmp(s, "local") == 0) {
        cfg->mem = MEM_LOCAL;
        return 0;
    }
    bool node = strncmp(s, "node:", 5) == 0;
    if (strcmp(s, "interleave") != 0 && !node)
        return usage_error("--mem: expected local|interleave|node:N (got '%s')", s);
#ifdef HAVE_NUMA
    if (numa_available() < 0)
        return usage_error("--mem: %s needs NUMA support, which this kernel does not offer", s);
    if (node) {
        uint64_t n;
        int max = numa_max_node();
        if (!parse_size(s + 5, &n) || (int64_t)n > max)
            return usage_error("--mem: node:N takes a NUMA node 0..%d (got '%s')", max, s + 5);
        cfg->mem_node = (int)n;
        cfg->mem = MEM_NODE;
    } else {
        cfg->mem = MEM_INTERLEAVE;
    }
    return 0;
#else
    return usage_error("--mem: %s needs libnuma, and this chtbench was built without it", s);
#endif
}

/* Cross-flag checks of the measurement options, and the machine checks
 * (rdtscp, PAPI events) that decide whether they can run at all. */
static int check_measurement(struct bench_config *cfg)
{
    if (cfg->latency_csv && !cfg->latency_every)
        return usage_error("--latency-csv: needs --latency");
    if (cfg->timeline_ms && !cfg->timeline_csv)
        return usage_error("--timeline: needs --timeline-csv FILE");
    if (cfg->timeline_csv && !cfg->timeline_ms)
        return usage_error("--timeline-csv: needs --timeline MS");
    if (cfg->latency_every) {
        char why[256];
        if (!lat_supported(why, sizeof why))
            return usage_error("--latency: %s", why);
    }
    if (cfg->counters_spec) {
        char err[512];
        if (counters_setup(cfg->counters_spec, &cfg->counters, err, sizeof err, cfg->counters_warning,
                           sizeof cfg->counters_warning) != 0)
            return usage_error("%s", err);
    }
    return 0;
}

/* Most keys a run prefills: about an hour even for noop, the cheapest table
 * (measured ~70M keys/s on one thread, --prefill single). */
#define MAX_PREFILL_KEYS (1ull << 38)

/* Largest range --verify full sweeps: 2^32 keys, minutes at 20-100 M lookups/s a thread. */
#define MAX_FULL_VERIFY_KEYS (1ull << 32)

static const char *human_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    unsigned u = 0;
    while (b >= 1024 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.*f %s", u ? 1 : 0, b, unit[u]);
    return buf;
}

/* Sizes the run cannot do: a table storing data needs at least 16 bytes a key
 * (key and value) and 8 bytes a slot (initial / density slots: a bucket
 * pointer at least), which must fit in this machine's memory; and no table
 * prefills more than MAX_PREFILL_KEYS keys in sane time. A lower bound only:
 * a table that cannot allocate what it really needs fails at creation. */
static int check_sizes(const struct bench_config *cfg)
{
    bool data = false;
    for (unsigned t = 0; t < cfg->ntables; t++)
        data |= !(cfg->table[t].ops->caps & CHT_CAP_NO_DATA);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (data && pages > 0 && page > 0) {
        double mem = (double)pages * (double)page;
        double keys = (double)(cfg->initial > 16 ? cfg->initial : 16);   /* tables are validated at 16 keys */
        double slots = keys / cfg->density;
        char need[32], have[32];
        double kb = 8.0 + (double)(cfg->value_size > 8 ? cfg->value_size : 8);   /* key and value */
        if (kb * keys > mem)
            return usage_error("--initial: %llu keys need at least %s (%.0f bytes a key) but this machine has %s of memory",
                               (unsigned long long)cfg->initial, human_bytes(kb * keys, need, sizeof need), kb,
                               human_bytes(mem, have, sizeof have));
        if (8 * slots > mem)
            return usage_error("--density: %g with --initial %llu asks for %.3g slots, at least %s (8 bytes a slot), but "
                               "this machine has %s of memory (raise --density or lower --initial)", cfg->density,
                               (unsigned long long)cfg->initial, slots, human_bytes(8 * slots, need, sizeof need),
                               human_bytes(mem, have, sizeof have));
    }
    if (cfg->keybuf_set && cfg->keybuf && pages > 0 && page > 0) {
        /* every thread draws its own buffer: 8 bytes an op, all threads' at once */
        unsigned most = 0;
        for (unsigned n = 0; n < cfg->nthreads; n++)
            most = cfg->threads[n] > most ? cfg->threads[n] : most;
        double mem = (double)pages * (double)page, need = 8.0 * (double)cfg->keybuf * most;
        char needs[32], have[32];
        if (need > mem)
            return usage_error("--keybuf: %llu ops x 8 bytes x %u threads need %s, but this machine has %s of memory "
                               "(lower --keybuf)", (unsigned long long)cfg->keybuf, most,
                               human_bytes(need, needs, sizeof needs), human_bytes(mem, have, sizeof have));
    }
    if (cfg->initial > MAX_PREFILL_KEYS)
        return usage_error("--initial: %llu keys would take hours to prefill (at most 2^38 = %llu)",
                           (unsigned long long)cfg->initial, MAX_PREFILL_KEYS);
    return 0;
}

static void defaults(struct bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->update = 10;
    cfg->initial = 1u << 20;
    cfg->density = 0.5;
    cfg->duration_ms = 1000;
    cfg->reps = 1;
    cfg->seed = 1;
    cfg->prefill = PREFILL_PARALLEL;
    cfg->dist.dist = KEYGEN_UNIFORM;
    cfg->value_size = 8;
    cfg->cs = 4;
    cfg->ncs = 32;
    cfg->rcs = 4;
    cfg->wcs = 4;
    cfg->write_pct = 10;
    cfg->handoff_bound = LOCK_HANDOFF_DEFAULT;         /* include/lock.h */
    cfg->waiter_threshold = LOCK_WAITER_THRESHOLD_DEFAULT;
    cfg->verify = VERIFY_AUTO;
    cfg->batch = 1;
}

/* A work-unit count: 0..2^30, digits only (no sign). */
static int parse_units(const char *flag, const char *s, uint64_t *out)
{
    uint64_t v;
    if (!parse_size(s, &v) || v > (1u << 30))
        return usage_error("%s: expected work units 0..2^30 (got '%s')", flag, s);
    *out = v;
    return 0;
}

/* --lock with --bench: every name known and usable here. */
static int parse_bench_locks(const char *arg, struct bench_config *cfg)
{
    char *copy = strdup(arg);
    int rc = 0;
    char names[1024];
    registry_lock_names(names, sizeof names);
    if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || arg[0] == ',')
        rc = usage_error("--lock: expected lock names, comma separated (valid: %s) (got '%s')", names, arg);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); !rc && tok; tok = strtok_r(NULL, ",", &save)) {
        const struct lock_ops *l = registry_lock(tok);
        char why[256];
        char hint[160];
        if (!l && registry_suggest_lock(tok, hint, sizeof hint)[0])
            rc = usage_error("--lock: unknown lock '%s'%s; see --list=locks", tok, hint);
        else if (!l)
            rc = usage_error("--lock: unknown lock '%s' (valid: %s)", tok, names);
        else if (!registry_lock_available(l, why, sizeof why))
            rc = usage_error("--lock: %s is not available here: %s", tok, why);
        else if (cfg->nlocks == MAX_BENCH_LOCKS)
            rc = usage_error("--lock: at most %d locks per run", MAX_BENCH_LOCKS);
        else
            cfg->locks[cfg->nlocks++] = l;
    }
    free(copy);
    return rc;
}

/* --lock without --bench: lock=NAME for every table of the run that takes a
 * lock (CHT_CAP_LOCK_PARAM) and does not name one itself, by re-parsing its
 * spec as "TABLE:lock=NAME[,its options]". */
static int apply_table_lock(const char *name, struct bench_config *cfg)
{
    char names[1024], why[256], err[1024];
    registry_lock_names(names, sizeof names);
    if (strchr(name, ','))
        return usage_error("--lock: without --bench takes one lock name (got '%s'; valid: %s)", name, names);
    const struct lock_ops *l = registry_lock(name);
    char hint[160];
    if (!l && registry_suggest_lock(name, hint, sizeof hint)[0])
        return usage_error("--lock: unknown lock '%s'%s; see --list=locks", name, hint);
    if (!l)
        return usage_error("--lock: unknown lock '%s' (valid: %s)", name, names);
    if (!registry_lock_available(l, why, sizeof why))
        return usage_error("--lock: %s is not available here: %s", name, why);
    unsigned applied = 0;
    for (unsigned t = 0; t < cfg->ntables; t++) {
        struct table_choice *c = &cfg->table[t];
        if (!(c->ops->caps & CHT_CAP_LOCK_PARAM))
            continue;
        applied++;
        if (c->lock)
            continue;                         /* the table names its own lock */
        char spec[2048];
        snprintf(spec, sizeof spec, "%s:lock=%s%s%s", c->ops->name, name, c->options_text[0] ? "," : "",
                 c->options_text);
        if (registry_parse_table(spec, c, err, sizeof err) != 0)   /* spec is a copy: c may be rebuilt */
            return usage_error("--lock: %s", err);
    }
    if (!applied)
        return usage_error("--lock: no table of this run takes a lock (use --bench to benchmark locks alone)");
    return 0;
}

/* getopt_long's '?': optopt is the short option letter, the val of a long
 * option given a value it does not take (--json=1), or 0 for an unknown or
 * ambiguous long option. Never print optopt as a character unless it is one. */
static int bad_option(const char *arg)
{
    if (optopt && strncmp(arg, "--", 2) == 0)
        for (const struct option *o = long_options; o->name; o++)
            if (o->val == optopt && o->has_arg == no_argument)
                return usage_error("--%s: takes no value (got '%s')", o->name, arg);
    if (strncmp(arg, "--", 2) == 0) {
        size_t n = strcspn(arg, "="), m = 0;
        char cand[256] = "";
        for (const struct option *o = long_options; o->name && n > 2; o++)
            if (strncmp(o->name, arg + 2, n - 2) == 0 && strlen(cand) + strlen(o->name) + 5 < sizeof cand)
                snprintf(cand + strlen(cand), sizeof cand - strlen(cand), "%s--%s", m++ ? ", " : "", o->name);
        if (m > 1)
            return usage_error("ambiguous option '%.*s' (could be %s)", (int)n, arg, cand);
        /* a near miss among the long options, compared with their "--" */
        const char *flags[sizeof long_options / sizeof long_options[0]];
        char spelled[sizeof long_options / sizeof long_options[0]][32], word[64], hint[192];
        size_t nf = 0;
        for (const struct option *o = long_options; o->name; o++) {
            snprintf(spelled[nf], sizeof spelled[nf], "--%s", o->name);
            flags[nf] = spelled[nf];
            nf++;
        }
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), arg);
        did_you_mean(word, flags, nf, hint, sizeof hint);
        if (hint[0])
            return usage_error("unknown option '%.*s'%s; see --help", (int)n, arg, hint);
        return usage_error("unknown option '%.*s' (see --help)", (int)n, arg);
    }
    if (optopt > ' ' && optopt < 127)
        return usage_error("unknown option '-%c' (see --help)", optopt);
    return usage_error("unknown option '%s' (see --help)", arg);
}

int cli_parse(int argc, char **argv, struct bench_config *cfg, enum cli_action *action)
{
    defaults(cfg);
    *action = CLI_RUN;
    bool have_insert = false, have_remove = false, have_update = false, have_range = false, have_dist = false;
    bool have_duration = false, have_ops = false, have_warmup = false;
    const char *threads_arg = "1";
    const char *table_flag = NULL;   /* first flag that only a table run uses */
    const char *lb_flag = NULL;      /* first flag that only a lock bench uses */
    const char *lockcfg_flag = NULL; /* --handoff/--waiters: the locks of lock benches and of tables */
    const char *occ_flag = NULL;     /* first table flag that --bench occupancy does not take */
    const char *rw_flag = NULL;      /* ... only --bench rwlock */
    bool have_cs = false;
    const char *lock_arg = NULL;
    const char *bare_optional = NULL;        /* "--latency" given without '=' ... */
    const char *bare_optional_next = NULL;   /* ... and the argument after it */
    char err[512];
    int c;
    opterr = 0;
    optind = 1;
    for (;;) {
        int at = optind;
        c = getopt_long(argc, argv, ":t:n:u:i:r:d:R:p:hV", long_options, NULL);
        if (c == -1)
            break;
        /* -V=1, -hx: getopt returns the letter and keeps the rest of the word for later; refuse it now */
        if ((c == 'h' || c == 'V') && optind == at && at < argc)
            return usage_error("-%c: takes no value and stands alone (got '%s')", c, argv[at]);
        uint64_t v;
        static const struct { int c; const char *name; } table_only[] = {
            { 't', "--table" }, { 'u', "--update" }, { OPT_INSERT, "--insert" }, { OPT_REMOVE, "--remove" },
            { 'i', "--initial" }, { 'r', "--range" }, { OPT_OPS, "--ops" }, { OPT_DENSITY, "--density" },
            { OPT_DIST, "--dist" }, { OPT_PREFILL, "--prefill" }, { OPT_MEM, "--mem" },
            { OPT_LATENCY, "--latency" }, { OPT_LATENCY_CSV, "--latency-csv" }, { OPT_COUNTERS, "--counters" },
            { OPT_LIKWID_MARKER, "--likwid-marker" }, { OPT_TIMELINE, "--timeline" },
            { OPT_TIMELINE_CSV, "--timeline-csv" }, { OPT_VERIFY, "--verify" }, { OPT_WARMUP, "--warmup" },
            { OPT_KEYBUF, "--keybuf" }, { OPT_WORKLOAD, "--workload" }, { OPT_TRACE, "--trace" },
            { OPT_CEILING, "--ceiling" }, { OPT_BATCH, "--batch" }, { OPT_HUGEPAGES, "--hugepages" },
            { OPT_VALUE_SIZE, "--value-size" }, { OPT_KEYS, "--keys" }, { OPT_PIPELINE, "--pipeline" },
        };
        for (unsigned k = 0; k < sizeof table_only / sizeof table_only[0]; k++)
            if (table_only[k].c == c) {
                table_flag = table_flag ? table_flag : table_only[k].name;
                if (c != 't' && c != OPT_OPS && !occ_flag)
                    occ_flag = table_only[k].name;   /* --bench occupancy takes only --table and --ops */
            }
        switch (c) {
        case OPT_BENCH:
            if (strcmp(optarg, "mutex") == 0)
                cfg->bench = BENCH_MUTEX;
            else if (strcmp(optarg, "rwlock") == 0)
                cfg->bench = BENCH_RWLOCK;
            else if (strcmp(optarg, "memory") == 0)
                cfg->bench = BENCH_MEMORY;
            else if (strcmp(optarg, "occupancy") == 0)
                cfg->bench = BENCH_OCCUPANCY;
            else
            {
                static const char *const kinds[] = { "mutex", "rwlock", "memory", "occupancy", NULL };
                return usage_error("--bench: expected mutex|rwlock|memory|occupancy (got '%s')%s", optarg,
                                   near(optarg, kinds));
            }
            break;
        case OPT_CEILING:
            cfg->ceiling = true;
            break;
        case OPT_SLOTS:
            if (!parse_size(optarg, &v) || v < 64 || v > (1ull << 40))
                return usage_error("--slots: expected a slot capacity 64..2^40 like 1M or 2^25 (got '%s')", optarg);
            cfg->occ_slots = v;
            lb_flag = lb_flag ? lb_flag : "--slots";
            break;
        case OPT_LOAD: {
            free(cfg->occ_loads);
            cfg->occ_nloads = 0;
            char buf[4096], why[128];
            const char *items[256];
            int n = list_split(optarg, buf, sizeof buf, items, 256, false, why, sizeof why);
            if (n < 0)
                return usage_error("--load: %s in '%s' (expected load factors in (0, 1], comma separated, like "
                                   "0.5,0.9,0.95)", why, optarg);
            cfg->occ_loads = malloc((size_t)n * sizeof *cfg->occ_loads);
            for (int k = 0; k < n; k++) {
                double d;
                if (!parse_double(items[k], &d) || !(d > 0 && d <= 1))
                    return usage_error("--load: expected load factors in (0, 1], comma separated, like 0.5,0.9,0.95 "
                                       "(got '%s' in '%s')", items[k], optarg);
                cfg->occ_loads[cfg->occ_nloads++] = d;
            }
            lb_flag = lb_flag ? lb_flag : "--load";
            break;
        }
        case OPT_HUGEPAGES:
            if (strcmp(optarg, "off") == 0)
                cfg->hugepages = false;
            else if (strcmp(optarg, "thp") == 0)
                cfg->hugepages = true;
            else
            {
                static const char *const modes[] = { "off", "thp", NULL };
                return usage_error("--hugepages: expected off|thp (got '%s')%s", optarg, near(optarg, modes));
            }
            break;
        case OPT_ALLOCATOR:
            cfg->allocator = alloc_lookup(optarg);
            if (!cfg->allocator)
                return usage_error("--allocator: expected system|jemalloc|mimalloc|tcmalloc (got '%s')%s", optarg,
                                   near(optarg, alloc_names));
            break;
        case OPT_KEYS:
            if (strcmp(optarg, "dense") == 0)
                cfg->keys_sparse = false;
            else if (strcmp(optarg, "sparse") == 0)
                cfg->keys_sparse = true;
            else
            {
                static const char *const layouts[] = { "dense", "sparse", NULL };
                return usage_error("--keys: expected dense|sparse (got '%s')%s", optarg, near(optarg, layouts));
            }
            break;
        case OPT_VALUE_SIZE:
            if (!parse_size(optarg, &v) || v < 8 || v > CHT_VALUE_MAX)
                return usage_error("--value-size: expected value bytes 8..%u (1M), like 100 or 1K (got '%s')",
                                   CHT_VALUE_MAX, optarg);
            cfg->value_size = (size_t)v;
            break;
        case OPT_BATCH:
            if (!parse_size(optarg, &v) || v < 1 || v > CHT_BATCH_MAX)
                return usage_error("--batch: expected gets per batch 1..%d (got '%s')", CHT_BATCH_MAX, optarg);
            cfg->batch = (unsigned)v;
            break;
        case OPT_PIPELINE:
            if (strcmp(optarg, "auto") == 0) {
                cfg->pipeline_auto = true;
                cfg->pipeline = 0;
            } else if (!parse_size(optarg, &v) || v > CHT_PIPELINE_MAX) {   /* 0: off (a sweep axis' baseline) */
                return usage_error("--pipeline: expected ops in flight 0..%d (0: off) or auto (got '%s')",
                                   CHT_PIPELINE_MAX, optarg);
            } else {
                cfg->pipeline = (unsigned)v;
                cfg->pipeline_auto = false;
            }
            break;
        case OPT_SIZE: {
            free(cfg->mem_sizes);
            cfg->n_mem_sizes = 0;
            char buf[4096], why[128];
            const char *items[256];
            int n = list_split(optarg, buf, sizeof buf, items, 256, false, why, sizeof why);
            if (n < 0)
                return usage_error("--size: %s in '%s' (expected working-set sizes 4K..1T, comma separated, like "
                                   "32K,1M,1G)", why, optarg);
            cfg->mem_sizes = malloc((size_t)n * sizeof *cfg->mem_sizes);
            for (int k = 0; k < n; k++) {
                uint64_t b;
                if (!parse_size(items[k], &b) || b < 4096 || b > (1ull << 40))
                    return usage_error("--size: expected working-set sizes 4K..1T, comma separated, like 32K,1M,1G "
                                       "(got '%s' in '%s')", items[k], optarg);
                cfg->mem_sizes[cfg->n_mem_sizes++] = b;
            }
            lb_flag = lb_flag ? lb_flag : "--size";
            break;
        }
        case OPT_LOCK:
            lock_arg = optarg;
            break;
        case OPT_CS:
            if (parse_units("--cs", optarg, &cfg->cs))
                return -1;
            have_cs = true;
            lb_flag = lb_flag ? lb_flag : "--cs";
            break;
        case OPT_NCS:
            if (parse_units("--ncs", optarg, &cfg->ncs))
                return -1;
            lb_flag = lb_flag ? lb_flag : "--ncs";
            break;
        case OPT_RCS:
            if (parse_units("--rcs", optarg, &cfg->rcs))
                return -1;
            lb_flag = lb_flag ? lb_flag : "--rcs";
            rw_flag = rw_flag ? rw_flag : "--rcs";
            break;
        case OPT_WCS:
            if (parse_units("--wcs", optarg, &cfg->wcs))
                return -1;
            lb_flag = lb_flag ? lb_flag : "--wcs";
            rw_flag = rw_flag ? rw_flag : "--wcs";
            break;
        case OPT_WRITE:
            if (parse_percent("--write", optarg, &cfg->write_pct))
                return -1;
            lb_flag = lb_flag ? lb_flag : "--write";
            rw_flag = rw_flag ? rw_flag : "--write";
            break;
        case OPT_HANDOFF:
            if (!parse_size(optarg, &v) || v == 0 || v > (1u << 30))
                return usage_error("--handoff: expected local hand-offs 1..2^30 (got '%s')", optarg);
            cfg->handoff_bound = (unsigned)v;
            lockcfg_flag = lockcfg_flag ? lockcfg_flag : "--handoff";
            break;
        case OPT_WAITERS:
            if (!parse_size(optarg, &v) || v > MAX_THREADS)
                return usage_error("--waiters: expected a waiter threshold 0..%d (got '%s')", MAX_THREADS, optarg);
            cfg->waiter_threshold = (unsigned)v;
            lockcfg_flag = lockcfg_flag ? lockcfg_flag : "--waiters";
            break;
        case 't':
            if (add_tables(cfg, optarg))
                return -1;
            break;
        case 'n':
            threads_arg = optarg;
            break;
        case 'u':
            if (parse_percent("--update", optarg, &cfg->update))
                return -1;
            have_update = true;
            break;
        case OPT_INSERT:
            if (parse_percent("--insert", optarg, &cfg->insert))
                return -1;
            have_insert = true;
            break;
        case OPT_REMOVE:
            if (parse_percent("--remove", optarg, &cfg->remove))
                return -1;
            have_remove = true;
            break;
        case 'i':
            if (!parse_size(optarg, &v) || v == 0 || v > (CHT_KEY_MAX >> 1))
                return usage_error("--initial: expected a size 1..2^38 like 1000, 64K, 1M or 2^20 (got '%s')", optarg);
            cfg->initial = v;
            break;
        case 'r':
            if (!parse_size(optarg, &v) || v == 0 || v > CHT_KEY_MAX)
                return usage_error("--range: expected a size 1..2^62 like 2M or 2^21 (got '%s')", optarg);
            cfg->range = v;
            have_range = true;
            break;
        case 'd':
            if (!parse_size(optarg, &v) || v == 0 || v > 86400000)
                return usage_error("--duration: expected milliseconds 1..86400000 (got '%s')", optarg);
            cfg->duration_ms = v;
            have_duration = true;
            cfg->duration_ms_given = true;
            break;
        case OPT_OPS:
            if (!parse_size(optarg, &v) || v == 0)
                return usage_error("--ops: expected operations per thread >= 1 like 100000 or 1M (got '%s')", optarg);
            cfg->ops = v;
            have_ops = true;
            break;
        case 'R':
            if (!parse_size(optarg, &v) || v == 0 || v > 10000)
                return usage_error("--reps: expected 1..10000 (got '%s')", optarg);
            cfg->reps = (unsigned)v;
            break;
        case OPT_DENSITY:
            if (!parse_double(optarg, &cfg->density) || cfg->density <= 0 || cfg->density > 64)
                return usage_error("--density: expected a number in (0, 64] (got '%s')", optarg);
            break;
        case OPT_DIST:
            if (keygen_parse(optarg, &cfg->dist, err, sizeof err) != 0) {
                static const char *const dists[] = { "uniform", "zipf", "hotspot", NULL };
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(optarg, ":"), optarg);
                bool known = false;
                for (unsigned k = 0; dists[k]; k++)
                    known |= strcmp(name, dists[k]) == 0;
                return usage_error("%s%s", err, known ? "" : near(name, dists));
            }
            have_dist = true;
            break;
        case OPT_TRACE:
            if (!*optarg)
                return usage_error("--trace: expected a trace file (docs/cli.md \"Workloads\")");
            cfg->trace_path = optarg;
            break;
        case OPT_WORKLOAD: {
            static const char *const names[] = { "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-f" };
            cfg->workload = WL_NONE;
            for (unsigned k = 0; k < 5; k++)
                if (strcmp(optarg, names[k]) == 0)
                    cfg->workload = (enum workload)(WL_YCSB_A + k);
            if (cfg->workload == WL_NONE) {
                static const char *const wl[] = { "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-f", NULL };
                return usage_error("--workload: expected ycsb-a|ycsb-b|ycsb-c|ycsb-d|ycsb-f (got '%s')%s", optarg,
                                   near(optarg, wl));
            }
            break;
        }
        case OPT_SEED:
            if (!parse_size(optarg, &v))
                return usage_error("--seed: expected an unsigned 64-bit integer (got '%s')", optarg);
            cfg->seed = v;
            break;
        case OPT_PREFILL:
            if (strcmp(optarg, "single") == 0)
                cfg->prefill = PREFILL_SINGLE;
            else if (strcmp(optarg, "parallel") == 0)
                cfg->prefill = PREFILL_PARALLEL;
            else
            {
                static const char *const modes[] = { "single", "parallel", NULL };
                return usage_error("--prefill: expected single|parallel (got '%s')%s", optarg, near(optarg, modes));
            }
            break;
        case 'p':
            pin_spec_free(&cfg->pin);
            if (pin_parse(optarg, &cfg->pin, err, sizeof err) != 0)
                return usage_error("%s", err);
            break;
        case OPT_MEM:
            if (parse_mem(optarg, cfg))
                return -1;
            break;
        case OPT_TOPOLOGY:
            cfg->topology = optarg;
            break;
        case OPT_PRINT_PINNING:
            cfg->print_pinning = true;
            break;
        case OPT_CSV:
            if (check_csv_path("--csv", optarg))
                return -1;
            cfg->csv = optarg;
            break;
        case OPT_JSON:
            cfg->json = true;
            break;
        case OPT_VALIDATE:
            cfg->validate = true;
            break;
        case OPT_VERIFY:
            if (strcmp(optarg, "full") == 0)
                cfg->verify = VERIFY_FULL;
            else if (strcmp(optarg, "sample") == 0)
                cfg->verify = VERIFY_SAMPLE;
            else if (strcmp(optarg, "off") == 0)
                cfg->verify = VERIFY_OFF;
            else
            {
                static const char *const modes[] = { "full", "sample", "off", NULL };
                return usage_error("--verify: expected full|sample|off (got '%s')%s", optarg, near(optarg, modes));
            }
            break;
        case OPT_KEYBUF:
            if (!parse_size(optarg, &v) || (v && (v & (v - 1))) || (v && v < 1024) || v > (1ull << 28))
                return usage_error("--keybuf: expected 0 (draw keys in the loop) or a power of two 2^10..2^28 "
                                   "of ops per thread (got '%s')", optarg);
            cfg->keybuf = v;
            cfg->keybuf_set = true;
            break;
        case OPT_WARMUP:
            if (!parse_size(optarg, &v) || v > 86400000)
                return usage_error("--warmup: expected milliseconds 0..86400000 (got '%s')", optarg);
            cfg->warmup_ms = v;
            have_warmup = true;
            break;
        case OPT_LATENCY:
            if (!optarg) {
                cfg->latency_every = LAT_DEFAULT_EVERY;
                bare_optional = "--latency";
                bare_optional_next = optind < argc ? argv[optind] : NULL;
            } else if (!parse_size(optarg, &v) || v == 0 || v > (1ull << 32)) {
                return usage_error("--latency: expected --latency or --latency=EVERY, EVERY 1..2^32 ops per sample (got '%s')", optarg);
            } else {
                cfg->latency_every = v;
            }
            break;
        case OPT_LATENCY_CSV:
            if (check_csv_path("--latency-csv", optarg))
                return -1;
            cfg->latency_csv = optarg;
            break;
        case OPT_COUNTERS:
            cfg->counters_spec = optarg;
            break;
        case OPT_LIKWID_MARKER:
#ifndef HAVE_LIKWID
            return usage_error("--likwid-marker: this chtbench was built without likwid (install liblikwid-dev and rebuild with -Dlikwid=enabled)");
#endif
            cfg->likwid_marker = true;
            break;
        case OPT_TIMELINE:
            if (!parse_size(optarg, &v) || v == 0 || v > 86400000)
                return usage_error("--timeline: expected an interval in milliseconds 1..86400000 (got '%s')", optarg);
            cfg->timeline_ms = v;
            break;
        case OPT_TIMELINE_CSV:
            if (check_csv_path("--timeline-csv", optarg))
                return -1;
            cfg->timeline_csv = optarg;
            break;
        case OPT_LIST:
            if (!optarg && optind < argc && argv[optind][0] != '-')
                optarg = argv[optind++];      /* "--list locks" means --list=locks */
            if (!optarg || strcmp(optarg, "tables") == 0)
                *action = CLI_LIST_TABLES;
            else if (strcmp(optarg, "locks") == 0)
                *action = CLI_LIST_LOCKS;
            else
            {
                static const char *const what[] = { "tables", "locks", NULL };
                return usage_error("--list: expected --list, --list=tables or --list=locks (got '%s')%s", optarg,
                                   near(optarg, what));
            }
            return 0;
        case OPT_PLUGIN:   /* loaded by main before parsing (src/plugin.c); here only its spelling is checked */
            if (!plugin_arg_loaded(optarg))
                return usage_error("--plugin: write --plugin PATH or --plugin=PATH in full (an abbreviation is not "
                                   "loaded; got '%s')", optarg);
            break;
        case 'h':
            *action = CLI_HELP;
            return 0;
        case 'V':
            *action = CLI_VERSION;
            return 0;
        case OPT_SCHEMA:
            if (!optarg && optind < argc && argv[optind][0] != '-')
                optarg = argv[optind++];      /* "--schema table" means --schema=table, as --list */
            cli_schema_name = optarg;         /* NULL: all schemas; report_schema checks the name */
            *action = CLI_SCHEMA;
            return 0;
        case ':':
            return usage_error("%s: needs a value (see --help)", argv[optind - 1]);
        default:
            return bad_option(argv[optind - 1]);
        }
    }
    if (optind < argc && bare_optional && argv[optind] == bare_optional_next)
        return usage_error("unexpected argument '%s' (write %s=%s: the value of %s follows '=')", argv[optind],
                           bare_optional, argv[optind], bare_optional);
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see --help)", argv[optind]);

    int n = parse_uint_list(threads_arg, 1, MAX_THREADS, &cfg->threads);
    if (n <= 0)
        return usage_error("--threads: expected counts 1..%d like 1,2,4 or 1-8 (got '%s')", MAX_THREADS, threads_arg);
    cfg->nthreads = (unsigned)n;

    if (cfg->bench == BENCH_OCCUPANCY) {
        if (occ_flag)
            return usage_error("%s: not used with --bench occupancy (it takes --table, --slots, --load, --ops, "
                               "--reps, --seed, --csv, --json)", occ_flag);
        if (lb_flag && strcmp(lb_flag, "--slots") != 0 && strcmp(lb_flag, "--load") != 0)
            return usage_error("%s: not used with --bench occupancy", lb_flag);
        if (lockcfg_flag)
            return usage_error("%s: not used with --bench occupancy", lockcfg_flag);
        if (!cfg->ntables)
            return usage_error("--table: --bench occupancy needs the fixed-capacity tables to fill (e.g. "
                               "dense,cuckoo:resize=0)");
        if (!cfg->occ_slots || !cfg->occ_nloads)
            return usage_error("%s: --bench occupancy needs --slots N and --load LIST",
                               cfg->occ_slots ? "--load" : "--slots");
        if (cfg->csv && strcmp(cfg->csv, "-") == 0)
            return usage_error("--csv -: not with --bench occupancy (give a file)");
        for (unsigned t = 0; t < cfg->ntables; t++) {
            char why[256];
            if (!registry_choice_available(&cfg->table[t], why, sizeof why))
                return usage_error("--table: %s is not available here: %s", cfg->table[t].ops->name, why);
        }
        return 0;
    }
    if (cfg->occ_slots || cfg->occ_nloads)
        return usage_error("%s: only with --bench occupancy", cfg->occ_slots ? "--slots" : "--load");
    if (cfg->bench != BENCH_TABLE && table_flag)   /* before the table flags' cross-checks */
        return usage_error("%s: not used with --bench %s (%s)", table_flag,
                           cfg->bench == BENCH_MUTEX ? "mutex" : cfg->bench == BENCH_RWLOCK ? "rwlock" : "memory",
                           cfg->bench == BENCH_MEMORY ? "it measures the machine, not a table"
                                                      : "a lock bench runs no table");
    if (cfg->bench == BENCH_MEMORY) {
        if (lb_flag && strcmp(lb_flag, "--size") != 0)
            return usage_error("%s: not used with --bench memory (only -n, -d, -p, --size, --csv)", lb_flag);
        if (lockcfg_flag)
            return usage_error("%s: not used with --bench memory (only -n, -d, -p, --size, --csv)", lockcfg_flag);
        if (lock_arg)
            return usage_error("--lock: not used with --bench memory (only -n, -d, -p, --size, --csv)");
        if (cfg->json)
            return usage_error("--json: not used with --bench memory (use --csv)");
        /* each of the threads runs up to 32 chases, each starting on its own line: refused here, not after
         * the smaller k's rows were written */
        for (unsigned k = 0; cfg->mem_sizes && k < cfg->n_mem_sizes; k++)
            for (unsigned ti = 0; ti < cfg->nthreads; ti++)
                if (cfg->mem_sizes[k] < 64ull * 32 * cfg->threads[ti])
                    return usage_error("--size: %llu bytes hold %llu cache lines, fewer than %u threads x 32 chases "
                                       "(the largest k) need: with -n %u give sizes of at least %llu bytes",
                                       (unsigned long long)cfg->mem_sizes[k],
                                       (unsigned long long)(cfg->mem_sizes[k] / 64), cfg->threads[ti],
                                       cfg->threads[ti], 64ull * 32 * cfg->threads[ti]);
        if (!cfg->mem_sizes)
            for (unsigned ti = 0; ti < cfg->nthreads; ti++)
                if (16384ull < 64ull * 32 * cfg->threads[ti])
                    return usage_error("--threads: %u threads x 32 chases need more cache lines than the default "
                                       "sizes' smallest (16K) holds: give --size, each at least %llu bytes",
                                       cfg->threads[ti], 64ull * 32 * cfg->threads[ti]);
        return 0;
    }
    if (cfg->mem_sizes)
        return usage_error("--size: only with --bench memory");
    if (have_insert || have_remove) {
        if (have_insert && have_remove) {
            if (have_update && cfg->update != cfg->insert + cfg->remove)
                return usage_error("--update: %u%% disagrees with --insert %u%% + --remove %u%%", cfg->update,
                                   cfg->insert, cfg->remove);
        } else if (have_insert) {
            if (cfg->insert > cfg->update)
                return usage_error("--insert: %u%% exceeds --update %u%% (give --remove too)", cfg->insert, cfg->update);
            cfg->remove = cfg->update - cfg->insert;
        } else {
            if (cfg->remove > cfg->update)
                return usage_error("--remove: %u%% exceeds --update %u%% (give --insert too)", cfg->remove, cfg->update);
            cfg->insert = cfg->update - cfg->remove;
        }
        if (cfg->insert + cfg->remove > 100)
            return usage_error("--insert/--remove: %u%% + %u%% exceeds 100%%", cfg->insert, cfg->remove);
        cfg->update = cfg->insert + cfg->remove;
    } else {
        /* thesis: half insert, half remove; an odd u gives the extra point to insert */
        cfg->insert = (cfg->update + 1) / 2;
        cfg->remove = cfg->update / 2;
    }
    if (have_duration && have_ops)
        return usage_error("--ops: give either --duration or --ops, not both");
    if (have_ops)
        cfg->duration_ms = 0;
    /* a fixed-op run stays a fixed, reproducible sequence unless a warm-up is asked for */
    if (!have_warmup)
        cfg->warmup_ms = have_ops ? 0 : 100;
    if (cfg->trace_path) {
        /* a trace is the whole workload: its ops, its keys, its length */
        const char *clash = cfg->workload ? "--workload" : have_dist ? "--dist" : have_ops ? "--ops"
                          : have_duration ? "--duration" : have_warmup ? "--warmup"
                          : have_update || have_insert || have_remove ? "--update/--insert/--remove" : NULL;
        if (clash)
            return usage_error("%s: not with --trace (the trace sets the operations, their keys and the run's length)",
                               clash);
        cfg->update = cfg->insert = cfg->remove = 0;
        cfg->warmup_ms = 0;
        cfg->duration_ms = 0;
        have_warmup = true;
    }
    if (cfg->batch > 1 && cfg->latency_every)
        return usage_error("--batch: not with --latency (a batched get has no latency of its own)");
    if ((cfg->pipeline || cfg->pipeline_auto) && (cfg->latency_every || cfg->batch > 1))
        return usage_error("--pipeline: not with %s", cfg->latency_every
                               ? "--latency (a pipelined op's latency spans the W ops around it)"
                               : "--batch (choose one way to overlap the misses)");
    if (cfg->workload) {
        /* YCSB: every key is loaded (range = initial), requests are scrambled zipfian (YCSB's
         * default, theta 0.99), the op mix is the workload's */
        if (have_update || have_insert || have_remove)
            return usage_error("%s: not with --workload (the workload sets the op mix)",
                               have_update ? "--update" : have_insert ? "--insert" : "--remove");
        if (cfg->dist.dist == KEYGEN_HOTSPOT)
            return usage_error("--dist: hotspot is not a YCSB request distribution (use uniform or zipf)");
        /* D reads the latest keys: the Zipf draw is a recency rank (1 = the newest
         * key), so it must not be scrambled over the range, or D's reads turn uniform */
        if (cfg->workload == WL_YCSB_D && have_dist && cfg->dist.dist == KEYGEN_ZIPF && cfg->dist.scramble)
            return usage_error("--dist: ycsb-d draws a recency rank (rank 1 = the newest key): use zipf:THETA "
                               "without scramble, or uniform");
        if (!have_dist)
            keygen_parse(cfg->workload == WL_YCSB_D ? "zipf:0.99" : "zipf:0.99,scramble", &cfg->dist, err,
                         sizeof err);
        if (!have_range)
            cfg->range = cfg->initial;
        have_range = true;
        cfg->update = cfg->insert = cfg->remove = 0;
        if (cfg->range > (1ull << 61))
            return usage_error("--range: at most 2^61 with --workload");
    }
    if (!have_range)
        cfg->range = 2 * cfg->initial;
    if (cfg->keys_sparse) {
        /* sparse keys are mapped before the timed phase: only streams drawn into key buffers can have them */
        if (cfg->trace_path)
            return usage_error("--keys: sparse is not for --trace (the trace's keys are used as they are)");
        if (cfg->workload == WL_YCSB_D)
            return usage_error("--keys: sparse is not for ycsb-d (its inserts take the next new key in the timed "
                               "loop); ycsb-a|b|c|f take it");
        if (cfg->dist.dist == KEYGEN_HOTSPOT)
            return usage_error("--keys: sparse is not for --dist hotspot (its keys are drawn in the timed loop, "
                               "where the hot set moves); uniform and zipf take it");
        if (cfg->keybuf_set && cfg->keybuf == 0)
            return usage_error("--keybuf: 0 (keys drawn in the timed loop) is not for --keys sparse (its keys are "
                               "mapped before the run, into the key buffers)");
        if (cfg->range > (1ull << KEYGEN_SPARSE_BITS))
            return usage_error("--keys: sparse needs --range at most 2^61 (got %llu)", (unsigned long long)cfg->range);
    }
    /* ~20-100 M lookups a second a thread: 2^32 keys is minutes, 2^62 would be centuries */
    if (cfg->verify == VERIFY_FULL && cfg->range > MAX_FULL_VERIFY_KEYS)
        return usage_error("--verify: full would look up all %llu keys of the range, more than 2^32 (hours or "
                           "more): use --verify sample (a 2^20-key sample) or off", (unsigned long long)cfg->range);
    if (cfg->range < cfg->initial)
        return usage_error("--range: %llu is smaller than --initial %llu (the range must hold the prefill)",
                           (unsigned long long)cfg->range, (unsigned long long)cfg->initial);
    if (cfg->topology && !cfg->print_pinning)
        return usage_error("--topology: only with --print-pinning (a plan for another machine cannot run here)");
    if (cfg->print_pinning) {
        *action = CLI_PRINT_PINNING;
        return 0;
    }
    if (cfg->bench != BENCH_TABLE) {
        const char *kind = cfg->bench == BENCH_MUTEX ? "mutex" : "rwlock";
        if (table_flag)
            return usage_error("%s: not used with --bench %s (a lock bench runs no table)", table_flag, kind);
        if (cfg->bench == BENCH_MUTEX && rw_flag)
            return usage_error("%s: only with --bench rwlock", rw_flag);
        if (cfg->bench == BENCH_RWLOCK && have_cs)
            return usage_error("--cs: only with --bench mutex (rwlock takes --rcs and --wcs)");
        if (!lock_arg) {
            char names[1024];
            registry_lock_names(names, sizeof names);
            return usage_error("--lock: --bench %s needs --lock NAME[,NAME...] (valid: %s)", kind, names);
        }
        if (cfg->csv && strcmp(cfg->csv, "-") == 0 && cfg->json)
            return usage_error("--csv -: standard output already carries --json records; give --csv a file");
        return parse_bench_locks(lock_arg, cfg);
    }
    if (lb_flag)
        return usage_error("%s: only with --bench mutex|rwlock", lb_flag);
    if (lock_arg && cfg->ntables && apply_table_lock(lock_arg, cfg))
        return -1;
    if (!cfg->ntables)
        return usage_error("--table: expected at least one table (see --list)");
    /* after --lock: a table needing RTM only for its default lock runs under another */
    for (unsigned t = 0; t < cfg->ntables; t++) {
        char why[256];
        if (!registry_choice_available(&cfg->table[t], why, sizeof why))
            return usage_error("--table: %s is not available here: %s", cfg->table[t].ops->name, why);
        if ((cfg->table[t].ops->caps & CHT_CAP_FIXED_CAP) && cfg->density > 1 &&
            !(cfg->table[t].ops->caps & CHT_CAP_RESIZE))
            return usage_error("--density: %g keys per slot, but table %s has a fixed capacity: it cannot hold "
                               "--initial keys at a density above 1", cfg->density, cfg->table[t].ops->name);
        if (cfg->keys_sparse && (cfg->table[t].ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("--keys: sparse is not for %s, a filter (the harness tracks its membership by "
                               "key in [1, r])", cfg->table[t].ops->name);
        if ((cfg->workload || cfg->trace_path) && (cfg->table[t].ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("%s: not with %s, a filter (its inserts and removes must follow the harness' "
                               "membership: docs/cli.md \"The final check\")",
                               cfg->workload ? "--workload" : "--trace", cfg->table[t].ops->name);
        if (cfg->value_size > 8 && !(cfg->table[t].ops->caps & CHT_CAP_VALUE_OOL)) {
            char names[512];
            size_t nl = 0;
            names[0] = '\0';
            const struct cht_ops *o;
            for (unsigned i = 0; (o = registry_table_at(i)) && nl < sizeof names; i++)
                if (o->caps & CHT_CAP_VALUE_OOL)
                    nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", o->name);
            return usage_error("--value-size: %zu bytes needs a table that stores values out of line, and %s stores "
                               "8-byte values only (tables that take --value-size > 8: %s)", cfg->value_size,
                               cfg->table[t].ops->name, names);
        }
        bool needs_update = cfg->workload == WL_YCSB_A || cfg->workload == WL_YCSB_B || cfg->workload == WL_YCSB_F;
        if (needs_update && !cfg->table[t].ops->update)
            return usage_error("--workload %s: table %s has no update() (YCSB A, B and F update in place; "
                               "C and D do not)", workload_name(cfg->workload), cfg->table[t].ops->name);
    }
    if (cfg->csv && strcmp(cfg->csv, "-") == 0 && cfg->json)
        return usage_error("--csv -: standard output already carries --json records; give --csv a file");
    if (check_sizes(cfg))
        return -1;
    return check_measurement(cfg);
}

void cli_free(struct bench_config *cfg)
{
    free(cfg->mem_sizes);
    cfg->mem_sizes = NULL;
    free(cfg->occ_loads);
    cfg->occ_loads = NULL;
    free(cfg->threads);
    pin_spec_free(&cfg->pin);
}
