/* report.h - console summary, CSV rows (docs/csv.md) and JSON records. */
#ifndef CHT_REPORT_H
#define CHT_REPORT_H

#include <stdio.h>
#include "config.h"
#include "runner.h"
#include "lockbench.h"
#include "membench.h"
#include "occupancy.h"
#include "outfile.h"

#define CSV_SCHEMA_VERSION 11
/* 1: no schema/run key columns (chtbench <= schema 3); 2: one row per log2 bucket (table schema <= 7);
 * 3: one row per operation class, every statistic (docs/csv.md "Side files") */
#define LATENCY_CSV_SCHEMA_VERSION 3
#define TIMELINE_CSV_SCHEMA_VERSION 2

struct record {
    const struct bench_config *cfg;
    const struct table_choice *table;
    unsigned threads;
    unsigned rep;
    uint64_t range;             /* the run's key range (a loaded trace may grow cfg->range) */
    const struct counter_set *counters;   /* --counters as set up; NULL: none */
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

/* Every file chtbench writes, by schema (docs/csv.md). */
enum report_schema { SCHEMA_TABLE, SCHEMA_LATENCY, SCHEMA_TIMELINE, SCHEMA_LOCK, SCHEMA_MEMORY, SCHEMA_OCCUPANCY,
                     SCHEMAS };

struct lock_record;
/* One row of --bench occupancy: a load of one (table, rep). */
struct occ_record {
    const struct table_choice *table;
    unsigned rep;
    const struct occ_row *row;
    const struct timespec *end_time;   /* when the repetition ended */
};

/* What one row (for the side files: one repetition's rows) is built from. The modes
 * (src/mode.h) hand these to the pipeline, which writes them with report_append and
 * report_json_item: every line of every file chtbench writes is built in report.c. */
struct report_item {
    enum report_schema schema;
    union {
        const struct record *table;        /* SCHEMA_TABLE, SCHEMA_LATENCY, SCHEMA_TIMELINE */
        const struct lock_record *lock;    /* SCHEMA_LOCK */
        const struct membench_point *memory;
        const struct occ_record *occupancy;
    };
};

/* The header line (with '\n') of a schema's file, for outfile_open. */
const char *report_header_line(enum report_schema s);
/* What a schema's file is, in words with its version ("chtbench table CSV (--csv), schema 9"). */
const char *report_file_kind(enum report_schema s);
/* Appends the item's line(s) through o (outfile.h: locked, header when empty, one write).
 * Returns 0, or -1 with err set. */
int report_append(struct outfile *o, const struct report_item *it, char *err, size_t len);
/* The item as one --json record on f (the side files have none: nothing is written). */
void report_json_item(FILE *f, const struct report_item *it);

/* --latency: per-store table of one repetition on the console */
void report_console_latency(FILE *f, const struct record *rec);

/* --schema [NAME]: the declared columns of one schema (table, latency, timeline, lock, memory,
 * occupancy) or, with NAME NULL, of all with their versions, as JSON on f. Returns 0, or 2 for an
 * unknown NAME (a row builder that differs from its declaration aborts, naming the column). */
int report_schema(FILE *f, const char *which);

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

void report_lock_console_header(FILE *f, const struct bench_config *cfg);
void report_lock_console_summary(FILE *f, const struct bench_config *cfg, const struct lb_summary *s);

#endif
