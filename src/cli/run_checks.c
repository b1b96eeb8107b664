/*
 * cli/run_checks.c - what a run's command line must satisfy once argv is read:
 * the checks across flags (op mix, run length, workloads, key range, sizes),
 * the machine checks of the measurement flags, each mode's own check
 * (mode_list.h names it), and cli_parse, which runs them. Every refusal is one
 * line naming the flag and what it accepts (exit 2), before anything runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "alloc.h"
#include "cli/run_cli.h"
#include "util.h"
#include "plugin.h"

static int run_first_at[CLI_MAX_OPTIONS];   /* argv index each flag was first given at (cli_scan) */

/* whether --flag was given (flag: its long name; a name that is no flag of a run aborts) */
static bool given(const char *flag)
{
    return run_first_at[cli_option_index(&cli_run_spec, flag)] != 0;
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
    if (cfg->ceiling_slice_ms) {
        /* the chase slices are timed apart from the table's: a count of ops,
         * a time series or counters over the whole phase would mix them */
        if (!cfg->duration_ms)
            return usage_error("--ceiling-slices: slices a run of -d ms, not with %s",
                               cfg->trace_path ? "--trace" : "--ops");
        const char *clash = cfg->timeline_ms ? "--timeline" : cfg->counters_spec ? "--counters"
                          : cfg->likwid_marker ? "--likwid-marker" : NULL;
        if (clash)
            return usage_error("--ceiling-slices: not with %s (it would measure the chase's slices too)", clash);
        if (cfg->duration_ms < 4ull * cfg->ceiling_slice_ms)
            return usage_error("--ceiling-slices: %u ms slices need -d of at least %llu ms (4 slices: two of the "
                               "table's, one chase at each k)", cfg->ceiling_slice_ms,
                               4ull * cfg->ceiling_slice_ms);
    }
    if (cfg->latency_every) {
        char why[256];
        if (!lat_supported(why, sizeof why))
            return usage_error("--latency: %s", why);
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

/* -u / --insert / --remove: one op mix, insert + remove == update */
static int resolve_op_mix(struct bench_config *cfg)
{
    bool ins = given("insert"), rem = given("remove");
    if (!ins && !rem) {
        /* thesis: half insert, half remove; an odd u gives the extra point to insert */
        cfg->insert = (cfg->update + 1) / 2;
        cfg->remove = cfg->update / 2;
        return 0;
    }
    if (ins && rem) {
        if (given("update") && cfg->update != cfg->insert + cfg->remove)
            return usage_error("--update: %u%% disagrees with --insert %u%% + --remove %u%%", cfg->update,
                               cfg->insert, cfg->remove);
    } else if (ins) {
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
    return 0;
}

/* -d / --ops / --warmup / --trace: how long the run is */
static int resolve_run_length(struct bench_config *cfg)
{
    if (given("duration") && given("ops"))
        return usage_error("--ops: give either --duration or --ops, not both");
    if (given("ops"))
        cfg->duration_ms = 0;
    /* a fixed-op run stays a fixed, reproducible sequence unless a warm-up is asked for */
    if (!given("warmup"))
        cfg->warmup_ms = given("ops") ? 0 : 100;
    if (!cfg->trace_path)
        return 0;
    /* a trace is the whole workload: its ops, its keys, its length */
    const char *clash = cfg->workload ? "--workload" : given("dist") ? "--dist" : given("ops") ? "--ops"
                      : given("duration") ? "--duration" : given("warmup") ? "--warmup"
                      : given("update") || given("insert") || given("remove") ? "--update/--insert/--remove" : NULL;
    if (clash)
        return usage_error("%s: not with --trace (the trace sets the operations, their keys and the run's length)",
                           clash);
    cfg->update = cfg->insert = cfg->remove = 0;
    cfg->warmup_ms = 0;
    cfg->duration_ms = 0;
    return 0;
}

/* --verify history: the plain timed loop, with keys it can enumerate */
static int check_history(const struct bench_config *cfg)
{
    if (!cfg->history_keys)
        return 0;
    const char *clash = cfg->latency_every ? "--latency" : cfg->batch > 1 ? "--batch" : cfg->timeline_ms ?
                        "--timeline" : cfg->trace_path ? "--trace" : NULL;
    if (clash)
        return usage_error("--verify: history is not with %s (it records ops in a timed loop of its own%s)", clash,
                           cfg->trace_path ? ", on keys of the range" : "");
    return 0;
}

/* --batch, --pipeline and --latency: one way of overlapping (or timing) operations */
static int check_overlap(const struct bench_config *cfg)
{
    if (cfg->batch > 1 && cfg->latency_every)
        return usage_error("--batch: not with --latency (a batched get has no latency of its own)");
    if ((cfg->pipeline || cfg->pipeline_auto) && (cfg->latency_every || cfg->batch > 1))
        return usage_error("--pipeline: not with %s", cfg->latency_every
                               ? "--latency (a pipelined op's latency spans the W ops around it)"
                               : "--batch (choose one way to overlap the misses)");
    return 0;
}

/* --workload: YCSB's op mix and request distribution; then the range's default */
static int resolve_workload(struct bench_config *cfg)
{
    if (!cfg->workload) {
        if (!given("range"))
            cfg->range = 2 * cfg->initial;
        return 0;
    }
    /* YCSB: every key is loaded (range = initial), requests are scrambled zipfian (YCSB's
     * default, theta 0.99), the op mix is the workload's */
    if (given("update") || given("insert") || given("remove"))
        return usage_error("%s: not with --workload (the workload sets the op mix)",
                           given("update") ? "--update" : given("insert") ? "--insert" : "--remove");
    if (cfg->dist.dist == KEYGEN_HOTSPOT)
        return usage_error("--dist: hotspot is not a YCSB request distribution (use uniform or zipf)");
    /* D reads the latest keys: the Zipf draw is a recency rank (1 = the newest
     * key), so it must not be scrambled over the range, or D's reads turn uniform */
    if (cfg->workload == WL_YCSB_D && given("dist") && cfg->dist.dist == KEYGEN_ZIPF && cfg->dist.scramble)
        return usage_error("--dist: ycsb-d draws a recency rank (rank 1 = the newest key): use zipf:THETA "
                           "without scramble, or uniform");
    char err[512];
    if (!given("dist"))
        keygen_parse(cfg->workload == WL_YCSB_D ? "zipf:0.99" : "zipf:0.99,scramble", &cfg->dist, err, sizeof err);
    if (!given("range"))
        cfg->range = cfg->initial;
    cfg->update = cfg->insert = cfg->remove = 0;
    if (cfg->range > (1ull << 61))
        return usage_error("--range: at most 2^61 with --workload");
    return 0;
}

/* --key-type other than u64: the arena maps keys 1..r, so only streams whose keys stay in [1, r], and
 * the arena (the keys' bytes, an 8-byte offset and, while it is built, 16 bytes of the distinctness
 * check a key) must fit in half this machine's memory */
static int check_key_type(const struct bench_config *cfg)
{
    const struct key_type *kt = &cfg->key_type;
    if (kt->kind == KEYTYPE_U64)
        return 0;
    if (cfg->trace_path)
        return usage_error("--key-type %s: not with --trace (a trace's keys are integers as recorded, not keys "
                           "1..r of the arena)", kt->name);
    if (cfg->workload == WL_YCSB_D)
        return usage_error("--key-type %s: not with ycsb-d (its inserts take new keys above the range, outside the "
                           "arena of keys 1..r)", kt->name);
    if (cfg->keys_sparse)
        return usage_error("--key-type %s: not with --keys sparse (byte keys are made from the keys 1..r)", kt->name);
    char why[160];
    if (!key_type_holds(kt, cfg->range, why, sizeof why))
        return usage_error("--key-type: %s (raise LEN or lower --range)", why);
    uint32_t lmin, lmax;
    key_type_lengths(kt, &lmin, &lmax);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = (double)cfg->range * ((lmin + lmax) / 2.0 + 24), mem = (double)pages * (double)page;
    char needs[32], have[32];
    if (pages > 0 && page > 0 && need > mem / 2)
        return usage_error("--key-type %s: the key arena of --range %llu keys needs about %s, more than half of this "
                           "machine's %s (lower --range)", kt->name, (unsigned long long)cfg->range,
                           human_bytes(need, needs, sizeof needs), human_bytes(mem, have, sizeof have));
    return 0;
}

/* --keys sparse: keys mapped before the timed phase, so only streams drawn into key buffers */
static int check_sparse_keys(const struct bench_config *cfg)
{
    if (!cfg->keys_sparse)
        return 0;
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
    return 0;
}

/* the key range against --verify full and --initial */
static int check_range(const struct bench_config *cfg)
{
    /* ~20-100 M lookups a second a thread: 2^32 keys is minutes, 2^62 would be centuries */
    if (cfg->verify == VERIFY_FULL && cfg->range > MAX_FULL_VERIFY_KEYS)
        return usage_error("--verify: full would look up all %llu keys of the range, more than 2^32 (hours or "
                           "more): use --verify sample (a 2^20-key sample) or off", (unsigned long long)cfg->range);
    if (cfg->range < cfg->initial)
        return usage_error("--range: %llu is smaller than --initial %llu (the range must hold the prefill)",
                           (unsigned long long)cfg->range, (unsigned long long)cfg->initial);
    return 0;
}

/* --topology needs --print-pinning; --print-pinning is the whole run (CLI_STOP) */
static int check_pinning(const struct bench_config *cfg)
{
    if (cfg->topology && !cfg->print_pinning)
        return usage_error("--topology: only with --print-pinning (a plan for another machine cannot run here)");
    if (cfg->print_pinning) {
        run_scan.action = CLI_PRINT_PINNING;
        return CLI_STOP;
    }
    return 0;
}

static int check_csv_stdout(const struct bench_config *cfg)
{
    if (cfg->csv && strcmp(cfg->csv, "-") == 0 && cfg->json)
        return usage_error("--csv -: standard output already carries --json records; give --csv a file");
    return 0;
}

/* --bench occupancy: fixed-capacity tables, --slots and --load */
static int check_occupancy(struct bench_config *cfg)
{
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

/* --bench memory: each of the threads runs up to 32 chases, each starting on
 * its own line: refused here, not after the smaller k's rows were written */
static int check_memory(const struct bench_config *cfg)
{
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

/* --bench mutex|rwlock: the locks to benchmark */
static int check_lock_bench(struct bench_config *cfg)
{
    if (!run_scan.lock_arg) {
        char names[1024];
        registry_lock_names(names, sizeof names);
        return usage_error("--lock: --bench %s needs --lock NAME[,NAME...] (valid: %s)",
                           cfg->bench == BENCH_MUTEX ? "mutex" : "rwlock", names);
    }
    if (check_csv_stdout(cfg))
        return -1;
    return parse_bench_locks(run_scan.lock_arg, cfg);
}

/* --value-size > 8 on a table storing 8-byte values: the error lists the tables that take it */
static int value_size_refused(const struct bench_config *cfg, const struct cht_ops *table)
{
    char names[512];
    size_t nl = 0;
    names[0] = '\0';
    const struct cht_ops *o;
    for (unsigned i = 0; (o = registry_table_at(i)) && nl < sizeof names; i++)
        if (o->caps & CHT_CAP_VALUE_OOL)
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", o->name);
    return usage_error("--value-size: %zu bytes needs a table that stores values out of line, and %s stores "
                       "8-byte values only (tables that take --value-size > 8: %s)", cfg->value_size, table->name,
                       names);
}

/* each table of a table run: available here, and able to do what the flags ask */
static int check_tables(const struct bench_config *cfg)
{
    if (!cfg->ntables)
        return usage_error("--table: expected at least one table (see --list)");
    if (given("grow") && given("initial-capacity"))
        return usage_error("--grow: it is --initial-capacity 1: give one of --grow and --initial-capacity");
    /* after --lock: a table needing RTM only for its default lock runs under another */
    for (unsigned t = 0; t < cfg->ntables; t++) {
        const struct cht_ops *ops = cfg->table[t].ops;
        char why[256];
        if (!registry_choice_available(&cfg->table[t], why, sizeof why))
            return usage_error("--table: %s is not available here: %s", ops->name, why);
        if ((ops->caps & CHT_CAP_FIXED_CAP) && cfg->density > 1 && !(ops->caps & CHT_CAP_RESIZE))
            return usage_error("--density: %g keys per slot, but table %s has a fixed capacity: it cannot hold "
                               "--initial keys at a density above 1", cfg->density, ops->name);
        if (cfg->history_keys && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("--verify: history is not for %s, a filter (it stores no values to check)", ops->name);
        if (cfg->keys_sparse && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("--keys: sparse is not for %s, a filter (the harness tracks its membership by "
                               "key in [1, r])", ops->name);
        if ((cfg->workload || cfg->trace_path) && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("%s: not with %s, a filter (its inserts and removes must follow the harness' "
                               "membership: docs/cli.md \"The final check\")",
                               cfg->workload ? "--workload" : "--trace", ops->name);
        if (cfg->value_size > 8 && !(ops->caps & CHT_CAP_VALUE_OOL))
            return value_size_refused(cfg, ops);
        if (cfg->initial_capacity && !(ops->caps & CHT_CAP_RESIZE))
            return usage_error("%s: table %s does not resize (no CHT_CAP_RESIZE: a fixed slot or bucket "
                               "count): it cannot grow from %llu keys to --initial (only resizable tables take it)",
                               given("grow") ? "--grow" : "--initial-capacity", ops->name,
                               (unsigned long long)cfg->initial_capacity);
        if (cfg->key_type.kind != KEYTYPE_U64 && !(ops->caps & CHT_CAP_BYTE_KEYS))
            return usage_error("--key-type %s: table %s takes integer keys only (it has no byte-string key "
                               "operations, CHT_CAP_BYTE_KEYS)", cfg->key_type.name, ops->name);
        if (cfg->key_type.kind != KEYTYPE_U64 && cfg->value_size > 8)
            return usage_error("--key-type %s: not with --value-size above 8 (byte-key tables store 8-byte values)",
                               cfg->key_type.name);
        bool needs_update = cfg->workload == WL_YCSB_A || cfg->workload == WL_YCSB_B || cfg->workload == WL_YCSB_F;
        if (needs_update && !ops->update)
            return usage_error("--workload %s: table %s has no update() (YCSB A, B and F update in place; "
                               "C and D do not)", workload_name(cfg->workload), ops->name);
    }
    return 0;
}

/* --bench memory */
static int check_memory_run(struct bench_config *cfg)
{
    int rc = check_pinning(cfg);
    return rc ? rc : check_memory(cfg);
}

/* a table run, and --bench mutex, rwlock (check_lock_bench) */
static int check_table_run(struct bench_config *cfg)
{
    int rc;
    if ((rc = resolve_op_mix(cfg)) || (rc = resolve_run_length(cfg)) || (rc = check_overlap(cfg)) || (rc = check_history(cfg)) ||
        (rc = resolve_workload(cfg)) || (rc = check_sparse_keys(cfg)) || (rc = check_range(cfg)) ||
        (rc = check_key_type(cfg)) ||
        (rc = check_pinning(cfg)))
        return rc;
    if (cfg->bench != BENCH_TABLE)
        return check_lock_bench(cfg);
    if (run_scan.lock_arg && cfg->ntables && apply_table_lock(run_scan.lock_arg, cfg))
        return -1;
    if ((rc = check_tables(cfg)) || (rc = check_csv_stdout(cfg)) || (rc = check_sizes(cfg)))
        return rc;
    return check_measurement(cfg);
}

int cli_parse(int argc, char **argv, struct bench_config *cfg, enum cli_action *action)
{
    memset(cfg, 0, sizeof *cfg);
    memset(&run_scan, 0, sizeof run_scan);
    memset(run_first_at, 0, sizeof run_first_at);
    cfg->verify = VERIFY_AUTO;
    *action = CLI_RUN;
    if (cli_defaults(&cli_run_spec, cfg) != 0)
        return -1;
    int rc = cli_scan(&cli_run_spec, argc, argv, cfg, run_first_at);
    *action = run_scan.action;
    if (rc)
        return rc == CLI_STOP ? 0 : -1;
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see --help)", argv[optind]);
    cfg->duration_ms_given = given("duration");
    cfg->keybuf_set = given("keybuf");
    if (cli_check_modes(&cli_run_spec, 1u << cfg->bench, run_first_at))
        return -1;
    static int (*const mode_checks[N_BENCH_KINDS])(struct bench_config *) = {
#define MODE_CHECK(id, name, mode, check) [BENCH_##id] = check,
        CHT_BENCH_MODES(MODE_CHECK)
#undef MODE_CHECK
    };
    rc = mode_checks[cfg->bench](cfg);
    *action = run_scan.action;
    return rc == CLI_STOP ? 0 : rc ? -1 : 0;
}

void cli_usage(FILE *f)
{
    cli_print_help(&cli_run_spec, f, run_scan.help_markdown);
}

void cli_free(struct bench_config *cfg)
{
    free(cfg->mem_sizes);
    cfg->mem_sizes = NULL;
    free(cfg->occ_loads);
    cfg->occ_loads = NULL;
    free(cfg->threads);
    cfg->threads = NULL;
    pin_spec_free(&cfg->pin);
}
