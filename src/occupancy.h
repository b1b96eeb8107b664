/*
 * occupancy.h - the occupancy and hit/miss benchmark of the indexlib note
 * (Alibaba; issue 11 point 4): fixed-capacity tables filled step by step
 * to each load factor, insert throughput per load band, hit-only and
 * miss-only lookup throughput at each load, and the load at the first
 * failed insert. docs/csv.md "Occupancy CSV".
 *
 * Wiring (the lead's part, src/cli.c + src/main.c): `--bench occupancy
 * --table T[,T...] --slots N --load 0.5,0.6,...,0.95 [--ops Q] [--reps R]
 * [--seed S] [--csv FILE] [--json]` fills a struct occupancy_spec and calls
 * occupancy_run(cfg, &spec). With three fields added to struct bench_config
 *     uint64_t occ_slots;      (--slots N, >= 64)
 *     double  *occ_loads;      (--load LIST: each in (0, 1], malloc'ed)
 *     unsigned occ_nloads;
 * occupancy_main() below is exactly:
 *     struct occupancy_spec s = { cfg->occ_slots, cfg->occ_loads, cfg->occ_nloads, cfg->ops };
 *     return occupancy_run(cfg, &s);
 * From bench_config it reads table[]/ntables, reps, seed, csv, json (and
 * ops: lookups per phase, 0 = 2^20).
 */
#ifndef CHT_OCCUPANCY_H
#define CHT_OCCUPANCY_H

#include "config.h"

struct occupancy_spec {
    uint64_t slots;         /* requested slot capacity (tables round: the row says the real one) */
    const double *loads;    /* load factors in (0, 1], any order (run ascending) */
    unsigned nloads;
    uint64_t lookups;       /* gets per hit phase and per miss phase (0: 2^20) */
};

/* Every (table, rep) of cfg: one row per load. Returns 0, EXIT_USAGE (a
 * table without fixed capacity, a bad load: one line on stderr, nothing
 * run or written) or EXIT_FAILED (a present key not found, an absent key
 * found by an exact table, size() off, CSV not writable). */
int occupancy_run(const struct bench_config *cfg, const struct occupancy_spec *spec);
/* The checks occupancy_run makes before it runs (also --validate): 0 or EXIT_USAGE, message printed. */
int occupancy_check(const struct bench_config *cfg, const struct occupancy_spec *spec);

/* The occupancy CSV's header line (with '\n'), for outfile_open. */
const char *occupancy_csv_header(void);
#define OCCUPANCY_CSV_SCHEMA_VERSION 2

/* Does the table choice have a fixed capacity (CHT_CAP_FIXED_CAP, or a
 * resizable table given resize=0)? If not, *why says so. */
bool occupancy_fixed_capacity(const struct table_choice *c, char *why, size_t len);

#endif
