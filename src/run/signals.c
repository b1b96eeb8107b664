/* run/signals.c - SIGINT/SIGTERM end the current run (docs/cli.md
 * "Interrupting", "Exit codes"), for every mode: the handler raises the run's stop flags, and the
 * sleeps of the main thread (the one the signal reaches) end early. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "runner.h"

/* SIGINT/SIGTERM: the handler raises the current run's stop flag (workers
 * check it on every op) and records the signal; main finishes cleanly. */
volatile int runner_interrupted;
static int *volatile current_stop[2];        /* the run's warm_stop and stop */

static void on_signal(int sig)
{
    __atomic_store_n(&runner_interrupted, sig, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++) {
        int *p = current_stop[i];
        if (p)
            __atomic_store_n(p, 1, __ATOMIC_RELAXED);
    }
}

void runner_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void runner_watch_stop(int *warm_stop, int *stop)
{
    current_stop[0] = warm_stop;
    current_stop[1] = stop;
    if (runner_interrupted) {
        if (warm_stop)
            __atomic_store_n(warm_stop, 1, __ATOMIC_RELAXED);
        if (stop)
            __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
    }
}

/* Sleeps ms, or less when a signal interrupts the run. */
void runner_sleep_ms(uint64_t ms)
{
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
    if (__atomic_load_n(&runner_interrupted, __ATOMIC_RELAXED))   /* the signal came before the sleep (in the prefill): none to wait for */
        return;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !runner_interrupted)
        ;
}
