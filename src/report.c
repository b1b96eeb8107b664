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
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "report.h"
#include "util.h"

enum col_kind { COL_STR, COL_U64, COL_F64 };

struct field {
    const char *name;
    enum col_kind kind;
    const char *s;
    uint64_t u;
    double d;
};

#define MAX_FIELDS 64

struct row {
    struct field f[MAX_FIELDS];
    unsigned n;
    char strbuf[8][128];
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
    char buf[4096];
    build_row(&rec, &row);
    format_header(&row, buf, sizeof buf);
    fputs(buf, f);
}

int report_csv_append(const char *path, const struct record *rec)
{
    struct row row;
    char line[8192];
    build_row(rec, &row);
    size_t n = 0;
    for (unsigned i = 0; i < row.n; i++) {
        if (i)
            line[n++] = ',';
        n = format_value(line, sizeof line, n, &row.f[i], false);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\n");

    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int rc = -1;
    if (flock(fd, LOCK_EX) == 0) {
        struct stat st;
        char header[4096];
        size_t hn = 0;
        if (fstat(fd, &st) == 0 && st.st_size == 0)
            hn = format_header(&row, header, sizeof header);
        bool ok = (!hn || write(fd, header, hn) == (ssize_t)hn) && write(fd, line, n) == (ssize_t)n;
        rc = ok ? 0 : -1;
        flock(fd, LOCK_UN);
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

void report_json(FILE *f, const struct record *rec)
{
    struct row row;
    char line[8192];
    build_row(rec, &row);
    size_t n = (size_t)snprintf(line, sizeof line, "{");
    for (unsigned i = 0; i < row.n; i++) {
        n += (size_t)snprintf(line + n, n < sizeof line ? sizeof line - n : 0, "%s\"%s\":", i ? "," : "",
                              row.f[i].name);
        n = format_value(line, sizeof line, n, &row.f[i], true);
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
