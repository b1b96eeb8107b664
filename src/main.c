/*
 * main.c - chtbench: parse, plan, run every (table, threads, rep), report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "marker.h"
#include "memstat.h"
#include "lockbench.h"
#include "report.h"
#include "runner.h"
#include "util.h"

static void list_tables(void)
{
    for (unsigned i = 0; cht_tables[i]; i++) {
        char why[256];
        bool ok = registry_table_available(cht_tables[i], why, sizeof why);
        printf("%-14s %-80s %s%s\n", cht_tables[i]->name, cht_tables[i]->summary, ok ? "available" : "unavailable: ",
               ok ? "" : why);
        /* then, indented: whether it takes lock=, and every option of its spec */
        const struct cht_option_spec *o, *lock = NULL;
        for (o = cht_tables[i]->options; o && o->key; o++)
            if (strcmp(o->key, "lock") == 0)
                lock = o;
        if (cht_tables[i]->caps & CHT_CAP_LOCK_PARAM)
            printf("%15s %-10s takes a lock: %s\n", "", "lock=NAME", lock ? lock->help : "any lock from --list=locks");
        else
            printf("%15s %-10s not taken: this table has no lock to choose\n", "", "lock=NAME");
        for (o = cht_tables[i]->options; o && o->key; o++)
            if (o != lock)
                printf("%15s %s=%-*s %s\n", "", o->key, (int)(strlen(o->key) < 9 ? 9 - strlen(o->key) : 0), "",
                       o->help);
    }
}

static void list_locks(void)
{
    for (unsigned i = 0; cht_locks[i]; i++) {
        char why[256];
        bool ok = registry_lock_available(cht_locks[i], why, sizeof why);
        printf("%-14s %-70s %s%s\n", cht_locks[i]->name, cht_locks[i]->summary, ok ? "available" : "unavailable: ",
               ok ? "" : why);
    }
}

static void version(void)
{
    unsigned nt = 0, nl = 0;
    while (cht_tables[nt])
        nt++;
    while (cht_locks[nl])
        nl++;
    printf("chtbench %s\nfeatures: hwloc %s\nallocator: %s\ntables: %u, locks: %u, csv schema: %d\n",
           CHTBENCH_VERSION, CHTBENCH_FEATURES, memstat_allocator(), nt, nl, CSV_SCHEMA_VERSION);
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
                                 .numa_nodes = 1 };
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

/* Writes one repetition's outputs: CSV row, JSON, latency histograms,
 * timeline; returns nonzero when a file could not be appended. */
static int emit(const struct bench_config *cfg, const struct record *rec)
{
    int status = 0;
    if (cfg->csv && report_csv_append(cfg->csv, rec) != 0) {
        fprintf(stderr, "chtbench: --csv: cannot append to '%s': %s\n", cfg->csv, strerror(errno));
        status = EXIT_FAILED;
    }
    if (cfg->json)
        report_json(stdout, rec);
    return status;
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
    int status = lockbench_main(cfg, topo, plans);
    for (unsigned i = 0; i < cfg->nthreads; i++)
        pin_plan_free(&plans[i]);
    free(plans);
    pin_topology_free(topo);
    return status;
}

static int run_all(struct bench_config *cfg)
{
    if (cfg->bench != BENCH_TABLE)
        return run_locks(cfg);
    char err[512];
    validate_tables(cfg);
    if (cfg->counters_warning[0])
        fprintf(stderr, "chtbench: warning: %s\n", cfg->counters_warning);
    if (cfg->latency_every)
        lat_calibrate(&cfg->lat_clock);
    if (cfg->likwid_marker && !marker_init(err, sizeof err))
        fprintf(stderr, "chtbench: note: %s\n", err);
    struct pin_topology *topo = pin_topology_load(NULL, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_FAILED;
    }
    struct pin_plan *plans = make_plans(cfg, topo);

    struct keygen *keys = aligned_alloc(CHT_CACHE_LINE, sizeof *keys);
    struct keygen *perm = aligned_alloc(CHT_CACHE_LINE, sizeof *perm);
    struct keygen_spec uniform = { .dist = KEYGEN_UNIFORM };
    if (keygen_init(keys, &cfg->dist, cfg->range, cfg->seed, err, sizeof err) != 0 ||
        keygen_init(perm, &uniform, cfg->range, cfg->seed ^ 0x9e3779b97f4a7c15ull, err, sizeof err) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_USAGE;
    }

    FILE *human = cfg->json ? stderr : stdout;
    report_console_header(human, cfg);
    int status = 0;
    unsigned pus = pin_topology_pus(topo);
    double *mops = calloc(cfg->reps, sizeof *mops);
    struct run_result *held = calloc(cfg->reps, sizeof *held);   /* 1-thread rows wait for their median */
    for (unsigned t = 0; t < cfg->ntables; t++) {
        bool one_known = false;
        double one_median = 0;
        for (unsigned n = 0; n < cfg->nthreads; n++) {
            unsigned threads = cfg->threads[n];
            bool over = plans[n].oversubscribed || threads > pus;
            char why[192];
            pin_plan_oversubscription(&cfg->pin, &plans[n], pus, why, sizeof why);
            if (over)
                fprintf(stderr, "chtbench: warning: %s: oversubscribed\n", why[0] ? why : "threads share CPUs");
            bool all_ok = true;
            unsigned done = 0;
            bool hold = threads == 1 && !one_known && held;
            for (unsigned rep = 0; rep < cfg->reps; rep++) {
                struct run_params p = { .cfg = cfg, .table = &cfg->table[t], .threads = threads, .topo = topo,
                                        .plan = &plans[n], .rep = rep, .keys = keys, .perm = perm };
                struct run_result r;
                if (runner_run(&p, &r) != 0) {
                    fprintf(stderr, "chtbench: %s\n", r.error);
                    free(r.timeline);
                    status = EXIT_FAILED;
                    break;
                }
                if (!r.size_ok) {
                    fprintf(stderr,
                            "chtbench: CORRECTNESS FAILURE: %s, %u threads, rep %u: size after prefill %zu "
                            "(expected %llu), final size %zu, expected %zu = %llu + %llu inserted - %llu removed%s%s\n",
                            cfg->table[t].ops->name, threads, rep, r.prefill_size, (unsigned long long)cfg->initial,
                            r.final_size, r.expected_size, (unsigned long long)cfg->initial,
                            (unsigned long long)r.count[INS_SUC], (unsigned long long)r.count[REM_SUC],
                            r.error[0] ? "; " : "", r.error);
                    status = EXIT_FAILED;
                    all_ok = false;
                }
                mops[done++] = r.mops;
                struct record rec = { .cfg = cfg, .table = &cfg->table[t], .threads = threads, .rep = rep,
                                      .oversubscribed = over, .r = &r, .has_speedup = one_known && one_median > 0,
                                      .speedup = one_median > 0 ? r.mops / one_median : 0 };
                if (cfg->latency_every)
                    report_console_latency(human, &rec);
                if (cfg->latency_csv && report_latency_hist_append(cfg->latency_csv, &rec) != 0) {
                    fprintf(stderr, "chtbench: --latency-csv: cannot append to '%s': %s\n", cfg->latency_csv,
                            strerror(errno));
                    status = EXIT_FAILED;
                }
                if (cfg->timeline_csv && report_timeline_append(cfg->timeline_csv, &rec) != 0) {
                    fprintf(stderr, "chtbench: --timeline-csv: cannot append to '%s': %s\n", cfg->timeline_csv,
                            strerror(errno));
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
            if (done)
                report_console_summary(human, &cfg->table[t], threads, pin_policy_name(cfg->pin.policy), mops, done,
                                       all_ok);
        }
    }
    free(mops);
    free(held);
    if (cfg->likwid_marker)
        marker_close();
    for (unsigned i = 0; i < cfg->nthreads; i++)
        pin_plan_free(&plans[i]);
    free(plans);
    free(keys);
    free(perm);
    pin_topology_free(topo);
    return status;
}

int main(int argc, char **argv)
{
    struct bench_config cfg;
    enum cli_action action;
    if (cli_parse(argc, argv, &cfg, &action) != 0) {
        cli_free(&cfg);
        return EXIT_USAGE;
    }
    int rc = 0;
    switch (action) {
    case CLI_HELP: cli_usage(stdout); break;
    case CLI_VERSION: version(); break;
    case CLI_LIST_TABLES: list_tables(); break;
    case CLI_LIST_LOCKS: list_locks(); break;
    case CLI_PRINT_PINNING: rc = print_pinning(&cfg); break;
    case CLI_RUN: rc = run_all(&cfg); break;
    }
    cli_free(&cfg);
    return rc;
}
