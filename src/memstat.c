/* memstat.c - see memstat.h. */
#include <malloc.h>
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

/* tables/table_support.h: the arrays tables map themselves (weak there, read here) */
extern __attribute__((weak)) size_t cht_large_mapped_bytes;

static bool glibc_allocated(uint64_t *bytes)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi = mallinfo2();   /* all arenas: chunks in use, and malloc's own mappings */
    *bytes = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
    return true;
#else
    (void)bytes;
    return false;
#endif
}

void memstat_alloc_take(struct alloc_count *a, bool rss_only)
{
    memset(a, 0, sizeof *a);
    struct memsnap m;   /* VmRSS always: the source of last resort (run_build_collect) */
    memstat_take(&m);
    a->rss_ok = m.rss_ok;
    a->rss = m.rss;
    size_t *large = &cht_large_mapped_bytes;   /* NULL in a binary without tables/ */
    uint64_t mapped = large ? __atomic_load_n(large, __ATOMIC_RELAXED) : 0;
    alloc_mallctl_fn mallctl = alloc_mallctl();
    uint64_t epoch = 1;
    size_t sz = sizeof epoch, allocated = 0, asz = sizeof allocated;
    if (!rss_only && mallctl && mallctl("epoch", &epoch, &sz, &epoch, sz) == 0 &&
        mallctl("stats.allocated", &allocated, &asz, NULL, 0) == 0) {
        a->ok = true;
        a->source = "jemalloc";
        a->bytes = allocated + mapped;
        return;
    }
    if (!rss_only && !mallctl && alloc_glibc_malloc() && glibc_allocated(&a->bytes)) {
        a->ok = true;
        a->source = "mallinfo2";
        a->bytes += mapped;
        return;
    }
    a->ok = m.rss_ok;   /* sanitizer runtimes, mimalloc, tcmalloc, a plugin's own heap */
    a->source = "rss";
    a->bytes = m.rss;
}
