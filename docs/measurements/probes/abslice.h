/* abslice.h: an A/B of two code paths inside one chtbench run, in time
 * slices, for a host too noisy for run-against-run comparisons
 * (pipeline.md, the 2026-12-02 21:35 section). Not part of the build.
 *
 * A timer thread flips abslice_mode every ABSLICE_MS milliseconds (default
 * 20); the experiment's table takes path B where ABSLICE_ON and path A
 * elsewhere, and counts the ops it starts with ABSLICE_COUNT(n), by the mode
 * they started in. At exit the two counts and their ratio B/A go to stderr:
 * both paths ran on the same table, in alternating slices of the same
 * seconds, so a host's slow stretches fall on both alike. ABSLICE_AA=1 makes
 * both slices run path A, the control (0.98-1.02 on the noisy guest where
 * run-against-run medians moved by 30%).
 *
 * Use: in an experiment copy of a table's file,
 *     #include "abslice.h"        (with -I docs/measurements/probes)
 *     if (ABSLICE_ON && new_path_applies(...)) ... else old path ...
 *     ABSLICE_COUNT(n);            in pipe_start (or once per op)
 * then `ABSLICE_MS=20 chtbench -t TABLE ... -d 3000`; the ratio is the
 * line "abslice: A ... B ... B/A ...". One thread: the counts are plain adds. */
#ifndef ABSLICE_H
#define ABSLICE_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int abslice_mode;           /* 0: slice A, 1: slice B */
static int abslice_aa;                      /* ABSLICE_AA set: B runs path A too */
static unsigned long abslice_ops[2];

static void *abslice_timer(void *arg)
{
    (void)arg;
    const char *e = getenv("ABSLICE_MS");
    const long ms = e ? atol(e) : 20;
    const struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    for (;;) {
        nanosleep(&ts, NULL);
        abslice_mode = !abslice_mode;
    }
    return NULL;
}

__attribute__((constructor)) static void abslice_start(void)
{
    pthread_t th;
    abslice_aa = getenv("ABSLICE_AA") != NULL;
    if (pthread_create(&th, NULL, abslice_timer, NULL) == 0)
        pthread_detach(th);
}

__attribute__((destructor)) static void abslice_report(void)
{
    if (abslice_ops[0] && abslice_ops[1])
        fprintf(stderr, "abslice: A %lu B %lu B/A %.4f%s\n", abslice_ops[0], abslice_ops[1],
                (double)abslice_ops[1] / (double)abslice_ops[0], abslice_aa ? " (A/A control)" : "");
}

#define ABSLICE_ON (abslice_mode && !abslice_aa)
#define ABSLICE_COUNT(n) (abslice_ops[abslice_mode] += (n))
#endif
