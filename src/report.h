/* report.h - console summary, CSV rows (docs/csv.md) and JSON records. */
#ifndef CHT_REPORT_H
#define CHT_REPORT_H

#include <stdio.h>
#include "config.h"
#include "runner.h"
#include "lockbench.h"

#define CSV_SCHEMA_VERSION 3

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

/* Appends one row under an exclusive flock; writes the header first when the
 * file is empty. The row goes out in one write(). Returns 0 or -1 (errno). */
int report_csv_append(const char *path, const struct record *rec);
void report_json(FILE *f, const struct record *rec);
/* --latency-csv: one row per (table, threads, rep, store, non-empty log2
 * bucket); --timeline-csv: one row per interval. Same append rules. */
int report_latency_hist_append(const char *path, const struct record *rec);
int report_timeline_append(const char *path, const struct record *rec);
/* --latency: per-store table of one repetition on the console */
void report_console_latency(FILE *f, const struct record *rec);

/* Column names, in order (for docs and tests). */
void report_csv_header(FILE *f);

void report_console_header(FILE *f, const struct bench_config *cfg);
void report_console_summary(FILE *f, const struct table_choice *t, unsigned threads,
                            const char *pin, const double *mops, unsigned n, bool all_ok);

/* ---- lock benches (--bench): their own CSV schema, docs/csv.md "Lock-bench CSV" ---- */
#define LOCK_CSV_SCHEMA_VERSION 1

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

int report_lock_csv_append(const char *path, const struct lock_record *rec);
void report_lock_json(FILE *f, const struct lock_record *rec);
void report_lock_csv_header(FILE *f);
void report_lock_console_header(FILE *f, const struct bench_config *cfg);
void report_lock_console_summary(FILE *f, const struct bench_config *cfg, const struct lb_summary *s);

#endif
