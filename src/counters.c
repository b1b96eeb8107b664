/* counters.c - PAPI wrapper for --counters (see counters.h). Built without
 * PAPI, counters_setup() refuses with a usage message. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "counters.h"
#ifdef HAVE_PAPI
#include <papi.h>
#endif

#ifdef HAVE_PAPI
struct group {
    const char *name;
    const char *const events[CNT_MAX_EVENTS];
};
/* The named groups: presets, each kept only if PAPI_query_event says the machine has it. */
static const struct group groups[] = {
    { "cache", { "PAPI_L1_DCM", "PAPI_L2_DCM", "PAPI_L3_TCM", NULL } },
    { "tlb", { "PAPI_TLB_DM", "PAPI_TLB_IM", NULL } },
    { "ipc", { "PAPI_TOT_INS", "PAPI_TOT_CYC", NULL } },
};

static int papi_init(char *err, size_t len)
{
    static int state;   /* 0 not yet, 1 ok, -1 failed */
    if (state == 0) {
        int rc = PAPI_library_init(PAPI_VER_CURRENT);
        if (rc != PAPI_VER_CURRENT) {
            snprintf(err, len, "PAPI_library_init failed: %s", rc > 0 ? "version mismatch" : PAPI_strerror(rc));
            state = -1;
        } else if ((rc = PAPI_thread_init(pthread_self)) != PAPI_OK) {
            snprintf(err, len, "PAPI_thread_init failed: %s", PAPI_strerror(rc));
            state = -1;
        } else {
            state = 1;
        }
    }
    return state == 1 ? 0 : -1;
}

static void add_name(struct counter_set *cs, const char *name, int code)
{
    if (cs->n == CNT_MAX_EVENTS)
        return;
    snprintf(cs->names[cs->n], sizeof cs->names[0], "%s", name);
    cs->codes[cs->n++] = code;
}

/* Try the events as one event set here (start/stop): PAPI may know a name
 * that the machine cannot count (virtual machines: no PMU). */
static bool probe(struct counter_set *cs, char *why, size_t len)
{
    int es = PAPI_NULL, rc;
    if ((rc = PAPI_create_eventset(&es)) != PAPI_OK) {
        snprintf(why, len, "PAPI_create_eventset: %s", PAPI_strerror(rc));
        return false;
    }
    unsigned kept = 0;
    char dropped[256] = "";
    for (unsigned i = 0; i < cs->n; i++) {
        if (PAPI_add_event(es, cs->codes[i]) == PAPI_OK) {
            if (kept != i) {
                memcpy(cs->names[kept], cs->names[i], sizeof cs->names[0]);
                cs->codes[kept] = cs->codes[i];
            }
            kept++;
        } else {
            size_t dl = strlen(dropped);
            snprintf(dropped + dl, sizeof dropped - dl, "%s%s", dl ? "," : "", cs->names[i]);
        }
    }
    cs->n = kept;
    bool ok = kept > 0;
    long long v[CNT_MAX_EVENTS];
    if (ok && (rc = PAPI_start(es)) != PAPI_OK) {
        snprintf(why, len, "PAPI_start: %s", PAPI_strerror(rc));
        ok = false;
    } else if (ok) {
        PAPI_stop(es, v);
    } else {
        snprintf(why, len, "PAPI cannot count %s on this machine (papi_avail lists no usable hardware events: a virtual machine?)",
                 dropped);
    }
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    return ok;
}
#endif

int counters_setup(const char *spec, struct counter_set *cs, char *err, size_t len, char *warning, size_t wlen)
{
    memset(cs, 0, sizeof *cs);
    warning[0] = '\0';
    if (!*spec) {
        snprintf(err, len, "--counters: expected a group (cache, tlb, ipc) or PAPI event names like PAPI_TOT_INS,PAPI_TOT_CYC");
        return -1;
    }
#ifndef HAVE_PAPI
    snprintf(err, len, "--counters: this chtbench was built without PAPI (install libpapi-dev and rebuild with -Dpapi=enabled)");
    return -1;
#else
    /* The request as a list of event names (groups expanded), checked before
     * PAPI is asked anything, so that what is refused does not depend on
     * which events this machine has. */
    const char *req[CNT_MAX_EVENTS];
    bool req_grouped[CNT_MAX_EVENTS];
    unsigned nreq = 0;
    char copy[512];
    if (strlen(spec) >= sizeof copy) {
        snprintf(err, len, "--counters: '%.40s...' is too long (at most %d events)", spec, CNT_MAX_EVENTS);
        return -1;
    }
    if (spec[0] == ',' || spec[strlen(spec) - 1] == ',' || strstr(spec, ",,")) {
        snprintf(err, len, "--counters: empty element in '%s' (expected groups cache, tlb, ipc or PAPI event names, comma separated)", spec);
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const struct group *g = NULL;
        for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
            if (strcmp(tok, groups[i].name) == 0)
                g = &groups[i];
        const char *one[2] = { tok, NULL };
        const char *const *ev = g ? g->events : one;
        for (unsigned e = 0; ev[e]; e++) {
            if (strlen(ev[e]) >= sizeof cs->names[0]) {
                snprintf(err, len, "--counters: unknown group or PAPI event '%.64s...' (groups: cache, tlb, ipc; events: papi_avail, papi_native_avail)", ev[e]);
                return -1;
            }
            for (unsigned j = 0; j < nreq; j++)
                if (strcmp(req[j], ev[e]) == 0) {
                    snprintf(err, len, "--counters: event %s named twice in '%s'", ev[e], spec);
                    return -1;
                }
            if (nreq == CNT_MAX_EVENTS) {
                snprintf(err, len, "--counters: '%s' names more than %d events (at most %d per run)", spec,
                         CNT_MAX_EVENTS, CNT_MAX_EVENTS);
                return -1;
            }
            req_grouped[nreq] = g != NULL;
            req[nreq++] = ev[e];
        }
    }
    char why[512];
    if (papi_init(why, sizeof why) != 0) {
        snprintf(warning, wlen, "--counters: %s; counter cells left empty", why);
        cs->requested = true;
        return 0;
    }
    cs->requested = true;
    char missing[256] = "";
    for (unsigned i = 0; i < nreq; i++) {
        int code;
        if (PAPI_event_name_to_code(req[i], &code) != PAPI_OK) {
            if (!req_grouped[i]) {
                snprintf(err, len, "--counters: unknown group or PAPI event '%s' (groups: cache, tlb, ipc; events: papi_avail, papi_native_avail)", req[i]);
                return -1;
            }
        } else if (PAPI_query_event(code) == PAPI_OK) {
            add_name(cs, req[i], code);
            continue;
        }
        size_t ml = strlen(missing);
        snprintf(missing + ml, sizeof missing - ml, "%s%s", ml ? "," : "", req[i]);
    }
    if (!cs->n) {
        snprintf(warning, wlen, "--counters: no hardware event of '%s' is available here (%s not counted; papi_avail lists none: a virtual machine?); counter cells left empty",
                 spec, missing);
        return 0;
    }
    if (!probe(cs, why, sizeof why)) {
        cs->n = 0;
        snprintf(warning, wlen, "--counters: %s; counter cells left empty", why);
        return 0;
    }
    cs->active = true;
    size_t jl = 0;
    for (unsigned i = 0; i < cs->n; i++)
        jl += (size_t)snprintf(cs->joined + jl, sizeof cs->joined - jl, "%s%s", i ? ";" : "", cs->names[i]);
    if (missing[0])
        snprintf(warning, wlen, "--counters: %s not available here, counting %s", missing, cs->joined);
    return 0;
#endif
}

void counters_thread_init(const struct counter_set *cs, struct counter_thread *ct)
{
    memset(ct, 0, sizeof *ct);
#ifdef HAVE_PAPI
    ct->eventset = PAPI_NULL;
    if (!cs->active)
        return;
    if (PAPI_register_thread() != PAPI_OK || PAPI_create_eventset(&ct->eventset) != PAPI_OK)
        return;
    for (unsigned i = 0; i < cs->n; i++)
        if (PAPI_add_event(ct->eventset, cs->codes[i]) != PAPI_OK)
            return;
    ct->ok = true;
#else
    (void)cs;
#endif
}

void counters_thread_start(struct counter_thread *ct)
{
#ifdef HAVE_PAPI
    if (ct->ok)
        ct->running = PAPI_start(ct->eventset) == PAPI_OK;
    ct->ok = ct->running;
#else
    (void)ct;
#endif
}

void counters_thread_stop(struct counter_thread *ct)
{
#ifdef HAVE_PAPI
    if (ct->running)
        ct->ok = PAPI_stop(ct->eventset, ct->v) == PAPI_OK;
    ct->running = false;
#else
    (void)ct;
#endif
}

void counters_thread_exit(struct counter_thread *ct)
{
#ifdef HAVE_PAPI
    if (ct->eventset != PAPI_NULL) {
        PAPI_cleanup_eventset(ct->eventset);
        PAPI_destroy_eventset(&ct->eventset);
        PAPI_unregister_thread();
    }
#else
    (void)ct;
#endif
}
