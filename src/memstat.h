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
const char *memstat_allocator(void);   /* what serves malloc, found in the process (alloc.h) */

#endif
