/*
 * tablemode.c - the table benchmark (the default --bench table) as a mode
 * of the pipeline (mode.h): one cell per (table, thread count), one
 * runner_run per repetition, a table CSV row (and its latency and timeline
 * side-file rows) per result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "marker.h"
#include "membench.h"
#include "mode.h"
#include "runner.h"
#include "table_columns.h"
#include "trace.h"
#include "counters.h"
#include "util.h"

/* What the table mode sets up before its first repetition. */
struct table_state {
    /* what the run adds to the parsed settings (the runner gets it through run_params) */
    uint64_t range;                      /* cfg->range, or the loaded trace's largest key when larger */
    struct lat_clock lat_clock;          /* calibrated when --latency */
    struct counter_set counters;         /* --counters, set up (PAPI event set) */
    char counters_warning[512];          /* printed once before the runs */
    struct trace trace;
    bool have_trace, marker, wrap_noted, slices_noted;
    struct keygen *keys, *perm, *vperm;   /* the timed phase's key stream; prefill and verify orders */
};

/* Option values are the tables' to judge (create() parses them): build each
 * table once, tiny, before any run, so a bad value is a usage error and not
 * a results file with some rows in it. 0 or EXIT_USAGE, the message printed. */
int mode_validate_tables(const struct bench_config *cfg)
{
    for (unsigned t = 0; t < cfg->ntables; t++) {
        struct cht_config tc = { .initial = 16, .density = cfg->density, .range = 32, .max_threads = 1,
                                 .numa_nodes = 1, .value_size = cfg->value_size, .hugepages = cfg->hugepages };
        if (cfg->key_type.kind != KEYTYPE_U64) {   /* a table may take byte keys only with some options */
            tc.key_kind = CHT_KEYS_BYTES;
            key_type_lengths(&cfg->key_type, &tc.key_len_min, &tc.key_len_max);
        }
        registry_apply_choice(&cfg->table[t], &tc);
        char err[512] = "";
        void *table = cfg->table[t].ops->create(&tc, err, sizeof err);
        if (!table) {
            fprintf(stderr, "chtbench: %s\n", err[0] ? err : "--table: cannot create the table");
            return EXIT_USAGE;
        }
        cfg->table[t].ops->destroy(table);
    }
    return 0;
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
static uint64_t opbuf_len(const struct bench_config *cfg, const struct table_state *st, unsigned threads)
{
    if (st->have_trace)
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

/* VERIFY FAILED: the final check's count, in the words of its mode */
static void report_verify_failure(const char *name, unsigned threads, unsigned rep, const struct run_result *r)
{
    const char *mode = verify_mode_name(r->check.verify_mode);
    if (r->filter.false_negatives)
        fprintf(stderr,
                "chtbench: VERIFY FAILED: %s, %u threads, rep %u: %llu keys present not found (false negatives) "
                "by the final check (--verify %s)\n",
                name, threads, rep, (unsigned long long)r->filter.false_negatives, mode);
    else if (r->check.verify_mode == VERIFY_FULL) {
        bool missing = r->check.verify_found < r->check.verify_expected;
        char howmany[96];
        if (missing)
            snprintf(howmany, sizeof howmany, "%llu of %llu keys missing",
                     (unsigned long long)(r->check.verify_expected - r->check.verify_found),
                     (unsigned long long)r->check.verify_expected);
        else
            snprintf(howmany, sizeof howmany, "%llu keys too many, %llu expected",
                     (unsigned long long)(r->check.verify_found - r->check.verify_expected),
                     (unsigned long long)r->check.verify_expected);
        fprintf(stderr,
                "chtbench: VERIFY FAILED: %s, %u threads, rep %u: %s (the final check, --verify full, looked up "
                "%llu keys and found %llu; size() says %zu)\n",
                name, threads, rep, howmany, (unsigned long long)r->check.verified_keys,
                (unsigned long long)r->check.verify_found, r->check.final_size);
    }
    else
        fprintf(stderr,
                "chtbench: VERIFY FAILED: %s, %u threads, rep %u: the final check (--verify %s) found %llu of a "
                "sample of %llu keys, %llu expected on average: keys %s beyond 6 standard deviations (size() "
                "says %zu)\n",
                name, threads, rep, mode, (unsigned long long)r->check.verify_found, (unsigned long long)r->check.verified_keys,
                (unsigned long long)r->check.verify_expected, r->check.verify_found < r->check.verify_expected ? "missing" : "too many",
                r->check.final_size);
}

/* One line on stderr for a repetition that is not a clean result; for a
 * correctness failure, one line per check that failed, named by the check. */
/* --verify history: what was checked, on stderr (one line; the violation's window below it) */
static void report_history(const char *name, unsigned threads, unsigned rep, const struct run_result *r)
{
    const struct hist_result *h = &r->history.hist;
    const double covered = (double)h->covered_ns / 1e9;
    char cut[96] = "";
    if (h->lost)
        snprintf(cut, sizeof cut, " (then the buffers were full: %llu watched ops not recorded)",
                 (unsigned long long)h->lost);
    char verdict[96];
    if (h->violations)
        snprintf(verdict, sizeof verdict, "%llu NOT LINEARIZABLE", (unsigned long long)h->violations);
    else
        snprintf(verdict, sizeof verdict, "all linearizable");
    fprintf(stderr,
            "chtbench: history: %s, %u threads, rep %u: %llu watched keys (the multiples of %llu), %llu ops on %llu "
            "of them recorded over the first %.3f s of the timed phase%s, %llu of them cut before their answer: %s, "
            "%llu undecided (checked in %.2f s)\n",
            name, threads, rep, (unsigned long long)r->history.hist_watched, (unsigned long long)r->history.hist_watch_every,
            (unsigned long long)h->ops, (unsigned long long)h->keys, covered, cut, (unsigned long long)h->unanswered,
            verdict, (unsigned long long)h->undecided, h->check_s);
    if (h->violations)
        fprintf(stderr, "chtbench: NOT LINEARIZABLE: %s, %u threads, rep %u: %s\n", name, threads, rep, h->window);
}

static void report_outcome(const struct table_choice *t, unsigned threads, unsigned rep, const struct run_result *r)
{
    const char *name = t->ops->name;
    if (r->history.hist_on)
        report_history(name, threads, rep, r);
    switch (r->outcome) {
    case OUTCOME_OK:
        return;
    case OUTCOME_FULL:
        fprintf(stderr,
                "chtbench: TABLE FULL: %s, %u threads, rep %u: the fixed-capacity table refused %llu inserts for "
                "lack of room%s%s (the accounting is exact; lower --density or --initial, or use a resizing table)\n",
                name, threads, rep, (unsigned long long)r->memory.stats.full_failures, r->error[0] ? "; " : "", r->error);
        return;
    case OUTCOME_OOM:
        fprintf(stderr,
                "chtbench: OUT OF MEMORY: %s, %u threads, rep %u: %llu inserts refused because memory could not "
                "be allocated%s%s\n",
                name, threads, rep, (unsigned long long)r->memory.stats.alloc_failures, r->error[0] ? "; " : "", r->error);
        return;
    default:
        break;
    }
    if (r->pipe.pipe_bad) {
        static const char *const kinds[] = { "get", "insert", "remove", "update" };
        const struct pipe_bad_answer *b = &r->pipe.pipe_first_bad;
        char left[64];
        if (b->result == CHT_PIPE_POISON)
            snprintf(left, sizeof left, "left the result it was given untouched (CHT_PIPE_POISON)");
        else if (b->result == CHT_PIPE_AGAIN)
            snprintf(left, sizeof left, "answered CHT_PIPE_AGAIN%s", b->step == 2 ? " again" : " without stage 1");
        else
            snprintf(left, sizeof left, "answered %d", b->result);
        fprintf(stderr,
                "chtbench: BAD ANSWER: %s, %u threads, rep %u: pipe_step of a pipelined %s of key %llu (its %s step) "
                "%s, expected 1 or 0%s: %llu ops answered so, counted as failures\n",
                name, threads, rep, b->kind < 4 ? kinds[b->kind] : "op of unknown kind", (unsigned long long)b->key,
                b->step == 2 ? "second" : "first", left, b->step == 2 ? "" : " or CHT_PIPE_AGAIN with stage 1",
                (unsigned long long)r->pipe.pipe_bad);
    }
    if (!r->check.size_ok)
        fprintf(stderr,
                "chtbench: SIZE MISMATCH: %s, %u threads, rep %u: size after prefill %zu (expected %llu), "
                "final size %zu, expected %zu = %llu prefilled + %llu inserted - %llu removed%s%s\n",
                name, threads, rep, r->check.prefill_size, (unsigned long long)r->check.prefilled, r->check.final_size,
                r->check.expected_size, (unsigned long long)r->check.prefilled,
                (unsigned long long)(r->count[INS_SUC] + r->warmup_count[INS_SUC]),
                (unsigned long long)(r->count[REM_SUC] + r->warmup_count[REM_SUC]), r->error[0] ? "; " : "",
                r->error);
    if (!r->check.verify_ok)
        report_verify_failure(name, threads, rep, r);
    if (r->check.verify_bad_values) {
        uint64_t v = r->check.bad_value;
        char what[160];
        if (v == CHT_VAL_TORN) {       /* no writer to speak of */
            snprintf(what, sizeof what, "torn: words of two writes (cht_value_read)");
        } else {
            const unsigned wr = run_val_writer(v);
            snprintf(what, sizeof what, "writer %u seq %llu, key bits 0x%05llx, expected 0x%05llx; writer %u used "
                     "seqs 0..%lld", wr, (unsigned long long)run_val_seq(v),
                     (unsigned long long)((v & RUN_VAL_KEY_MASK) >> RUN_VAL_KEY_SHIFT),
                     (unsigned long long)(run_val_keybits(r->check.bad_key) >> RUN_VAL_KEY_SHIFT), wr,
                     (long long)r->check.bad_writer_seqs - 1);
        }
        fprintf(stderr,
                "chtbench: VALUE MISMATCH: %s, %u threads, rep %u: key %llu read 0x%016llx (%s; writers "
                "0..%u): %llu of the %llu keys found hold a value the run did not write for them\n",
                name, threads, rep, (unsigned long long)r->check.bad_key, (unsigned long long)v, what, r->check.max_version,
                (unsigned long long)r->check.verify_bad_values, (unsigned long long)r->check.verify_found);
    }
    if (!r->check.keysum_ok && r->check.verify_ok)    /* a wrong count makes a wrong sum: VERIFY FAILED says it */
        fprintf(stderr,
                "chtbench: KEY SUM MISMATCH: %s, %u threads, rep %u: the keys found sum to 0x%016llx, the prefilled "
                "+ inserted - removed keys to 0x%016llx (mod 2^64; found - expected = %lld): the count agrees, so a "
                "key was lost and another that should be gone is there\n",
                name, threads, rep, (unsigned long long)r->check.keysum_found, (unsigned long long)r->check.keysum_expected,
                (long long)(r->check.keysum_found - r->check.keysum_expected));
    if (r->filter.fp_excess)
        fprintf(stderr,
                "chtbench: FP EXCESS: %s, %u threads, rep %u: rate %.4g > bound %.4g + 6 sd (limit %.4g): %llu of "
                "%llu absent keys answered \"present\" (f = %u fingerprint bits, b = %u slots per bucket)\n",
                name, threads, rep, r->filter.fp_rate, r->filter.fp_bound, r->filter.fp_limit,
                (unsigned long long)llround(r->filter.fp_rate * (double)r->filter.fp_checked), (unsigned long long)r->filter.fp_checked,
                r->memory.stats.fp_bits, r->memory.stats.fp_bucket_slots);
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
    case OUTCOME_NOT_LINEARIZABLE: return "NOT LINEARIZABLE";
    case OUTCOME_BAD_ANSWER: return "BAD ANSWER";
    }
    return !r->check.size_ok ? "SIZE MISMATCH" : "VERIFY FAILED";
}

/* Exit status of a repetition's outcome: 1 for a correctness failure or out
 * of memory, 3 for a full fixed-capacity table (docs/cli.md "Exit status"). */
static int outcome_status(enum run_outcome o)
{
    return o == OUTCOME_OK ? 0 : o == OUTCOME_FULL ? EXIT_FULL : EXIT_FAILED;
}

static struct table_state *state(const struct run_context *ctx) { return ctx->state; }

/* the key generators: the timed phase's stream, and the prefill and verify orders */
static int make_keygens(const struct bench_config *cfg, struct table_state *st, char *err, size_t len)
{
    struct keygen_spec uniform = { .dist = KEYGEN_UNIFORM };
    st->keys = aligned_alloc(CHT_CACHE_LINE, sizeof *st->keys);
    st->perm = aligned_alloc(CHT_CACHE_LINE, sizeof *st->perm);
    st->vperm = aligned_alloc(CHT_CACHE_LINE, sizeof *st->vperm);
    if (!st->keys || !st->perm || !st->vperm) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILED;
    }
    if (keygen_init(st->keys, &cfg->dist, st->range, cfg->seed, err, len) != 0 ||
        keygen_init(st->perm, &uniform, st->range, cfg->seed ^ 0x9e3779b97f4a7c15ull, err, len) != 0 ||
        keygen_init(st->vperm, &uniform, st->range, cfg->seed ^ 0x632be59bd9b4e019ull, err, len) != 0)
        return EXIT_USAGE;
    return 0;
}

static int table_prepare(struct run_context *ctx)
{
    const struct bench_config *cfg = ctx->cfg;
    struct table_state *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "chtbench: out of memory\n");
        return EXIT_FAILED;
    }
    ctx->state = st;
    st->range = cfg->range;
    int rc = mode_validate_tables(cfg);
    if (rc)
        return rc;
    if (cfg->trace_path) {
        if (trace_open(cfg, &st->trace) != 0)
            return EXIT_USAGE;
        st->have_trace = true;
        if (st->trace.max_key > cfg->range) {
            if (!ctx->validate)
                fprintf(stderr, "chtbench: note: --trace: keys up to %llu: the key range (prefill, final check) grows "
                        "from %llu to it\n", (unsigned long long)st->trace.max_key, (unsigned long long)cfg->range);
            st->range = st->trace.max_key;
        }
    }
    char err[1024];
    for (unsigned t = 0; t < cfg->ntables; t++)
        if ((rc = runner_check_memory(cfg, &cfg->table[t], err, sizeof err)) != 0) {
            fprintf(stderr, "chtbench: %s\n", err);
            return rc == -2 ? EXIT_USAGE : EXIT_FAILED;
        }
    if (cfg->counters_spec && counters_setup(cfg->counters_spec, &st->counters, err, sizeof err,
                                             st->counters_warning, sizeof st->counters_warning) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        return EXIT_USAGE;
    }
    if ((rc = make_keygens(cfg, st, err, sizeof err)) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        return rc;
    }
    if (ctx->validate)
        return 0;
    if (st->counters_warning[0])
        fprintf(stderr, "chtbench: warning: %s\n", st->counters_warning);
    if (cfg->latency_every)
        lat_calibrate(&st->lat_clock);
    if (cfg->likwid_marker) {
        st->marker = true;
        if (!marker_init(err, sizeof err))
            fprintf(stderr, "chtbench: note: %s\n", err);
    }
    return 0;
}

static void table_finish(struct run_context *ctx)
{
    struct table_state *st = state(ctx);
    if (!st)
        return;
    if (st->marker)
        marker_close();
    if (st->have_trace)
        trace_free(&st->trace);
    free(st->keys);
    free(st->perm);
    free(st->vperm);
    free(st);
    ctx->state = NULL;
}

/* ---------------- the console: the header, one line per cell, --latency's table ---------------- */

static void console_header(FILE *f, const struct bench_config *c)
{
    char dist[128];
    keygen_format(&c->dist, dist, sizeof dist);
    fprintf(f, "# u=%u%% (insert %u%%, remove %u%%)  i=%llu  r=%llu  dist=%s  %s", c->update, c->insert, c->remove,
            (unsigned long long)c->initial, (unsigned long long)c->range, dist, c->keys_sparse ? "keys=sparse  " : "");
    if (c->ops)
        fprintf(f, "ops=%llu/thread", (unsigned long long)c->ops);
    else
        fprintf(f, "d=%llums", (unsigned long long)c->duration_ms);
    fprintf(f, "  reps=%u  pin=%s  prefill=%s  seed=%llu\n", c->reps, pin_policy_name(c->pin.policy),
            c->prefill == PREFILL_SINGLE ? "single" : "parallel", (unsigned long long)c->seed);
    fprintf(f, "%-28s %7s %9s %9s %9s %9s %8s %6s  %s\n", "table", "threads", "Mops/s:med", "mean", "min", "max",
            "stdev", "cv", "check");
}

/* One line per (table, threads): medians over the repetitions, the
 * coefficient of variation, and the check: "ok", or the worst outcome. */
static void console_summary(FILE *f, const struct table_choice *t, unsigned threads, const char *pin,
                            const double *mops, unsigned n, const char *check)
{
    (void)pin;
    double v[n ? n : 1];
    memcpy(v, mops, n * sizeof *v);
    struct summary s;
    summarize(v, n, &s);
    char name[2200];
    snprintf(name, sizeof name, "%s%s%s", t->ops->name, t->options_text[0] ? ":" : "", t->options_text);
    char cv[16] = "-";
    if (n > 1 && s.mean > 0)
        snprintf(cv, sizeof cv, "%.1f%%", 100 * s.stdev / s.mean);
    fprintf(f, "%-28s %7u %9.3f %9.3f %9.3f %9.3f %8.3f %6s  %s\n", name, threads, s.median, s.mean, s.min, s.max,
            s.stdev, cv, check);
    fflush(f);
}

/* --latency: per-store table of one repetition */
static void console_latency(FILE *f, const struct record *rec)
{
    const struct lat_result *l = &rec->r->lat;
    if (!l->on)
        return;
    double ns = l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0;
    fprintf(f, "#   latency %s, %u threads, rep %u: 1 op in %llu timed, TSC %.3f GHz, empty stamp %llu cycles subtracted%s\n",
            rec->table->ops->name, rec->threads, rec->rep, (unsigned long long)l->every, l->tsc_hz / 1e9,
            (unsigned long long)l->overhead_cycles, l->dropped ? " (buffers full: later samples dropped)" : "");
    fprintf(f, "#   %-8s %10s %9s %9s %9s %9s %9s %9s %9s  %s\n", "store", "samples", "avg", "stdev", "p50", "p90",
            "p99", "p99.9", "avg ns", "within 10/25/50% of avg");
    for (int st = 0; st < LAT_STORES; st++) {
        const struct lat_stats *x = &l->st[st];
        if (!x->count)
            continue;
        fprintf(f, "#   %-8s %10llu %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.1f  %.0f%% %.0f%% %.0f%%\n", lat_store_name[st],
                (unsigned long long)x->count, x->avg, x->stdev, x->p50, x->p90, x->p99, x->p999, x->avg * ns,
                100 * x->within10, 100 * x->within25, 100 * x->within50);
    }
}

static unsigned table_cells(const struct run_context *ctx) { return ctx->cfg->ntables * ctx->cfg->nthreads; }

static void table_cell(const struct run_context *ctx, unsigned i, struct mode_cell *c)
{
    const struct bench_config *cfg = ctx->cfg;
    unsigned t = i / cfg->nthreads, n = i % cfg->nthreads;
    *c = (struct mode_cell){ .name = cfg->table[t].ops->name, .subject = t, .threads = cfg->threads[n],
                             .plan = &ctx->plans[n], .reps = cfg->reps, .sub = { t, n } };
}

static struct record record_of(const struct run_context *ctx, const struct mode_cell *c, unsigned rep,
                               const struct run_result *r, struct speedup s)
{
    const struct table_state *st = state(ctx);
    return (struct record){ .cfg = ctx->cfg, .table = &ctx->cfg->table[c->subject], .threads = c->threads,
                            .range = st->range, .counters = &st->counters,
                            .rep = rep, .oversubscribed = mode_oversubscribed(ctx, c), .r = r,
                            .has_speedup = s.known, .speedup = s.value };
}

static int table_run(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result)
{
    struct table_state *st = state(ctx);
    const struct bench_config *cfg = ctx->cfg;
    struct run_result *r = result;
    struct run_params p = { .cfg = cfg, .table = &cfg->table[c->subject], .threads = c->threads, .topo = ctx->topo,
                            .plan = c->plan, .rep = rep, .keys = st->keys, .perm = st->perm,
                            .verify_perm = st->vperm, .opbuf_len = opbuf_len(cfg, st, c->threads),
                            .range = st->range, .trace = st->have_trace ? &st->trace : NULL,
                            .lat_clock = cfg->latency_every ? &st->lat_clock : NULL, .counters = &st->counters };
    if (runner_run(&p, r) != 0) {
        fprintf(stderr, "chtbench: %s\n", r->error);
        return REP_FATAL;
    }
    if (r->interrupted)
        return REP_INTERRUPTED;
    report_outcome(p.table, c->threads, rep, r);
    if (cfg->ceiling && !cfg->ceiling_slice_ms) {   /* off the clock: between repetitions, cached per machine */
        uint64_t bytes = r->memory.table_bytes_after_prefill ? r->memory.table_bytes_after_prefill : r->memory.stats.bytes;
        bool thp = ceiling_on_thp(cfg->hugepages, &r->memory.mem_after_prefill, bytes);   /* the table's pages */
        r->ceiling.ceiling_mops = bytes ? membench_ceiling(bytes, c->threads, thp, ctx->topo, c->plan) : 0;
    }
    if (cfg->ceiling_slice_ms && !r->ceiling.ceiling_slices_k && !st->slices_noted) {
        st->slices_noted = true;    /* chase_build: no size, no buffer to chase */
        fprintf(stderr, "chtbench: note: --ceiling-slices: %s reports no size (no stats()): its runs were not "
                "sliced and have no ceiling\n", p.table->ops->name);
    }
    /* uniform keys: gets re-read a sample as good as a new one, and writes on
     * dense keys get a shifted one each round (OPSRC_SHIFT); not sparse keys' */
    if (r->opbuf.opbuf_wrapped && !st->wrap_noted &&
        (cfg->workload || cfg->dist.dist != KEYGEN_UNIFORM || (cfg->keys_sparse && cfg->update > 0))) {
        st->wrap_noted = true;
        fprintf(stderr, "chtbench: note: the %llu ops per thread drawn before the run ran out and were re-read "
                "(keybuf_wrapped=1): the stream repeats its sample; give --keybuf (up to 2^28) or --ops for an exact "
                "stream\n", (unsigned long long)r->opbuf.opbuf_len);
    }
    if (cfg->latency_every) {
        struct record rec = record_of(ctx, c, rep, r, (struct speedup){ false, 0 });
        console_latency(ctx->human, &rec);
    }
    return outcome_status(r->outcome);
}

static double table_metric(const void *result) { return ((const struct run_result *)result)->mops; }

static void table_rows(struct run_context *ctx, const struct mode_cell *c, unsigned rep, const void *result,
                       struct speedup s)
{
    struct record rec = record_of(ctx, c, rep, result, s);
    mode_emit(ctx, &latency_schema, &rec);
    mode_emit(ctx, &timeline_schema, &rec);
    mode_emit(ctx, &table_counters_schema, &rec);
    mode_emit(ctx, &table_schema, &rec);
}

static void table_release(void *result)
{
    struct run_result *r = result;
    free(r->timeline.samples);
    r->timeline.samples = NULL;
}

static void table_console_header(struct run_context *ctx) { console_header(ctx->human, ctx->cfg); }

static void table_console_summary(struct run_context *ctx, const struct mode_cell *c, const void *results, unsigned n,
                                  struct speedup s)
{
    (void)s;   /* the table summary shows the spread; the rows carry the speedup */
    const struct run_result *r = results;
    double mops[n];
    const struct run_result *worst = NULL;
    for (unsigned i = 0; i < n; i++) {
        mops[i] = r[i].mops;
        if (r[i].outcome != OUTCOME_OK && (!worst || r[i].outcome > worst->outcome))
            worst = &r[i];
    }
    /* --ceiling, --ceiling-slices: the median fraction after the check */
    double frac[n ? n : 1];
    unsigned nf = 0;
    for (unsigned i = 0; i < n; i++)
        if (r[i].ceiling.ceiling_mops > 0)
            frac[nf++] = r[i].mops / r[i].ceiling.ceiling_mops;
    char check[96];
    snprintf(check, sizeof check, "%s", worst ? outcome_label(worst) : "ok");
    if (nf) {
        struct summary f;
        summarize(frac, nf, &f);
        snprintf(check + strlen(check), sizeof check - strlen(check), "  ceiling_frac %.3f%s", f.median,
                 ctx->cfg->ceiling_slice_ms ? " (in slices)" : "");
    }
    console_summary(ctx->human, &ctx->cfg->table[c->subject], c->threads,
                           pin_policy_name(ctx->cfg->pin.policy), mops, n, check);
}

const struct mode table_mode = {
    .name = "table",
    .files = { [OUT_MAIN] = &table_schema, [OUT_LATENCY] = &latency_schema, [OUT_TIMELINE] = &timeline_schema,
               [OUT_TABLE_COUNTERS] = &table_counters_schema },
    .result_size = sizeof(struct run_result),
    .prepare = table_prepare,
    .finish = table_finish,
    .cells = table_cells,
    .cell = table_cell,
    .run = table_run,
    .metric = table_metric,
    .rows = table_rows,
    .release = table_release,
    .console_header = table_console_header,
    .console_summary = table_console_summary,
};
