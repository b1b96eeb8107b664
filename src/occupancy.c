/*
 * occupancy.c - the occupancy and hit/miss benchmark (Alibaba's indexlib
 * note: dense vs chain vs 4-way cuckoo across occupancy 50%..90%+, hit-only
 * and miss-only lookups, the load at the first failed insert). One thread,
 * as the note. docs/csv.md "Occupancy CSV"; occupancy.h for the wiring.
 *
 * Per (table, rep), on a fresh table created with initial = slots and
 * density 1.0 (its real slot capacity C is stats.buckets afterwards):
 *   for each load L, ascending: insert the distinct keys 1.. up to
 *     n_L = round(L * C) (one key of precision: size() must equal n_L),
 *     timing that band of inserts; then `lookups` gets of keys drawn
 *     uniformly from the n_L present ones (hit phase: each must succeed) and
 *     `lookups` gets of keys never inserted, from [2^61, 2^61 + 2^40) (miss
 *     phase: each must fail, except on an approximate table, where the hits
 *     are its false positives), each phase timed on its own. The key draws
 *     (one xoroshiro step and a multiply-shift) are inside both timed loops.
 *   then, untimed, the table's probe_lines hook (cht.h; NULL: cells empty)
 *     averaged over min(lookups, 2^16) hit keys and as many miss keys drawn
 *     the same way from a separate stream (seed, 2^32 + rep): lines_hit,
 *     lines_miss (distinct 64-byte lines of key/value storage per get).
 *   an insert refused before n_L: the load is unreachable; that row and the
 *     higher ones say reached=0 and carry no throughput.
 *   after the last load: insert on until the first refusal (or C keys):
 *     max_load = keys at the first failed insert / C, the same in every row
 *     of that (table, rep); rows are written once it is known.
 * Tables without a fixed capacity (neither CHT_CAP_FIXED_CAP nor a
 * resizable table given resize=0) are refused before anything runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "occupancy.h"
#include "keygen.h"
#include "mode.h"
#include "runner.h"
#include "table_columns.h"
#include "util.h"

#define OCC_LINE_SAMPLE (UINT64_C(1) << 16)
#define OCC_MISS_BASE (UINT64_C(1) << 61)
#define OCC_MISS_SPAN (UINT64_C(1) << 40)

/* a repetition's result: a row per load, ascending */
struct occ_result {
    struct timespec end_time;
    struct occ_row rows[];
};

/* what prepare sets up: the loads, ascending */
struct occ_state {
    double *loads;
};

static bool interrupted(void) { return runner_interrupted != 0; }

bool occupancy_fixed_capacity(const struct table_choice *c, char *why, size_t len)
{
    const struct cht_ops *o = c->ops;
    if (o->caps & CHT_CAP_NO_DATA) {
        snprintf(why, len, "table '%s' stores nothing", o->name);
        return false;
    }
    if (o->caps & CHT_CAP_FIXED_CAP)
        return true;
    const char *r = cht_option_get(c->options, "resize");
    if ((o->caps & CHT_CAP_RESIZE) && r && strcmp(r, "0") == 0)
        return true;
    int n = snprintf(why, len, "table '%s' has no fixed capacity (it %s); fixed-capacity tables:", o->name,
                     o->caps & CHT_CAP_RESIZE ? "grows when full: give it resize=0 if it takes that option"
                                              : "never refuses an insert");
    const struct cht_ops *t;
    for (unsigned i = 0; (t = registry_table_at(i)) && n > 0 && (size_t)n < len; i++)
        if (t->caps & CHT_CAP_FIXED_CAP)
            n += snprintf(why + n, len - (size_t)n, " %s", t->name);
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline cht_key_t key_in(uint64_t i) { return i + 1; }

/* gets per hit phase and per miss phase: --ops, default 2^20 */
static uint64_t occ_lookups(const struct bench_config *cfg) { return cfg->ops ? cfg->ops : UINT64_C(1) << 20; }

/* one (table, rep): fills rows[0..nloads); false on a correctness failure */
static bool occ_one(const struct bench_config *cfg, const struct table_choice *c, const double *loads, unsigned rep,
                    struct occ_row *rows, char *err, size_t elen)
{
    const struct cht_ops *o = c->ops;
    struct cht_config tc = { .initial = cfg->occ_slots, .density = 1.0, .range = OCC_MISS_BASE + OCC_MISS_SPAN,
                             .max_threads = 1, .numa_nodes = 1 };
    registry_apply_choice(c, &tc);
    void *t = o->create(&tc, err, elen);
    if (!t)
        return false;
    if (o->thread_init)
        o->thread_init(t, 0);
    struct cht_stats st = { 0 };
    if (o->stats)
        o->stats(t, &st);
    uint64_t C = st.buckets ? st.buckets : cfg->occ_slots, n = 0, lookups = occ_lookups(cfg);
    bool full = false, ok = true;
    struct cht_rng r, rl;
    cht_rng_seed(&r, cfg->seed, rep);
    cht_rng_seed(&rl, cfg->seed, (UINT64_C(1) << 32) + rep);
    for (unsigned i = 0; i < cfg->occ_nloads; i++) {
        struct occ_row *row = &rows[i];
        *row = (struct occ_row){ .load_target = loads[i], .slots = C };
        uint64_t target = (uint64_t)(loads[i] * (double)C + 0.5);
        uint64_t t0 = now_ns(), first = n;
        while (!full && n < target) {
            if (!(n & 4095) && interrupted())
                break;
            if (o->insert(t, key_in(n), key_in(n)))
                n++;
            else
                full = true;
        }
        uint64_t t1 = now_ns();
        if (interrupted()) {
            snprintf(err, elen, "interrupted");
            ok = false;
            break;
        }
        row->keys = n;
        row->load = (double)n / (double)C;
        row->reached = n == target;
        if (!row->reached)
            continue;
        if (o->size(t) != n) {
            snprintf(err, elen, "table %s: size() %zu after %llu distinct inserts", o->name, o->size(t),
                     (unsigned long long)n);
            ok = false;
            break;
        }
        row->insert_mops = n > first && t1 > t0 ? (double)(n - first) * 1e3 / (double)(t1 - t0) : 0;
        uint64_t misses = 0, hits = 0;
        t0 = now_ns();
        for (uint64_t q = 0; q < lookups && n; q++) {
            if (!(q & 65535) && interrupted())
                break;
            cht_val_t v;
            misses += !o->get(t, key_in(cht_rng_below(cht_rng_next(&r), n)), &v);
        }
        t1 = now_ns();
        row->hit_mops = t1 > t0 ? (double)lookups * 1e3 / (double)(t1 - t0) : 0;
        t0 = now_ns();
        for (uint64_t q = 0; q < lookups; q++) {
            if (!(q & 65535) && interrupted())
                break;
            cht_val_t v;
            hits += o->get(t, OCC_MISS_BASE + cht_rng_below(cht_rng_next(&r), OCC_MISS_SPAN), &v);
        }
        t1 = now_ns();
        row->miss_mops = t1 > t0 ? (double)lookups * 1e3 / (double)(t1 - t0) : 0;
        row->hit_failures = misses;
        row->miss_hits = hits;
        if (o->probe_lines && n) {     /* untimed: lines per get, replayed by the table */
            uint64_t sample = lookups < OCC_LINE_SAMPLE ? lookups : OCC_LINE_SAMPLE, lh = 0, lm = 0;
            for (uint64_t q = 0; q < sample; q++)
                lh += o->probe_lines(t, key_in(cht_rng_below(cht_rng_next(&rl), n)));
            for (uint64_t q = 0; q < sample; q++)
                lm += o->probe_lines(t, OCC_MISS_BASE + cht_rng_below(cht_rng_next(&rl), OCC_MISS_SPAN));
            row->lines = true;
            row->lines_hit = (double)lh / (double)sample;
            row->lines_miss = (double)lm / (double)sample;
        }
        if (misses || (hits && !(o->caps & CHT_CAP_APPROXIMATE))) {
            snprintf(err, elen, "table %s at load %.4f: %llu present keys not found, %llu absent keys found",
                     o->name, row->load, (unsigned long long)misses, (unsigned long long)hits);
            ok = false;
        }
    }
    /* on to the first refusal: the maximum load */
    while (ok && !full && n < C) {
        if (!(n & 4095) && interrupted()) {
            snprintf(err, elen, "interrupted");
            ok = false;
            break;
        }
        if (o->insert(t, key_in(n), key_in(n)))
            n++;
        else
            full = true;
    }
    if (o->stats)
        o->stats(t, &st);
    for (unsigned i = 0; i < cfg->occ_nloads; i++) {
        rows[i].max_load = (double)n / (double)C;
        rows[i].bytes = st.bytes;
    }
    if (o->thread_exit)
        o->thread_exit(t, 0);
    o->destroy(t);
    return ok;
}

int occupancy_check(const struct bench_config *cfg)
{
    char why[512];
    if (cfg->occ_nloads == 0 || cfg->occ_slots < 64) {
        fprintf(stderr, "chtbench: --bench occupancy: need --slots N (>= 64) and --load LIST\n");
        return EXIT_USAGE;
    }
    for (unsigned i = 0; i < cfg->occ_nloads; i++)
        if (!(cfg->occ_loads[i] > 0 && cfg->occ_loads[i] <= 1)) {
            fprintf(stderr, "chtbench: --load: %g is not a load factor in (0, 1]\n", cfg->occ_loads[i]);
            return EXIT_USAGE;
        }
    for (unsigned i = 0; i < cfg->ntables; i++)
        if (!occupancy_fixed_capacity(&cfg->table[i], why, sizeof why)) {
            fprintf(stderr, "chtbench: --bench occupancy: %s\n", why);
            return EXIT_USAGE;
        }
    return 0;
}

/* ---------------- the mode (mode.h): one cell per table, a row per load per rep ---------------- */

static int occ_prepare(struct run_context *ctx)
{
    const struct bench_config *cfg = ctx->cfg;
    int rc = occupancy_check(cfg);
    if (rc || (rc = mode_validate_tables(cfg)) != 0)
        return rc;
    struct occ_state *st = calloc(1, sizeof *st);
    double *loads = malloc(cfg->occ_nloads * sizeof *loads);
    if (!st || !loads) {
        free(st);
        free(loads);
        fprintf(stderr, "chtbench: out of memory\n");
        return EXIT_FAILED;
    }
    memcpy(loads, cfg->occ_loads, cfg->occ_nloads * sizeof *loads);
    qsort(loads, cfg->occ_nloads, sizeof *loads, cmp_double);
    st->loads = loads;
    ctx->state = st;
    ctx->result_size = sizeof(struct occ_result) + cfg->occ_nloads * sizeof(struct occ_row);
    return 0;
}

static void occ_finish(struct run_context *ctx)
{
    struct occ_state *st = ctx->state;
    if (st)
        free(st->loads);
    free(st);
    ctx->state = NULL;
}

static unsigned occ_cells(const struct run_context *ctx) { return ctx->cfg->ntables; }

static void occ_cell(const struct run_context *ctx, unsigned i, struct mode_cell *c)
{
    const struct bench_config *cfg = ctx->cfg;
    *c = (struct mode_cell){ .name = cfg->table[i].ops->name, .subject = i, .threads = 1,
                             .reps = cfg->reps ? cfg->reps : 1 };
}

static int occ_run(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result)
{
    const struct table_choice *choice = &ctx->cfg->table[c->subject];
    struct occ_result *res = result;
    char err[512] = "";
    if (!registry_choice_available(choice, err, sizeof err)) {
        fprintf(stderr, "chtbench: table %s is not available here: %s\n", choice->ops->name, err);
        return REP_FATAL;
    }
    bool done = occ_one(ctx->cfg, choice, ((struct occ_state *)ctx->state)->loads, rep, res->rows, err, sizeof err);
    if (interrupted())   /* a repetition cut short: no row */
        return REP_INTERRUPTED;
    if (!done) {
        fprintf(stderr, "chtbench: --bench occupancy: %s\n", err[0] ? err : "failed");
        return REP_FATAL;
    }
    clock_gettime(CLOCK_REALTIME, &res->end_time);
    return 0;
}

/* ---------------- the occupancy CSV (--csv, --json): one declaration a column (report.h) ---------------- */

/* One row of --bench occupancy: a load of one (table, rep). */
struct occ_record {
    const struct table_choice *table;
    unsigned rep;
    const struct occ_row *row;
    const struct timespec *end_time;   /* when the repetition ended */
};

/* then the context */
#define OCCUPANCY_COLUMNS(X, S) \
    S(SCHEMA, "occupancy schema version (" REPORT_STR(OCCUPANCY_CSV_SCHEMA_VERSION) ")") \
    X(CSV, bench, "text", "", "", "`occupancy`", VAL_S("occupancy")) \
    S(TIMESTAMP, "end of the repetition, UTC, ISO 8601 with milliseconds") \
    S(HOST, "hostname") \
    X(CSV, table, "text", "", "", "table name", VAL_S(rec->table->ops->name)) \
    X(CSV, options, "text", "", "", "the table's options as given (`resize=0`; quoted when they hold a comma); `-` if none", VAL_S(rec->table->options_text[0] ? rec->table->options_text : "-")) \
    X(CSV, rep, "int", "", "", "repetition, from 0 (keys of the lookups: stream `(seed, rep)`)", VAL_U(rec->rep)) \
    X(CSV, slots, "int", "", "", "the table's real slot capacity C (`stats.buckets`; tables round `--slots` up, e.g. to powers of two)", VAL_U(r->slots)) \
    X(CSV, load_target, "float", "", "", "the `--load` value of this row", VAL_D(r->load_target)) \
    X(CSV, keys, "int", "", "", "keys in the table: round(load_target × C) when reached (one key of precision), else the count at the first refused insert", VAL_U(r->keys)) \
    X(CSV, load, "float", "", "", "keys / C", VAL_D(r->load)) \
    X(CSV, reached, "int", "", "", "1 when all `keys` went in; 0 when an insert was refused first (then O13-O19 are empty)", VAL_U(r->reached)) \
    X(CSV, insert_mops, "float", "Mops/s", "", "inserts of this load band (from the previous row's keys to this row's), millions per second", VAL_OD(r->reached, r->insert_mops)) \
    X(CSV, hit_mops, "float", "Mops/s", "", "hit-only gets (keys known present), millions per second", VAL_OD(r->reached, r->hit_mops)) \
    X(CSV, miss_mops, "float", "Mops/s", "", "miss-only gets (keys known absent), millions per second", VAL_OD(r->reached, r->miss_mops)) \
    X(CSV, hit_failures, "int", "", "", "hit-phase gets that returned false (always 0, or the run fails)", VAL_OU(r->reached, r->hit_failures)) \
    X(CSV, miss_hits, "int", "", "", "miss-phase gets that returned true: 0 for exact tables; an approximate table's false positives (fp rate = miss_hits / Q)", VAL_OU(r->reached, r->miss_hits)) \
    X(CSV, lines_hit, "float", "", "", "distinct 64-byte lines of key/value storage one hit-phase get reads, averaged over min(Q, 2^16) present keys; measured untimed, after both timed phases, through the table's `probe_lines` hook (docs/adding-a-table.md); empty for a table without one (and for an unreached load)", VAL_OD(r->reached && r->lines, r->lines_hit)) \
    X(CSV, lines_miss, "float", "", "", "the same over as many keys never inserted (the miss phase's key space)", VAL_OD(r->reached && r->lines, r->lines_miss)) \
    X(CSV, max_load, "float", "", "", "keys at the first refused insert / C (1 if none was refused up to C keys)", VAL_D(r->max_load)) \
    X(CSV, bytes, "int", "bytes", "", "`stats.bytes` after the max-load fill", VAL_U(r->bytes)) \
    S(RUN_ID, "the invocation's id, as in the table CSV") \
    X(CSV, plugin, "text", "", "", "the plugin (docs/plugins.md) that provided the table, or the lock it ran under (`TABLE;LOCK` when two plugins did); empty for built-ins", table_plugins(cell, rec->table, false)) \
    X(CSV, plugin_sha256, "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins", table_plugins(cell, rec->table, true))

#define OCCUPANCY_FN(where, name, type, unit, flag, meaning, value)                 \
    static void occ_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                               \
        const struct occ_record *rec = item;                                        \
        const struct occ_row *r = rec->row;                                         \
        (void)r, (void)row;                                                         \
        value;                                                                      \
    }
#define OCCUPANCY_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, occ_##name),
OCCUPANCY_COLUMNS(OCCUPANCY_FN, REPORT_NO_FN)
static const struct report_col occupancy_cols[] = { OCCUPANCY_COLUMNS(OCCUPANCY_ENTRY, REPORT_SHARED_ENTRY) };

static const struct timespec *occ_end(const void *item) { return ((const struct occ_record *)item)->end_time; }

static const struct report_schema occupancy_schema = {
    "occupancy", OCCUPANCY_CSV_SCHEMA_VERSION, "O", "--csv of --bench occupancy",
    "chtbench occupancy CSV (--bench occupancy)", { REPORT_PART(occupancy_cols), REPORT_CONTEXT_PART }, occ_end, NULL,
};

static void occ_rows(struct run_context *ctx, const struct mode_cell *c, unsigned rep, const void *result,
                     struct speedup s)
{
    (void)s;
    const struct occ_result *res = result;
    for (unsigned i = 0; i < ctx->cfg->occ_nloads; i++) {
        struct occ_record rec = { .table = &ctx->cfg->table[c->subject], .rep = rep, .row = &res->rows[i],
                                  .end_time = &res->end_time };
        mode_emit(ctx, &occupancy_schema, &rec);
    }
}

static void occ_console_header(struct run_context *ctx)
{
    const struct bench_config *cfg = ctx->cfg;
    fprintf(ctx->human, "# occupancy: slots=%llu lookups=%llu per phase, one thread, seed=%llu\n",
            (unsigned long long)cfg->occ_slots, (unsigned long long)occ_lookups(cfg), (unsigned long long)cfg->seed);
    fprintf(ctx->human, "%-28s %3s %10s %6s %8s %10s %9s %9s %9s %7s %7s %8s\n", "table", "rep", "slots", "target",
            "load", "ins_Mops", "hit_Mops", "miss_Mops", "miss_hits", "l_hit", "l_miss", "max_load");
}

static void occ_console_line(FILE *f, const char *name, unsigned rep, const struct occ_row *r)
{
    char lh[16] = "-", lm[16] = "-";
    if (r->reached && r->lines) {
        snprintf(lh, sizeof lh, "%.3f", r->lines_hit);
        snprintf(lm, sizeof lm, "%.3f", r->lines_miss);
    }
    if (r->reached)
        fprintf(f, "%-28s %3u %10llu %6.3f %8.5f %10.3f %9.3f %9.3f %9llu %7s %7s %8.5f\n", name, rep,
                (unsigned long long)r->slots, r->load_target, r->load, r->insert_mops, r->hit_mops, r->miss_mops,
                (unsigned long long)r->miss_hits, lh, lm, r->max_load);
    else
        fprintf(f, "%-28s %3u %10llu %6.3f %8.5f %10s %9s %9s %9s %7s %7s %8.5f\n", name, rep,
                (unsigned long long)r->slots, r->load_target, r->load, "unreached", "-", "-", "-", "-", "-", r->max_load);
}

static void occ_console_summary(struct run_context *ctx, const struct mode_cell *c, const void *results, unsigned n,
                                struct speedup s)
{
    (void)s;
    const struct table_choice *choice = &ctx->cfg->table[c->subject];
    char name[2200];
    snprintf(name, sizeof name, "%s%s%s", choice->ops->name, choice->options_text[0] ? ":" : "", choice->options_text);
    for (unsigned rep = 0; rep < n; rep++) {
        const struct occ_result *res = (const void *)((const char *)results + rep * ctx->result_size);
        for (unsigned i = 0; i < ctx->cfg->occ_nloads; i++)
            occ_console_line(ctx->human, name, rep, &res->rows[i]);
    }
    fflush(ctx->human);
}

const struct mode occupancy_mode = {
    .name = "occupancy",
    .files = { [OUT_MAIN] = &occupancy_schema },
    .prepare = occ_prepare,
    .finish = occ_finish,
    .cells = occ_cells,
    .cell = occ_cell,
    .run = occ_run,
    .rows = occ_rows,
    .console_header = occ_console_header,
    .console_summary = occ_console_summary,
};
