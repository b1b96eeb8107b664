/*
 * main.c - chtbench: parse, plan, run every (table, threads, rep), report.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cht_env.h"
#include "cli.h"
#include "marker.h"
#include "memstat.h"
#include "lockbench.h"
#include "report.h"
#include "runner.h"
#include "util.h"
#include "trace.h"
#include "membench.h"
#include "occupancy.h"
#include "plugin.h"

/* ends an entry's line: " (plugin NAME, PATH)" first when a plugin added it */
static void print_origin(const struct registry_plugin *p)
{
    if (p)
        printf(" (plugin %s, %s)", p->name, p->path);
    putchar('\n');
}

static void list_tables(void)
{
    const struct cht_ops *t;
    for (unsigned i = 0; (t = registry_table_at(i)); i++) {
        char why[256];
        bool ok = registry_table_available(t, why, sizeof why);
        printf("%-14s %-80s %s%s", t->name, t->summary, ok ? "available" : "unavailable: ", ok ? "" : why);
        print_origin(registry_table_plugin(t));
        /* then, indented: whether it takes lock=, and every option of its spec */
        const struct cht_option_spec *o, *lock = NULL;
        for (o = t->options; o && o->key; o++)
            if (strcmp(o->key, "lock") == 0)
                lock = o;
        if (t->caps & CHT_CAP_LOCK_PARAM)
            printf("%15s %-10s takes a lock: %s\n", "", "lock=NAME", lock ? lock->help : "any lock from --list=locks");
        else
            printf("%15s %-10s not taken: this table has no lock to choose\n", "", "lock=NAME");
        for (o = t->options; o && o->key; o++)
            if (o != lock)
                printf("%15s %s=%-*s %s\n", "", o->key, (int)(strlen(o->key) < 9 ? 9 - strlen(o->key) : 0), "",
                       o->help);
    }
}

static void list_locks(void)
{
    const struct lock_ops *l;
    for (unsigned i = 0; (l = registry_lock_at(i)); i++) {
        char why[256];
        bool ok = registry_lock_available(l, why, sizeof why);
        printf("%-14s %-70s %s%s", l->name, l->summary, ok ? "available" : "unavailable: ", ok ? "" : why);
        print_origin(registry_lock_plugin(l));
    }
}

static void version(void)
{
    unsigned nt = 0, nl = 0;
    while (registry_table_at(nt))
        nt++;
    while (registry_lock_at(nl))
        nl++;
    printf("chtbench %s\n", CHTBENCH_VERSION);
    report_version(stdout);
    printf("features: hwloc %s\ntables: %u, locks: %u\ncsv schema: %d (latency %d, timeline %d, lock-bench %d)\n",
           CHTBENCH_FEATURES, nt, nl, CSV_SCHEMA_VERSION, LATENCY_CSV_SCHEMA_VERSION, TIMELINE_CSV_SCHEMA_VERSION,
           LOCK_CSV_SCHEMA_VERSION);
    printf("plugin abi: %u\n", CHT_ABI_VERSION);
    const struct registry_plugin *p;
    for (unsigned i = 0; (p = plugin_at(i)); i++)
        printf("plugin: %s %s sha256 %s\n", p->name, p->path, p->sha256);
}

/* Plans for every thread count, made before anything runs so a bad --pin
 * list is a usage error and not a half-written results file. */
static struct pin_plan *make_plans(const struct bench_config *cfg, const struct pin_topology *topo)
{
    struct pin_plan *plans = calloc(cfg->nthreads, sizeof *plans);
    char err[512];
    for (unsigned i = 0; i < cfg->nthreads; i++)
        if (pin_plan_make(topo, &cfg->pin, cfg->threads[i], &plans[i], err, sizeof err) != 0) {
            fprintf(stderr, "chtbench: %s\n", err);
            exit(EXIT_USAGE);
        }
    return plans;
}

static int print_pinning(const struct bench_config *cfg)
{
    char err[512], desc[256];
    struct pin_topology *topo = pin_topology_load(cfg->topology, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_USAGE;
    }
    struct pin_plan *plans = make_plans(cfg, topo);
    pin_topology_describe(topo, desc, sizeof desc);
    for (unsigned i = 0; i < cfg->nthreads; i++) {
        printf("# threads=%u pin=%s topology: %s%s\n", cfg->threads[i], pin_policy_name(cfg->pin.policy), desc,
               plans[i].oversubscribed ? " (oversubscribed)" : "");
        pin_plan_print(stdout, &plans[i]);
        pin_plan_free(&plans[i]);
    }
    free(plans);
    pin_topology_free(topo);
    return 0;
}

/* Option values are the tables' to judge (create() parses them): build each
 * table once, tiny, before any run, so a bad value is a usage error and not
 * a results file with some rows in it. */
static void validate_tables(const struct bench_config *cfg)
{
    for (unsigned t = 0; t < cfg->ntables; t++) {
        struct cht_config tc = { .initial = 16, .density = cfg->density, .range = 32, .max_threads = 1,
                                 .numa_nodes = 1, .value_size = cfg->value_size, .hugepages = cfg->hugepages };
        registry_apply_choice(&cfg->table[t], &tc);
        char err[512] = "";
        void *table = cfg->table[t].ops->create(&tc, err, sizeof err);
        if (!table) {
            fprintf(stderr, "chtbench: %s\n", err[0] ? err : "--table: cannot create the table");
            exit(EXIT_USAGE);
        }
        cfg->table[t].ops->destroy(table);
    }
}

/* What a loaded trace asks of the run's tables and final check; one line and
 * nonzero when it cannot be run. */
static int trace_checks(const struct bench_config *cfg, const struct trace *trace)
{
    for (unsigned t = 0; t < cfg->ntables; t++)
        if (trace->count[TRACE_UPD] && !cfg->table[t].ops->update) {
            fprintf(stderr, "chtbench: --trace: '%s' has %llu updates and table %s has no update()\n",
                    cfg->trace_path, (unsigned long long)trace->count[TRACE_UPD], cfg->table[t].ops->name);
            return -1;
        }
    if (cfg->verify == VERIFY_FULL && trace->max_key > (1ull << 32)) {
        fprintf(stderr, "chtbench: --verify: full would look up every key up to the trace's largest, %llu, more "
                "than 2^32 (hours or more): use --verify sample or off\n", (unsigned long long)trace->max_key);
        return -1;
    }
    return 0;
}

/* --trace: load the file and check it against the run's settings, for the run and for --validate
 * alike; EXIT_USAGE with the message printed if it cannot be used */
static int trace_open(const struct bench_config *cfg, struct trace *trace)
{
    char err[1024];
    if (trace_load(cfg->trace_path, trace, err, sizeof err) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_USAGE;
    }
    if (trace_checks(cfg, trace) != 0) {
        trace_free(trace);
        return EXIT_USAGE;
    }
    return 0;
}

/* Writes one repetition's row: CSV, JSON; returns nonzero when the CSV could
 * not be appended. */
static int emit(const struct bench_config *cfg, const struct record *rec)
{
    int status = 0;
    char err[512];
    if (cfg->csv_out && report_csv_append(cfg->csv_out, rec, err, sizeof err) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        status = EXIT_FAILED;
    }
    if (cfg->json)
        report_json(stdout, rec);
    return status;
}

/* The results files, opened and checked before anything runs (outfile.h):
 * a bad one is a usage error and no file is left behind. */
static struct outfile out_files[3];

static void close_outputs(void)
{
    for (int i = 0; i < 3; i++)
        outfile_close(&out_files[i]);
}

/* --validate: a results file that does not exist yet is not created; its
 * directory must be one open(O_CREAT) could create it in. */
static int probe_new_file(const char *flag, const char *path, char *err, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT)
        return 1;   /* exists (or another error): outfile_open opens it without creating it and judges */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int e = 0;
    if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    if (e) {
        snprintf(err, len, "%s: cannot open '%s' for appending: %s", flag, path, strerror(e));
        return -1;
    }
    return 0;
}

static int open_outputs_as(struct bench_config *cfg, bool probe)
{
    char kind[3][96], err[1024];
    bool lock_bench = cfg->bench == BENCH_MUTEX || cfg->bench == BENCH_RWLOCK;
    if (cfg->bench == BENCH_MEMORY)
        snprintf(kind[0], sizeof kind[0], "chtbench memory-bench CSV (--bench memory), schema %d",
                 MEMBENCH_CSV_SCHEMA_VERSION);
    else if (cfg->bench == BENCH_OCCUPANCY)
        snprintf(kind[0], sizeof kind[0], "chtbench occupancy CSV (--bench occupancy), schema %d",
                 OCCUPANCY_CSV_SCHEMA_VERSION);
    else
        snprintf(kind[0], sizeof kind[0], lock_bench ? "chtbench lock-bench CSV (--bench), schema %d"
                                                     : "chtbench table CSV (--csv), schema %d",
                 lock_bench ? LOCK_CSV_SCHEMA_VERSION : CSV_SCHEMA_VERSION);
    snprintf(kind[1], sizeof kind[1], "chtbench latency-histogram CSV (--latency-csv), schema %d", LATENCY_CSV_SCHEMA_VERSION);
    snprintf(kind[2], sizeof kind[2], "chtbench timeline CSV (--timeline-csv), schema %d", TIMELINE_CSV_SCHEMA_VERSION);
    const struct { const char *flag, *path, *header; struct outfile **slot; } want[3] = {
        { "--csv", cfg->csv,
          cfg->bench == BENCH_MEMORY ? membench_csv_header()
          : cfg->bench == BENCH_OCCUPANCY ? occupancy_csv_header()
          : lock_bench ? report_lock_csv_header_line() : report_csv_header_line(),
          &cfg->csv_out },
        { "--latency-csv", cfg->latency_csv, report_latency_header_line(), &cfg->latency_out },
        { "--timeline-csv", cfg->timeline_csv, report_timeline_header_line(), &cfg->timeline_out },
    };
    for (int i = 0; i < 3; i++) {
        if (!want[i].path)
            continue;
        if (probe && strcmp(want[i].path, "-") != 0) {
            int new = probe_new_file(want[i].flag, want[i].path, err, sizeof err);
            if (new < 0) {
                fprintf(stderr, "chtbench: %s\n", err);
                close_outputs();
                return EXIT_USAGE;
            }
            if (new == 0) {
                for (int j = 0; j < i; j++)
                    if (want[j].path && strcmp(want[j].path, want[i].path) == 0) {
                        fprintf(stderr, "chtbench: %s and %s name the same file '%s': each results file holds one "
                                "schema\n", want[j].flag, want[i].flag, want[i].path);
                        close_outputs();
                        return EXIT_USAGE;
                    }
                continue;
            }
        }
        if (outfile_open(&out_files[i], want[i].flag, want[i].path, want[i].header, kind[i], err, sizeof err) != 0) {
            fprintf(stderr, "chtbench: %s\n", err);
            close_outputs();
            return EXIT_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (outfile_same(&out_files[i], &out_files[j])) {
                fprintf(stderr, "chtbench: %s and %s name the same file '%s': each results file holds one schema\n",
                        want[j].flag, want[i].flag, want[i].path);
                close_outputs();
                return EXIT_USAGE;
            }
        *want[i].slot = &out_files[i];
    }
    return 0;
}

static int open_outputs(struct bench_config *cfg)
{
    return open_outputs_as(cfg, false);
}

/* Exit status of an interrupted invocation: 128 + the signal (130 for SIGINT). */
static int interrupted_status(void)
{
    return 128 + runner_interrupted;
}

/* --bench mutex|rwlock: lock-only benchmarks, no table */
static int run_locks(struct bench_config *cfg)
{
    char err[512];
    struct pin_topology *topo = pin_topology_load(NULL, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_FAILED;
    }
    struct pin_plan *plans = make_plans(cfg, topo);
    int status = open_outputs(cfg);
    if (status == 0)
        status = cfg->bench == BENCH_MEMORY ? membench_main(cfg, topo, plans) : lockbench_main(cfg, topo, plans);
    close_outputs();
    if (runner_interrupted && status != EXIT_USAGE) {
        fprintf(stderr, "chtbench: interrupted by %s: the repetitions that completed were recorded; the interrupted "
                "one was not\n", runner_interrupted == SIGINT ? "SIGINT" : "SIGTERM");
        status = interrupted_status();
    }
    for (unsigned i = 0; i < cfg->nthreads; i++)
        pin_plan_free(&plans[i]);
    free(plans);
    pin_topology_free(topo);
    return status;
}

/* Ops pre-generated per thread (docs/cli.md "What is timed"): --keybuf, or by
 * default the --ops count rounded up to a power of two, at most 2^24 per
 * thread and 2^25 (256 MiB) in all: a loop that goes round its buffer
 * re-reads the same sample, whose tail is smaller than the distribution's, so
 * the buffer is as large as affordable. Uniform keys too: drawing them in the
 * loop is only ~2 ns, but its instructions sit in the out-of-order window
 * between one operation's cache miss and the next, and cost clht-lb 11-12% of
 * its throughput at i=1M (docs/cli.md); a timed run (-d) of uniform keys
 * needs no more than 16 draws per key of the range (at least 2^20) to cycle
 * through a representative sample. Hotspot keys (the hot set moves while the
 * run goes) are drawn in the loop. */
static uint64_t opbuf_len(const struct bench_config *cfg, unsigned threads)
{
    if (cfg->trace)
        return 0;   /* each thread replays its share of the trace instead */
    if (!cfg->workload && cfg->dist.dist == KEYGEN_HOTSPOT)
        return 0;
    if (cfg->range > (1ull << 61))
        return 0;   /* a buffer entry holds 61 bits of key */
    if (cfg->keybuf_set)
        return cfg->keybuf;
    uint64_t cap = (1ull << 25) / threads, n = 1024;
    cap = cap < 1024 ? 1024 : cap > (1ull << 24) ? (1ull << 24) : cap;
    if (!cfg->workload && cfg->dist.dist == KEYGEN_UNIFORM && !cfg->ops) {
        uint64_t enough = 1ull << 20;
        while (enough < cap && enough / 16 < cfg->range)
            enough <<= 1;
        cap = enough < cap ? enough : cap;
    }
    while (n < cap && (!cfg->ops || n < cfg->ops))
        n <<= 1;
    return n;
}

/* One line on stderr for a repetition that is not a clean result; for a
 * correctness failure, one line per check that failed, named by the check. */
static void report_outcome(const struct table_choice *t, unsigned threads, unsigned rep, const struct run_result *r)
{
    const char *name = t->ops->name;
    switch (r->outcome) {
    case OUTCOME_OK:
        return;
    case OUTCOME_FULL:
        fprintf(stderr,
                "chtbench: TABLE FULL: %s, %u threads, rep %u: the fixed-capacity table refused %llu inserts for "
                "lack of room%s%s (the accounting is exact; lower --density or --initial, or use a resizing table)\n",
                name, threads, rep, (unsigned long long)r->stats.full_failures, r->error[0] ? "; " : "", r->error);
        return;
    case OUTCOME_OOM:
        fprintf(stderr,
                "chtbench: OUT OF MEMORY: %s, %u threads, rep %u: %llu inserts refused because memory could not "
                "be allocated%s%s\n",
                name, threads, rep, (unsigned long long)r->stats.alloc_failures, r->error[0] ? "; " : "", r->error);
        return;
    default:
        break;
    }
    if (!r->size_ok)
        fprintf(stderr,
                "chtbench: SIZE MISMATCH: %s, %u threads, rep %u: size after prefill %zu (expected %llu), "
                "final size %zu, expected %zu = %llu prefilled + %llu inserted - %llu removed%s%s\n",
                name, threads, rep, r->prefill_size, (unsigned long long)r->prefilled, r->final_size,
                r->expected_size, (unsigned long long)r->prefilled,
                (unsigned long long)(r->count[INS_SUC] + r->warmup_count[INS_SUC]),
                (unsigned long long)(r->count[REM_SUC] + r->warmup_count[REM_SUC]), r->error[0] ? "; " : "",
                r->error);
    if (!r->verify_ok) {
        const char *mode = verify_mode_name(r->verify_mode);
        if (r->false_negatives)
            fprintf(stderr,
                    "chtbench: VERIFY FAILED: %s, %u threads, rep %u: %llu keys present not found (false negatives) "
                    "by the final check (--verify %s)\n",
                    name, threads, rep, (unsigned long long)r->false_negatives, mode);
        else if (r->verify_mode == VERIFY_FULL) {
            bool missing = r->verify_found < r->verify_expected;
            char howmany[96];
            if (missing)
                snprintf(howmany, sizeof howmany, "%llu of %llu keys missing",
                         (unsigned long long)(r->verify_expected - r->verify_found),
                         (unsigned long long)r->verify_expected);
            else
                snprintf(howmany, sizeof howmany, "%llu keys too many, %llu expected",
                         (unsigned long long)(r->verify_found - r->verify_expected),
                         (unsigned long long)r->verify_expected);
            fprintf(stderr,
                    "chtbench: VERIFY FAILED: %s, %u threads, rep %u: %s (the final check, --verify full, looked up "
                    "%llu keys and found %llu; size() says %zu)\n",
                    name, threads, rep, howmany, (unsigned long long)r->verified_keys,
                    (unsigned long long)r->verify_found, r->final_size);
        }
        else
            fprintf(stderr,
                    "chtbench: VERIFY FAILED: %s, %u threads, rep %u: the final check (--verify %s) found %llu of a "
                    "sample of %llu keys, %llu expected on average: keys %s beyond 6 standard deviations (size() "
                    "says %zu)\n",
                    name, threads, rep, mode, (unsigned long long)r->verify_found, (unsigned long long)r->verified_keys,
                    (unsigned long long)r->verify_expected, r->verify_found < r->verify_expected ? "missing" : "too many",
                    r->final_size);
    }
    if (r->verify_bad_values) {
        uint64_t v = r->bad_value;
        char ver[32] = "", what[96];
        if (v == CHT_VAL_TORN) {       /* no version to speak of */
            snprintf(what, sizeof what, "torn: words of two writes (cht_value_read)");
        } else {
            snprintf(ver, sizeof ver, " version %llu", (unsigned long long)(v >> RUN_VAL_KEY_BITS));
            snprintf(what, sizeof what, "key bits 0x%012llx, expected 0x%012llx",
                     (unsigned long long)(v & RUN_VAL_KEY_MASK), (unsigned long long)run_val_keybits(r->bad_key));
        }
        fprintf(stderr,
                "chtbench: VALUE MISMATCH: %s, %u threads, rep %u: key %llu%s read 0x%016llx (%s; versions written "
                "0..%u): %llu of the %llu keys found hold a value the run did not write for them\n",
                name, threads, rep, (unsigned long long)r->bad_key, ver, (unsigned long long)v, what, r->max_version,
                (unsigned long long)r->verify_bad_values, (unsigned long long)r->verify_found);
    }
    if (!r->keysum_ok && r->verify_ok)    /* a wrong count makes a wrong sum: VERIFY FAILED says it */
        fprintf(stderr,
                "chtbench: KEY SUM MISMATCH: %s, %u threads, rep %u: the keys found sum to 0x%016llx, the prefilled "
                "+ inserted - removed keys to 0x%016llx (mod 2^64; found - expected = %lld): the count agrees, so a "
                "key was lost and another that should be gone is there\n",
                name, threads, rep, (unsigned long long)r->keysum_found, (unsigned long long)r->keysum_expected,
                (long long)(r->keysum_found - r->keysum_expected));
    if (r->fp_excess)
        fprintf(stderr,
                "chtbench: FP EXCESS: %s, %u threads, rep %u: rate %.4g > bound %.4g + 6 sd (limit %.4g): %llu of "
                "%llu absent keys answered \"present\" (f = %u fingerprint bits, b = %u slots per bucket)\n",
                name, threads, rep, r->fp_rate, r->fp_bound, r->fp_limit,
                (unsigned long long)llround(r->fp_rate * (double)r->fp_checked), (unsigned long long)r->fp_checked,
                r->stats.fp_bits, r->stats.fp_bucket_slots);
}

/* The summary's word for a repetition: "ok" or the check that failed first
 * (in report_outcome's order). */
static const char *outcome_label(const struct run_result *r)
{
    switch (r->outcome) {
    case OUTCOME_OK: return "ok";
    case OUTCOME_FULL: return "TABLE FULL";
    case OUTCOME_OOM: return "OUT OF MEMORY";
    case OUTCOME_FP_EXCESS: return "FP EXCESS";
    case OUTCOME_KEYSUM_MISMATCH: return "KEY SUM MISMATCH";
    case OUTCOME_VALUE_MISMATCH: return "VALUE MISMATCH";
    case OUTCOME_MISMATCH: break;
    }
    return !r->size_ok ? "SIZE MISMATCH" : "VERIFY FAILED";
}

/* Exit status of a repetition's outcome: 1 for a correctness failure or out
 * of memory, 3 for a full fixed-capacity table (docs/cli.md "Exit status"). */
static int outcome_status(enum run_outcome o)
{
    return o == OUTCOME_OK ? 0 : o == OUTCOME_FULL ? EXIT_FULL : EXIT_FAILED;
}

static int worse(int a, int b)
{
    /* 1 (failure) outranks 3 (full) outranks 0 */
    if (a == EXIT_FAILED || b == EXIT_FAILED)
        return EXIT_FAILED;
    return a ? a : b;
}

/* --bench occupancy: the indexlib note's fill-and-probe experiment (src/occupancy.c) */
static int run_occupancy(struct bench_config *cfg)
{
    int status = open_outputs(cfg);
    if (status == 0) {
        struct occupancy_spec spec = { cfg->occ_slots, cfg->occ_loads, cfg->occ_nloads, cfg->ops };
        status = occupancy_run(cfg, &spec);
    }
    close_outputs();
    if (runner_interrupted && status != EXIT_USAGE) {
        fprintf(stderr, "chtbench: interrupted by %s: the repetitions that completed were recorded; the interrupted "
                "one was not\n", runner_interrupted == SIGINT ? "SIGINT" : "SIGTERM");
        status = interrupted_status();
    }
    return status;
}

static int run_all(struct bench_config *cfg)
{
    if (cfg->bench == BENCH_OCCUPANCY)
        return run_occupancy(cfg);
    if (cfg->bench != BENCH_TABLE)
        return run_locks(cfg);
    char err[1024];
    validate_tables(cfg);
    static struct trace trace;
    if (cfg->trace_path) {
        if (trace_open(cfg, &trace) != 0)
            return EXIT_USAGE;
        if (trace.max_key > cfg->range) {
            fprintf(stderr, "chtbench: note: --trace: keys up to %llu: the key range (prefill, final check) grows from "
                    "%llu to it\n", (unsigned long long)trace.max_key, (unsigned long long)cfg->range);
            cfg->range = trace.max_key;
        }
        cfg->trace = &trace;
    }
    for (unsigned t = 0; t < cfg->ntables; t++)
        if (runner_check_memory(cfg, &cfg->table[t], err, sizeof err) != 0) {
            fprintf(stderr, "chtbench: %s\n", err);
            return EXIT_FAILED;
        }
    if (cfg->counters_warning[0])
        fprintf(stderr, "chtbench: warning: %s\n", cfg->counters_warning);
    struct pin_topology *topo = pin_topology_load(NULL, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_FAILED;
    }
    struct pin_plan *plans = make_plans(cfg, topo);

    struct keygen *keys = aligned_alloc(CHT_CACHE_LINE, sizeof *keys);
    struct keygen *perm = aligned_alloc(CHT_CACHE_LINE, sizeof *perm);
    struct keygen *vperm = aligned_alloc(CHT_CACHE_LINE, sizeof *vperm);
    struct keygen_spec uniform = { .dist = KEYGEN_UNIFORM };
    if (keygen_init(keys, &cfg->dist, cfg->range, cfg->seed, err, sizeof err) != 0 ||
        keygen_init(perm, &uniform, cfg->range, cfg->seed ^ 0x9e3779b97f4a7c15ull, err, sizeof err) != 0 ||
        keygen_init(vperm, &uniform, cfg->range, cfg->seed ^ 0x632be59bd9b4e019ull, err, sizeof err) != 0 ||
        (err[0] = '\0', open_outputs(cfg) != 0)) {
        /* a usage error found this late frees what the run allocated (LeakSanitizer would turn exit 2 into 1) */
        if (err[0])
            fprintf(stderr, "chtbench: %s\n", err);
        for (unsigned i = 0; i < cfg->nthreads; i++)
            pin_plan_free(&plans[i]);
        free(plans);
        pin_topology_free(topo);
        free(keys);
        free(perm);
        free(vperm);
        if (cfg->trace)
            trace_free(&trace);
        return EXIT_USAGE;
    }
    if (cfg->latency_every)
        lat_calibrate(&cfg->lat_clock);
    if (cfg->likwid_marker && !marker_init(err, sizeof err))
        fprintf(stderr, "chtbench: note: %s\n", err);

    /* with --csv - or --json the data goes to stdout, the summary to stderr */
    FILE *human = cfg->json || (cfg->csv_out && cfg->csv_out->is_stdout) ? stderr : stdout;
    report_console_header(human, cfg);
    int status = 0;
    unsigned pus = pin_topology_pus(topo), completed = 0;
    bool wrap_noted = false;
    double *mops = calloc(cfg->reps, sizeof *mops);
    struct run_result *held = calloc(cfg->reps, sizeof *held);   /* 1-thread rows wait for their median */
    for (unsigned t = 0; t < cfg->ntables && !runner_interrupted; t++) {
        bool one_known = false;
        double one_median = 0;
        for (unsigned n = 0; n < cfg->nthreads && !runner_interrupted; n++) {
            unsigned threads = cfg->threads[n];
            bool over = plans[n].oversubscribed || threads > pus;
            char why[192];
            pin_plan_oversubscription(&cfg->pin, &plans[n], pus, why, sizeof why);
            if (over)
                fprintf(stderr, "chtbench: warning: %s: oversubscribed\n", why[0] ? why : "threads share CPUs");
            enum run_outcome worst = OUTCOME_OK;
            const char *worst_label = "ok";
            unsigned done = 0;
            bool hold = threads == 1 && !one_known && held;
            for (unsigned rep = 0; rep < cfg->reps && !runner_interrupted; rep++) {
                struct run_params p = { .cfg = cfg, .table = &cfg->table[t], .threads = threads, .topo = topo,
                                        .plan = &plans[n], .rep = rep, .keys = keys, .perm = perm,
                                        .verify_perm = vperm, .opbuf_len = opbuf_len(cfg, threads) };
                struct run_result r;
                if (runner_run(&p, &r) != 0) {
                    fprintf(stderr, "chtbench: %s\n", r.error);
                    free(r.timeline);
                    status = EXIT_FAILED;
                    break;
                }
                if (r.interrupted) {       /* not a result: no row, not in the summary */
                    free(r.timeline);
                    break;
                }
                report_outcome(&cfg->table[t], threads, rep, &r);
                if (cfg->ceiling) {   /* off the clock: between repetitions, cached per machine */
                    uint64_t bytes = r.table_bytes_after_prefill ? r.table_bytes_after_prefill : r.stats.bytes;
                    r.ceiling_mops = bytes ? membench_ceiling(bytes, threads, topo, &plans[n]) : 0;
                }
                /* uniform keys: a buffer of >= 16 draws per key is sized to be cycled through */
                if (r.opbuf_wrapped && !wrap_noted && (cfg->workload || cfg->dist.dist != KEYGEN_UNIFORM)) {
                    wrap_noted = true;
                    fprintf(stderr, "chtbench: note: the %llu ops per thread drawn before the run ran out and were "
                            "re-read (keybuf_wrapped=1): the stream repeats its sample; give --keybuf (up to 2^28) "
                            "or --ops for an exact stream\n", (unsigned long long)r.opbuf_len);
                }
                status = worse(status, outcome_status(r.outcome));
                if (r.outcome > worst) {
                    worst = r.outcome;
                    worst_label = outcome_label(&r);
                }
                mops[done++] = r.mops;
                completed++;
                struct record rec = { .cfg = cfg, .table = &cfg->table[t], .threads = threads, .rep = rep,
                                      .oversubscribed = over, .r = &r, .has_speedup = one_known && one_median > 0,
                                      .speedup = one_median > 0 ? r.mops / one_median : 0 };
                if (cfg->latency_every)
                    report_console_latency(human, &rec);
                if (cfg->latency_out && report_latency_hist_append(cfg->latency_out, &rec, err, sizeof err) != 0) {
                    fprintf(stderr, "chtbench: %s\n", err);
                    status = EXIT_FAILED;
                }
                if (cfg->timeline_out && report_timeline_append(cfg->timeline_out, &rec, err, sizeof err) != 0) {
                    fprintf(stderr, "chtbench: %s\n", err);
                    status = EXIT_FAILED;
                }
                free(r.timeline);
                r.timeline = NULL;
                if (hold && held)
                    held[rep] = r;
                else if (emit(cfg, &rec))
                    status = EXIT_FAILED;
            }
            if (hold && done) {
                /* the table's 1-thread median is known now: its rows go out with their speedup */
                double v[done];
                memcpy(v, mops, sizeof v);
                struct summary sm;
                summarize(v, done, &sm);
                one_known = true;
                one_median = sm.median;
                for (unsigned rep = 0; held && rep < done; rep++) {
                    struct record rec = { .cfg = cfg, .table = &cfg->table[t], .threads = threads, .rep = rep,
                                          .oversubscribed = over, .r = &held[rep], .has_speedup = one_median > 0,
                                          .speedup = one_median > 0 ? held[rep].mops / one_median : 0 };
                    if (emit(cfg, &rec))
                        status = EXIT_FAILED;
                }
            }
            if (!done)
                continue;
            report_console_summary(human, &cfg->table[t], threads, pin_policy_name(cfg->pin.policy), mops, done,
                                   worst_label);
            /* noise: the spread of the repetitions, and a speedup no machine can give */
            double v[done];
            memcpy(v, mops, sizeof v);
            struct summary sm;
            summarize(v, done, &sm);
            double cv = sm.mean > 0 ? sm.stdev / sm.mean : 0;
            if (done > 1 && cv > 0.10)
                fprintf(stderr, "chtbench: warning: %s with %u thread%s: the repetitions vary by %.0f%% (coefficient "
                        "of variation above 10%%): a noisy machine? compare medians of more --reps\n",
                        cfg->table[t].ops->name, threads, threads == 1 ? "" : "s", 100 * cv);
            if (one_known && one_median > 0 && threads > 1 && sm.median / one_median > threads)
                fprintf(stderr, "chtbench: warning: %s: speedup %.2f at %u threads is above %u (superlinear): the "
                        "1-thread runs were probably disturbed\n",
                        cfg->table[t].ops->name, sm.median / one_median, threads, threads);
        }
    }
    if (runner_interrupted) {
        fprintf(stderr, "chtbench: interrupted by %s: %u repetition%s completed and recorded; the interrupted one "
                "was not\n", runner_interrupted == SIGINT ? "SIGINT" : "SIGTERM", completed, completed == 1 ? "" : "s");
        status = interrupted_status();
    }
    close_outputs();
    free(mops);
    free(held);
    if (cfg->likwid_marker)
        marker_close();
    for (unsigned i = 0; i < cfg->nthreads; i++)
        pin_plan_free(&plans[i]);
    free(plans);
    free(keys);
    free(perm);
    free(vperm);
    pin_topology_free(topo);
    if (cfg->trace)
        trace_free(&trace);
    return status;
}

/* --hugepages (docs/cli.md "Huge pages"): one policy for every table's memory.
 * off: prctl(PR_SET_THP_DISABLE) - no huge pages, whatever the system setting.
 * thp: MADV_HUGEPAGE on the tables' own mapped arrays (cht_config.hugepages,
 * passed to cht_alloc_large) and glibc's glibc.malloc.hugetlb=1 for everything that
 * is malloc'ed (the library tables' nodes and arrays too); a glibc tunable is
 * read at start-up only, so chtbench re-executes itself with it set - once:
 * HUGEPAGES_REEXEC marks the re-executed process, which refuses to go round
 * again when the tunable did not arrive. Returns 0, EXIT_USAGE or EXIT_FAILED;
 * with check_only, only says whether the re-execution could be done. */
#define HUGEPAGES_REEXEC CHT_ENV_HUGEPAGES_REEXEC
#define HUGEPAGES_TUNABLE "glibc.malloc.hugetlb=1"
#define TUNABLES_MAX 4096   /* longer GLIBC_TUNABLES are not ours to extend */

static int apply_hugepages(const struct bench_config *cfg, char **argv, bool check_only)
{
    if (!cfg->hugepages) {
        if (!check_only)
            prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
        return 0;
    }
    const char *tun = cht_env()->glibc_tunables;   /* read at start-up, before our setenv below */
    bool again = cht_env()->hugepages_reexec;
    if (!check_only)
        unsetenv(HUGEPAGES_REEXEC);
    if (tun && strstr(tun, HUGEPAGES_TUNABLE))
        return 0;
    if (again) {
        fprintf(stderr, "chtbench: --hugepages thp: re-executed with %s in GLIBC_TUNABLES, but it did not arrive "
                "(GLIBC_TUNABLES is now '%.60s%s'); set GLIBC_TUNABLES=%s yourself or use --hugepages off\n",
                HUGEPAGES_TUNABLE, tun ? tun : "", tun && strlen(tun) > 60 ? "..." : "", HUGEPAGES_TUNABLE);
        return EXIT_FAILED;
    }
    size_t have = tun ? strlen(tun) : 0;
    if (have + sizeof ":" HUGEPAGES_TUNABLE > TUNABLES_MAX) {
        fprintf(stderr, "chtbench: --hugepages: GLIBC_TUNABLES is %zu bytes long, too long to append %s (at most %d "
                "bytes in all): shorten it or add %s to it yourself\n", have, HUGEPAGES_TUNABLE, TUNABLES_MAX,
                HUGEPAGES_TUNABLE);
        return EXIT_USAGE;
    }
    if (check_only)
        return 0;
    char buf[TUNABLES_MAX];
    snprintf(buf, sizeof buf, "%s%s%s", tun ? tun : "", tun && *tun ? ":" : "", HUGEPAGES_TUNABLE);
    setenv("GLIBC_TUNABLES", buf, 1);
    setenv(HUGEPAGES_REEXEC, "1", 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "chtbench: --hugepages thp: cannot re-execute with GLIBC_TUNABLES=%s: %s\n", buf, strerror(errno));
    return EXIT_FAILED;
}

/* --validate: every check a run of this command line makes before its first
 * repetition - tables created tiny, trace loaded, memory, pinning plans, key
 * generators, results files - and nothing else: no run, no file created or
 * written, nothing on stdout. The exit status is the run's for the same
 * problem (2 usage, 1 cannot run). */
static int validate_only(struct bench_config *cfg, enum cli_action action, char **argv)
{
    char err[1024];
    if (action != CLI_RUN && action != CLI_PRINT_PINNING)
        return 0;   /* --help, --version, --list: nothing to check */
    struct pin_topology *topo = pin_topology_load(cfg->topology, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return action == CLI_PRINT_PINNING ? EXIT_USAGE : EXIT_FAILED;
    }
    struct pin_plan *plans = make_plans(cfg, topo);   /* exits 2 on a bad plan */
    for (unsigned i = 0; i < cfg->nthreads; i++)
        pin_plan_free(&plans[i]);
    free(plans);
    pin_topology_free(topo);
    if (action == CLI_PRINT_PINNING)
        return 0;
    if (cfg->bench == BENCH_OCCUPANCY) {
        struct occupancy_spec spec = { cfg->occ_slots, cfg->occ_loads, cfg->occ_nloads, cfg->ops };
        int rc = occupancy_check(cfg, &spec);
        if (rc)
            return rc;
        validate_tables(cfg);
    } else if (cfg->bench == BENCH_TABLE) {
        int rc = apply_hugepages(cfg, argv, true);
        if (rc)
            return rc;
        validate_tables(cfg);
        if (cfg->trace_path) {
            struct trace trace;
            if (trace_open(cfg, &trace) != 0)
                return EXIT_USAGE;
            if (trace.max_key > cfg->range)
                cfg->range = trace.max_key;
            trace_free(&trace);
        }
        for (unsigned t = 0; t < cfg->ntables; t++)
            if (runner_check_memory(cfg, &cfg->table[t], err, sizeof err) != 0) {
                fprintf(stderr, "chtbench: %s\n", err);
                return EXIT_FAILED;
            }
        struct keygen *keys = aligned_alloc(CHT_CACHE_LINE, sizeof *keys);
        int bad = !keys || keygen_init(keys, &cfg->dist, cfg->range, cfg->seed, err, sizeof err) != 0;
        free(keys);
        if (bad) {
            fprintf(stderr, "chtbench: %s\n", keys ? err : "out of memory");
            return keys ? EXIT_USAGE : EXIT_FAILED;
        }
    }
    int rc = open_outputs_as(cfg, true);
    close_outputs();
    return rc;
}

int main(int argc, char **argv)
{
    struct bench_config cfg;
    enum cli_action action;
    if (plugin_load_all(argc, argv) != 0)   /* before cli_parse: its tables and locks are then known */
        return EXIT_USAGE;
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return check_main(argc - 1, argv + 1);     /* chtbench check: src/check_cli.c */
    if (cli_parse(argc, argv, &cfg, &action) != 0) {
        cli_free(&cfg);
        return EXIT_USAGE;
    }
    if (cfg.validate) {
        int rc = validate_only(&cfg, action, argv);
        cli_free(&cfg);
        return rc;
    }
    if (action == CLI_RUN && cfg.bench == BENCH_TABLE) {
        int rc = apply_hugepages(&cfg, argv, false);
        if (rc) {
            cli_free(&cfg);
            return rc;
        }
    }
    int rc = 0;
    report_init();
    runner_install_signals();
    switch (action) {
    case CLI_HELP: cli_usage(stdout); break;
    case CLI_VERSION: version(); break;
    case CLI_LIST_TABLES: list_tables(); break;
    case CLI_LIST_LOCKS: list_locks(); break;
    case CLI_SCHEMA: rc = report_schema(stdout, cli_schema_name); break;
    case CLI_PRINT_PINNING: rc = print_pinning(&cfg); break;
    case CLI_RUN: rc = run_all(&cfg); break;
    }
    cli_free(&cfg);
    return rc;
}
