/* report.h - console summary, CSV rows (docs/csv.md) and JSON records. */
#ifndef CHT_REPORT_H
#define CHT_REPORT_H

#include <stdio.h>
#include "config.h"
#include "runner.h"
#include "lockbench.h"
#include "outfile.h"

#define CSV_SCHEMA_VERSION 9
/* 1: no schema/run key columns (chtbench <= schema 3); 2: one row per log2 bucket (table schema <= 7);
 * 3: one row per operation class, every statistic (docs/csv.md "Side files") */
#define LATENCY_CSV_SCHEMA_VERSION 3
#define TIMELINE_CSV_SCHEMA_VERSION 2

struct record {
    const struct bench_config *cfg;
    const struct table_choice *table;
    unsigned threads;
    unsigned rep;
    bool oversubscribed;
    bool has_speedup;           /* the table's 1-thread median is known */
    double speedup;             /* mops / median mops of its 1-thread runs */
    const struct run_result *r;
};

/* A fresh run_id for this invocation (random 64 bits, hex); called once by main. */
void report_init(void);
const char *report_run_id(void);
/* --version: version, git revision, build type, sanitizer, compiler, allocator */
void report_version(FILE *f);
const char *report_outcome_name(enum run_outcome o);

/* The header lines (with '\n') of each kind of file, for outfile_open. */
const char *report_csv_header_line(void);
const char *report_latency_header_line(void);
const char *report_timeline_header_line(void);
const char *report_lock_csv_header_line(void);

/* Appends one row through o (outfile.h: locked, header when empty, one
 * write). Returns 0, or -1 with err set. */
int report_csv_append(struct outfile *o, const struct record *rec, char *err, size_t len);
void report_json(FILE *f, const struct record *rec);
/* --latency-csv: one row per (table, threads, rep, store, non-empty log2
 * bucket); --timeline-csv: one row per interval. Same append rules. */
int report_latency_hist_append(struct outfile *o, const struct record *rec, char *err, size_t len);
int report_timeline_append(struct outfile *o, const struct record *rec, char *err, size_t len);
/* --latency: per-store table of one repetition on the console */
void report_console_latency(FILE *f, const struct record *rec);

/* --schema [NAME]: the declared columns of one schema (table, latency, timeline, lock, memory,
 * occupancy) or, with NAME NULL, of all with their versions, as JSON on f. Returns 0, 2 for an
 * unknown NAME, 1 when a file's header differs from its declaration (message on stderr). */
int report_schema(FILE *f, const char *which);

/* Column names, in order (for docs and tests). */
void report_csv_header(FILE *f);

void report_console_header(FILE *f, const struct bench_config *cfg);
/* One line per (table, threads): medians over the repetitions, the
 * coefficient of variation, and the check: "ok", or the worst outcome. */
void report_console_summary(FILE *f, const struct table_choice *t, unsigned threads,
                            const char *pin, const double *mops, unsigned n, const char *check);

/* ---- lock benches (--bench): their own CSV schema, docs/csv.md "Lock-bench CSV" ---- */
#define LOCK_CSV_SCHEMA_VERSION 3   /* 2: run_id and build context columns; 3: plugin, plugin_sha256 */

struct lock_record {
    const struct bench_config *cfg;
    const struct lock_ops *lock;
    unsigned threads;
    unsigned rep;
    bool oversubscribed;
    bool has_speedup;           /* this lock's 1-thread median is known */
    double speedup;             /* acq_per_s / median acq_per_s of its 1-thread runs */
    const struct lb_result *r;
};

/* One console line per (lock, threads). */
struct lb_summary {
    const char *lock;
    unsigned threads, n;        /* n: repetitions that ran */
    double median, min, max;    /* Macq/s over the repetitions */
    double min_share, max_share;/* over all repetitions */
    double write_share;         /* rwlock: writes / acquisitions, all repetitions */
    bool has_speedup;
    double speedup;             /* median / 1-thread median */
    bool ok;                    /* every invariant held */
};

int report_lock_csv_append(struct outfile *o, const struct lock_record *rec, char *err, size_t len);
void report_lock_json(FILE *f, const struct lock_record *rec);
void report_lock_csv_header(FILE *f);
void report_lock_console_header(FILE *f, const struct bench_config *cfg);
void report_lock_console_summary(FILE *f, const struct bench_config *cfg, const struct lb_summary *s);

#endif
