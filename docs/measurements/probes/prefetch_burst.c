/* prefetch_burst.c: what a software prefetch costs the core beside independent
 * work, by how the prefetches are grouped (pipeline.md, the 2026-12-03 10:30
 * section). Not part of the build.
 *
 * Chunks of B ops: first B prefetches of random lines of a 1 GiB buffer (one
 * xorshift draw each, nothing else between them), then K rounds of work per
 * op: four independent multiply-add chains in registers. Nothing ever loads
 * the prefetched lines, so what the prefetches cost is what they hold up.
 * NOPF=1 drops the prefetches (the work alone). B = 1 interleaves one
 * prefetch with each op's work, as a loop that hashes and prefetches inside
 * each op would; B = 16 is --pipeline's chunk. LOAD=1 makes each op's work
 * start with a load of a line the chunk before prefetched (a pipelined get's
 * step; with NOPF=1 the same loads with no prefetch before them), its word
 * summed apart from the chains (so a late line holds up retirement, not the
 * work).
 *
 *   gcc -O2 -o prefetch_burst prefetch_burst.c
 *   [NOPF=1] [LOAD=1] ./prefetch_burst B K [thp]          -> ns per op
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const int B = atoi(argv[1]), K = atoi(argv[2]), pf = getenv("NOPF") == NULL, ld = getenv("LOAD") != NULL;
    const size_t bytes = 1ul << 30;
    char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED || B < 1 || B > 1024)
        return 1;
    static uint64_t prev[1024], cur[1024];   /* the lines of the chunk before, and of this one */
    madvise(buf, bytes, argc > 3 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(buf, 1, bytes);
    uint64_t mask = bytes / 64 - 1, s = 88172645463325252ull, a1 = 1, a2 = 2, a3 = 3, a4 = 4, sum = 0;
    const long chunks = 4000000 / B;
    const double t0 = now();
    for (long c = 0; c < chunks; c++) {
        for (int i = 0; i < B; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            cur[i] = (s & mask) << 6;
            if (pf)
                __builtin_prefetch(buf + cur[i], 0, 3);
            else
                __asm__ volatile("" : : "r"(s));
        }
        for (int i = 0; i < B; i++) {
            if (ld && c > 0)
                sum += *(volatile uint64_t *)(buf + prev[i]);
            for (int j = 0; j < K; j++) {
                a1 = a1 * 3 + j;
                a2 = a2 * 5 + j;
                a3 = a3 * 7 + j;
                a4 = a4 * 9 + j;
                __asm__ volatile("" : "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4));
            }
        }
        memcpy(prev, cur, sizeof(uint64_t) * (size_t)B);
    }
    const double t = now() - t0;
    printf("%s%s B %d K %d %s: %.2f ns/op (%lu)\n", pf ? "prefetch" : "work only", ld ? " + load" : "", B, K,
           argc > 3 ? "thp" : "4k",
           t / ((double)chunks * B) * 1e9, (unsigned long)(a1 + a2 + a3 + a4 + sum));
    return 0;
}
