/*
 * run/table_counters.c - a table's own named counters (the channel of
 * cht_stats_counter, include/cht.h, as Google Benchmark's user counters): the
 * table's stats() is called once after each repetition with the collector set,
 * every name is checked (a JSON key and a CSV cell as it is) and the counters are
 * kept in the run's result for the JSON record and --table-counters-csv. Never
 * during the timed run: a counter costs the table what its stats() costs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "worker.h"

_Static_assert(CHT_COUNTERS_MAX == 32, "the refusal says 32");

static bool counter_name_ok(const char *name)
{
    size_t n = strnlen(name, CHT_COUNTER_NAME_MAX);
    if (n == 0 || n == CHT_COUNTER_NAME_MAX || name[0] < 'a' || name[0] > 'z')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
            return false;
    return true;
}

static void collect_counter(void *ctx, const char *name, double value)
{
    struct run_table_counters *tc = ctx;
    if (tc->refused[0])
        return;
    const char *why = !name || !counter_name_ok(name) ? "not 1..47 of [a-z0-9_] starting with a letter"
                    : !isfinite(value) ? "not a finite number"
                    : tc->n == CHT_COUNTERS_MAX ? "more than 32 counters"
                                                 : NULL;
    for (unsigned i = 0; !why && i < tc->n; i++)
        if (strcmp(tc->c[i].name, name) == 0)
            why = "reported twice";
    if (why) {
        snprintf(tc->refused, sizeof tc->refused, "table counter '%.60s': %s (include/cht.h cht_stats_counter)",
                 name ? name : "(null)", why);
        return;
    }
    snprintf(tc->c[tc->n].name, sizeof tc->c[tc->n].name, "%s", name);
    tc->c[tc->n++].value = value;
}

void run_stats_take(const struct cht_ops *ops, void *table, struct cht_stats *st, struct run_table_counters *tc)
{
    memset(tc, 0, sizeof *tc);
    st->counter = collect_counter;
    st->counter_ctx = tc;
    ops->stats(table, st);
    st->counter = NULL;          /* kept in the result: no pointer into this call */
    st->counter_ctx = NULL;
}
