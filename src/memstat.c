/* memstat.c - see memstat.h. */
#include <stdio.h>
#include <string.h>
#include "alloc.h"
#include "memstat.h"

void memstat_take(struct memsnap *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[256];
        bool have_rss = false, have_hwm = false;
        unsigned long long kb;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "VmRSS: %llu kB", &kb) == 1) {
                m->rss = kb * 1024;
                have_rss = true;
            } else if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) {
                m->peak = kb * 1024;
                have_hwm = true;
            }
        }
        fclose(f);
        m->rss_ok = have_rss && have_hwm;
    }
    f = fopen("/proc/self/smaps_rollup", "re");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
                m->thp = kb * 1024;
                m->thp_ok = true;
            }
        fclose(f);
    }
    /* jemalloc's statistics whenever jemalloc serves malloc: linked (-Dallocator=jemalloc) or preloaded
     * (--allocator jemalloc); its mallctl is the one alloc.c found serving this process */
    alloc_mallctl_fn mallctl = alloc_mallctl();
    uint64_t epoch = 1;
    size_t sz = sizeof epoch;
    size_t a = 0, r = 0, asz = sizeof a, rsz = sizeof r;
    if (mallctl && mallctl("epoch", &epoch, &sz, &epoch, sz) == 0 && mallctl("stats.allocated", &a, &asz, NULL, 0) == 0 &&
        mallctl("stats.resident", &r, &rsz, NULL, 0) == 0) {
        m->je_ok = true;
        m->je_allocated = a;
        m->je_resident = r;
    }
}

const char *memstat_allocator(void)
{
    return alloc_detected();
}
