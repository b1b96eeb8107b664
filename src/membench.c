/*
 * membench.c - the machine's memory ceiling (see membench.h).
 *
 * The buffer is one random cycle through all its cache lines (Sattolo's
 * algorithm), each line holding the address of the next: a chase is a chain
 * of dependent loads that no prefetcher can predict, so one chase measures
 * the load-to-use latency at that working-set size, and k chases started at
 * evenly spaced points of the cycle measure how many misses a core keeps in
 * flight (throughput grows with k until the core's miss buffers or the
 * memory bandwidth saturate). Each k is its own instantiation with the
 * pointers in registers. Buffers are mmap'ed with MADV_NOHUGEPAGE (4 KiB
 * pages: a TLB miss per line at large sizes) or MADV_HUGEPAGE (THP).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "membench.h"
#include "keygen.h"
#include "outfile.h"
#include "report.h"
#include "runner.h"
#include "util.h"
#include "memstat.h"
#include "version.h"

#define LINE 64

struct mb_shared {
    char *buf;
    uint64_t lines;
    uint64_t *start;              /* per thread, per chase: the line it starts at */
    unsigned threads, k;
    uint64_t ms;
    pthread_barrier_t bar;
    const struct pin_topology *topo;
    const struct pin_plan *plan;
};

struct mb_worker {
    struct mb_shared *s;
    unsigned tid;
    uint64_t loads, ns;
    void *sink;
} __attribute__((aligned(64)));

/* SIGINT/SIGTERM, read from the chasing threads: an atomic load (the handler stores atomically) */
static inline bool mb_stop(void) { return __atomic_load_n(&runner_interrupted, __ATOMIC_RELAXED) != 0; }

/* K dependent chains, advanced in lock step in chunks of 256 steps until ms
 * have passed; the pointers stay in registers. */
#define CHASE(K)                                                                     \
    static uint64_t chase_##K(char **p, uint64_t ms, uint64_t *ns, void **sink)      \
    {                                                                                \
        char *q[K];                                                                  \
        for (int j = 0; j < K; j++)                                                  \
            q[j] = p[j];                                                             \
        uint64_t t0 = now_ns(), end = t0 + ms * 1000000ull, steps = 0, t;            \
        do {                                                                         \
            for (int i = 0; i < 256; i++)                                            \
                for (int j = 0; j < K; j++)                                          \
                    q[j] = *(char **)q[j];                                           \
            steps += 256;                                                            \
        } while ((t = now_ns()) < end && !mb_stop());                                \
        *ns = t - t0;                                                                \
        uintptr_t x = 0;                                                             \
        for (int j = 0; j < K; j++)                                                  \
            x ^= (uintptr_t)q[j];                                                    \
        *sink = (void *)x;                                                           \
        return steps * K;                                                            \
    }
CHASE(1)
CHASE(2)
CHASE(4)
CHASE(8)
CHASE(16)
CHASE(32)

static void *mb_worker_main(void *arg)
{
    struct mb_worker *w = arg;
    struct mb_shared *s = w->s;
    char err[160];
    if (s->plan)
        pin_apply(s->topo, s->plan, w->tid, err, sizeof err);
    char *p[MEMBENCH_MAX_K];
    for (unsigned j = 0; j < s->k; j++)
        p[j] = s->buf + s->start[w->tid * s->k + j] * LINE;
    pthread_barrier_wait(&s->bar);
    switch (s->k) {
    case 1: w->loads = chase_1(p, s->ms, &w->ns, &w->sink); break;
    case 2: w->loads = chase_2(p, s->ms, &w->ns, &w->sink); break;
    case 4: w->loads = chase_4(p, s->ms, &w->ns, &w->sink); break;
    case 8: w->loads = chase_8(p, s->ms, &w->ns, &w->sink); break;
    case 16: w->loads = chase_16(p, s->ms, &w->ns, &w->sink); break;
    default: w->loads = chase_32(p, s->ms, &w->ns, &w->sink); break;
    }
    return NULL;
}

/* The buffer as one random cycle of its lines; start[] gets threads*k
 * evenly spaced positions of the cycle. */
static char *build_cycle(uint64_t bytes, bool thp, uint64_t *lines_out, uint64_t *start, unsigned nstart,
                         size_t *mapped, char *err, size_t len)
{
    size_t map = (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    char *buf = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t lines = bytes / LINE;
    uint32_t *order = lines <= UINT32_MAX ? malloc(lines * sizeof *order) : NULL;
    if (buf == MAP_FAILED || !order) {
        snprintf(err, len, "--bench memory: out of memory for a %llu-byte buffer", (unsigned long long)bytes);
        if (buf != MAP_FAILED)
            munmap(buf, map);
        free(order);
        return NULL;
    }
    madvise(buf, map, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    /* Sattolo: a uniformly random cyclic permutation, as a visiting order */
    struct cht_rng rng;
    cht_rng_seed(&rng, 0x6d656d6265ull, bytes);
    for (uint64_t i = 0; i < lines; i++)
        order[i] = (uint32_t)i;
    for (uint64_t i = lines - 1; i > 0; i--) {
        if (!(i & 65535) && runner_interrupted) {   /* a 1T buffer takes minutes to build */
            snprintf(err, len, "interrupted");
            munmap(buf, map);
            free(order);
            return NULL;
        }
        uint64_t j = cht_rng_below(cht_rng_next(&rng), i);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint64_t i = 0; i < lines; i++) {
        if (!(i & 65535) && runner_interrupted) {
            snprintf(err, len, "interrupted");
            munmap(buf, map);
            free(order);
            return NULL;
        }
        *(char **)(buf + (uint64_t)order[i] * LINE) = buf + (uint64_t)order[(i + 1) % lines] * LINE;
    }
    for (unsigned j = 0; j < nstart; j++)
        start[j] = order[(uint64_t)j * lines / nstart];
    free(order);
    *lines_out = lines;
    *mapped = map;
    return buf;
}

int membench_measure(uint64_t bytes, bool thp, unsigned threads, unsigned k, unsigned ms,
                     const struct pin_topology *topo, const struct pin_plan *plan, struct membench_point *out,
                     char *err, size_t len)
{
    if (bytes < (uint64_t)LINE * threads * k) {
        snprintf(err, len, "--size: %llu bytes hold fewer lines than %u threads x %u chases",
                 (unsigned long long)bytes, threads, k);
        return -1;
    }
    struct mb_shared s = { .threads = threads, .k = k, .ms = ms, .topo = topo, .plan = plan };
    s.start = calloc((size_t)threads * k, sizeof *s.start);
    struct mb_worker *w = aligned_alloc(64, sizeof *w * threads);
    pthread_t *th = calloc(threads, sizeof *th);
    size_t mapped = 0;
    if (!s.start || !w || !th ||
        !(s.buf = build_cycle(bytes, thp, &s.lines, s.start, threads * k, &mapped, err, len))) {
        if (!err[0])
            snprintf(err, len, "--bench memory: out of memory");
        free(s.start);
        free(w);
        free(th);
        return -1;
    }
    memset(w, 0, sizeof *w * threads);
    pthread_barrier_init(&s.bar, NULL, threads);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    unsigned started = 0;
    for (; started < threads; started++) {
        w[started].s = &s;
        w[started].tid = started;
        if (pthread_create(&th[started], NULL, mb_worker_main, &w[started]) != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < threads) {
        fprintf(stderr, "chtbench: cannot start thread %u of %u\n", started, threads);
        exit(EXIT_FAILED);
    }
    uint64_t loads = 0, ns = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        loads += w[i].loads;
        ns = w[i].ns > ns ? w[i].ns : ns;
    }
    pthread_barrier_destroy(&s.bar);
    munmap(s.buf, mapped);
    *out = (struct membench_point){ .bytes = bytes, .thp = thp, .threads = threads, .k = k };
    out->ns_per_load = loads ? (double)ns * threads / (double)loads : 0;
    out->mloads_per_s = ns ? (double)loads / ((double)ns / 1e9) / 1e6 : 0;
    free(s.start);
    free(w);
    free(th);
    return 0;
}

static const unsigned ks[] = { 1, 2, 4, 8, 16, 32 };
#define NK (sizeof ks / sizeof ks[0])

static const char MEMBENCH_HEADER[] =
    "schema,run_id,timestamp,host,bytes,pages,threads,k,ns_per_load,mloads_per_s,"
    "version,git_rev,build_type,sanitizer,compiler,allocator\n";

static int csv_row(struct outfile *o, const struct membench_point *p)
{
    char row[1024], ts[40], host[256] = "unknown";
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
    gethostname(host, sizeof host - 1);
    int len = snprintf(row, sizeof row, "%d,%s,%s,%s,%llu,%s,%u,%u,%.6g,%.6g,%s,%s,%s,%s,%s,%s\n",
                       MEMBENCH_CSV_SCHEMA_VERSION, report_run_id(), ts, host, (unsigned long long)p->bytes,
                       p->thp ? "thp" : "4k", p->threads, p->k, p->ns_per_load, p->mloads_per_s, CHTBENCH_VERSION,
                       CHTBENCH_GIT_REV, CHTBENCH_BUILD_TYPE, CHTBENCH_SANITIZER, CHTBENCH_COMPILER,
                       memstat_allocator());
    char err[512];
    if (outfile_append(o, row, (size_t)len, err, sizeof err) != 0) {
        fprintf(stderr, "chtbench: %s\n", err);
        return -1;
    }
    return 0;
}

const char *membench_csv_header(void) { return MEMBENCH_HEADER; }

int membench_main(const struct bench_config *cfg, const struct pin_topology *topo, const struct pin_plan *plans)
{
    static const uint64_t def_sizes[] = { 16u << 10, 64u << 10, 256u << 10, 1u << 20, 4u << 20, 16u << 20,
                                          64u << 20, 256u << 20 };
    const uint64_t *sizes = cfg->mem_sizes ? cfg->mem_sizes : def_sizes;
    unsigned nsizes = cfg->mem_sizes ? cfg->n_mem_sizes : sizeof def_sizes / sizeof def_sizes[0];
    unsigned ms = cfg->duration_ms_given ? (unsigned)cfg->duration_ms : 200;
    FILE *human = cfg->csv_out && cfg->csv_out->is_stdout ? stderr : stdout;
    fprintf(human, "# bench=memory: dependent loads over a random cycle of cache lines; k chases per thread, "
                   "%u ms each\n", ms);
    fprintf(human, "%12s %5s %7s %10s", "bytes", "pages", "threads", "ns/load");
    for (unsigned i = 0; i < NK; i++)
        fprintf(human, "  Mload/s k=%-2u", ks[i]);
    fprintf(human, "\n");
    int status = 0;
    for (unsigned si = 0; si < nsizes && !runner_interrupted; si++)
        for (int thp = 0; thp < 2 && !runner_interrupted; thp++)
            for (unsigned ti = 0; ti < cfg->nthreads && !runner_interrupted; ti++) {
                unsigned threads = cfg->threads[ti];
                struct membench_point pt[NK];
                char err[256] = "";
                unsigned done = 0;
                for (; done < NK && !runner_interrupted; done++) {
                    if (membench_measure(sizes[si], thp, threads, ks[done], ms, topo, &plans[ti], &pt[done], err,
                                         sizeof err) != 0)
                        break;
                    if (runner_interrupted)   /* a point cut short is no measurement: no row */
                        break;
                    if (cfg->csv_out && csv_row(cfg->csv_out, &pt[done]) != 0)
                        status = EXIT_FAILED;
                }
                if (runner_interrupted)
                    break;
                if (err[0]) {
                    fprintf(stderr, "chtbench: %s\n", err);
                    status = EXIT_FAILED;
                }
                if (!done)
                    continue;
                fprintf(human, "%12llu %5s %7u %10.1f", (unsigned long long)sizes[si], thp ? "thp" : "4k", threads,
                        pt[0].ns_per_load);
                for (unsigned i = 0; i < done; i++)
                    fprintf(human, "  %13.1f", pt[i].mloads_per_s);
                fprintf(human, "\n");
                fflush(human);
            }
    return status;
}

/* ---------------- the ceiling of a table run, cached per machine ---------------- */

/* A cached ceiling is believed only when it is a plausible measurement: a
 * finite miss rate in (0, 10^5] Mloads/s (10^11 loads/s is far above any
 * machine's memory). Anything else - 0, 1e308, a torn or hand-edited line -
 * is ignored, so the point is measured again and the new value appended
 * (the last valid line for a key wins). */
#define CEILING_MAX_MLOADS 1e5

static bool cache_lookup(const char *path, uint64_t bytes, unsigned threads, double *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c2 || strchr(c2 + 1, ','))
            continue;
        *c1 = *c2 = '\0';
        uint64_t b, t;
        double v;
        if (parse_uint(line, &b) && parse_uint(c1 + 1, &t) && parse_double(c2 + 1, &v) && b == bytes &&
            t == threads && v > 0 && v <= CEILING_MAX_MLOADS) {
            *out = v;
            found = true;
        }
    }
    fclose(f);
    return found;
}

double membench_ceiling(uint64_t bytes, unsigned threads, const struct pin_topology *topo,
                        const struct pin_plan *plan)
{
    uint64_t b = 1u << 20;
    while (b < bytes && b < (1ull << 40))
        b <<= 1;
    char host[200] = "unknown", path[512] = "";
    gethostname(host, sizeof host - 1);
    struct stat st;
    if (stat("results", &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(path, sizeof path, "results/ceiling-%s.csv", host);
    double best = 0;
    if (path[0] && cache_lookup(path, b, threads, &best))
        return best;
    for (unsigned i = 0; i < NK && !runner_interrupted; i++) {
        struct membench_point pt;
        char err[256] = "";
        if (membench_measure(b, false, threads, ks[i], 100, topo, plan, &pt, err, sizeof err) == 0 &&
            pt.mloads_per_s > best)
            best = pt.mloads_per_s;
    }
    if (path[0] && best > 0 && !runner_interrupted) {
        FILE *f = fopen(path, "a");
        if (f) {
            fprintf(f, "%llu,%u,%.6g\n", (unsigned long long)b, threads, best);
            fclose(f);
        }
    }
    return best;
}
