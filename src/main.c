/*
 * main.c - chtbench: parse the command line, then list, print, validate or
 * run it (a run goes through the mode pipeline, src/modes.c).
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
#include "alloc.h"
#include "cht_env.h"
#include "cli.h"
#include "mode.h"
#include "lockbench.h"
#include "report.h"
#include "table_columns.h"
#include "runner.h"
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
    printf("features: hwloc %s\ntables: %u, locks: %u\ncsv schema: %d (latency %d, timeline %d, table-counters %d, "
           "lock-bench %d)\n",
           CHTBENCH_FEATURES, nt, nl, CSV_SCHEMA_VERSION, LATENCY_CSV_SCHEMA_VERSION, TIMELINE_CSV_SCHEMA_VERSION,
           TABLE_COUNTERS_CSV_SCHEMA_VERSION, LOCK_CSV_SCHEMA_VERSION);
    printf("plugin abi: %u\n", CHT_ABI_VERSION);
    const struct registry_plugin *p;
    for (unsigned i = 0; (p = plugin_at(i)); i++)
        printf("plugin: %s %s sha256 %s\n", p->name, p->path, p->sha256);
}

static int print_pinning(const struct bench_config *cfg)
{
    char err[512], desc[256];
    struct pin_topology *topo = pin_topology_load(cfg->topology, err, sizeof err);
    if (!topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_USAGE;
    }
    struct pin_plan *plans = mode_plans(cfg, topo);
    if (!plans) {
        pin_topology_free(topo);
        return EXIT_USAGE;
    }
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
static int validate_only(const struct bench_config *cfg, enum cli_action action, char **argv)
{
    char err[1024];
    if (action != CLI_RUN && action != CLI_PRINT_PINNING)
        return 0;   /* --help, --version, --list: nothing to check */
    if (action == CLI_PRINT_PINNING) {
        struct pin_topology *topo = pin_topology_load(cfg->topology, err, sizeof err);
        if (!topo) {
            fprintf(stderr, "chtbench: %s\n", err);
            return EXIT_USAGE;
        }
        struct pin_plan *plans = mode_plans(cfg, topo);
        mode_plans_free(cfg, plans, plans ? cfg->nthreads : 0);
        pin_topology_free(topo);
        return plans ? 0 : EXIT_USAGE;
    }
    int rc = alloc_apply(cfg->allocator, argv, true);   /* --allocator: installed, not refused */
    if (rc == 0 && cfg->bench == BENCH_TABLE)
        rc = apply_hugepages(cfg, argv, true);
    return rc ? rc : mode_validate(cfg);
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
    /* --allocator (src/alloc.c): after --hugepages' re-execution, whose environment it keeps */
    if (action == CLI_RUN || action == CLI_VERSION) {
        int rc = alloc_apply(cfg.allocator, argv, false);
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
    case CLI_SCHEMA: rc = mode_print_schema(stdout, cli_schema_name); break;
    case CLI_PRINT_PINNING: rc = print_pinning(&cfg); break;
    case CLI_RUN: rc = mode_run(&cfg); break;
    }
    cli_free(&cfg);
    return rc;
}
