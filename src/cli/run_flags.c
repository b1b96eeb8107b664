/*
 * cli/run_flags.c - the flags of a run (every --bench mode), one entry each in
 * run_options[], with the setters that are not the engine's generic ones.
 *
 * Adding a flag: its field in struct bench_config (src/config.h) and its entry
 * here, next to the flags of the same modes: the setter (a cli_set_* or a small
 * one below), the modes, the default, the texts, and .sample when it takes a
 * value and has no plain default (tests/test_cli_doc.py gives the sample to
 * every mode); a named check in cli/run_checks.c if it constrains other flags
 * (given("flag")); then `tests/test_cli_doc.py build/chtbench docs/flags.md
 * --update`. getopt's tables, --help, the reference in docs/flags.md and the
 * "not used with" errors follow from the entry.
 */
#include <errno.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "cli/run_cli.h"
#include "util.h"
#include "plugin.h"

const char *cli_schema_name;

struct run_scan run_scan;

#define STR_(x) #x
#define STR(x) STR_(x)

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

static int set_tables(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    return add_tables(base, arg);
}

static int set_threads(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    free(cfg->threads);
    cfg->threads = NULL;
    cfg->nthreads = 0;
    int n = parse_uint_list(arg, 1, MAX_THREADS, &cfg->threads);
    if (n <= 0)
        return cli_bad_value(o, arg);
    cfg->nthreads = (unsigned)n;
    return 0;
}

static int set_dist(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    char err[512];
    struct bench_config *cfg = base;
    if (keygen_parse(arg, &cfg->dist, err, sizeof err) == 0)
        return 0;
    static const char *const dists[] = { "uniform", "zipf", "hotspot", NULL };
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, ":"), arg);
    bool known = false;
    for (unsigned k = 0; dists[k]; k++)
        known |= strcmp(name, dists[k]) == 0;
    return usage_error("%s%s", err, known ? "" : cli_near(name, dists));
}

static int set_pin(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    char err[512];
    struct bench_config *cfg = base;
    pin_spec_free(&cfg->pin);
    if (pin_parse(arg, &cfg->pin, err, sizeof err) != 0)
        return usage_error("%s", err);
    return 0;
}

static int set_mem(const struct cli_option *o, const char *s, void *base)
{
    (void)o;
    struct bench_config *cfg = base;
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

/* A results file path: only its presence here. main opens every results
 * file before anything runs (src/outfile.c: regular file, header, locking). */
static int set_results_path(const struct cli_option *o, const char *path, void *base)
{
    if (!*path)
        return usage_error("--%s: expected a file path ('-' for standard output with --csv)", o->name);
    if (strcmp(path, "-") == 0 && strcmp(o->name, "csv") != 0)
        return usage_error("--%s: '-' (standard output) is only for --csv", o->name);
    *(const char **)cli_field_of(o, base) = path;
    return 0;
}

/* --grow: --initial-capacity 1 (run_checks.c refuses the two together) */
static int set_grow(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)arg;
    ((struct bench_config *)base)->initial_capacity = 1;
    return 0;
}

static int set_keybuf(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_size(arg, &v) || (v && (v & (v - 1))) || (v && v < 1024) || v > (1ull << 28))
        return cli_bad_value(o, arg);
    ((struct bench_config *)base)->keybuf = v;
    return 0;
}

/* --verify: a final check (full | sample | off), history[:K], or both comma separated */
#define HISTORY_DEFAULT_KEYS 256
#define HISTORY_MAX_KEYS (1ull << 20)
static int set_verify(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char word[32];
    bool check_given = false, history_given = false;
    cfg->verify = VERIFY_AUTO;
    cfg->history_keys = 0;
    for (const char *p = arg;;) {
        const size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof word)
            return cli_bad_value(o, arg);
        memcpy(word, p, n);
        word[n] = 0;
        if (strncmp(word, "history", 7) == 0 && (word[7] == 0 || word[7] == ':') && !history_given) {
            uint64_t k = HISTORY_DEFAULT_KEYS;
            if (word[7] == ':' && (!parse_size(word + 8, &k) || k == 0 || k > HISTORY_MAX_KEYS))
                return cli_bad_value(o, arg);
            cfg->history_keys = k;
            history_given = true;
        } else {
            const struct cli_choice *c = o->choices;
            while (c->name && strcmp(c->name, word) != 0)
                c++;
            if (!c->name) {
                static const char *const words[] = { "full", "sample", "off", "history", NULL };
                return usage_error("--%s: expected %s (got '%s')%s", o->name, o->expect, arg, cli_near(word, words));
            }
            if (check_given)
                return cli_bad_value(o, arg);
            cfg->verify = (enum verify_mode)c->value;
            check_given = true;
        }
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int set_latency(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v = LAT_DEFAULT_EVERY;
    if (arg && (!parse_size(arg, &v) || v == 0 || v > (1ull << 32)))
        return cli_bad_value(o, arg);
    ((struct bench_config *)base)->latency_every = v;
    return 0;
}

static int set_likwid(const struct cli_option *o, const char *arg, void *base)
{
#ifndef HAVE_LIKWID
    (void)o, (void)arg, (void)base;
    return usage_error("--likwid-marker: this chtbench was built without likwid (install liblikwid-dev and rebuild "
                       "with -Dlikwid=enabled)");
#else
    return cli_set_true(o, arg, base);
#endif
}

static int set_pipeline(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    uint64_t v;
    if (strcmp(arg, "auto") == 0) {
        cfg->pipeline_auto = true;
        cfg->pipeline = 0;
        return 0;
    }
    if (!parse_size(arg, &v) || v > CHT_PIPELINE_MAX)   /* 0: off (a sweep axis' baseline) */
        return cli_bad_value(o, arg);
    cfg->pipeline = (unsigned)v;
    cfg->pipeline_auto = false;
    return 0;
}

static int set_allocator(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    struct bench_config *cfg = base;
    cfg->allocator = alloc_lookup(arg);
    if (!cfg->allocator)
        return usage_error("--allocator: expected system|jemalloc|mimalloc|tcmalloc (got '%s')%s", arg,
                           cli_near(arg, alloc_names));
    return 0;
}

/* --size and --load: a comma-separated list, each item checked by ok(); the last given list counts */
static int set_size_list(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char buf[4096], why[128];
    const char *items[256];
    free(cfg->mem_sizes);
    cfg->mem_sizes = NULL;
    cfg->n_mem_sizes = 0;
    int n = list_split(arg, buf, sizeof buf, items, 256, false, why, sizeof why);
    if (n < 0)
        return usage_error("--size: %s in '%s' (expected %s)", why, arg, o->expect);
    cfg->mem_sizes = malloc((size_t)n * sizeof *cfg->mem_sizes);
    for (int k = 0; k < n; k++) {
        uint64_t b;
        if (!parse_size(items[k], &b) || b < o->lo || b > o->hi)
            return usage_error("--size: expected %s (got '%s' in '%s')", o->expect, items[k], arg);
        cfg->mem_sizes[cfg->n_mem_sizes++] = b;
    }
    return 0;
}

static int set_load_list(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char buf[4096], why[128];
    const char *items[256];
    free(cfg->occ_loads);
    cfg->occ_loads = NULL;
    cfg->occ_nloads = 0;
    int n = list_split(arg, buf, sizeof buf, items, 256, false, why, sizeof why);
    if (n < 0)
        return usage_error("--load: %s in '%s' (expected %s)", why, arg, o->expect);
    cfg->occ_loads = malloc((size_t)n * sizeof *cfg->occ_loads);
    for (int k = 0; k < n; k++) {
        double d;
        if (!parse_double(items[k], &d) || !(d > 0 && d <= 1))
            return usage_error("--load: expected %s (got '%s' in '%s')", o->expect, items[k], arg);
        cfg->occ_loads[cfg->occ_nloads++] = d;
    }
    return 0;
}

static int set_lock(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    run_scan.lock_arg = arg;   /* its meaning depends on --bench: resolve_locks */
    return 0;
}

/* --list[=tables|locks], also "--list locks" */
static int set_list(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    if (!arg)
        arg = cli_next_word();
    if (!arg || strcmp(arg, "tables") == 0) {
        run_scan.action = CLI_LIST_TABLES;
    } else if (strcmp(arg, "locks") == 0) {
        run_scan.action = CLI_LIST_LOCKS;
    } else {
        static const char *const what[] = { "tables", "locks", NULL };
        return usage_error("--list: expected --list, --list=tables or --list=locks (got '%s')%s", arg, cli_near(arg, what));
    }
    return CLI_STOP;
}

/* --schema[=NAME], also "--schema table"; report_schema checks the name */
static int set_schema(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    if (!arg)
        arg = cli_next_word();
    cli_schema_name = arg;
    run_scan.action = CLI_SCHEMA;
    return CLI_STOP;
}

static int set_key_type(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    char err[256];
    if (key_type_parse(arg, &((struct bench_config *)base)->key_type, err, sizeof err) != 0)
        return usage_error("%s", err);
    return 0;
}

static int set_action(const struct cli_option *o, const char *arg, void *base)
{
    (void)arg, (void)base;
    run_scan.action = strcmp(o->name, "version") == 0 ? CLI_VERSION : CLI_HELP;
    run_scan.help_markdown = strcmp(o->name, "help-markdown") == 0;
    return CLI_STOP;
}

/* ======== the run's flags: the option table ======== */

#define CFG(member) CLI_FIELD(struct bench_config, member)
#define T_ CLI_TABLE
#define LOCKS_ (CLI_MUTEX | CLI_RWLOCK)

static const struct cli_choice bench_kinds[] = {
#define BENCH_CHOICE(id, name, mode, check) { name, BENCH_##id },
    CHT_BENCH_MODES(BENCH_CHOICE)
#undef BENCH_CHOICE
    { NULL, 0 } };
static const struct cli_choice prefill_modes[] = { { "single", PREFILL_SINGLE }, { "parallel", PREFILL_PARALLEL },
    { NULL, 0 } };
static const struct cli_choice verify_modes[] = { { "full", VERIFY_FULL }, { "sample", VERIFY_SAMPLE },
    { "off", VERIFY_OFF }, { NULL, 0 } };
static const struct cli_choice key_layouts[] = { { "dense", 0 }, { "sparse", 1 }, { NULL, 0 } };
static const struct cli_choice huge_modes[] = { { "off", 0 }, { "thp", 1 }, { NULL, 0 } };
static const struct cli_choice workloads[] = { { "ycsb-a", WL_YCSB_A }, { "ycsb-b", WL_YCSB_B },
    { "ycsb-c", WL_YCSB_C }, { "ycsb-d", WL_YCSB_D }, { "ycsb-f", WL_YCSB_F }, { NULL, 0 } };

_Static_assert(CHT_VALUE_MAX == 1048576, "--value-size's texts say 1048576 (1M)");
_Static_assert(MAX_THREADS == 4096, "--threads' and --waiters' texts say 4096");

static const struct cli_option run_options[] = {
    /* ---- table runs and --bench occupancy ---- */
    { .name = "table", .short_name = 't', .arg = CLI_ARG, .metavar = "LIST", .set = set_tables,
      .modes = T_ | CLI_OCCUPANCY, .sample = "noop",
      .accepts = "`NAME` or `NAME:key=val,...`, comma separated; repeatable",
      .help = "tables, comma separated, each NAME or NAME:key=val,... (see --list; e.g. clht-lb,locked:lock=pthread-spin)",
      .doc = "tables to run (required); a token with `:` or without `=` starts a new table, a bare `key=val` belongs to "
          "the table before it: `cuckoo:ways=4,hashes=3,clht-lb`. An empty element (`a,,b`, a trailing `,` or `:`) "
          "and a key given twice (`lock=mcs,lock=tas`) are usage errors. `null` is accepted for `noop`. "
          "`--bench occupancy`: the fixed-capacity tables to fill" },
    { .name = "ops", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(ops), .lo = 1, .hi = UINT64_MAX,
      .modes = T_ | CLI_OCCUPANCY, .sample = "100", .expect = "operations per thread >= 1 like 100000 or 1M",
      .accepts = "≥ 1",
      .help = "instead of -d: each thread does exactly N operations (--bench occupancy: gets per phase)",
      .doc = "instead of `-d`: each thread performs exactly N operations; `--bench occupancy`: the gets of each "
          "lookup phase" },

    /* ---- table runs, --bench mutex, rwlock, memory ---- */
    { .name = "threads", .short_name = 'n', .arg = CLI_ARG, .metavar = "LIST", .set = set_threads,
      .modes = T_ | LOCKS_ | CLI_MEMORY, .def = "1", .expect = "counts 1..4096 like 1,2,4 or 1-8",
      .accepts = "`1,2,4`, `1-8`, `1,2,4-8`; each 1..4096",
      .help = "thread counts: 1,2,4 or 1-8 or 1,2,4-8, run in the order given" },
    { .name = "duration", .short_name = 'd', .arg = CLI_ARG, .metavar = "MS", .set = cli_set_size, CFG(duration_ms),
      .lo = 1, .hi = 86400000, .modes = T_ | LOCKS_ | CLI_MEMORY, .sample = "10", .def = "1000",
      .def_doc = "1000; `--bench memory`: 200", .expect = "milliseconds 1..86400000", .accepts = "1..86400000",
      .help = "length of the timed phase in ms; --bench memory: of each point" },
    { .name = "pin", .short_name = 'p', .arg = CLI_ARG, .metavar = "POLICY", .set = set_pin,
      .modes = T_ | LOCKS_ | CLI_MEMORY, .def_doc = "default",
      .accepts = "`default`, `compact`, `balanced`, `list:0,2,4-7`",
      .help = "thread placement: default | compact | balanced | "
          "list:0,2,4-7",
      .doc = "thread placement (\"Pinning plans\")" },
    { .name = "print-pinning", .arg = CLI_NO_ARG, .set = cli_set_true, CFG(print_pinning),
      .modes = T_ | LOCKS_ | CLI_MEMORY,
      .help = "print the plan for each thread count (thread pu core socket numa) and exit",
      .doc = "print the plan for each thread count and exit: `thread pu core socket numa` (OS indexes, `-` for default "
          "pinning)" },
    { .name = "topology", .arg = CLI_ARG, .metavar = "SPEC", .set = cli_set_string, CFG(topology),
      .modes = T_ | LOCKS_ | CLI_MEMORY, .sample = "pack:1 pu:2", .def_doc = "this machine",
      .accepts = "hwloc synthetic (`\"pack:2 core:8 pu:2\"`, at most 16384 PUs) or an hwloc XML file",
      .help = "with --print-pinning only: a hwloc synthetic topology (\"pack:2 core:8 pu:2\") or XML file",
      .doc = "only with `--print-pinning`; a larger synthetic topology is refused at once (hwloc's build time grows "
          "quadratically: 20 s at 65536 PUs)" },

    /* ---- table runs, --bench mutex, rwlock, occupancy ---- */
    { .name = "reps", .short_name = 'R', .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(reps), .lo = 1,
      .hi = 10000, .modes = T_ | LOCKS_ | CLI_OCCUPANCY, .def = "1", .expect = "1..10000",
      .help = "repetitions, each on a fresh table (or lock)",
      .doc = "repetitions, each on a fresh table (lock); the summary gives median, mean, min, max, stdev" },
    { .name = "seed", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(seed), .hi = UINT64_MAX,
      .modes = T_ | LOCKS_ | CLI_OCCUPANCY, .def = "1", .expect = "an unsigned 64-bit integer", .accepts = "64-bit",
      .help = "seed of every key stream",
      .doc = "seeds every stream: thread `t` of repetition `k` uses stream `(seed + k, t)`" },
    { .name = "json", .arg = CLI_NO_ARG, .set = cli_set_true, CFG(json), .modes = T_ | LOCKS_ | CLI_OCCUPANCY,
      .help = "one JSON record per repetition on stdout; the summary moves to stderr" },

    /* ---- table runs ---- */
    { .name = "update", .short_name = 'u', .arg = CLI_ARG, .metavar = "PCT", .set = cli_set_uint, CFG(update),
      .hi = 100, .modes = T_, .def = "10", .expect = "a percentage 0..100, digits only", .accepts = "0..100",
      .help = "update percentage, split half insert, half remove (an odd `u` gives insert the extra point)" },
    { .name = "insert", .arg = CLI_ARG, .metavar = "PCT", .set = cli_set_uint, CFG(insert), .hi = 100, .modes = T_,
      .sample = "5",
      .expect = "a percentage 0..100, digits only", .accepts = "0..100, with `--remove` at most 100 in all",
      .help = "insert percentage: an uneven split; with only one of --insert and --remove, the other is u minus it" },
    { .name = "remove", .arg = CLI_ARG, .metavar = "PCT", .set = cli_set_uint, CFG(remove), .hi = 100, .modes = T_,
      .sample = "5",
      .expect = "a percentage 0..100, digits only", .accepts = "0..100, with `--insert` at most 100 in all",
      .help = "remove percentage (see --insert)" },
    { .name = "initial", .short_name = 'i', .arg = CLI_ARG, .metavar = "SIZE", .set = cli_set_size, CFG(initial),
      .lo = 1, .hi = CHT_KEY_MAX >> 1, .modes = T_, .def = "1M",
      .expect = "a size 1..2^38 like 1000, 64K, 1M or 2^20", .accepts = "1..2^38",
      .help = "keys prefilled; SIZE is 1000, 64K, 1M, 1G, 1T (binary: K = 2^10) or B^E (2^20, 10^6)",
      .doc = "keys prefilled; SIZE is `1000`, `64K`, `1M`, `1G`, `1T` (binary: K = 2^10) or `B^E` (`2^20`, `10^6`). "
          "More than 2^38 is a usage error (the prefill would take hours even for `noop`: ~70M keys/s a thread); so "
          "is, for a table storing data, `initial` × 16 bytes (key and value) above this machine's memory" },
    { .name = "initial-capacity", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(initial_capacity), .lo = 1,
      .hi = 1ull << 38, .modes = T_, .sample = "256", .def_doc = "`initial`",
      .expect = "a size 1..2^38 like 1, 256 or 64K", .accepts = "1..2^38; resizable tables only",
      .help = "create the table sized for N keys; the prefill of i keys grows it on the build phase's clock",
      .doc = "create the table sized for N keys instead of `initial` (its `cht_config.initial`; `--density` as ever), "
          "so the prefill of `initial` keys grows it on the build phase's clock (`build_ms`, `build_resizes`; "
          "\"The build phase\"). Only for resizable tables (`CHT_CAP_RESIZE`); a fixed-capacity table is a usage "
          "error, and so is a table that refuses an insert while growing from N (e.g. `cuckoo:resize=0`); "
          "column `initial_capacity`" },
    { .name = "grow", .arg = CLI_NO_ARG, .set = set_grow, .modes = T_,
      .help = "--initial-capacity 1: grow the table from (nearly) empty to i during the build phase",
      .doc = "`--initial-capacity 1`: the table starts at its smallest size and grows to `initial` during the build "
          "phase (as growt and RapidGrow measure it); not with `--initial-capacity`" },
    { .name = "range", .short_name = 'r', .arg = CLI_ARG, .metavar = "SIZE", .set = cli_set_size, CFG(range),
      .lo = 1, .hi = CHT_KEY_MAX, .modes = T_, .sample = "4K", .def_doc = "`2 × initial`",
      .expect = "a size 1..2^62 like 2M or 2^21", .accepts = "initial..2^62", .help = "keys are drawn from [1, r]" },
    { .name = "density", .arg = CLI_ARG, .metavar = "D", .set = cli_set_fraction, CFG(density), .hi = 64,
      .modes = T_, .def = "0.5", .expect = "a number in (0, 64]", .accepts = "(0, 64]",
      .help = "initial / slot capacity: the tables size themselves from it",
      .doc = "`initial / slot capacity`: the tables size themselves from it (hotring from its `ratio=` keys per bucket "
          "instead; fixed-capacity tables refuse D > 1). `initial / D` slots × 8 bytes above this machine's memory is "
          "a usage error naming `--density` and `--initial` (tables storing data)" },
    { .name = "dist", .arg = CLI_ARG, .metavar = "SPEC", .set = set_dist, .modes = T_, .def = "uniform",
      .accepts = "`uniform`, `zipf:THETA`, `zipf:THETA,scramble` (THETA > 0), `hotspot:keys=PCT,ops=PCT[,shift=MS]`",
      .help = "key distribution: uniform | zipf:THETA[,scramble] | hotspot:keys=PCT,ops=PCT[,shift=MS]",
      .doc = "key distribution of the timed phase; Zipf rank 1 is key 1 unless `scramble` spreads ranks over `[1, r]` "
          "with a bijection; hotspot: see \"Workloads\"" },
    { .name = "keys", .arg = CLI_ARG, .metavar = "LAYOUT", .set = cli_set_choice, CFG(keys_sparse),
      .choices = key_layouts, .modes = T_, .def = "dense", .accepts = "`dense`, `sparse`",
      .help = "dense: keys 1..r | sparse: the same keys spread over 61 bits by a fixed bijection, off the clock",
      .doc = "`sparse`: every key `k` of `[1, r]` is replaced by a fixed bijection of `[1, 2^61]` before the run "
          "(prefill, key buffers, final check; never in the timed loop), so keys look like real identifiers and "
          "`hash=identity` loses the perfect spread dense keys give it (\"Key layout\"); not with `--trace`, "
          "`ycsb-d`, `--dist hotspot`, `--keybuf 0` or filters; column `keys`" },
    { .name = "key-type", .arg = CLI_ARG, .metavar = "TYPE", .set = set_key_type, .modes = T_, .def = "u64",
      .accepts = "`u64`, `bytes:LEN`, `bytes:MIN..MAX` (1 ≤ MIN ≤ MAX ≤ 1024), `ycsb`, `words`",
      .help = "keys: u64 | bytes:LEN | bytes:MIN..MAX | ycsb (\"user\" + FNV-64 decimal) | words (byte strings "
          "of a key arena, off the clock)",
      .doc = "the keys' type: integers (`u64`), or byte strings the integer keys `1..r` map to through a key arena "
          "built before the table, off the clock (docs/workloads.md \"Byte-string keys\"): `bytes:LEN` random bytes, "
          "`bytes:MIN..MAX` of a uniform length, `ycsb` YCSB's `user` + FNV-64 decimal, `words` pronounceable words. "
          "Only tables with byte keys (`--list`: caps); not with `--trace`, `ycsb-d` or `--keys sparse`; column "
          "`key_type`" },
    { .name = "workload", .arg = CLI_ARG, .metavar = "W", .set = cli_set_choice, CFG(workload), .choices = workloads,
      .modes = T_, .sample = "ycsb-c", .accepts = "`ycsb-a`, `ycsb-b`, `ycsb-c`, `ycsb-d`, `ycsb-f`",
      .help = "a YCSB core workload: its op mix, r = i, scrambled zipf:0.99 unless --dist (docs/workloads.md)",
      .doc = "a YCSB core workload instead of `-u`/`--insert`/`--remove` (\"Workloads\")" },
    { .name = "trace", .arg = CLI_ARG, .metavar = "FILE", .set = cli_set_string, CFG(trace_path), .lo = 1,
      .modes = T_, .sample = "/dev/null", .expect = "a trace file (docs/workloads.md)",
      .accepts = "a text or binary trace; a pipe too (`--trace /dev/stdin`, `<(zcat t.gz)`)",
      .help = "replay a recorded trace ('OP KEY' lines or binary; each thread its share; the run ends when it is "
          "consumed)",

      .doc = "replay a recorded trace instead of generated ops (\"Workloads\"); not with `-d`, `--ops`, `--warmup`, "
          "`--dist`, `--workload`, `-u`" },
    { .name = "prefill", .arg = CLI_ARG, .metavar = "MODE", .set = cli_set_choice, CFG(prefill),
      .choices = prefill_modes, .modes = T_, .def = "parallel", .accepts = "`single`, `parallel`",
      .help = "who inserts the i keys: thread 0 alone (single), or every thread a slice (parallel)" },
    { .name = "mem", .arg = CLI_ARG, .metavar = "POLICY", .set = set_mem, .modes = T_, .def = "local",
      .accepts = "`local`, `interleave`, `node:N`",
      .help = "memory policy (libnuma) while the table is created and prefilled: local | interleave | node:N" },
    { .name = "warmup", .arg = CLI_ARG, .metavar = "MS", .set = cli_set_size, CFG(warmup_ms), .hi = 86400000,
      .modes = T_, .sample = "0", .def_doc = "100 with `-d`, 0 with `--ops`", .expect = "milliseconds 0..86400000",
      .accepts = "0..86400000", .help = "operations after the start barrier that are not timed or counted",
      .doc = "operations after the start barrier that are not timed or counted in throughput (the first ~80 ms of a "
          "run ramp up: caches, TLB, branch predictors, frequency); they use their own key stream and count in the "
          "size accounting. With `--ops` the default is 0, so a fixed-op run stays an exactly reproducible sequence" },
    { .name = "keybuf", .arg = CLI_ARG, .metavar = "N", .set = set_keybuf, .modes = T_, .sample = "1024",
      .def_doc = "auto, see \"What is timed\"",
      .expect = "0 (draw keys in the loop) or a power of two 2^10..2^28 of ops per thread",
      .accepts = "0, or a power of two 2^10..2^28",
      .help = "ops drawn before the run per thread, for every distribution but hotspot (0: in the loop)",
      .doc = "ops drawn before the run per thread, for every distribution but hotspot (\"What is timed\", step 5); N × "
          "8 bytes × the largest thread count above this machine's memory is a usage error" },
    { .name = "verify", .arg = CLI_ARG, .metavar = "MODE", .set = set_verify, .choices = verify_modes, .modes = T_,
      .sample = "off",
      .def_doc = "full when `r ≤ 2^24`, else sample",
      .expect = "full, sample, off, history[:K] (K 1..1048576), or one of the first three and history[:K] comma separated",
      .accepts = "`full`, `sample`, `off`; `history[:K]` (K 1..2^20, default 256); one of the first three and "
          "`history[:K]`, comma separated",

      .help = "the final check after each repetition: full | sample (2^20 keys) | off; history[:K]: every answer of "
          "the timed run on ~K watched keys checked for linearizability",

      .doc = "the final check after each repetition (\"The run\", step 6); `full` over a range (or a trace's largest "
          "key) above 2^32 is a usage error saying to use `sample` (the sweep would take hours or more). "
          "`history[:K]` also records every op of the timed run on about K watched keys spread over the range and "
          "checks each key's history for linearizability (\"Answers checked during the run\"); alone it keeps the "
          "default final check" },
    { .name = "latency", .arg = CLI_OPT_ARG, .metavar = "EVERY", .set = set_latency, .modes = T_,
      .def_doc = "512 when given bare", .expect = "--latency or --latency=EVERY, EVERY 1..2^32 ops per sample",
      .accepts = "1..2^32, after `=` (`--latency=5`; `--latency 5` is a usage error saying so)",
      .help = "time one op in EVERY with the TSC (1: every op)",
      .doc = "time one op in EVERY (1: every op) with the TSC; needs rdtscp (CPUID), else a usage error. See "
          "\"Measurement\"" },
    { .name = "latency-csv", .arg = CLI_ARG, .metavar = "FILE", .set = set_results_path, CFG(latency_csv),
      .modes = T_, .sample = "/tmp/x.csv", .accepts = "as `--csv` (not `-`, not the same file); needs `--latency`",
      .help = "append per-store log2 latency histograms to FILE",
      .doc = "append every latency statistic and log2 histogram, one row per operation class (docs/csv.md \"Side "
          "files\")" },
    { .name = "counters", .arg = CLI_ARG, .metavar = "SPEC", .set = cli_set_string, CFG(counters_spec), .modes = T_,
      .sample = "ipc",
      .accepts = "groups `cache`, `tlb`, `ipc` and PAPI event names, comma separated (`ipc,cache`, `ipc,PAPI_BR_MSP`); "
          "≤ 8 events in all",
      .help = "PAPI counters per op: cache | tlb | ipc | EVENT,EVENT...",
      .doc = "hardware counters per op through PAPI; usage error when built without PAPI, for a name PAPI does not "
          "know, an event named twice, an empty element, or more than 8 events (groups expanded), whether or not "
          "this machine can count them" },
    { .name = "likwid-marker", .arg = CLI_NO_ARG, .set = set_likwid, CFG(likwid_marker), .modes = T_,
      .help = "likwid marker regions 'prefill' and 'run' (likwid-perfctr -m)",
      .doc = "likwid marker regions `prefill` and `run`; usage error when built without likwid" },
    { .name = "timeline", .arg = CLI_ARG, .metavar = "MS", .set = cli_set_size, CFG(timeline_ms), .lo = 1,
      .hi = 86400000, .modes = T_, .sample = "10", .expect = "an interval in milliseconds 1..86400000",
      .accepts = "1..86400000; needs `--timeline-csv`", .help = "sample the throughput of all threads every MS ms" },
    { .name = "timeline-csv", .arg = CLI_ARG, .metavar = "FILE", .set = set_results_path, CFG(timeline_csv),
      .modes = T_, .sample = "/tmp/y.csv", .accepts = "as `--csv` (not `-`, not the same file); needs `--timeline`",
      .help = "append the time series to FILE (docs/csv.md \"Side files\")" },
    { .name = "table-counters-csv", .arg = CLI_ARG, .metavar = "FILE", .set = set_results_path,
      CFG(table_counters_csv), .modes = T_, .sample = "/tmp/c.csv", .accepts = "as `--csv` (not `-`, not the same file)",
      .help = "append the table's own counters (cht_stats_counter) to FILE, one row each (docs/csv.md \"Side files\")",
      .doc = "append the counters the table reports itself (`cht_stats_counter`, docs/plugins.md), one row per "
          "counter and repetition, to FILE (docs/csv.md \"Side files\"); `--json` carries them too "
          "(`table_counters`)" },
    { .name = "ceiling", .arg = CLI_NO_ARG, .set = cli_set_true, CFG(ceiling), .modes = T_,
      .help = "add ceiling_mops, ceiling_frac to table rows: the machine's miss rate at the table's size",
      .doc = "add `ceiling_mops`, `ceiling_frac` to table rows (\"Memory ceiling\")" },
    { .name = "ceiling-slices", .arg = CLI_ARG, .metavar = "MS", .set = cli_set_size, CFG(ceiling_slice_ms), .lo = 1,
      .hi = 10000, .modes = T_, .sample = "20", .expect = "a slice in milliseconds 1..10000",
      .accepts = "1..10000; needs `-d` of at least 4 × MS; not with `--ops`, `--trace`, `--timeline`, `--counters`, "
          "`--likwid-marker`",
      .help = "measure the ceiling inside the run: the table and the ceiling's chase take turns every MS ms",
      .doc = "as `--ceiling`, but the ceiling is measured in the run itself: the table and the memory bench's chase take "
          "turns every MS ms of the timed phase, so `ceiling_frac` compares the same seconds (\"Memory ceiling\")" },
    { .name = "hugepages", .arg = CLI_ARG, .metavar = "MODE", .set = cli_set_choice, CFG(hugepages),
      .choices = huge_modes, .modes = T_, .def = "off", .accepts = "`off`, `thp`",
      .help = "one huge-page policy for every table's memory (\"Huge pages\")" },
    { .name = "batch", .arg = CLI_ARG, .metavar = "B", .set = cli_set_size, CFG(batch), .lo = 1, .hi = CHT_BATCH_MAX,
      .modes = T_, .def = "1", .expect = "gets per batch 1.." STR(CHT_BATCH_MAX),
      .accepts = "1.." STR(CHT_BATCH_MAX) "; not with `--latency`",
      .help = "gets in batches of B through the table's get_batch",
      .doc = "the timed loop queues gets and issues them B at a time through the table's `get_batch` (software "
          "prefetching of every bucket before resolving any; a table without one gets B single gets, "
          "`get_batch=single gets` in the CSV); inserts and removes stay single and are not delayed, so a batched get "
          "may see the table a few ops later than a single get would" },
    { .name = "pipeline", .arg = CLI_ARG, .metavar = "W|auto", .set = set_pipeline, .modes = T_, .sample = "0",
      .def = "0",
      .def_doc = "0: off", .expect = "ops in flight 0.." STR(CHT_PIPELINE_MAX) " (0: off) or auto",
      .accepts = "0.." STR(CHT_PIPELINE_MAX) " or `auto`; not with `--latency` or `--batch` (except `0`)",
      .help = "keep W ops in flight per thread: started (prefetched) in chunks, each stepped W ops after its start (tables with pipe hooks)",
      .doc = "keep W operations (gets, inserts, removes, updates) in flight per thread: ops are drawn in k chunks "
          "(k = W / 16, 1 below 32) that rotate: each turn one chunk is stepped by the table's `pipe_step` hook and "
          "a new one is started by `pipe_start` (their lines prefetched), k turns before its step; ops that need "
          "another line complete k turns after that; one thread's ops on one key complete in program order "
          "(\"Pipelined operations\"); "
          "tables without the hook run single ops (`pipeline_mode=fallback`); `auto`: single ops when the table is no "
          "larger than 4x the core's private cache (L2), else W = 32" },
    { .name = "value-size", .arg = CLI_ARG, .metavar = "BYTES", .set = cli_set_size, CFG(value_size), .lo = 8,
      .hi = CHT_VALUE_MAX, .modes = T_, .def = "8", .expect = "value bytes 8..1048576 (1M), like 100 or 1K",
      .accepts = "8..1048576 (1M; `K`, `M`, `2^N` accepted); over 8 only with tables that store values out of line "
          "(`hotring`, `chain`, `locked`)",
      .help = "value bytes; over 8: stored out of line, replaced on update (tables with that capability only)",
      .doc = "bytes per value; over 8: stored out of line, replaced on update, read whole by every get (\"Value "
          "size\"); column `value_size`" },

    /* ---- table runs, --bench mutex, rwlock ---- */
    { .name = "lock", .arg = CLI_ARG, .metavar = "NAME", .set = set_lock, .modes = T_ | LOCKS_, .sample = "tas",
      .accepts = "a lock from `--list=locks`, usable here; with `--bench`: lock names, comma separated",
      .help = "without --bench: lock=NAME for every table taking a lock; with --bench: the locks to benchmark, comma "
          "separated (see --list=locks)",

      .doc = "without `--bench`: shorthand for `lock=NAME` on every table of the run that takes a lock (option `lock`, "
          "e.g. `locked`); a table naming its own lock keeps it; a run with no such table is a usage error. With "
          "`--bench mutex` or `rwlock` (required there): the locks to benchmark, in order; an unknown name or a lock "
          "this machine cannot run (RTM locks without RTM) is a usage error giving the valid names or the reason "
          "(\"Lock benchmarks\")" },
    { .name = "handoff", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(handoff_bound), .lo = 1,
      .hi = 1u << 30, .modes = T_ | LOCKS_, .def = STR(CHT_LOCK_HANDOFF_DEFAULT),
      .expect = "local hand-offs 1..2^30", .accepts = "1..2^30",
      .help = "lock_config.handoff_bound of cohort locks; also the locks a table takes (lock=NAME, --lock)",
      .doc = "`lock_config.handoff_bound` (cohort locks: local hand-offs before the global lock is released); also "
          "given to the locks of a table run (`lock=NAME`, `--lock`)" },
    { .name = "waiters", .arg = CLI_ARG, .metavar = "T", .set = cli_set_size, CFG(waiter_threshold),
      .hi = MAX_THREADS, .modes = T_ | LOCKS_, .def = STR(CHT_LOCK_WAITER_THRESHOLD_DEFAULT),
      .expect = "a waiter threshold 0..4096", .accepts = "0..4096",
      .help = "lock_config.waiter_threshold of the waiter lock; also the locks a table takes",
      .doc = "`lock_config.waiter_threshold` (the waiter-count lock's T); also given to a table run's locks" },

    /* ---- the lock benchmarks, --bench memory, --bench occupancy ---- */
    { .name = "cs", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(cs), .hi = 1u << 30, .modes = CLI_MUTEX,
      .def = "4", .expect = "work units 0..2^30", .accepts = "0..2^30",
      .help = "work units inside the critical section" },
    { .name = "ncs", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(ncs), .hi = 1u << 30, .modes = LOCKS_,
      .def = "32", .expect = "work units 0..2^30", .accepts = "0..2^30",
      .help = "work units between critical sections" },
    { .name = "write", .arg = CLI_ARG, .metavar = "PCT", .set = cli_set_uint, CFG(write_pct), .hi = 100,
      .modes = CLI_RWLOCK, .def = "10", .expect = "a percentage 0..100, digits only", .accepts = "0..100",
      .help = "probability (%) that an iteration is a write" },
    { .name = "rcs", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(rcs), .hi = 1u << 30,
      .modes = CLI_RWLOCK, .def = "4", .expect = "work units 0..2^30", .accepts = "0..2^30",
      .help = "work units inside a read section (after reading the array)" },
    { .name = "wcs", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(wcs), .hi = 1u << 30,
      .modes = CLI_RWLOCK, .def = "4", .expect = "work units 0..2^30", .accepts = "0..2^30",
      .help = "add/subtract pairs of a write section" },
    { .name = "size", .arg = CLI_ARG, .metavar = "LIST", .set = set_size_list, .lo = 4096, .hi = 1ull << 40,
      .modes = CLI_MEMORY, .sample = "1M", .def_doc = "16K,64K,...,256M",
      .expect = "working-set sizes 4K..1T, comma separated, like 32K,1M,1G",
      .accepts = "4K..1T each, comma separated; each at least 64 × 32 × threads bytes (every thread's 32 chases start on "
          "lines of their own)",
      .help = "working sets of the pointer chases (-d: ms per point)",
      .doc = "working sets (\"Memory ceiling\"); a size too small for a thread count is a usage error before anything "
          "runs" },
    { .name = "slots", .arg = CLI_ARG, .metavar = "N", .set = cli_set_size, CFG(occ_slots), .lo = 64,
      .hi = 1ull << 40, .modes = CLI_OCCUPANCY, .sample = "1K", .expect = "a slot capacity 64..2^40 like 1M or 2^25",
      .accepts = "64..2^40", .help = "the capacity of each table (required)",
      .doc = "the capacity of each table (required; \"Occupancy and hit/miss "
          "lookups\")" },
    { .name = "load", .arg = CLI_ARG, .metavar = "LIST", .set = set_load_list, .modes = CLI_OCCUPANCY,
      .sample = "0.5",
      .expect = "load factors in (0, 1], comma separated, like 0.5,0.9,0.95",
      .accepts = "load factors in (0, 1], comma separated",
      .help = "the loads to fill each table to and measure (required)" },

    /* ---- every mode ---- */
    { .name = "bench", .arg = CLI_ARG, .metavar = "KIND", .set = cli_set_choice, CFG(bench), .choices = bench_kinds,
      .modes = CLI_EVERY_RUN, .def_doc = "table", .accepts = "`table`, `mutex`, `rwlock`, `memory`, `occupancy`",
      .help = "table (the table loop) | mutex (shared counters) | rwlock (RWBench, 64-int array) | memory (pointer-chase "
          "latency and MLP per --size) | occupancy (hit/miss gets at each --load of --slots)",

      .doc = "the table loop (the default), a lock-only benchmark (\"Lock benchmarks\"), the memory ceiling (\"Memory "
          "ceiling\") or the occupancy experiment (\"Occupancy and hit/miss lookups\")" },
    { .name = "csv", .arg = CLI_ARG, .metavar = "FILE", .set = set_results_path, CFG(csv), .modes = CLI_EVERY_RUN,
      .sample = "/tmp/z.csv",
      .accepts = "a regular file (new or with this schema's header), or `-` for standard output",
      .help = "append the run's rows to FILE ('-': stdout; docs/csv.md)",
      .doc = "append rows (docs/csv.md); with `-` the summary moves to stderr; not with `--json`" },
    { .name = "allocator", .arg = CLI_ARG, .metavar = "NAME", .set = set_allocator, .modes = CLI_EVERY_RUN,
      .sample = "system",
      .def_doc = "as built, see `--version`", .accepts = "`system`, `jemalloc`, `mimalloc`, `tcmalloc`",
      .help = "malloc for the whole run, preloaded by re-executing, checked in the process",
      .doc = "the malloc of the whole process (tables, libraries, harness): chtbench re-executes itself once with the "
          "library in `LD_PRELOAD` and checks in the process that it serves malloc (\"Allocators\"); with runs and "
          "`--version`" },
    { .name = "validate", .arg = CLI_NO_ARG, .set = cli_set_true, CFG(validate), .modes = CLI_EVERY_RUN,
      .accepts = "any command line of a run",
      .help = "check this command line as its run would (tables created tiny, trace and results files checked) without "
          "running or writing anything: exit 0 and no output when it would start, else its error",

      .doc = "check the command line exactly as its run would — every flag and cross-check, tables, locks and options "
          "resolved and `available()` consulted, each table created tiny and destroyed, a `--trace` file loaded, the "
          "memory estimate, the pinning plans, the results files (an existing one opened and its header checked, a "
          "new one's directory checked) — then stop: nothing runs, no file is created or written, nothing is printed "
          "on stdout. Exit 0 when the run would start; otherwise the run's own one-line error and exit code (2 for "
          "bad usage, 1 when it could not run). `scripts/sweep` and `scripts/figure` use it to check every cell "
          "before the first runs" },
    { .name = "plugin", .arg = CLI_ARG, .metavar = "PATH", .set = cli_set_plugin, .modes = CLI_EVERY_RUN,
      .accepts = "a plugin: a shared object exporting `cht_plugin()` (docs/plugins.md); repeatable, `--plugin PATH` or "
          "`--plugin=PATH` spelt out in full",
      .help = "load tables and locks from a plugin (repeatable; also CHTBENCH_PLUGINS=PATH:PATH; docs/plugins.md)",
      .doc = "load its tables and locks before the rest of the command line is read: they then work like built-in ones "
          "(`--list` marks them `(plugin NAME, PATH)`; rows name the plugin and the file's sha256). A missing file, a "
          "file that is not a loadable object, one without `cht_plugin`, another `CHT_ABI_VERSION`, a shared struct of "
          "another size (`cht_plugin.sizes`), a name that exists already or an ops struct missing a required member "
          "is a usage error naming the file and the reason. The same file given twice is loaded once. Also `CHTBENCH_PLUGINS` (\"Environment\")" },
    { .name = "list", .arg = CLI_OPT_ARG, .metavar = "tables|locks", .set = set_list, .modes = CLI_EVERY_RUN,
      .accepts = "also `--list locks`", .help = "list tables (or locks): source, options, availability",
      .doc = "one line per table (lock): name, summary with its source, `available` or `unavailable: why`, then "
          "`(plugin NAME, PATH)` for an entry of a plugin; for tables also their options (`key: accepted values`) "
          "and whether they take `lock=`" },
    { .name = "schema", .arg = CLI_OPT_ARG, .metavar = "NAME", .set = set_schema, .modes = CLI_EVERY_RUN,
      .def_doc = "all", .accepts = "`table`, `latency`, `timeline`, `lock`, `memory`, `occupancy`",
      .help = "the columns of every results file (or of NAME's) as JSON (docs/csv.md)",
      .doc = "the declared columns of every results file with the schema versions, or of NAME's file, as JSON (`{name, "
          "column, type, unit, flag, meaning}` each; docs/csv.md \"Where the columns are declared\"); an unknown "
          "NAME is exit 2" },
    { .name = "version", .short_name = 'V', .arg = CLI_NO_ARG, .set = set_action, .modes = CLI_EVERY_RUN,
      .help = "version and optional features built in",
      .doc = "version, git revision, build type, sanitizer, compiler, allocator (the context every CSV row carries), "
          "optional libraries built in, schema versions, the plugin ABI version and each loaded plugin's path and "
          "sha256" },
    { .name = "help", .short_name = 'h', .arg = CLI_NO_ARG, .set = set_action, .modes = CLI_EVERY_RUN,
      .help = "this text", .doc = "usage: every flag, grouped by the modes it applies to" },
    { .name = "help-markdown", .arg = CLI_NO_ARG, .set = set_action, .modes = CLI_EVERY_RUN,
      .help = "the flag reference of docs/flags.md, as Markdown",
      .doc = "this flag reference, as Markdown (tests/test_cli_doc.py checks that docs/flags.md has it)" },
};

_Static_assert(sizeof run_options / sizeof run_options[0] <= CLI_MAX_OPTIONS, "raise CLI_MAX_OPTIONS");

const struct cli_spec cli_run_spec = {
    .prog = "chtbench", .opts = run_options, .n = sizeof run_options / sizeof run_options[0], .others = &cli_check_spec,
    .usage =
"usage: chtbench [options]               a table run: the CHTBench loop on --table's tables\n"
"       chtbench --bench KIND [options]  a lock, memory or occupancy benchmark\n"
"       chtbench check [options]         the conformance checks (chtbench check --help)\n"
"A table run: n threads, u% updates (half insert, half remove), i prefilled keys from the\n"
"range [1, r], for d ms; prints a summary, appends CSV. Each flag is listed under the modes it\n"
"applies to; given in another mode it is a usage error. Details: docs/cli.md.\n",
    .epilog =
"\nExit: 0 ok, 1 a run failed its correctness check, ran out of memory or could not run,\n"
"2 bad usage, 3 a fixed-capacity table filled up, 130/143 interrupted (SIGINT/SIGTERM).\n",
};
