/*
 * mode.h - a benchmark mode (--bench table, mutex, rwlock, memory,
 * occupancy): its cells, how to run one repetition of a cell, and the rows
 * of a result. One loop (src/modes.c, mode_run) drives every mode and owns
 * what they share: the order of cells and repetitions, the speedup against
 * the subject's 1-thread median, the console summary's placement, SIGINT and
 * SIGTERM, and every results line (built by report.c from the schemas the
 * mode names, written through outfile.h).
 */
#ifndef CHT_MODE_H
#define CHT_MODE_H

#include "context.h"
#include "report.h"

/* run's answers besides an exit status (0, EXIT_FAILED, EXIT_FULL) for a recorded result */
#define REP_FATAL (-1)         /* no result, the message printed: the cell's further reps are skipped */
#define REP_INTERRUPTED (-2)   /* stopped by SIGINT/SIGTERM: not a result */

/* One cell: a group of repetitions summarised on one console line (or block). */
struct mode_cell {
    unsigned index;            /* 0 .. cells() - 1 */
    const char *name;          /* the subject (table or lock) for messages */
    unsigned subject;          /* speedup is per subject: the table or lock index */
    unsigned threads;          /* worker threads (0: not a thread-count sweep) */
    const struct pin_plan *plan;   /* for the oversubscription check; NULL: none */
    unsigned reps;             /* repetitions (memory: one per chase count k) */
    unsigned sub[3];           /* the mode's own coordinates (memory: size, pages, thread index) */
};

/* A row's speedup: metric / the median metric of its subject's 1-thread cell. */
struct speedup {
    bool known;
    double value;
};

struct mode {
    const char *name;          /* its --bench value (mode_list.h) */
    /* its files' schemas: out[OUT_MAIN] (--csv, --json) and the side files (context.h); NULL: none */
    const struct report_schema *files[OUT_FILES];
    size_t result_size;        /* bytes of one repetition's result (0: prepare sets ctx's) */
    /* Every check before the first repetition, and (unless ctx->validate) what the run needs:
     * 0, or an exit status with the message printed. Runs after the topology and plans are made
     * and before the results files are opened. */
    int (*prepare)(struct run_context *ctx);
    void (*finish)(struct run_context *ctx);     /* frees what prepare made; NULL: nothing */
    unsigned (*cells)(const struct run_context *ctx);
    void (*cell)(const struct run_context *ctx, unsigned i, struct mode_cell *c);
    /* One repetition into result (zeroed): the exit status of its outcome, REP_FATAL or
     * REP_INTERRUPTED. Its messages (a failed check) go to stderr here. */
    int (*run)(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result);
    double (*metric)(const void *result);        /* what speedup divides; NULL: no speedup */
    /* The result's rows, each handed to mode_emit. */
    void (*rows)(struct run_context *ctx, const struct mode_cell *c, unsigned rep, const void *result,
                 struct speedup s);
    void (*release)(void *result);               /* after rows (or a result not recorded); NULL: nothing */
    void (*console_header)(struct run_context *ctx);
    /* The cell's console line(s), from its n recorded results (n >= 1); s: the median's speedup. */
    void (*console_summary)(struct run_context *ctx, const struct mode_cell *c, const void *results, unsigned n,
                            struct speedup s);
};

/* Writes one item of one of the mode's schemas: its CSV line(s) to that schema's results file
 * (the main CSV, or a side file), a --json record on stdout for the main rows. A write error is
 * reported and makes the exit status 1. */
void mode_emit(struct run_context *ctx, const struct report_schema *schema, const void *item);
/* --schema [NAME]: every mode's schemas (report_schema). */
int mode_print_schema(FILE *f, const char *which);

/* The worse of two exit statuses: 1 (failure) outranks 3 (table full) outranks 0. */
int mode_worse(int a, int b);
/* More threads than usable CPUs, or a plan that puts two on one CPU. */
bool mode_oversubscribed(const struct run_context *ctx, const struct mode_cell *c);
/* The pinning plan of every --threads count (NULL, the message printed, when one cannot be
 * made: a usage error); mode_plans_free frees the first `made`. */
struct pin_plan *mode_plans(const struct bench_config *cfg, const struct pin_topology *topo);
void mode_plans_free(const struct bench_config *cfg, struct pin_plan *plans, unsigned made);

/* Creates each --table once, tiny: a bad option value is a usage error (0 or EXIT_USAGE, printed). */
int mode_validate_tables(const struct bench_config *cfg);

/* The mode of cfg->bench. */
const struct mode *mode_of(const struct bench_config *cfg);
/* Runs cfg (a CLI_RUN): the exit status. */
int mode_run(const struct bench_config *cfg);
/* --validate: every check mode_run makes before its first repetition, nothing else. */
int mode_validate(const struct bench_config *cfg);

#define MODE_EXTERN(id, name, m, check) extern const struct mode m;
CHT_BENCH_MODES(MODE_EXTERN)
#undef MODE_EXTERN

#endif
