/*
 * report.c - the results engine (report.h): rows built from a schema's column declarations,
 * formatted as CSV or JSON, headers, appends to results files and `chtbench --schema`. It
 * knows no mode: the schemas are declared beside the modes' results and reached through
 * struct mode (mode.h). docs/csv.md's column tables are generated from `--schema`.
 *
 * CSV rows are appended to possibly shared files by parallel chtbench runs:
 * each row is formatted in memory, then written with one write() on an
 * O_APPEND descriptor while holding flock(LOCK_EX), the header only when the
 * file is empty under that same lock. A torn or interleaved row is impossible.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "report.h"
#include "version.h"
#include "memstat.h"

#define MAX_FIELDS 512
#define ROW_TEXT 16384          /* the texts a row's cells format (cell_printf) */

/* ================= a row: one cell per declared column ================= */

enum cell_kind { CELL_STR, CELL_U64, CELL_F64, CELL_EMPTY, CELL_I64, CELL_JSON };   /* EMPTY: CSV empty, JSON null */

struct report_cell {
    const struct report_col *decl;
    struct row *row;
    enum cell_kind kind;
    const char *s;
    uint64_t u;
    double d;
    int64_t i;
};

struct row {
    const struct report_schema *schema;
    const void *item;
    struct report_cell f[MAX_FIELDS];
    unsigned n;
    char text[ROW_TEXT];
    size_t text_used;
};

void cell_u(struct report_cell *cell, uint64_t u)
{
    cell->kind = CELL_U64;
    cell->u = u;
}
void cell_i(struct report_cell *cell, int64_t i)
{
    cell->kind = CELL_I64;
    cell->i = i;
}
void cell_d(struct report_cell *cell, double d)
{
    cell->kind = CELL_F64;
    cell->d = d;
}
void cell_s(struct report_cell *cell, const char *s)
{
    cell->kind = CELL_STR;
    cell->s = s;
}
void cell_none(struct report_cell *cell) { cell->kind = CELL_EMPTY; }
void cell_ou(struct report_cell *cell, bool have, uint64_t u)
{
    if (have)
        cell_u(cell, u);
    else
        cell_none(cell);
}
void cell_od(struct report_cell *cell, bool have, double d)
{
    if (have)
        cell_d(cell, d);
    else
        cell_none(cell);
}

void cell_printf(struct report_cell *cell, const char *fmt, ...)
{
    struct row *r = cell->row;
    size_t room = sizeof r->text - r->text_used;
    char *at = r->text + r->text_used;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at, room, fmt, ap);   /* a text over the row's room is cut, never overrun */
    va_end(ap);
    r->text_used += k < 0 ? 1 : (size_t)k < room ? (size_t)k + 1 : room;
    if (k < 0)
        at[0] = '\0';
    cell_s(cell, at);
}

void cell_json(struct report_cell *cell, const char *json)
{
    cell_printf(cell, "%s", json);
    cell->kind = CELL_JSON;
}

/* every column's value, in declaration order */
static void row_build(struct row *r, const struct report_schema *s, const void *item, unsigned index)
{
    r->schema = s;
    r->item = item;
    r->n = 0;
    r->text_used = 0;
    for (int p = 0; p < REPORT_PARTS; p++)
        for (unsigned i = 0; i < s->parts[p].n && r->n < MAX_FIELDS; i++) {
            struct report_cell *c = &r->f[r->n++];
            *c = (struct report_cell){ .decl = &s->parts[p].cols[i], .row = r, .kind = CELL_EMPTY };
            c->decl->value(c, item, index);
        }
}

/* ================= the columns every schema shares ================= */

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

void report_value_schema(struct report_cell *cell, const void *item, unsigned row)
{
    (void)item, (void)row;
    cell_u(cell, (uint64_t)cell->row->schema->version);
}

void report_value_run_id(struct report_cell *cell, const void *item, unsigned row)
{
    (void)item, (void)row;
    cell_s(cell, report_run_id());
}

/* "2026-11-23T09:12:46.123Z": the row's end_time, UTC, millisecond resolution */
void report_value_timestamp(struct report_cell *cell, const void *item, unsigned row)
{
    (void)row;
    const struct timespec *ts = cell->row->schema->end_time(item);
    struct timespec now;
    if (!ts || !ts->tv_sec) {          /* not recorded: now */
        clock_gettime(CLOCK_REALTIME, &now);
        ts = &now;
    }
    struct tm tm;
    time_t sec = ts->tv_sec;
    gmtime_r(&sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts->tv_nsec / 1000000);
    cell_printf(cell, "%s", buf);
}

void report_value_host(struct report_cell *cell, const void *item, unsigned row)
{
    (void)item, (void)row;
    char buf[128];
    if (gethostname(buf, sizeof buf - 1) != 0)
        snprintf(buf, sizeof buf, "unknown");
    buf[sizeof buf - 1] = '\0';
    cell_printf(cell, "%s", buf);
}

/* The build context: on every row of every file */
#define CONTEXT_COLUMNS(X) \
    X(CSV, version, "text", "", "", "chtbench version", VAL_S(CHTBENCH_VERSION)) \
    X(CSV, git_rev, "text", "", "", "git revision chtbench was built from (`git describe --always --dirty`; `unknown` outside a checkout)", VAL_S(CHTBENCH_GIT_REV)) \
    X(CSV, build_type, "text", "", "", "Meson build type (`release`, `debugoptimized`, ...)", VAL_S(CHTBENCH_BUILD_TYPE)) \
    X(CSV, sanitizer, "text", "", "", "Meson `b_sanitize` (`none`, `address,undefined`, `thread`)", VAL_S(CHTBENCH_SANITIZER)) \
    X(CSV, compiler, "text", "", "", "C compiler id and version (`gcc 12.2.0`)", VAL_S(CHTBENCH_COMPILER)) \
    X(CSV, allocator, "text", "", "allocator", "what served malloc, found in the process (docs/cli.md \"Allocators\"): `system` (the C library's; in a sanitizer build the sanitizer runtime's), `jemalloc` (`-Dallocator=jemalloc` or `--allocator jemalloc`), `mimalloc`, `tcmalloc` (`--allocator`), else the file name of the library that defines malloc (one preloaded from outside)", VAL_S(memstat_allocator())) \

#define CONTEXT_FN(where, name, type, unit, flag, meaning, value)                     \
    static void context_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                 \
        (void)item, (void)row;                                                        \
        value;                                                                        \
    }
#define CONTEXT_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, context_##name),
CONTEXT_COLUMNS(CONTEXT_FN)
const struct report_col report_context[REPORT_CONTEXT_COLS] = { CONTEXT_COLUMNS(CONTEXT_ENTRY) };

/* ================= formatting: growable buffers, no fixed row size ================= */

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

static void json_str(struct sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_printf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            sb_printf(b, "\\u%04x", *s);
        else
            sb_printf(b, "%c", *s);
    }
    sb_printf(b, "\"");
}

static void format_value(struct sbuf *b, const struct report_cell *f, bool json)
{
    switch (f->kind) {
    case CELL_U64: sb_printf(b, "%llu", (unsigned long long)f->u); return;
    case CELL_F64: sb_printf(b, "%.6g", f->d); return;
    case CELL_I64: sb_printf(b, "%lld", (long long)f->i); return;
    case CELL_EMPTY: sb_printf(b, "%s", json ? "null" : ""); return;
    case CELL_JSON:
        sb_printf(b, "%s", json ? f->s : "");   /* JSON-only columns: never in a CSV row */
        return;
    case CELL_STR:
        if (json)
            json_str(b, f->s);
        else
            csv_str(b, f->s);
        return;
    }
}

/* one CSV line (with '\n') of the row; the JSON-only fields are left out (the --json record carries them) */
static void format_csv(struct sbuf *b, const struct row *r)
{
    bool first = true;
    for (unsigned i = 0; i < r->n; i++) {
        if (r->f[i].decl->where == REPORT_JSON)
            continue;
        if (!first)
            sb_printf(b, ",");
        first = false;
        format_value(b, &r->f[i], false);
    }
    sb_printf(b, "\n");
}

/* ================= the entry points ================= */

/* each schema's header line and file kind, built once (outfile.h keeps both pointers) */
static struct schema_text {
    const struct report_schema *schema;
    const char *header;
    char kind[128];
} texts[16];

static struct schema_text *text_of(const struct report_schema *s)
{
    unsigned h = 0;
    for (; h < sizeof texts / sizeof texts[0] && texts[h].schema; h++)
        if (texts[h].schema == s)
            return &texts[h];
    if (h == sizeof texts / sizeof texts[0]) {
        fprintf(stderr, "chtbench: internal error: more than %u schemas\n", h);
        abort();
    }
    struct schema_text *t = &texts[h];
    struct sbuf b = { 0 };
    bool first = true;
    for (int p = 0; p < REPORT_PARTS; p++)
        for (unsigned i = 0; i < s->parts[p].n; i++)
            if (s->parts[p].cols[i].where == REPORT_CSV) {
                sb_printf(&b, "%s%s", first ? "" : ",", s->parts[p].cols[i].name);
                first = false;
            }
    sb_printf(&b, "\n");
    t->schema = s;
    t->header = b.oom ? "" : b.p;
    if (b.oom)
        free(b.p);
    snprintf(t->kind, sizeof t->kind, "%s, schema %d", s->kind, s->version);
    return t;
}

const char *report_header_line(const struct report_schema *s) { return text_of(s)->header; }
const char *report_file_kind(const struct report_schema *s) { return text_of(s)->kind; }

/* the row being written: large, so not on the stack; rows are written by the main thread only */
static struct row scratch;

int report_append(struct outfile *o, const struct report_schema *s, const void *item, char *err, size_t len)
{
    struct sbuf b = { 0 };
    unsigned n = s->rows ? s->rows(item) : 1;
    for (unsigned i = 0; i < n && !b.oom; i++) {
        row_build(&scratch, s, item, i);
        format_csv(&b, &scratch);
    }
    int rc = 0;
    if (b.oom) {
        snprintf(err, len, "%s: out of memory formatting a row", o->flag);
        rc = -1;
    } else if (b.n) {          /* a repetition without side-file rows writes nothing, not even the header */
        rc = outfile_append(o, b.p, b.n, err, len);
    }
    free(b.p);
    return rc;
}

void report_json_item(FILE *f, const struct report_schema *s, const void *item)
{
    if (s->rows)
        return;   /* the --json record carries the main row only */
    row_build(&scratch, s, item, 0);
    struct sbuf b = { 0 };
    sb_printf(&b, "{");
    for (unsigned i = 0; i < scratch.n; i++) {
        sb_printf(&b, "%s\"%s\":", i ? "," : "", scratch.f[i].decl->name);
        format_value(&b, &scratch.f[i], true);
    }
    sb_printf(&b, "}\n");
    if (!b.oom)
        fwrite(b.p, 1, b.n, f);
    free(b.p);
    fflush(f);
}

/* ================= chtbench --schema: the declarations, as JSON ================= */

static void json_text(FILE *f, const char *s)
{
    struct sbuf b = { 0 };
    json_str(&b, s);
    if (!b.oom)
        fwrite(b.p, 1, b.n, f);
    free(b.p);
}

/* [{name, column, type, unit, flag, meaning}, ...]: column is the 1-based CSV position, null for
 * a field only the --json record carries */
static void schema_columns_json(FILE *f, const struct report_schema *s)
{
    unsigned pos = 0, k = 0;
    fputs("[", f);
    for (int p = 0; p < REPORT_PARTS; p++)
        for (unsigned i = 0; i < s->parts[p].n; i++) {
            const struct report_col *c = &s->parts[p].cols[i];
            fprintf(f, "%s\n  {\"name\":", k++ ? "," : "");
            json_text(f, c->name);
            if (c->where == REPORT_CSV)
                fprintf(f, ",\"column\":%u", ++pos);
            else
                fputs(",\"column\":null", f);
            fputs(",\"type\":", f);
            json_text(f, c->type);
            fputs(",\"unit\":", f);
            json_text(f, c->unit);
            fputs(",\"flag\":", f);
            json_text(f, c->flag);
            fputs(",\"meaning\":", f);
            json_text(f, c->meaning);
            fputs("}", f);
        }
    fputs("\n]", f);
}

int report_schema(FILE *f, const char *which, const struct report_schema *const *list, unsigned n)
{
    if (which) {
        for (unsigned s = 0; s < n; s++)
            if (strcmp(which, list[s]->name) == 0) {
                schema_columns_json(f, list[s]);
                fputs("\n", f);
                return 0;
            }
        fprintf(stderr, "chtbench: --schema: no schema '%s' (expected", which);
        for (unsigned s = 0; s < n; s++)
            fprintf(stderr, "%s%s", s ? ", " : " ", list[s]->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    /* all of them: {"table": {"version": 8, "label": "", "file": "...", "columns": [...]}, ...} */
    fputs("{", f);
    for (unsigned s = 0; s < n; s++) {
        fprintf(f, "%s\n\"%s\": {\"version\": %d, \"label\": ", s ? "," : "", list[s]->name, list[s]->version);
        json_text(f, list[s]->label);
        fputs(", \"file\": ", f);
        json_text(f, list[s]->file);
        fputs(", \"columns\": ", f);
        schema_columns_json(f, list[s]);
        fputs("}", f);
    }
    fputs("\n}\n", f);
    return 0;
}
