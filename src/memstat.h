/* memstat.h - process memory: RSS from /proc/self/status, jemalloc stats. */
#ifndef CHT_MEMSTAT_H
#define CHT_MEMSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct memsnap {
    bool rss_ok;
    uint64_t rss, peak;               /* VmRSS, VmHWM in bytes */
    bool thp_ok;
    uint64_t thp;                     /* AnonHugePages of /proc/self/smaps_rollup: memory in huge pages */
    bool je_ok;                       /* jemalloc serves malloc (-Dallocator=jemalloc or --allocator jemalloc) */
    uint64_t je_allocated, je_resident;
};
void memstat_take(struct memsnap *m);

/* What the allocator serving malloc has handed out (allocated, not resident), for
 * alloc_bytes_per_key (docs/measurement.md "Memory per element"): jemalloc's stats.allocated
 * when jemalloc serves malloc, else glibc's mallinfo2() (uordblks + hblkhd) when the C
 * library's own malloc does, each plus the arrays tables map themselves
 * (cht_large_mapped_bytes, tables/table_support.h); else, and with rss_only (a table whose
 * memory may come from a heap of its own: a plugin's), VmRSS. */
struct alloc_count {
    bool ok;
    const char *source;               /* "jemalloc", "mallinfo2", "rss" */
    uint64_t bytes;
    bool rss_ok;
    uint64_t rss;                     /* VmRSS as well, whatever the source */
};
void memstat_alloc_take(struct alloc_count *a, bool rss_only);
const char *memstat_allocator(void);   /* what serves malloc, found in the process (alloc.h) */

#endif
