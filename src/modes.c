/*
 * modes.c - the one pipeline every benchmark mode runs through (mode.h):
 * make the pinning plans, let the mode check and prepare, open the results
 * files, then cell by cell and repetition by repetition run, record, and
 * summarise; stop cleanly on SIGINT/SIGTERM with only complete rows written.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mode.h"
#include "runner.h"
#include "util.h"

const struct mode *mode_of(const struct bench_config *cfg)
{
    static const struct mode *const modes[N_BENCH_KINDS] = {
#define MODE_OF(id, name, m, check) [BENCH_##id] = &m,
        CHT_BENCH_MODES(MODE_OF)
#undef MODE_OF
    };
    return modes[cfg->bench];
}

/* ---------------- the results files: opened and checked before anything runs ---------------- */

static void close_outputs(struct run_context *ctx)
{
    for (int i = 0; i < OUT_FILES; i++)
        outfile_close(&ctx->out[i]);
}

/* --validate: a results file that does not exist yet is not created; its
 * directory must be one open(O_CREAT) could create it in. 1: it exists (open
 * it to judge it), 0: it could be created, -1: it could not (err set). */
static int probe_new_file(const char *flag, const char *path, char *err, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT)
        return 1;
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

/* Opens every results file cfg names (with ctx->validate: judges them, creating none);
 * 0, or EXIT_USAGE with the message printed and nothing left behind. */
static int open_outputs(struct run_context *ctx)
{
    const struct bench_config *cfg = ctx->cfg;
    const struct report_schema *const *files = mode_of(cfg)->files;
    const struct { const char *flag, *path; } want[OUT_FILES] = {
        [OUT_MAIN] = { "--csv", cfg->csv },
        [OUT_LATENCY] = { "--latency-csv", cfg->latency_csv },
        [OUT_TIMELINE] = { "--timeline-csv", cfg->timeline_csv },
        [OUT_TABLE_COUNTERS] = { "--table-counters-csv", cfg->table_counters_csv },
    };
    char err[1024];
    for (int i = 0; i < OUT_FILES; i++) {
        if (!want[i].path || !files[i])   /* a side file of another mode: cli.c refuses its flag */
            continue;
        const char *clash = NULL;
        if (ctx->validate && strcmp(want[i].path, "-") != 0) {
            int exists = probe_new_file(want[i].flag, want[i].path, err, sizeof err);
            if (exists < 0)
                goto refused;
            for (int j = 0; !exists && j < i; j++)
                if (want[j].path && strcmp(want[j].path, want[i].path) == 0)
                    clash = want[j].flag;
            if (!exists && !clash)
                continue;
        }
        if (!clash && outfile_open(&ctx->out[i], want[i].flag, want[i].path, report_header_line(files[i]),
                                   report_file_kind(files[i]), err, sizeof err) != 0)
            goto refused;
        for (int j = 0; !clash && j < i; j++)
            if (outfile_same(&ctx->out[i], &ctx->out[j]))
                clash = want[j].flag;
        if (clash) {
            snprintf(err, sizeof err, "%s and %s name the same file '%s': each results file holds one schema",
                     clash, want[i].flag, want[i].path);
            goto refused;
        }
    }
    return 0;
refused:
    fprintf(stderr, "chtbench: %s\n", err);
    close_outputs(ctx);
    return EXIT_USAGE;
}

void mode_emit(struct run_context *ctx, const struct report_schema *schema, const void *item)
{
    int which = 0;
    while (which < OUT_FILES - 1 && ctx->mode->files[which] != schema)
        which++;
    if (ctx->mode->files[which] != schema) {
        fprintf(stderr, "chtbench: internal error: the %s mode emits a row of the %s schema it does not name\n",
                ctx->mode->name, schema->name);
        abort();
    }
    struct outfile *o = ctx_out(ctx, which);
    char err[512];
    if (o && report_append(o, schema, item, err, sizeof err) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        ctx->status = mode_worse(ctx->status, EXIT_FAILED);
    }
    if (which == OUT_MAIN && ctx->cfg->json)
        report_json_item(stdout, schema, item);
}

int mode_print_schema(FILE *f, const char *which)
{
    /* each schema once, in the modes' order (mutex and rwlock share theirs) */
    const struct report_schema *list[16];
    unsigned n = 0;
#define MODE_SCHEMAS(id, name, m, check)                                            \
    for (int i = 0; i < OUT_FILES; i++) {                                           \
        bool seen = !m.files[i];                                                    \
        for (unsigned k = 0; k < n && !seen; k++)                                   \
            seen = list[k] == m.files[i];                                           \
        if (!seen && n < sizeof list / sizeof list[0])                              \
            list[n++] = m.files[i];                                                 \
    }
    CHT_BENCH_MODES(MODE_SCHEMAS)
#undef MODE_SCHEMAS
    return report_schema(f, which, list, n);
}

int mode_worse(int a, int b)
{
    /* 1 (failure) outranks 3 (full) outranks 0 */
    if (a == EXIT_FAILED || b == EXIT_FAILED)
        return EXIT_FAILED;
    return a ? a : b;
}

bool mode_oversubscribed(const struct run_context *ctx, const struct mode_cell *c)
{
    return c->plan && (c->plan->oversubscribed || c->threads > ctx->pus);
}

/* ---------------- the loop ---------------- */

/* Each subject's 1-thread median of the mode's metric, once its 1-thread cell has run. */
struct baseline {
    bool known[MAX_BENCH_LOCKS > MAX_TABLES ? MAX_BENCH_LOCKS : MAX_TABLES];
    double median[MAX_BENCH_LOCKS > MAX_TABLES ? MAX_BENCH_LOCKS : MAX_TABLES];
};

static struct speedup speedup_of(const struct mode *m, const struct baseline *b, const struct mode_cell *c,
                                 const void *result)
{
    struct speedup s = { false, 0 };
    if (m->metric && b->known[c->subject] && b->median[c->subject] > 0) {
        s.known = true;
        s.value = m->metric(result) / b->median[c->subject];
    }
    return s;
}

static void emit_result(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result,
                        const struct baseline *b)
{
    ctx->mode->rows(ctx, c, rep, result, speedup_of(ctx->mode, b, c, result));
    if (ctx->mode->release)
        ctx->mode->release(result);
}

static double metric_median(const struct mode *m, const char *results, size_t size, unsigned n, struct summary *sm)
{
    double v[n];
    for (unsigned i = 0; i < n; i++)
        v[i] = m->metric(results + i * size);
    summarize(v, n, sm);
    return sm->median;
}

/* noise: the spread of the repetitions, and a speedup no machine can give */
static void noise_warnings(const struct mode_cell *c, const struct summary *sm, unsigned n, const struct baseline *b)
{
    double cv = sm->mean > 0 ? sm->stdev / sm->mean : 0;
    if (n > 1 && cv > 0.10)
        fprintf(stderr, "chtbench: warning: %s with %u thread%s: the repetitions vary by %.0f%% (coefficient of "
                "variation above 10%%): a noisy machine? compare medians of more --reps\n", c->name, c->threads,
                c->threads == 1 ? "" : "s", 100 * cv);
    double one = b->median[c->subject];
    if (b->known[c->subject] && one > 0 && c->threads > 1 && sm->median / one > c->threads)
        fprintf(stderr, "chtbench: warning: %s: speedup %.2f at %u threads is above %u (superlinear): the 1-thread "
                "runs were probably disturbed\n", c->name, sm->median / one, c->threads, c->threads);
}

/* One cell: its repetitions, their rows (a subject's 1-thread rows wait for their median, to
 * carry their speedup), its console summary. */
static void run_cell(struct run_context *ctx, const struct mode_cell *c, char *results, struct baseline *b)
{
    const struct mode *m = ctx->mode;
    size_t size = ctx->result_size;
    if (mode_oversubscribed(ctx, c)) {
        char why[192];
        pin_plan_oversubscription(&ctx->cfg->pin, c->plan, ctx->pus, why, sizeof why);
        fprintf(stderr, "chtbench: warning: %s: oversubscribed\n", why[0] ? why : "threads share CPUs");
    }
    bool hold = m->metric && c->threads == 1 && !b->known[c->subject];
    unsigned done = 0;
    for (unsigned rep = 0; rep < c->reps && !runner_interrupted; rep++) {
        void *r = results + done * size;
        memset(r, 0, size);
        int st = m->run(ctx, c, rep, r);
        if (st == REP_FATAL || st == REP_INTERRUPTED) {   /* not a result: no row, not in the summary */
            if (m->release)
                m->release(r);
            if (st == REP_FATAL)
                ctx->status = mode_worse(ctx->status, EXIT_FAILED);
            break;
        }
        ctx->status = mode_worse(ctx->status, st);
        ctx->completed++;
        done++;
        if (!hold)
            emit_result(ctx, c, rep, r, b);
    }
    if (!done)
        return;
    struct summary sm = { 0 };
    struct speedup cell_speedup = { false, 0 };
    if (m->metric) {
        double median = metric_median(m, results, size, done, &sm);
        if (hold) {
            b->known[c->subject] = true;
            b->median[c->subject] = median;
            for (unsigned i = 0; i < done; i++)
                emit_result(ctx, c, i, results + i * size, b);
        }
        double one = b->median[c->subject];
        cell_speedup = (struct speedup){ b->known[c->subject] && one > 0, one > 0 ? median / one : 0 };
    }
    m->console_summary(ctx, c, results, done, cell_speedup);
    if (m->metric)
        noise_warnings(c, &sm, done, b);
}

static void run_cells(struct run_context *ctx)
{
    unsigned n = ctx->mode->cells(ctx), most = 1;
    struct mode_cell c;
    for (unsigned i = 0; i < n; i++) {
        ctx->mode->cell(ctx, i, &c);
        most = c.reps > most ? c.reps : most;
    }
    char *results = malloc(most * ctx->result_size);
    struct baseline *b = calloc(1, sizeof *b);
    if (!results || !b) {
        fprintf(stderr, "chtbench: out of memory\n");
        ctx->status = EXIT_FAILED;
        n = 0;
    }
    for (unsigned i = 0; i < n && !runner_interrupted; i++) {
        memset(&c, 0, sizeof c);
        ctx->mode->cell(ctx, i, &c);
        c.index = i;
        run_cell(ctx, &c, results, b);
    }
    free(results);
    free(b);
}

/* ---------------- set-up and tear-down ---------------- */

struct pin_plan *mode_plans(const struct bench_config *cfg, const struct pin_topology *topo)
{
    struct pin_plan *plans = calloc(cfg->nthreads, sizeof *plans);
    char err[512];
    for (unsigned i = 0; plans && i < cfg->nthreads; i++)
        if (pin_plan_make(topo, &cfg->pin, cfg->threads[i], &plans[i], err, sizeof err) != 0) {
            fprintf(stderr, "chtbench: %s\n", err);
            mode_plans_free(cfg, plans, i);
            return NULL;
        }
    if (!plans)
        fprintf(stderr, "chtbench: out of memory\n");
    return plans;
}

void mode_plans_free(const struct bench_config *cfg, struct pin_plan *plans, unsigned made)
{
    (void)cfg;
    for (unsigned i = 0; plans && i < made; i++)
        pin_plan_free(&plans[i]);
    free(plans);
}

static void ctx_free(struct run_context *ctx)
{
    close_outputs(ctx);
    if (ctx->mode->finish)
        ctx->mode->finish(ctx);
    mode_plans_free(ctx->cfg, ctx->plans, ctx->plans ? ctx->cfg->nthreads : 0);
    pin_topology_free(ctx->topo);
}

/* Everything before the first repetition, for the run and for --validate alike: 0, or an exit
 * status with the message printed and nothing left open. */
static int ctx_open(struct run_context *ctx, const struct bench_config *cfg, bool validate)
{
    *ctx = (struct run_context){ .cfg = cfg, .mode = mode_of(cfg), .validate = validate };
    for (int i = 0; i < OUT_FILES; i++)
        ctx->out[i].fd = -1;
    ctx->result_size = ctx->mode->result_size;
    char err[512];
    ctx->topo = pin_topology_load(NULL, err, sizeof err);
    if (!ctx->topo) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_FAILED;
    }
    ctx->pus = pin_topology_pus(ctx->topo);
    ctx->plans = mode_plans(cfg, ctx->topo);
    int rc = ctx->plans ? ctx->mode->prepare(ctx) : EXIT_USAGE;
    if (rc == 0)
        rc = open_outputs(ctx);
    if (rc)
        ctx_free(ctx);
    return rc;
}

int mode_validate(const struct bench_config *cfg)
{
    struct run_context ctx;
    int rc = ctx_open(&ctx, cfg, true);
    if (rc == 0)
        ctx_free(&ctx);
    return rc;
}

int mode_run(const struct bench_config *cfg)
{
    struct run_context ctx;
    int rc = ctx_open(&ctx, cfg, false);
    if (rc)
        return rc;
    /* with --csv - or --json the data goes to stdout, the summary to stderr */
    struct outfile *csv = ctx_out(&ctx, OUT_MAIN);
    ctx.human = cfg->json || (csv && csv->is_stdout) ? stderr : stdout;
    ctx.mode->console_header(&ctx);
    run_cells(&ctx);
    if (runner_interrupted) {
        fprintf(stderr, "chtbench: interrupted by %s: %u repetition%s completed and recorded; the interrupted one "
                "was not\n", runner_interrupted == SIGINT ? "SIGINT" : "SIGTERM", ctx.completed,
                ctx.completed == 1 ? "" : "s");
        ctx.status = 128 + runner_interrupted;   /* 130 for SIGINT (docs/cli.md "Exit status") */
    }
    rc = ctx.status;
    ctx_free(&ctx);
    return rc;
}
