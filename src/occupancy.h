/*
 * occupancy.h - the occupancy and hit/miss benchmark of the indexlib note
 * (Alibaba; issue 11 point 4): fixed-capacity tables filled step by step
 * to each load factor, insert throughput per load band, hit-only and
 * miss-only lookup throughput at each load, and the load at the first
 * failed insert. `--bench occupancy --table T[,T...] --slots N --load LIST
 * [--ops Q] [--reps R] [--seed S] [--csv FILE] [--json]`; docs/csv.md
 * "Occupancy CSV". The pipeline (src/modes.c) runs it as the mode
 * occupancy_mode: one cell per table, one result (a row per load) per rep.
 */
#ifndef CHT_OCCUPANCY_H
#define CHT_OCCUPANCY_H

#include <time.h>
#include "config.h"

/* 2: lines_hit, lines_miss; 3: plugin, plugin_sha256 and the whole build context (allocator) */
#define OCCUPANCY_CSV_SCHEMA_VERSION 3

/* One load of one (table, rep): a row of the occupancy CSV. */
struct occ_row {
    double load_target, load, insert_mops, hit_mops, miss_mops, max_load, lines_hit, lines_miss;
    uint64_t slots, keys, hit_failures, miss_hits, bytes;
    bool reached, lines;    /* lines: lines_hit/lines_miss measured (the table has probe_lines) */
};

/* The checks made before anything runs (also --validate): --slots, --load, fixed capacity.
 * 0 or EXIT_USAGE, the message printed. */
int occupancy_check(const struct bench_config *cfg);

/* Does the table choice have a fixed capacity (CHT_CAP_FIXED_CAP, or a
 * resizable table given resize=0)? If not, *why says so. */
bool occupancy_fixed_capacity(const struct table_choice *c, char *why, size_t len);

struct mode;

#endif
