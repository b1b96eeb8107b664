/* table_columns.h - the table run's results files (docs/csv.md): the table CSV (--csv, --json)
 * and its side files (--latency-csv, --timeline-csv), declared in src/table_columns.c. */
#ifndef CHT_TABLE_COLUMNS_H
#define CHT_TABLE_COLUMNS_H

#include "report.h"
#include "runner.h"

#define CSV_SCHEMA_VERSION 12
/* 1: no schema/run key columns (chtbench <= schema 3); 2: one row per log2 bucket (table schema <= 7);
 * 3: one row per operation class, every statistic (docs/csv.md "Side files") */
#define LATENCY_CSV_SCHEMA_VERSION 3
#define TIMELINE_CSV_SCHEMA_VERSION 2
#define TABLE_COUNTERS_CSV_SCHEMA_VERSION 1

/* One repetition of a table run, as its rows see it: the item of all three schemas. */
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

extern const struct report_schema table_schema;      /* one row per repetition */
extern const struct report_schema latency_schema;    /* one row per operation class */
extern const struct report_schema timeline_schema;   /* one row per --timeline interval */
extern const struct report_schema table_counters_schema;   /* one row per counter the table reported */

const char *run_outcome_name(enum run_outcome o);
/* plugin (sha: plugin_sha256) of a table row: the plugins that provided the table and the lock
 * it ran under, "A;B" when they differ, empty for built-ins (the occupancy CSV's too) */
void table_plugins(struct report_cell *cell, const struct table_choice *t, bool sha);

#endif
