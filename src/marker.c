/* marker.c - see marker.h. likwid_markerInit() without likwid-perfctr's
 * environment only prints "Running without Marker API" and leaves every
 * later call inert; we check the environment ourselves and skip the calls. */
#include <stdio.h>
#include <stdlib.h>
#include "cht_env.h"
#include "marker.h"
#ifdef HAVE_LIKWID
#define LIKWID_PERFMON
#include <likwid-marker.h>
#endif

static bool live;

bool marker_built(void)
{
#ifdef HAVE_LIKWID
    return true;
#else
    return false;
#endif
}

bool marker_init(char *note, size_t len)
{
#ifdef HAVE_LIKWID
    if (!cht_env()->likwid_marker_env) {   /* set by likwid-perfctr -m */
        snprintf(note, len, "--likwid-marker: not running under likwid-perfctr -m: the marker regions are inactive");
        return false;
    }
    LIKWID_MARKER_INIT;
    live = true;
    return true;
#else
    snprintf(note, len, "--likwid-marker: built without likwid");
    return false;
#endif
}

void marker_thread_init(void)
{
#ifdef HAVE_LIKWID
    if (live) {
        LIKWID_MARKER_THREADINIT;
        LIKWID_MARKER_REGISTER("prefill");
        LIKWID_MARKER_REGISTER("run");
    }
#endif
}

void marker_start(const char *region)
{
#ifdef HAVE_LIKWID
    if (live)
        LIKWID_MARKER_START(region);
#else
    (void)region;
#endif
}

void marker_stop(const char *region)
{
#ifdef HAVE_LIKWID
    if (live)
        LIKWID_MARKER_STOP(region);
#else
    (void)region;
#endif
}

void marker_close(void)
{
#ifdef HAVE_LIKWID
    if (live)
        LIKWID_MARKER_CLOSE;
    live = false;
#endif
}
