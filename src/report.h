/*
 * report.h - the results engine: a schema (docs/csv.md) is a list of columns, each one
 * declaration carrying its name, type, unit, sweep flag, meaning and how its value is read
 * from the item a mode hands over; from it come the CSV header, every CSV row (appended
 * through outfile.h), every --json record and `chtbench --schema`. The engine knows no mode:
 * each mode declares its schemas beside its result (src/table_columns.c, src/lockbench.c,
 * src/membench.c, src/occupancy.c) and names them in its struct mode (mode.h).
 */
#ifndef CHT_REPORT_H
#define CHT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "outfile.h"

/* One field of a row being built: a column's value function fills it with one cell_*() call. */
struct report_cell;
void cell_u(struct report_cell *cell, uint64_t u);
void cell_i(struct report_cell *cell, int64_t i);
void cell_d(struct report_cell *cell, double d);
/* s must live until the row is written (a literal, the config, the result): else cell_printf */
void cell_s(struct report_cell *cell, const char *s);
/* not measured: an empty CSV cell, JSON null */
void cell_none(struct report_cell *cell);
void cell_ou(struct report_cell *cell, bool have, uint64_t u);
void cell_od(struct report_cell *cell, bool have, double d);
/* a JSON value as it is (an object of a JSON-only column; its text is copied into the row) */
void cell_json(struct report_cell *cell, const char *json);
/* a text formatted into the row's own buffer */
void cell_printf(struct report_cell *cell, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A column's value: item is what the mode handed to mode_emit, row the row's index within
 * the item (side files: one item, several rows; else 0). */
typedef void report_value_fn(struct report_cell *cell, const void *item, unsigned row);

enum report_where { REPORT_CSV, REPORT_JSON };   /* REPORT_JSON: a detail field of the --json record only */
struct report_col {
    const char *name, *type, *unit, *flag, *meaning;
    enum report_where where;
    report_value_fn *value;
};

/* In a mode's column list (an X-macro): X(WHERE, name, type, unit, flag, meaning, value) is one
 * column, WHERE CSV or JSON, `value` a statement filling `cell` (VAL_*); S(KIND, meaning) is one
 * of the columns every schema shares, whose name, type and value are declared here once. */
#define REPORT_STR_(x) #x
#define REPORT_STR(x) REPORT_STR_(x)   /* a version number in a meaning */
#define VAL_U(x) cell_u(cell, (x))
#define VAL_I(x) cell_i(cell, (x))
#define VAL_D(x) cell_d(cell, (x))
#define VAL_S(x) cell_s(cell, (x))
#define VAL_OU(have, x) cell_ou(cell, (have), (x))
#define VAL_OD(have, x) cell_od(cell, (have), (x))
#define VAL_NONE() cell_none(cell)
#define REPORT_ENTRY(where, name, type, unit, flag, meaning, fn) \
    { #name, type, unit, flag, meaning, REPORT_##where, fn }
#define REPORT_SHARED_ENTRY(kind, meaning) REPORT_COL_##kind(meaning),
#define REPORT_NO_FN(kind, meaning)

/* the columns every schema shares: their values come from the engine */
report_value_fn report_value_schema, report_value_run_id, report_value_timestamp, report_value_host;
#define REPORT_COL_SCHEMA(meaning) { "schema", "int", "", "", meaning, REPORT_CSV, report_value_schema }
#define REPORT_COL_RUN_ID(meaning) { "run_id", "text", "", "", meaning, REPORT_CSV, report_value_run_id }
#define REPORT_COL_TIMESTAMP(meaning) { "timestamp", "text", "", "", meaning, REPORT_CSV, report_value_timestamp }
#define REPORT_COL_HOST(meaning) { "host", "text", "", "", meaning, REPORT_CSV, report_value_host }
/* the build context (version .. allocator): on every row of every file, one part of each schema */
#define REPORT_CONTEXT_COLS 6
extern const struct report_col report_context[REPORT_CONTEXT_COLS];

#define REPORT_PART(a) { a, (unsigned)(sizeof a / sizeof a[0]) }
#define REPORT_CONTEXT_PART { report_context, REPORT_CONTEXT_COLS }
#define REPORT_PARTS 5
struct report_part {
    const struct report_col *cols;
    unsigned n;
};

/* One file's schema: its columns are its parts' in order. */
struct report_schema {
    const char *name;          /* `chtbench --schema NAME` */
    int version;               /* bump on any column change (docs/csv.md: a migration note) */
    const char *label;         /* docs/csv.md numbers the columns label1, label2, ... */
    const char *file;          /* which file, in words (for --schema) */
    const char *kind;          /* what outfile.h names in a message: "chtbench table CSV (--csv)" */
    struct report_part parts[REPORT_PARTS];
    /* when the item's row was measured, for `timestamp` (NULL, or tv_sec 0: now) */
    const struct timespec *(*end_time)(const void *item);
    /* a side file's rows of one item (a repetition); NULL: one row, which --json prints too */
    unsigned (*rows)(const void *item);
};

/* A fresh run_id for this invocation (random 64 bits, hex); called once by main. */
void report_init(void);
const char *report_run_id(void);
/* --version: version, git revision, build type, sanitizer, compiler, allocator */
void report_version(FILE *f);

/* The header line (with '\n') of a schema's file, for outfile_open. */
const char *report_header_line(const struct report_schema *s);
/* What a schema's file is, in words with its version ("chtbench table CSV (--csv), schema 9"). */
const char *report_file_kind(const struct report_schema *s);
/* Appends the item's line(s) through o (outfile.h: locked, header when empty, one write).
 * Returns 0, or -1 with err set. */
int report_append(struct outfile *o, const struct report_schema *s, const void *item, char *err, size_t len);
/* The item as one --json record on f (a side file has none: nothing is written). */
void report_json_item(FILE *f, const struct report_schema *s, const void *item);

/* --schema [NAME]: the declared columns of the schema NAME of list or, with NAME NULL, of all
 * with their versions, as JSON on f. Returns 0, or 2 for an unknown NAME. */
int report_schema(FILE *f, const char *which, const struct report_schema *const *list, unsigned n);

#endif
