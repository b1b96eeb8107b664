/*
 * context.h - one run's state, kept apart from the parsed settings: struct
 * bench_config (config.h) is what src/cli/ parsed and is never changed after;
 * everything a run opens, loads or measures before its first repetition is
 * here, owned by the pipeline (src/modes.c) and the running mode.
 */
#ifndef CHT_CONTEXT_H
#define CHT_CONTEXT_H

#include <stdio.h>
#include "config.h"
#include "outfile.h"
#include "pin.h"

enum { OUT_MAIN, OUT_LATENCY, OUT_TIMELINE, OUT_TABLE_COUNTERS, OUT_FILES };

struct run_context {
    const struct bench_config *cfg;    /* parsed, immutable */
    const struct mode *mode;
    bool validate;                     /* --validate: every check, nothing run, created or written */
    struct pin_topology *topo;         /* the machine */
    struct pin_plan *plans;            /* one per cfg->threads[i], made before anything runs */
    unsigned pus;                      /* usable CPUs */
    struct outfile out[OUT_FILES];     /* the results files; out[i].fd < 0: not asked for */
    FILE *human;                       /* the console summary: stderr when the data goes to stdout */
    void *state;                       /* the mode's own (keygens, the loaded trace, ...) */
    size_t result_size;                /* bytes of one repetition's result (mode.h) */
    int status;                        /* the exit status so far */
    unsigned completed;                /* repetitions run to their end and recorded */
};

/* An open results file, or NULL when its flag was not given. */
static inline struct outfile *ctx_out(const struct run_context *ctx, int which)
{
    return ctx->out[which].fd >= 0 ? (struct outfile *)&ctx->out[which] : NULL;
}

#endif
