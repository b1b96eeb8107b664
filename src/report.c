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
#include "report.h"
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

#define MAX_FIELDS 256
#define LINE_MAX_BYTES 32768

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

/* The schema: one place defines the columns, their order and their values. */
static void build_row(const struct record *rec, struct row *row)
{
    const struct bench_config *c = rec->cfg;
    const struct run_result *r = rec->r;
    row->n = 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(row->strbuf[0], sizeof row->strbuf[0], "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(row->strbuf[1], sizeof row->strbuf[1] - 1);
    keygen_format(&c->dist, row->strbuf[2], sizeof row->strbuf[2]);

    put_u(row, "schema", CSV_SCHEMA_VERSION);
    put_s(row, "timestamp", row->strbuf[0]);
    put_s(row, "host", row->strbuf[1]);
    put_s(row, "table", rec->table->ops->name);
    put_s(row, "options", rec->table->options_text);
    put_u(row, "threads", rec->threads);
    put_s(row, "pin", pin_policy_name(c->pin.policy));
    put_s(row, "mem", mem_name(c, row->strbuf[3], sizeof row->strbuf[3]));
    put_s(row, "dist", row->strbuf[2]);
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
    put_u(row, "rep", rec->rep);
    put_d(row, "elapsed_s", r->elapsed_s);
    put_u(row, "total_ops", r->total_ops);
    put_d(row, "mops", r->mops);
    put_u(row, "get_suc", r->count[GET_SUC]);
    put_u(row, "get_fail", r->count[GET_FAIL]);
    put_u(row, "ins_suc", r->count[INS_SUC]);
    put_u(row, "ins_fail", r->count[INS_FAIL]);
    put_u(row, "rem_suc", r->count[REM_SUC]);
    put_u(row, "rem_fail", r->count[REM_FAIL]);
    put_u(row, "final_size", r->final_size);
    put_u(row, "expected_size", r->expected_size);
    put_u(row, "size_ok", r->size_ok);
    put_u(row, "oversubscribed", rec->oversubscribed);
    put_u(row, "table_bytes", r->stats.bytes);
    put_u(row, "resizes", r->stats.resizes);
    put_u(row, "full_failures", r->stats.full_failures);
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
    put_ou(row, "rss_after_run_bytes", r->mem_after_run.rss_ok, r->mem_after_run.rss);
    put_ou(row, "rss_peak_bytes", r->mem_after_run.rss_ok, r->mem_after_run.peak);
    put_s(row, "allocator", memstat_allocator());
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
    put_s(row, "version", CHTBENCH_VERSION);
}

/* appends s to buf, quoted per RFC 4180 when it holds , " or a newline */
static size_t csv_str(char *buf, size_t len, size_t n, const char *s)
{
    bool quote = strpbrk(s, ",\"\n\r") != NULL;
    if (!quote)
        return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s", s);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "\"");
    for (; *s; s++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, *s == '"' ? "\"\"" : "%c", *s);
    return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, "\"");
}

static size_t format_value(char *buf, size_t len, size_t n, const struct field *f, bool json)
{
    size_t room = n < len ? len - n : 0;
    switch (f->kind) {
    case COL_U64:
        return n + (size_t)snprintf(buf + n, room, "%llu", (unsigned long long)f->u);
    case COL_F64:
        return n + (size_t)snprintf(buf + n, room, "%.6g", f->d);
    case COL_I64:
        return n + (size_t)snprintf(buf + n, room, "%lld", (long long)f->i);
    case COL_EMPTY:
        return n + (size_t)snprintf(buf + n, room, "%s", json ? "null" : "");
    case COL_STR:
        if (!json)
            return csv_str(buf, len, n, f->s);
        n += (size_t)snprintf(buf + n, room, "\"");
        for (const char *s = f->s; *s; s++) {
            room = n < len ? len - n : 0;
            if (*s == '"' || *s == '\\')
                n += (size_t)snprintf(buf + n, room, "\\%c", *s);
            else if ((unsigned char)*s < 0x20)
                n += (size_t)snprintf(buf + n, room, "\\u%04x", *s);
            else
                n += (size_t)snprintf(buf + n, room, "%c", *s);
        }
        return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, "\"");
    }
    return n;
}

static size_t format_header(const struct row *row, char *buf, size_t len)
{
    size_t n = 0;
    for (unsigned i = 0; i < row->n; i++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "," : "", row->f[i].name);
    return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, "\n");
}

void report_csv_header(FILE *f)
{
    struct run_result r = { 0 };
    struct bench_config c = { 0 };
    struct table_choice t = { 0 };
    static const struct cht_ops dummy = { .name = "" };
    t.ops = &dummy;
    struct record rec = { .cfg = &c, .table = &t, .r = &r };
    struct row row;
    char buf[LINE_MAX_BYTES];
    build_row(&rec, &row);
    format_header(&row, buf, sizeof buf);
    fputs(buf, f);
}

static int row_append(const char *path, const struct row *r);

int report_csv_append(const char *path, const struct record *rec)
{
    struct row row;
    build_row(rec, &row);
    return row_append(path, &row);
}

/* One locked append: header when the file is empty, then body, one write each. */
static int append_locked(const char *path, const char *header, const char *body, size_t n)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int rc = -1;
    if (flock(fd, LOCK_EX) == 0) {
        struct stat st;
        size_t hn = 0;
        if (fstat(fd, &st) == 0 && st.st_size == 0)
            hn = strlen(header);
        bool ok = (!hn || write(fd, header, hn) == (ssize_t)hn) && (!n || write(fd, body, n) == (ssize_t)n);
        rc = ok ? 0 : -1;
        flock(fd, LOCK_UN);
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* One row (and the header when the file is empty) under an exclusive flock. */
static int row_append(const char *path, const struct row *r)
{
    char line[LINE_MAX_BYTES], header[LINE_MAX_BYTES];
    size_t n = 0;
    for (unsigned i = 0; i < r->n; i++) {
        if (i)
            line[n++] = ',';
        n = format_value(line, sizeof line, n, &r->f[i], false);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\n");
    format_header(r, header, sizeof header);
    return append_locked(path, header, line, n);
}

static void row_json(FILE *f, const struct row *r);

void report_json(FILE *f, const struct record *rec)
{
    struct row row;
    build_row(rec, &row);
    row_json(f, &row);
}

static void row_json(FILE *f, const struct row *r)
{
    char line[LINE_MAX_BYTES];
    size_t n = (size_t)snprintf(line, sizeof line, "{");
    for (unsigned i = 0; i < r->n; i++) {
        n += (size_t)snprintf(line + n, n < sizeof line ? sizeof line - n : 0, "%s\"%s\":", i ? "," : "",
                              r->f[i].name);
        n = format_value(line, sizeof line, n, &r->f[i], true);
    }
    snprintf(line + n, n < sizeof line ? sizeof line - n : 0, "}\n");
    fputs(line, f);
    fflush(f);
}

void report_console_header(FILE *f, const struct bench_config *c)
{
    char dist[128];
    keygen_format(&c->dist, dist, sizeof dist);
    fprintf(f, "# u=%u%% (insert %u%%, remove %u%%)  i=%llu  r=%llu  dist=%s  ", c->update, c->insert, c->remove,
            (unsigned long long)c->initial, (unsigned long long)c->range, dist);
    if (c->ops)
        fprintf(f, "ops=%llu/thread", (unsigned long long)c->ops);
    else
        fprintf(f, "d=%llums", (unsigned long long)c->duration_ms);
    fprintf(f, "  reps=%u  pin=%s  prefill=%s  seed=%llu\n", c->reps, pin_policy_name(c->pin.policy),
            prefill_name(c->prefill), (unsigned long long)c->seed);
    fprintf(f, "%-28s %7s %9s %9s %9s %9s %8s  %s\n", "table", "threads", "Mops/s:med", "mean", "min", "max",
            "stdev", "check");
}

void report_console_summary(FILE *f, const struct table_choice *t, unsigned threads, const char *pin,
                            const double *mops, unsigned n, bool all_ok)
{
    (void)pin;
    double v[n ? n : 1];
    memcpy(v, mops, n * sizeof *v);
    struct summary s;
    summarize(v, n, &s);
    char name[300];
    snprintf(name, sizeof name, "%s%s%s", t->ops->name, t->options_text[0] ? ":" : "", t->options_text);
    fprintf(f, "%-28s %7u %9.3f %9.3f %9.3f %9.3f %8.3f  %s\n", name, threads, s.median, s.mean, s.min, s.max,
            s.stdev, all_ok ? "ok" : "SIZE MISMATCH");
    fflush(f);
}

/* "table,options,threads,rep," with the CSV quoting of the main file */
static size_t key_prefix(char *buf, size_t len, const struct record *rec)
{
    size_t n = csv_str(buf, len, 0, rec->table->ops->name);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ",");
    n = csv_str(buf, len, n, rec->table->options_text);
    return n + (size_t)snprintf(buf + n, n < len ? len - n : 0, ",%u,%u", rec->threads, rec->rep);
}

int report_latency_hist_append(const char *path, const struct record *rec)
{
    const struct lat_result *l = &rec->r->lat;
    size_t cap = 1 << 16, n = 0;
    char *body = malloc(cap), prefix[700];
    if (!body)
        return -1;
    key_prefix(prefix, sizeof prefix, rec);
    for (int st = 0; l->on && st < LAT_STORES; st++)
        for (int b = 0; b < LAT_HIST_BUCKETS; b++) {
            uint64_t cnt = l->st[st].hist[b];
            if (!cnt)
                continue;
            uint64_t lo = b ? 1ull << b : 0, hi = b < 63 ? (1ull << (b + 1)) - 1 : UINT64_MAX;
            if (cap - n < 1024) {
                char *nb = realloc(body, cap *= 2);
                if (!nb) {
                    free(body);
                    return -1;
                }
                body = nb;
            }
            n += (size_t)snprintf(body + n, cap - n, "%s,%s,%d,%llu,%llu,%llu\n", prefix, lat_store_name[st], b,
                                  (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)cnt);
        }
    int rc = append_locked(path, "table,options,threads,rep,store,bucket,lo_cycles,hi_cycles,count\n", body, n);
    free(body);
    return rc;
}

int report_timeline_append(const char *path, const struct record *rec)
{
    const struct run_result *r = rec->r;
    size_t cap = 4096 + r->ntimeline * 128, n = 0;
    char *body = malloc(cap), prefix[700];
    if (!body)
        return -1;
    key_prefix(prefix, sizeof prefix, rec);
    double prev = 0;
    for (size_t i = 0; r->timeline && i < r->ntimeline; i++) {
        double dt = r->timeline[i].t_ms - prev;
        double mops = dt > 0 ? (double)r->timeline[i].ops / (dt * 1e3) : 0;
        n += (size_t)snprintf(body + n, cap - n, "%s,%.3f,%llu,%.6g\n", prefix, r->timeline[i].t_ms,
                              (unsigned long long)r->timeline[i].ops, mops);
        prev = r->timeline[i].t_ms;
    }
    int rc = append_locked(path, "table,options,threads,rep,t_ms,ops,mops\n", body, n);
    free(body);
    return rc;
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
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(row->strbuf[0], sizeof row->strbuf[0], "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(row->strbuf[1], sizeof row->strbuf[1] - 1);

    put_u(row, "schema", LOCK_CSV_SCHEMA_VERSION);
    put_s(row, "bench", lock_bench_name(c->bench));
    put_s(row, "timestamp", row->strbuf[0]);
    put_s(row, "host", row->strbuf[1]);
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
    put_s(row, "version", CHTBENCH_VERSION);
}

int report_lock_csv_append(const char *path, const struct lock_record *rec)
{
    struct row row;
    build_lock_row(rec, &row);
    return row_append(path, &row);
}

void report_lock_json(FILE *f, const struct lock_record *rec)
{
    struct row row;
    build_lock_row(rec, &row);
    row_json(f, &row);
}

void report_lock_csv_header(FILE *f)
{
    struct bench_config c = { 0 };
    struct lb_result r = { 0 };
    static const struct lock_ops dummy = { .name = "" };
    struct lock_record rec = { .cfg = &c, .lock = &dummy, .r = &r };
    struct row row;
    char buf[LINE_MAX_BYTES];
    build_lock_row(&rec, &row);
    format_header(&row, buf, sizeof buf);
    fputs(buf, f);
}

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
