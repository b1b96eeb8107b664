/*
 * report.c - what a run leaves behind: an aligned console summary, CSV rows
 * (schema in docs/csv.md; bump CSV_SCHEMA_VERSION on any column change) and
 * JSON records with the same fields.
 *
 * CSV rows are appended to possibly shared files by parallel chtbench runs:
 * each row is formatted in memory, then written with one write() on an
 * O_APPEND descriptor while holding flock(LOCK_EX), the header only when the
 * file is empty under that same lock. A torn or interleaved row is impossible.
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "report.h"
#include "version.h"
#include "memstat.h"
#include "util.h"

enum col_kind { COL_STR, COL_U64, COL_F64, COL_EMPTY, COL_I64 };   /* EMPTY: not measured (CSV empty, JSON null) */

struct field {
    const char *name;
    enum col_kind kind;
    const char *s;
    uint64_t u;
    double d;
    int64_t i;
};

#define MAX_FIELDS 512

struct row {
    struct field f[MAX_FIELDS];
    unsigned n;
    char strbuf[8][128];
    char counters[CNT_MAX_EVENTS * 32];
};

static void put_s(struct row *r, const char *name, const char *s)
{
    r->f[r->n++] = (struct field){ .name = name, .kind = COL_STR, .s = s };
}
static void put_u(struct row *r, const char *name, uint64_t u)
{
    r->f[r->n++] = (struct field){ .name = name, .kind = COL_U64, .u = u };
}
static void put_d(struct row *r, const char *name, double d)
{
    r->f[r->n++] = (struct field){ .name = name, .kind = COL_F64, .d = d };
}

static void r_put_i(struct row *r, const char *name, int64_t i)
{
    r->f[r->n++] = (struct field){ .name = name, .kind = COL_I64, .i = i };
}

static void put_ou(struct row *r, const char *name, bool have, uint64_t u)
{
    if (have)
        put_u(r, name, u);
    else
        r->f[r->n++] = (struct field){ .name = name, .kind = COL_EMPTY };
}
static void put_od(struct row *r, const char *name, bool have, double d)
{
    if (have)
        put_d(r, name, d);
    else
        r->f[r->n++] = (struct field){ .name = name, .kind = COL_EMPTY };
}

/* lat_<store>_<stat>_{cycles,ns}: names built once */
enum { LAT_TIMED_STATS = 9, LAT_SHARES = 3 };
static const char *const lat_stat_name[LAT_TIMED_STATS] = { "avg", "stdev", "absdev", "min", "max",
                                                            "p50", "p90", "p99", "p999" };
static const char *const lat_share_name[LAT_SHARES] = { "within10", "within25", "within50" };
static char lat_col[LAT_STORES][1 + 2 * LAT_TIMED_STATS + LAT_SHARES][40];

static void lat_names(void)
{
    if (lat_col[0][0][0])
        return;
    for (int st = 0; st < LAT_STORES; st++) {
        int k = 0;
        snprintf(lat_col[st][k++], sizeof lat_col[0][0], "lat_%s_count", lat_store_name[st]);
        for (int i = 0; i < LAT_TIMED_STATS; i++) {
            snprintf(lat_col[st][k++], sizeof lat_col[0][0], "lat_%s_%s_cycles", lat_store_name[st], lat_stat_name[i]);
            snprintf(lat_col[st][k++], sizeof lat_col[0][0], "lat_%s_%s_ns", lat_store_name[st], lat_stat_name[i]);
        }
        for (int i = 0; i < LAT_SHARES; i++)
            snprintf(lat_col[st][k++], sizeof lat_col[0][0], "lat_%s_%s_share", lat_store_name[st], lat_share_name[i]);
    }
}

static void put_latency(struct row *row, const struct lat_result *l)
{
    lat_names();
    double ns_per_cycle = l->on && l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0;
    put_ou(row, "lat_every", l->on, l->every);
    put_od(row, "lat_tsc_hz", l->on, l->tsc_hz);
    put_ou(row, "lat_overhead_cycles", l->on, l->overhead_cycles);
    put_ou(row, "lat_dropped", l->on, l->dropped);
    for (int st = 0; st < LAT_STORES; st++) {
        const struct lat_stats *x = &l->st[st];
        bool have = l->on && x->count > 0;
        const double v[LAT_TIMED_STATS] = { x->avg, x->stdev, x->absdev, x->min, x->max,
                                            x->p50, x->p90, x->p99, x->p999 };
        const double sh[LAT_SHARES] = { x->within10, x->within25, x->within50 };
        int k = 0;
        put_ou(row, lat_col[st][k++], l->on, x->count);
        for (int i = 0; i < LAT_TIMED_STATS; i++) {
            put_od(row, lat_col[st][k++], have, v[i]);
            put_od(row, lat_col[st][k++], have, v[i] * ns_per_cycle);
        }
        for (int i = 0; i < LAT_SHARES; i++)
            put_od(row, lat_col[st][k++], have, sh[i]);
    }
}

static const char *prefill_name(enum prefill_mode m) { return m == PREFILL_SINGLE ? "single" : "parallel"; }

static const char *mem_name(const struct bench_config *c, char *buf, size_t len)
{
    if (c->mem == MEM_NODE) {
        snprintf(buf, len, "node:%d", c->mem_node);
        return buf;
    }
    return c->mem == MEM_INTERLEAVE ? "interleave" : "local";
}

/* ---------------- the invocation's context, on every row of every file ---------------- */

static char run_id[40];

void report_init(void)
{
    uint64_t r[2] = { 0, 0 };
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {   /* no entropy source: time and pid still differ */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r[0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        r[1] = (uint64_t)getpid();
    }
    snprintf(run_id, sizeof run_id, "%016llx", (unsigned long long)(r[0] ^ (r[1] * 0x9e3779b97f4a7c15ull)));
}

const char *report_run_id(void)
{
    if (!run_id[0])
        report_init();
    return run_id;
}

void report_version(FILE *f)
{
    fprintf(f, "version: %s\ngit: %s\nbuild: %s\nsanitizer: %s\ncompiler: %s\nallocator: %s\n", CHTBENCH_VERSION,
            CHTBENCH_GIT_REV, CHTBENCH_BUILD_TYPE, CHTBENCH_SANITIZER, CHTBENCH_COMPILER, memstat_allocator());
}

static void put_context(struct row *row)
{
    put_s(row, "version", CHTBENCH_VERSION);
    put_s(row, "git_rev", CHTBENCH_GIT_REV);
    put_s(row, "build_type", CHTBENCH_BUILD_TYPE);
    put_s(row, "sanitizer", CHTBENCH_SANITIZER);
    put_s(row, "compiler", CHTBENCH_COMPILER);
    put_s(row, "allocator", memstat_allocator());
}

/* "2026-11-23T09:12:46.123Z": the repetition's end, UTC, millisecond resolution */
static void format_time(const struct timespec *ts, char *buf, size_t len)
{
    struct timespec now;
    if (!ts->tv_sec) {          /* not recorded: now */
        clock_gettime(CLOCK_REALTIME, &now);
        ts = &now;
    }
    struct tm tm;
    time_t sec = ts->tv_sec;
    gmtime_r(&sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts->tv_nsec / 1000000);
}

static void put_host(struct row *row, char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
    put_s(row, "host", buf);
}

/* The columns that identify a run and its workload: the main CSV's first
 * columns, and the prefix of every side-file row (to join them exactly). */
static void put_run_key(struct row *row, const struct record *rec)
{
    const struct bench_config *c = rec->cfg;
    format_time(&rec->r->end_time, row->strbuf[0], sizeof row->strbuf[0]);
    keygen_format(&c->dist, row->strbuf[2], sizeof row->strbuf[2]);
    put_s(row, "run_id", report_run_id());
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_s(row, "table", rec->table->ops->name);
    /* "-" for none: an empty cell would read as NaN in pandas and drop out of a groupby */
    put_s(row, "options", rec->table->options_text[0] ? rec->table->options_text : "-");
    put_u(row, "threads", rec->threads);
    put_s(row, "pin", pin_policy_name(c->pin.policy));
    put_s(row, "mem", mem_name(c, row->strbuf[3], sizeof row->strbuf[3]));
    put_s(row, "dist", row->strbuf[2]);
    put_s(row, "workload", c->trace_path ? "trace" : workload_name(c->workload));
    put_s(row, "trace", c->trace_path ? c->trace_path : "-");
    put_u(row, "seed", c->seed);
    put_s(row, "prefill", prefill_name(c->prefill));
    put_u(row, "update", c->update);
    put_u(row, "insert", c->insert);
    put_u(row, "remove", c->remove);
    put_u(row, "initial", c->initial);
    put_u(row, "range", c->range);
    put_d(row, "density", c->density);
    put_u(row, "duration_ms", c->duration_ms);
    put_u(row, "ops", c->ops);
    put_u(row, "warmup_ms", c->warmup_ms);
    put_s(row, "hugepages", c->hugepages ? "thp" : "off");
    put_u(row, "rep", rec->rep);
}

const char *report_outcome_name(enum run_outcome o)
{
    static const char *const names[] = { [OUTCOME_OK] = "ok", [OUTCOME_FULL] = "full", [OUTCOME_OOM] = "oom",
                                         [OUTCOME_FP_EXCESS] = "fp_excess",
                                         [OUTCOME_KEYSUM_MISMATCH] = "keysum_mismatch",
                                         [OUTCOME_VALUE_MISMATCH] = "value_mismatch",
                                         [OUTCOME_MISMATCH] = "mismatch" };
    return names[o];
}

/* The schema: one place defines the columns, their order and their values. */
static void build_row(const struct record *rec, struct row *row)
{
    const struct bench_config *c = rec->cfg;
    const struct run_result *r = rec->r;
    row->n = 0;
    put_u(row, "schema", CSV_SCHEMA_VERSION);
    put_run_key(row, rec);
    put_d(row, "elapsed_s", r->elapsed_s);
    put_u(row, "total_ops", r->total_ops);
    put_d(row, "mops", r->mops);
    put_u(row, "get_suc", r->count[GET_SUC]);
    put_u(row, "get_fail", r->count[GET_FAIL]);
    put_u(row, "ins_suc", r->count[INS_SUC]);
    put_u(row, "ins_fail", r->count[INS_FAIL]);
    put_u(row, "rem_suc", r->count[REM_SUC]);
    put_u(row, "rem_fail", r->count[REM_FAIL]);
    put_u(row, "upd_suc", r->count[UPD_SUC]);
    put_u(row, "upd_fail", r->count[UPD_FAIL]);
    put_u(row, "warmup_ops", r->warmup_count[GET_SUC] + r->warmup_count[GET_FAIL] + r->warmup_count[INS_SUC] +
                                 r->warmup_count[INS_FAIL] + r->warmup_count[REM_SUC] + r->warmup_count[REM_FAIL] +
                                 r->warmup_count[UPD_SUC] + r->warmup_count[UPD_FAIL]);
    put_u(row, "warmup_ins_suc", r->warmup_count[INS_SUC]);
    put_u(row, "warmup_rem_suc", r->warmup_count[REM_SUC]);
    put_u(row, "prefilled", r->prefilled);
    put_u(row, "final_size", r->final_size);
    put_u(row, "expected_size", r->expected_size);
    put_u(row, "size_ok", r->size_ok);
    put_s(row, "verify", verify_mode_name(r->verify_mode));
    put_u(row, "verified_keys", r->verified_keys);
    put_u(row, "verify_found", r->verify_found);
    put_ou(row, "verify_ok", r->verify_mode != VERIFY_OFF, r->verify_ok);
    put_d(row, "verify_s", r->verify_s);
    put_s(row, "outcome", report_outcome_name(r->outcome));
    bool approx = (rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->verify_mode != VERIFY_OFF;
    put_od(row, "fp_rate", approx, r->fp_rate);
    put_ou(row, "fp_checked", approx, r->fp_checked);
    put_ou(row, "false_negatives", approx, r->false_negatives);
    put_od(row, "bits_per_item", (rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->final_size,
           r->final_size ? (double)r->stats.bytes * 8 / (double)r->final_size : 0);
    put_u(row, "oversubscribed", rec->oversubscribed);
    put_u(row, "batch", c->batch);
    put_s(row, "get_batch", c->batch <= 1 ? "-" : rec->table->ops->get_batch ? "table" : "single gets");
    put_u(row, "keybuf", r->opbuf_len);
    put_u(row, "keybuf_bytes", r->opbuf_len * 8 * rec->threads);
    put_u(row, "keybuf_wrapped", r->opbuf_wrapped);
    put_od(row, "keygen_ns", r->opbuf_len > 0, r->opbuf_len ? (double)r->opbuf_ns / ((double)r->opbuf_len * rec->threads) : 0);
    put_od(row, "ceiling_mops", r->ceiling_mops > 0, r->ceiling_mops);
    put_od(row, "ceiling_frac", r->ceiling_mops > 0, r->ceiling_mops > 0 ? r->mops / r->ceiling_mops : 0);
    put_u(row, "table_bytes", r->stats.bytes);
    put_u(row, "buckets", r->stats.buckets);
    put_u(row, "resizes", r->stats.resizes);
    put_u(row, "full_failures", r->stats.full_failures);
    put_u(row, "alloc_failures", r->stats.alloc_failures);
    /* HTM (thesis tables 4.2-4.4): tables running under an elided lock report them */
    bool htm = rec->table->ops->caps & CHT_CAP_NEEDS_RTM;
    put_ou(row, "tx_begins", htm, r->stats.tx_begins);
    put_ou(row, "tx_commits", htm, r->stats.tx_commits);
    put_ou(row, "tx_aborts", htm, r->stats.tx_aborts);
    put_ou(row, "tx_fallbacks", htm, r->stats.tx_fallbacks);
    /* memory */
    put_ou(row, "table_bytes_after_prefill", r->has_stats, r->table_bytes_after_prefill);
    put_od(row, "bytes_per_key", r->has_stats && c->initial, c->initial ? (double)r->table_bytes_after_prefill / (double)c->initial : 0);
    put_ou(row, "rss_before_create_bytes", r->mem_before_create.rss_ok, r->mem_before_create.rss);
    put_ou(row, "rss_after_prefill_bytes", r->mem_after_prefill.rss_ok, r->mem_after_prefill.rss);
    put_ou(row, "thp_after_prefill_bytes", r->mem_after_prefill.thp_ok, r->mem_after_prefill.thp);
    put_ou(row, "rss_after_run_bytes", r->mem_after_run.rss_ok, r->mem_after_run.rss);
    put_ou(row, "rss_peak_bytes", r->mem_after_run.rss_ok, r->mem_after_run.peak);
    put_ou(row, "jemalloc_allocated_before_create_bytes", r->mem_before_create.je_ok, r->mem_before_create.je_allocated);
    put_ou(row, "jemalloc_allocated_after_prefill_bytes", r->mem_after_prefill.je_ok, r->mem_after_prefill.je_allocated);
    put_ou(row, "jemalloc_resident_after_prefill_bytes", r->mem_after_prefill.je_ok, r->mem_after_prefill.je_resident);
    put_ou(row, "jemalloc_allocated_after_run_bytes", r->mem_after_run.je_ok, r->mem_after_run.je_allocated);
    put_ou(row, "jemalloc_resident_after_run_bytes", r->mem_after_run.je_ok, r->mem_after_run.je_resident);
    /* scaling */
    put_od(row, "speedup", rec->has_speedup, rec->speedup);
    /* counters */
    const struct counter_set *cs = &c->counters;
    bool cnt = cs->active && r->counters_ok;
    size_t cl = 0;
    row->counters[0] = '\0';
    for (unsigned e = 0; cnt && e < cs->n; e++)
        cl += (size_t)snprintf(row->counters + cl, cl < sizeof row->counters ? sizeof row->counters - cl : 0, "%s%.6g",
                               e ? ";" : "", r->counter_per_op[e]);
    put_s(row, "counter_names", cnt ? cs->joined : "");
    put_s(row, "counter_values_per_op", row->counters);
    /* latency */
    put_latency(row, &r->lat);
    put_u(row, "value_size", c->value_size);   /* schema 5 */
    put_s(row, "keys", c->keys_sparse ? "sparse" : "dense");   /* schema 6 */
    /* schema 7: the final check of values and keys, the filter's bound */
    bool exact = !(rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->verify_mode != VERIFY_OFF;
    put_ou(row, "verify_bad_values", exact, r->verify_bad_values);
    put_ou(row, "verify_keysum_ok", r->keysum_checked, r->keysum_ok);
    put_od(row, "fp_bound", approx && r->fp_bound > 0, r->fp_bound);
    put_od(row, "fp_limit", approx && r->fp_bound > 0, r->fp_limit);
    bool filter = rec->table->ops->caps & CHT_CAP_APPROXIMATE;
    put_ou(row, "filter_skipped_ins", filter, r->filter_skipped[0]);
    put_ou(row, "filter_skipped_rem", filter, r->filter_skipped[1]);
    /* schema 8: --pipeline, the W used and how (runner.c pipe_choose) */
    static const char *const pipe_modes[] = { "-", "hooks", "fallback", "plain" };
    /* as given: a sweep's cell key. A row keeps pointers to its strings until written, so each
     * value has a string of its own that never changes (filled once, always with the same text) */
    static char pipe_asked[CHT_PIPELINE_MAX + 1][4];
    unsigned pw = c->pipeline <= CHT_PIPELINE_MAX ? c->pipeline : 0;
    snprintf(pipe_asked[pw], sizeof pipe_asked[pw], "%u", pw);
    put_s(row, "pipeline", c->pipeline_auto ? "auto" : pipe_asked[pw]);
    put_u(row, "pipeline_w", r->pipeline_w);
    put_s(row, "pipeline_mode", pipe_modes[r->pipeline_mode]);
    /* the share of the timed phase the threads were on a CPU: below 1 on a busy machine */
    put_od(row, "cpu_share", r->elapsed_s > 0 && r->cpu_ns, r->elapsed_s > 0 ? (double)r->cpu_ns * 1e-9 / ((double)rec->threads * r->elapsed_s) : 0);
    put_context(row);
}

/* ---------------- formatting: growable buffers, no fixed row size ---------------- */

struct sbuf {
    char *p;
    size_t n, cap;
    bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->n + (size_t)k)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* s quoted per RFC 4180 when it holds , " or a newline */
static void csv_str(struct sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        sb_printf(b, "%s", s);
        return;
    }
    sb_printf(b, "\"");
    for (; *s; s++)
        sb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    sb_printf(b, "\"");
}

static void format_value(struct sbuf *b, const struct field *f, bool json)
{
    switch (f->kind) {
    case COL_U64: sb_printf(b, "%llu", (unsigned long long)f->u); return;
    case COL_F64: sb_printf(b, "%.6g", f->d); return;
    case COL_I64: sb_printf(b, "%lld", (long long)f->i); return;
    case COL_EMPTY: sb_printf(b, "%s", json ? "null" : ""); return;
    case COL_STR:
        if (!json) {
            csv_str(b, f->s);
            return;
        }
        sb_printf(b, "\"");
        for (const char *s = f->s; *s; s++) {
            if (*s == '"' || *s == '\\')
                sb_printf(b, "\\%c", *s);
            else if ((unsigned char)*s < 0x20)
                sb_printf(b, "\\u%04x", *s);
            else
                sb_printf(b, "%c", *s);
        }
        sb_printf(b, "\"");
        return;
    }
}

/* fields [from, to) as CSV names (header) or values, comma-separated */
static void format_fields(struct sbuf *b, const struct row *r, unsigned from, unsigned to, bool names)
{
    for (unsigned i = from; i < to; i++) {
        if (i > from)
            sb_printf(b, ",");
        if (names)
            sb_printf(b, "%s", r->f[i].name);
        else
            format_value(b, &r->f[i], false);
    }
}

/* one header line, built once per file kind from a row of that kind */
static const char *header_of(char **cache, const struct row *r)
{
    if (!*cache) {
        struct sbuf b = { 0 };
        format_fields(&b, r, 0, r->n, true);
        sb_printf(&b, "\n");
        *cache = b.oom ? NULL : b.p;
    }
    return *cache ? *cache : "";
}

static int append_sbuf(struct outfile *o, struct sbuf *b, char *err, size_t len)
{
    int rc;
    if (b->oom) {
        snprintf(err, len, "%s: out of memory formatting a row", o->flag);
        rc = -1;
    } else {
        rc = outfile_append(o, b->p, b->n, err, len);
    }
    free(b->p);
    return rc;
}

static void dummy_record(struct record *rec, struct bench_config *c, struct table_choice *t, struct run_result *r)
{
    static const struct cht_ops dummy = { .name = "" };
    memset(c, 0, sizeof *c);
    memset(t, 0, sizeof *t);
    memset(r, 0, sizeof *r);
    t->ops = &dummy;
    *rec = (struct record){ .cfg = c, .table = t, .r = r };
}

const char *report_csv_header_line(void)
{
    static char *cache;
    if (!cache) {
        struct record rec;
        struct bench_config c;
        struct table_choice t;
        struct run_result r;
        struct row row;
        dummy_record(&rec, &c, &t, &r);
        build_row(&rec, &row);
        return header_of(&cache, &row);
    }
    return cache;
}

void report_csv_header(FILE *f) { fputs(report_csv_header_line(), f); }

int report_csv_append(struct outfile *o, const struct record *rec, char *err, size_t len)
{
    struct row row;
    struct sbuf b = { 0 };
    build_row(rec, &row);
    format_fields(&b, &row, 0, row.n, false);
    sb_printf(&b, "\n");
    return append_sbuf(o, &b, err, len);
}

static void row_json(FILE *f, const struct row *r)
{
    struct sbuf b = { 0 };
    sb_printf(&b, "{");
    for (unsigned i = 0; i < r->n; i++) {
        sb_printf(&b, "%s\"%s\":", i ? "," : "", r->f[i].name);
        format_value(&b, &r->f[i], true);
    }
    sb_printf(&b, "}\n");
    if (!b.oom)
        fwrite(b.p, 1, b.n, f);
    free(b.p);
    fflush(f);
}

void report_json(FILE *f, const struct record *rec)
{
    struct row row;
    build_row(rec, &row);
    row_json(f, &row);
}

void report_console_header(FILE *f, const struct bench_config *c)
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
            prefill_name(c->prefill), (unsigned long long)c->seed);
    fprintf(f, "%-28s %7s %9s %9s %9s %9s %8s %6s  %s\n", "table", "threads", "Mops/s:med", "mean", "min", "max",
            "stdev", "cv", "check");
}

void report_console_summary(FILE *f, const struct table_choice *t, unsigned threads, const char *pin,
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

/* ---------------- side files: the run key, then their own columns ---------------- */

/* Side-file rows start with the main CSV's identifying columns (run_id ..
 * rep) and the build context, so they join to the main CSV exactly. */
static void side_prefix(struct row *row, const struct record *rec, unsigned schema)
{
    row->n = 0;
    put_u(row, "schema", schema);
    put_run_key(row, rec);
    put_context(row);
}

/* --latency-csv: one row per non-empty log2 bucket of each store */
static void latency_cols(struct row *row, const char *store, int bucket, uint64_t lo, uint64_t hi, uint64_t cnt)
{
    put_s(row, "store", store);
    put_u(row, "bucket", (uint64_t)bucket);
    put_u(row, "lo_cycles", lo);
    put_u(row, "hi_cycles", hi);
    put_u(row, "count", cnt);
}

/* --timeline-csv: one row per interval */
static void timeline_cols(struct row *row, double t_ms, uint64_t ops, double mops, uint64_t hot_base)
{
    put_d(row, "t_ms", t_ms);
    put_u(row, "interval_ops", ops);
    put_d(row, "interval_mops", mops);
    put_u(row, "hot_base", hot_base);
}

/* a side file's header: its prefix and its own columns, built once */
static const char *side_header(char **cache, unsigned schema, void (*cols)(struct row *))
{
    if (*cache)
        return *cache;
    struct record rec;
    struct bench_config c;
    struct table_choice t;
    struct run_result r;
    struct row row;
    dummy_record(&rec, &c, &t, &r);
    side_prefix(&row, &rec, schema);
    cols(&row);
    return header_of(cache, &row);
}

static void latency_header_cols(struct row *row) { latency_cols(row, "", 0, 0, 0, 0); }
static void timeline_header_cols(struct row *row) { timeline_cols(row, 0, 0, 0, 0); }

const char *report_latency_header_line(void)
{
    static char *cache;
    return side_header(&cache, LATENCY_CSV_SCHEMA_VERSION, latency_header_cols);
}

const char *report_timeline_header_line(void)
{
    static char *cache;
    return side_header(&cache, TIMELINE_CSV_SCHEMA_VERSION, timeline_header_cols);
}

int report_latency_hist_append(struct outfile *o, const struct record *rec, char *err, size_t len)
{
    const struct lat_result *l = &rec->r->lat;
    struct row row;
    struct sbuf prefix = { 0 }, b = { 0 };
    side_prefix(&row, rec, LATENCY_CSV_SCHEMA_VERSION);
    unsigned np = row.n;
    format_fields(&prefix, &row, 0, np, false);
    for (int st = 0; l->on && st < LAT_STORES && !prefix.oom; st++)
        for (int k = 0; k < LAT_HIST_BUCKETS; k++) {
            uint64_t cnt = l->st[st].hist[k];
            if (!cnt)
                continue;
            uint64_t lo = k ? 1ull << k : 0, hi = k < 63 ? (1ull << (k + 1)) - 1 : UINT64_MAX;
            row.n = np;
            latency_cols(&row, lat_store_name[st], k, lo, hi, cnt);
            sb_printf(&b, "%s,", prefix.p);
            format_fields(&b, &row, np, row.n, false);
            sb_printf(&b, "\n");
        }
    b.oom |= prefix.oom;
    free(prefix.p);
    if (!b.n && !b.oom)
        return 0;
    return append_sbuf(o, &b, err, len);
}

int report_timeline_append(struct outfile *o, const struct record *rec, char *err, size_t len)
{
    const struct run_result *r = rec->r;
    struct row row;
    struct sbuf prefix = { 0 }, b = { 0 };
    side_prefix(&row, rec, TIMELINE_CSV_SCHEMA_VERSION);
    unsigned np = row.n;
    format_fields(&prefix, &row, 0, np, false);
    double prev = 0;
    for (size_t i = 0; r->timeline && i < r->ntimeline && !prefix.oom; i++) {
        double dt = r->timeline[i].t_ms - prev;
        row.n = np;
        timeline_cols(&row, r->timeline[i].t_ms, r->timeline[i].ops,
                      dt > 0 ? (double)r->timeline[i].ops / (dt * 1e3) : 0, r->timeline[i].hot_base);
        sb_printf(&b, "%s,", prefix.p);
        format_fields(&b, &row, np, row.n, false);
        sb_printf(&b, "\n");
        prev = r->timeline[i].t_ms;
    }
    b.oom |= prefix.oom;
    free(prefix.p);
    if (!b.n && !b.oom)
        return 0;
    return append_sbuf(o, &b, err, len);
}

void report_console_latency(FILE *f, const struct record *rec)
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

/* ---------------- lock benches (--bench): docs/csv.md "Lock-bench CSV" ---------------- */

static const char *lock_bench_name(enum bench_kind b) { return b == BENCH_RWLOCK ? "rwlock" : "mutex"; }

/* The lock-bench schema: one place defines its columns, order and values. */
static void build_lock_row(const struct lock_record *rec, struct row *row)
{
    const struct bench_config *c = rec->cfg;
    const struct lb_result *r = rec->r;
    bool rw = c->bench == BENCH_RWLOCK;
    row->n = 0;
    format_time(&r->end_time, row->strbuf[0], sizeof row->strbuf[0]);

    put_u(row, "schema", LOCK_CSV_SCHEMA_VERSION);
    put_s(row, "run_id", report_run_id());
    put_s(row, "bench", lock_bench_name(c->bench));
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_s(row, "lock", rec->lock->name);
    put_u(row, "threads", rec->threads);
    put_s(row, "pin", pin_policy_name(c->pin.policy));
    put_u(row, "oversubscribed", rec->oversubscribed);
    put_u(row, "seed", c->seed);
    put_u(row, "duration_ms", c->duration_ms);
    put_u(row, "rep", rec->rep);
    put_ou(row, "cs", !rw, c->cs);
    put_u(row, "ncs", c->ncs);
    put_ou(row, "write_pct", rw, c->write_pct);
    put_ou(row, "rcs", rw, c->rcs);
    put_ou(row, "wcs", rw, c->wcs);
    put_u(row, "handoff_bound", c->handoff_bound);
    put_u(row, "waiter_threshold", c->waiter_threshold);
    put_d(row, "elapsed_s", r->elapsed_s);
    put_u(row, "acquisitions", r->acquisitions);
    put_d(row, "acq_per_s", r->acq_per_s);
    put_u(row, "reads", r->reads);
    put_u(row, "writes", r->writes);
    put_d(row, "min_share", r->min_share);
    put_d(row, "max_share", r->max_share);
    put_od(row, "speedup", rec->has_speedup, rec->speedup);
    /* mutex: the smallest and largest of the 4 shared counters (both == acquisitions when ok) */
    uint64_t lo = r->counter[0], hi = r->counter[0];
    for (unsigned k = 1; k < LB_COUNTERS; k++) {
        lo = r->counter[k] < lo ? r->counter[k] : lo;
        hi = r->counter[k] > hi ? r->counter[k] : hi;
    }
    put_ou(row, "counter_min", !rw, lo);
    put_ou(row, "counter_max", !rw, hi);
    if (rw)
        r_put_i(row, "final_sum", r->final_sum);
    else
        put_ou(row, "final_sum", false, 0);
    put_ou(row, "reader_violations", rw, r->reader_violations);
    put_ou(row, "write_counter", rw, r->write_counter);
    put_u(row, "invariant_ok", r->invariant_ok);
    bool st = r->has_lock_stats;
    put_ou(row, "tx_begins", st, r->ls.tx_begins);
    put_ou(row, "tx_commits", st, r->ls.tx_commits);
    put_ou(row, "tx_aborts", st, r->ls.tx_aborts);
    put_ou(row, "abort_conflict", st, r->ls.abort_conflict);
    put_ou(row, "abort_capacity", st, r->ls.abort_capacity);
    put_ou(row, "abort_explicit", st, r->ls.abort_explicit);
    put_ou(row, "abort_retry", st, r->ls.abort_retry);
    put_ou(row, "abort_other", st, r->ls.abort_other);
    put_ou(row, "fallbacks", st, r->ls.fallbacks);
    put_context(row);
}

int report_lock_csv_append(struct outfile *o, const struct lock_record *rec, char *err, size_t len)
{
    struct row row;
    struct sbuf b = { 0 };
    build_lock_row(rec, &row);
    format_fields(&b, &row, 0, row.n, false);
    sb_printf(&b, "\n");
    return append_sbuf(o, &b, err, len);
}

void report_lock_json(FILE *f, const struct lock_record *rec)
{
    struct row row;
    build_lock_row(rec, &row);
    row_json(f, &row);
}

const char *report_lock_csv_header_line(void)
{
    static char *cache;
    if (cache)
        return cache;
    struct bench_config c = { 0 };
    struct lb_result r = { 0 };
    static const struct lock_ops dummy = { .name = "" };
    struct lock_record rec = { .cfg = &c, .lock = &dummy, .r = &r };
    struct row row;
    build_lock_row(&rec, &row);
    return header_of(&cache, &row);
}

void report_lock_csv_header(FILE *f) { fputs(report_lock_csv_header_line(), f); }

void report_lock_console_header(FILE *f, const struct bench_config *c)
{
    if (c->bench == BENCH_RWLOCK)
        fprintf(f, "# bench=rwlock write=%u%% rcs=%llu wcs=%llu ncs=%llu", c->write_pct, (unsigned long long)c->rcs,
                (unsigned long long)c->wcs, (unsigned long long)c->ncs);
    else
        fprintf(f, "# bench=mutex cs=%llu ncs=%llu", (unsigned long long)c->cs, (unsigned long long)c->ncs);
    fprintf(f, "  d=%llums  reps=%u  pin=%s  seed=%llu\n", (unsigned long long)c->duration_ms, c->reps,
            pin_policy_name(c->pin.policy), (unsigned long long)c->seed);
    fprintf(f, "%-14s %7s %10s %9s %9s %8s %9s %9s%s  %s\n", "lock", "threads", "Macq/s:med", "min", "max", "speedup",
            "min_share", "max_share", c->bench == BENCH_RWLOCK ? "   writes" : "", "check");
}

void report_lock_console_summary(FILE *f, const struct bench_config *c, const struct lb_summary *s)
{
    char speedup[32] = "-", wr[32] = "";
    if (s->has_speedup)
        snprintf(speedup, sizeof speedup, "%.2f", s->speedup);
    if (c->bench == BENCH_RWLOCK)
        snprintf(wr, sizeof wr, " %7.2f%%", 100 * s->write_share);
    fprintf(f, "%-14s %7u %10.3f %9.3f %9.3f %8s %9.4f %9.4f%s  %s\n", s->lock, s->threads, s->median, s->min, s->max,
            speedup, s->min_share, s->max_share, wr, s->ok ? "ok" : "FAILED");
    fflush(f);
}
