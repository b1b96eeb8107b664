/*
 * engine.c - the table checks' engine (check.h, check_internal.h): one
 * check run from its context to its verdict, its failures and progress
 * lines, its tables and its thread teams. The checks themselves are in the
 * table suite (table.c, table_order.c, table_steady.c) and, for approximate
 * tables, the filter suite (filter.c); the lock checks in locks.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "check_internal.h"
#include "registry.h"

void check_fail(struct check_run *r, const char *fmt, ...)
{
    /* the first 20 are said; the check goes on to its end (and frees what it made) */
    if (r->failures++ >= 20)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->failures == 1)
        snprintf(r->ctx->detail, sizeof r->ctx->detail, "%s", msg);
    if (r->ctx->fail_log)
        fprintf(r->ctx->fail_log, "FAIL %s\n", msg);
}

void check_note(const struct check_run *r, const char *fmt, ...)
{
    if (!r->ctx->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->ctx->log, fmt, ap);
    va_end(ap);
}

void check_time_slice(struct check_run *r, unsigned j, unsigned n)
{
    if (r->ctx->seconds > 0)
        r->deadline_ns = r->start_ns + (uint64_t)(r->ctx->seconds * 1e9 * (j + 1) / n);
}

unsigned stress_threads(const struct check_run *r)
{
    unsigned n = r->ctx->threads > 16 ? r->ctx->threads : 16;
    return r->ctx->stress_threads > n ? r->ctx->stress_threads : n;
}

void *table_create_or_null(const struct check_run *r, size_t initial, double density, unsigned threads,
                           uint64_t range, char *err, size_t len)
{
    struct cht_config cfg = { .initial = initial, .density = density, .range = range,
                              .max_threads = threads, .numa_nodes = 1, .value_size = r->value_size };
    if (r->ctx->initial_capacity && r->ctx->initial_capacity < initial)   /* chtbench check --initial-capacity */
        cfg.initial = r->ctx->initial_capacity;
    registry_apply_choice(r->choice, &cfg);
    if (r->ctx->before_create)
        r->ctx->before_create();
    return r->ops->create(&cfg, err, len);
}

void *table_create(struct check_run *r, size_t initial, double density, unsigned threads, uint64_t range)
{
    char err[256] = "";
    void *t = table_create_or_null(r, initial, density, threads, range, err, sizeof err);
    if (!t)
        check_fail(r, "create(%s, initial=%zu, density=%g) failed: %s", r->ops->name, initial, density, err);
    return t;
}

int check_team_run(struct check_run *r, struct team *team, unsigned n, void *(*fn)(void *), void *args,
                   size_t stride)
{
    unsigned started;
    if (team_start_or_none(team, n, false, fn, args, stride, &started) != 0) {
        check_fail(r, "pthread_create failed");
        return -1;
    }
    team_join(team);
    return 0;
}

uint64_t full_failures(const struct cht_ops *ops, void *t)
{
    struct cht_stats s = { 0 };
    if (ops->stats)
        ops->stats(t, &s);
    return s.full_failures;
}

int workers_check(struct check_run *r, struct worker *w, unsigned n, const char *what)
{
    int errors = 0;
    const char *first = NULL;
    unsigned ft = 0;
    for (unsigned i = 0; i < n; i++) {
        errors += w[i].errors;
        r->ops_total += w[i].done;
        if (w[i].errors && !first) {
            first = w[i].cex;
            ft = w[i].tid;
        }
    }
    CHECK(r, errors == 0, "thread %u %s; %d wrong results in all, %s, %u threads", ft, first ? first : "", errors,
          what, n);
    return errors;
}

/* ---------------- the entry points ---------------- */

static const char *const kind_names[] = { "model", "disjoint", "stable", "stress", "values", "steady", "versions",
                                          "history", NULL };

const char *check_kind_name(enum check_kind k)
{
    return k < CHECK_TABLE_KINDS ? kind_names[k] : NULL;
}

/* the check of kind k for this table: approximate tables (filters) run the
 * filter suite's variants where there are some */
static void run_kind(struct check_run *r, enum check_kind k)
{
    const bool approximate = r->ops->caps & CHT_CAP_APPROXIMATE;
    switch (k) {
    case CHECK_MODEL: approximate ? filter_model(r) : check_model(r); break;
    case CHECK_DISJOINT: approximate ? filter_disjoint(r) : check_disjoint(r); break;
    case CHECK_STABLE: approximate ? filter_stable(r) : check_stable(r); break;
    case CHECK_STRESS: approximate ? filter_stress(r) : check_stress(r); break;
    case CHECK_VALUES: check_values(r); break;
    case CHECK_STEADY: check_steady(r); break;
    case CHECK_VERSIONS: check_versions(r); break;
    case CHECK_HISTORY: check_history(r); break;
    default: break;
    }
}

enum check_verdict check_table(struct check_ctx *c, enum check_kind k)
{
    struct check_run run = { .ctx = c, .choice = c->choice, .ops = c->ops ? c->ops : c->choice->ops,
                             .value_size = c->value_size ? c->value_size : 8,
                             .spec_text = c->spec ? c->spec : c->choice->text,
                             .scale_pct = c->scale_pct ? c->scale_pct : 100 };
    struct check_run *r = &run;
    c->detail[0] = '\0';
    r->start_ns = now_ns();
    if (r->ops->caps & CHT_CAP_NO_DATA && k != CHECK_STRESS) {
        check_note(r, "%s: %s stores nothing; only the stress accounting applies\n", kind_names[k], r->ops->name);
        r->skip_why = "stores nothing (only the stress accounting applies)";
    } else {
        run_kind(r, k);   /* -1 (cut short) comes with a failure counted */
    }
    c->failures = r->failures;
    c->ops_done = r->ops_total;
    if (r->failures) {
        c->verdict = CHECK_FAIL;
    } else if (r->skip_why) {
        c->verdict = CHECK_SKIP;
        snprintf(c->detail, sizeof c->detail, "%s", r->skip_why);
    } else {
        c->verdict = CHECK_PASS;
        snprintf(c->detail, sizeof c->detail, "%llu ops%s%s", (unsigned long long)r->ops_total,
                 r->pass_note[0] ? ", " : "", r->pass_note);
    }
    return c->verdict;
}
