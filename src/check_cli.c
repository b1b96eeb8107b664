/*
 * check_cli.c - `chtbench check`: the conformance checks of the test suite
 * (src/check/) on any table or lock, one verdict line per check, the first
 * counter-example of a failure, a summary line; exit 0 all passed, 1 one
 * failed, 2 usage. docs/checks.md "chtbench check".
 *
 * Tables and locks are validated by cli_parse itself (the same messages as
 * a run), from a command line built here; fault hooks (src/faults.h) wrap
 * the table as in a run, so a test can see a check fire.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "cht_env.h"
#include "cli.h"
#include "faults.h"
#include "lockbench.h"
#include "plugin.h"
#include "util.h"

/* the checks by name, in the order they run: tables, then locks */
enum { CHECK_NAME_MUTEX = CHECK_TABLE_KINDS, CHECK_NAME_RW, CHECK_NAME_RWBENCH, CHECK_NAMES };
static const char *const all_names[CHECK_NAMES] = {
    "model", "disjoint", "stable", "stress", "values", "steady", "versions", "history", "mutex", "rw", "rwbench",
};
_Static_assert(CHECK_TABLE_KINDS == 8, "all_names lists the table checks in enum check_kind's order");

#define CHECK_LOCK_THREADS 16          /* the suite's lock runs: more threads than CPUs */
/* --key-type: the checks' integer keys lie below this (their ranges: at most 100000, and 20000 + threads) */
#define CHECK_KEY_ARENA (1u << 17)
#define CHECK_VALUES_OOL 100           /* the values check's size for out-of-line tables without --value-size */

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "chtbench check: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return EXIT_USAGE;
}

struct tally {
    unsigned pass, fail, skip;
};

/* The watchdog: --seconds bounds a check's operations, not one that never
 * returns (a deadlocked table or lock). A check still running long after its
 * bound is a failure: its FAIL line, the summary, exit 1. */
static pthread_mutex_t dog_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dog_cv = PTHREAD_COND_INITIALIZER;
static struct timespec dog_due;                   /* tv_sec 0: no check running */
static char dog_line[4300];
static const struct tally *dog_tally;
static double dog_limit_s;

static void *watchdog(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&dog_mu);
    for (;;) {
        if (!dog_due.tv_sec) {
            pthread_cond_wait(&dog_cv, &dog_mu);
            continue;
        }
        struct timespec due = dog_due;
        if (pthread_cond_timedwait(&dog_cv, &dog_mu, &due) == 0 || dog_due.tv_sec != due.tv_sec ||
            dog_due.tv_nsec != due.tv_nsec)
            continue;                             /* the check ended, or the next one began */
        printf("%s: no result after %.0f s (an operation that does not return?)\n", dog_line, dog_limit_s);
        printf("check: %u passed, %u failed, %u skipped\n", dog_tally->pass, dog_tally->fail + 1, dog_tally->skip);
        fflush(stdout);
        _exit(EXIT_FAILED);                       /* the check's threads may be stuck: no clean exit */
    }
    return NULL;
}

/* check `check` of `name` starts (check != NULL) or ended (NULL) */
static void dog_arm(const char *check, const char *name)
{
    pthread_mutex_lock(&dog_mu);
    if (check) {
        snprintf(dog_line, sizeof dog_line, "FAIL %s %s", check, name);
        clock_gettime(CLOCK_REALTIME, &dog_due);
        dog_due.tv_sec += (time_t)dog_limit_s;
    } else {
        dog_due.tv_sec = 0;
    }
    pthread_cond_signal(&dog_cv);
    pthread_mutex_unlock(&dog_mu);
}

static void verdict(struct tally *t, enum check_verdict v, const char *check, const char *name, const char *detail)
{
    dog_arm(NULL, NULL);
    if (v == CHECK_PASS) {
        t->pass++;
        printf("PASS %s %s (%s)\n", check, name, detail);
    } else if (v == CHECK_FAIL) {
        t->fail++;
        printf("FAIL %s %s: %s\n", check, name, detail);
    } else {
        t->skip++;
        printf("SKIP %s %s: %s\n", check, name, detail);
    }
    fflush(stdout);
}

/* cli_parse on a command line of our own; -1 when it refused it (message printed) */
static int parse_as_run(struct bench_config *cfg, const char **args, int n)
{
    enum cli_action action;
    char *argv[16];
    argv[0] = (char *)"chtbench";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    argv[n + 1] = NULL;
    return cli_parse(n + 1, argv, cfg, &action);
}

static void table_checks(const struct bench_config *cfg, const bool *want, unsigned threads, double seconds,
                         bool value_size_given, FILE *log, struct tally *t)
{
    /* stress: more threads than this machine has CPUs, as the suite's 16 are on small ones */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned stress_threads = cpus > 0 && cpus < 512 ? 2 * (unsigned)cpus : 16;
    for (unsigned i = 0; i < cfg->ntables; i++) {
        const struct table_choice *ch = &cfg->table[i];
        const struct cht_ops *ops = ch->ops;
        char label[4200];                                   /* the spec as given: NAME[:options] [keys=TYPE] */
        snprintf(label, sizeof label, "%s%s%s", ch->text, ch->options_text[0] ? ":" : "", ch->options_text);
        if (cfg->key_type.kind != KEYTYPE_U64) {            /* the checks' keys k map to byte keys */
            char err[256];
            const struct key_arena *arena = key_arena_for(&cfg->key_type, CHECK_KEY_ARENA, err, sizeof err);
            if (!arena) {
                verdict(t, CHECK_FAIL, "create", label, err);
                continue;
            }
            ops = bytekeys_wrap(ops, arena);
            size_t n = strlen(label);
            snprintf(label + n, sizeof label - n, " keys=%s", cfg->key_type.name);
        }
        ops = fault_wrap(ops);                              /* the test hooks, as in a run */
        for (unsigned k = 0; k < CHECK_TABLE_KINDS; k++) {
            if (!want[k])
                continue;
            struct check_ctx c = { .choice = ch, .ops = ops, .spec = label, .value_size = cfg->value_size,
                                   .initial_capacity = cfg->initial_capacity,
                                   .seconds = seconds, .threads = threads, .stress_threads = stress_threads,
                                   .log = log, .fail_log = log, .before_create = fault_reset };
            if (k == CHECK_VALUES && !value_size_given && (ch->ops->caps & CHT_CAP_VALUE_OOL) &&
                cfg->key_type.kind == KEYTYPE_U64)   /* byte-key tables store 8-byte values */
                c.value_size = CHECK_VALUES_OOL;
            dog_arm(all_names[k], label);
            check_table(&c, (enum check_kind)k);
            if (c.verdict == CHECK_PASS && c.value_size > 8) {
                size_t n = strlen(c.detail);
                snprintf(c.detail + n, sizeof c.detail - n, ", value size %zu", c.value_size);
            }
            verdict(t, c.verdict, all_names[k], label, c.detail);
        }
    }
}

/* CHTBENCH_TEST_LOCKBENCH_NO_LOCK: the lock bench's hook reaches the mutex and
 * rw checks too, as a lock whose every call does nothing (a test sees them fail) */
static void no_lock(void *l, void *ctx) { (void)l, (void)ctx; }
static bool no_trylock(void *l, void *ctx) { (void)l, (void)ctx; return true; }

static const struct lock_ops *hooked(const struct lock_ops *lo, struct lock_ops *copy)
{
    if (!cht_env()->lockbench_no_lock)
        return lo;
    *copy = *lo;
    copy->lock = copy->unlock = copy->read_lock = copy->read_unlock = no_lock;
    if (copy->trylock)
        copy->trylock = no_trylock;
    copy->is_locked = NULL;
    copy->has_waiters = NULL;
    return copy;
}

static void lock_checks(const struct bench_config *cfg, const bool *want, unsigned threads, double seconds,
                        FILE *log, struct tally *t)
{
    unsigned n = threads ? threads : CHECK_LOCK_THREADS;
    char err[512];
    struct pin_topology *topo = NULL;
    struct pin_plan plan;
    bool have_plan = false;
    if (want[CHECK_NAME_RWBENCH]) {
        topo = pin_topology_load(NULL, err, sizeof err);
        have_plan = topo && pin_plan_make(topo, &cfg->pin, n, &plan, err, sizeof err) == 0;
    }
    for (unsigned i = 0; i < cfg->nlocks; i++) {
        const struct lock_ops *lo = cfg->locks[i];
        for (unsigned k = CHECK_NAME_MUTEX; k <= CHECK_NAME_RW; k++) {
            if (!want[k])
                continue;
            /* two "nodes", so cohort and NUMA locks hand over between them */
            struct lock_ops copy;
            struct lock_check l = { .ops = hooked(lo, &copy), .threads = n, .iters = UINT64_MAX / 2, .seconds = seconds,
                                    .log = log,
                                    .cfg = { .numa_nodes = 2, .handoff_bound = cfg->handoff_bound,
                                             .waiter_threshold = cfg->waiter_threshold } };
            if (k == CHECK_NAME_MUTEX)
                l.trylock_every = 8;
            else
                l.write_one_in = 8, l.read_spin = 16;
            dog_arm(all_names[k], lo->name);
            lock_check_run(&l, k == CHECK_NAME_MUTEX ? LCHECK_MUTEX : LCHECK_RW);
            verdict(t, l.verdict, all_names[k], lo->name, l.detail);
        }
        if (!want[CHECK_NAME_RWBENCH])
            continue;
        if (!have_plan) {
            verdict(t, CHECK_FAIL, "rwbench", lo->name, err);
            continue;
        }
        /* RWBench as `--bench rwlock` runs it (src/lockbench.c): the array's sum stays 0 */
        struct lb_params p = { .cfg = cfg, .lock = lo, .threads = n, .topo = topo, .plan = &plan };
        struct lb_result r;
        char detail[512];
        dog_arm("rwbench", lo->name);
        enum check_verdict v = CHECK_PASS;
        if (lockbench_run(&p, &r) != 0) {
            v = CHECK_FAIL;
            snprintf(detail, sizeof detail, "%s", r.error);
        } else if (!r.invariant_ok) {
            v = CHECK_FAIL;
            snprintf(detail, sizeof detail, "array sum expected 0 got %lld, readers that saw a nonzero sum expected 0 "
                     "got %llu, writer counter expected %llu got %llu (%u threads)", (long long)r.final_sum,
                     (unsigned long long)r.reader_violations, (unsigned long long)r.writes,
                     (unsigned long long)r.write_counter, n);
        } else {
            snprintf(detail, sizeof detail, "%llu reads, %llu writes, %u threads", (unsigned long long)r.reads,
                     (unsigned long long)r.writes, n);
        }
        verdict(t, v, "rwbench", lo->name, detail);
    }
    if (have_plan)
        pin_plan_free(&plan);
    if (topo)
        pin_topology_free(topo);
}

/* what the flags of `chtbench check` set */
struct check_args {
    const char *tables, *locks, *value_size, *checks, *key_type;
    const char *initial_capacity;   /* --initial-capacity, as a run takes it */
    unsigned threads;          /* 0: the suite's */
    double seconds;
    bool verbose, help, help_markdown;
};

static int set_help(const struct cli_option *o, const char *arg, void *base)
{
    (void)arg;
    struct check_args *a = base;
    a->help = true;
    a->help_markdown = strcmp(o->name, "help-markdown") == 0;
    return CLI_STOP;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define ARGS(member) CLI_FIELD(struct check_args, member)

/* the flags of `chtbench check`, declared as a run's are (src/cli.h): its --help, --help-markdown
 * (docs/checks.md "chtbench check") and errors come from here */
static const struct cli_option check_options[] = {
    { .name = "table", .short_name = 't', .arg = CLI_ARG, .metavar = "LIST", .set = cli_set_string, ARGS(tables),
      .modes = CLI_CHECK, .accepts = "as for a run",
      .help = "tables as for a run (NAME or NAME:key=val,...): model, disjoint, stable, stress, values, "
          "steady, versions, history",
      .doc = "tables to check (validated as a run's: unknown names, options, availability, a tiny `create()`)" },
    { .name = "lock", .arg = CLI_ARG, .metavar = "LIST", .set = cli_set_string, ARGS(locks), .modes = CLI_CHECK,
      .accepts = "locks from `--list=locks`, usable here", .help = "locks (see --list=locks): mutex, rw, rwbench",
      .doc = "locks to check (not `lock=` of the tables: give that in the spec, `locked:lock=mcs`)" },
    { .name = "plugin", .arg = CLI_ARG, .metavar = "PATH", .set = cli_set_plugin, .modes = CLI_CHECK,
      .accepts = "as for a run", .help = "load tables and locks from a plugin first (docs/plugins.md)" },
    { .name = "threads", .short_name = 'n', .arg = CLI_ARG, .metavar = "N", .set = cli_set_uint, ARGS(threads),
      .lo = 1, .hi = 1024, .modes = CLI_CHECK, .def_doc = "the suite's; locks " STR(CHECK_LOCK_THREADS),
      .expect = "a thread count 1..1024", .accepts = "1..1024",
      .help = "threads of the concurrent table checks (the suite's: 4 to 16; stress at least 16 and twice the CPUs) and "
          "of the lock checks",

      .doc = "threads of the concurrent table checks (disjoint: N, then 2N; stress: at least N; steady: 1, then N up to "
          "64) and of the lock checks" },
    { .name = "seconds", .arg = CLI_ARG, .metavar = "S", .set = cli_set_fraction, ARGS(seconds), .hi = 86400,
      .modes = CLI_CHECK, .def = "5", .expect = "seconds > 0 and <= 86400 like 0.5 or 10", .accepts = "(0, 86400]",
      .help = "time bound of each check's operations",
      .doc = "time bound of each check's operations; a check with no result after 4 S + 60 s (an operation that never "
          "returns) is a `FAIL` saying so, and chtbench exits 1 at once" },
    { .name = "value-size", .arg = CLI_ARG, .metavar = "B", .set = cli_set_string, ARGS(value_size),
      .modes = CLI_CHECK, .def_doc = "8", .accepts = "as for a run",
      .help = "value bytes of every table check (the values check of a table with out-of-line values "
          "runs at " STR(CHECK_VALUES_OOL) " unless given)" },
    { .name = "initial-capacity", .arg = CLI_ARG, .metavar = "N", .set = cli_set_string, ARGS(initial_capacity),
      .modes = CLI_CHECK, .def_doc = "the check's size", .accepts = "as for a run (resizable tables only)",
      .help = "create every table of the table checks sized for at most N keys, so that they grow through the "
          "check (resizable tables only)",
      .doc = "every table a table check creates is sized for at most N keys (`cht_config.initial`), whatever the "
          "check then inserts: resizing from capacity 1..N runs under the model, stress and the other checks" },
    { .name = "key-type", .arg = CLI_ARG, .metavar = "TYPE", .set = cli_set_string, ARGS(key_type),
      .modes = CLI_CHECK, .def_doc = "u64", .accepts = "as for a run",
      .help = "the table checks with byte-string keys (as for a run: bytes:LEN, bytes:MIN..MAX, ycsb, words): "
          "each check's key k is key k of a key arena" },
    { .name = "checks", .arg = CLI_ARG, .metavar = "LIST", .set = cli_set_string, ARGS(checks), .modes = CLI_CHECK,
      .def_doc = "all that apply", .accepts = "names from the table of checks above, comma separated",
      .help = "only these checks, comma separated: model, "
          "disjoint, stable, stress, values, steady, versions, history, mutex, rw, rwbench",
      .doc = "only these checks" },
    { .name = "verbose", .short_name = 'v', .arg = CLI_NO_ARG, .set = cli_set_true, ARGS(verbose),
      .modes = CLI_CHECK, .help = "the suite's progress lines and every failed check, on stderr" },
    { .name = "help", .short_name = 'h', .arg = CLI_NO_ARG, .set = set_help, .modes = CLI_CHECK, .help = "this text" },
    { .name = "help-markdown", .arg = CLI_NO_ARG, .set = set_help, .modes = CLI_CHECK,
      .help = "this flag reference, as Markdown (docs/flags.md \"chtbench check\")" },
};
#define CHECK_NOPTS (sizeof check_options / sizeof check_options[0])

const struct cli_spec cli_check_spec = {
    .prog = "chtbench check", .opts = check_options, .n = CHECK_NOPTS, .list_unknown = true,
    .others = &cli_run_spec,
    .usage =
"usage: chtbench check --table SPEC[,SPEC...] [--lock NAME[,NAME...]] [options]\n"
"       chtbench check --lock NAME[,NAME...] [options]\n"
"Runs the test suite's conformance checks on tables and locks; one line per check:\n"
"PASS|FAIL|SKIP CHECK NAME, a failure with its first counter-example; exit 0 all passed, 1 one failed.\n",
};

/* --checks LIST: the checks to run (want[k]), all when list is NULL */
static int parse_checks(const char *list, bool *want)
{
    for (unsigned k = 0; k < CHECK_NAMES; k++)
        want[k] = !list;
    if (!list)
        return 0;
    char buf[512];
    const char *items[CHECK_NAMES * 2];
    char why[128];
    int n = list_split(list, buf, sizeof buf, items, CHECK_NAMES * 2, false, why, sizeof why);
    if (n < 0)
        return usage_error("--checks: %s (expected names from model, disjoint, stable, stress, values, steady, "
                           "versions, history, mutex, rw, rwbench; got '%s')", why, list);
    for (int i = 0; i < n; i++) {
        unsigned k = 0;
        while (k < CHECK_NAMES && strcmp(items[i], all_names[k]) != 0)
            k++;
        if (k == CHECK_NAMES)
            return usage_error("--checks: unknown check '%s' (expected model, disjoint, stable, stress, values, "
                               "steady, versions, history, mutex, rw, rwbench)", items[i]);
        want[k] = true;
    }
    return 0;
}

int check_main(int argc, char **argv)
{
    struct check_args a = { 0 };
    int first_at[CHECK_NOPTS] = { 0 };
    if (cli_defaults(&cli_check_spec, &a) != 0)
        return EXIT_USAGE;
    int scan = cli_scan(&cli_check_spec, argc, argv, &a, first_at);
    if (scan < 0)
        return EXIT_USAGE;
    if (a.help) {
        cli_print_help(&cli_check_spec, stdout, a.help_markdown);
        return 0;
    }
    const char *tables = a.tables, *locks = a.locks, *value_size = a.value_size, *checks = a.checks,
               *key_type = a.key_type;
    unsigned threads = a.threads;
    double seconds = a.seconds;
    bool verbose = a.verbose;
    if (optind < argc)
        return usage_error("'%s': unexpected argument (options only; see chtbench check --help)", argv[optind]);
    if (!tables && !locks)
        return usage_error("--table: expected --table SPEC[,SPEC...] or --lock NAME[,NAME...] (see --list)");

    bool want[CHECK_NAMES];
    if (parse_checks(checks, want) != 0)
        return EXIT_USAGE;

    struct bench_config tcfg, lcfg;
    bool have_t = false, have_l = false;
    int rc = 0;
    if (tables) {
        const char *args[8] = { "--table", tables }, **more = args + 2;
        if (value_size)
            *more++ = "--value-size", *more++ = value_size;
        if (key_type)
            *more++ = "--key-type", *more++ = key_type;
        if (a.initial_capacity)
            *more++ = "--initial-capacity", *more++ = a.initial_capacity;
        have_t = true;
        if (parse_as_run(&tcfg, args, (int)(more - args)) != 0)
            rc = EXIT_USAGE;
        /* option values are the tables' to judge: a tiny create() first, as a run does */
        for (unsigned i = 0; !rc && i < tcfg.ntables; i++) {
            struct cht_config cc = { .initial = 16, .density = 0.5, .range = 32, .max_threads = 1, .numa_nodes = 1,
                                     .value_size = tcfg.value_size };
            if (tcfg.key_type.kind != KEYTYPE_U64) {
                cc.key_kind = CHT_KEYS_BYTES;
                key_type_lengths(&tcfg.key_type, &cc.key_len_min, &cc.key_len_max);
            }
            registry_apply_choice(&tcfg.table[i], &cc);
            char err[512] = "";
            void *tb = tcfg.table[i].ops->create(&cc, err, sizeof err);
            if (!tb)
                rc = usage_error("%s", err[0] ? err : "--table: cannot create the table");
            else
                tcfg.table[i].ops->destroy(tb);
        }
    } else if (value_size || key_type || a.initial_capacity) {
        rc = usage_error("%s: only with --table", value_size ? "--value-size" : key_type ? "--key-type" : "--initial-capacity");
    }
    if (!rc && locks) {
        char ms[32];
        snprintf(ms, sizeof ms, "%llu", (unsigned long long)(seconds * 1000 > 1 ? seconds * 1000 : 1));
        const char *args[6] = { "--bench", "rwlock", "--lock", locks, "-d", ms };
        have_l = true;
        if (parse_as_run(&lcfg, args, 6) != 0)
            rc = EXIT_USAGE;
    }
    if (!rc) {
        struct tally t = { 0 };
        /* settle loops (steady: up to 2 s a round) and final scans come on top of the bound */
        dog_limit_s = 4 * seconds + 60;
        dog_tally = &t;
        pthread_t dog;
        if (pthread_create(&dog, NULL, watchdog, NULL) == 0)
            pthread_detach(dog);
        FILE *log = verbose ? stderr : NULL;
        if (tables)
            table_checks(&tcfg, want, threads, seconds, value_size != NULL, log, &t);
        if (locks)
            lock_checks(&lcfg, want, threads, seconds, log, &t);
        printf("check: %u passed, %u failed, %u skipped\n", t.pass, t.fail, t.skip);
        rc = t.fail ? EXIT_FAILED : 0;
    }
    if (have_t)
        cli_free(&tcfg);
    if (have_l)
        cli_free(&lcfg);
    return rc;
}
