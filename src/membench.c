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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "membench.h"
#include "mode.h"
#include "keygen.h"
#include "outfile.h"
#include "report.h"
#include "runner.h"
#include "team.h"
#include "util.h"
#include "memstat.h"

#define LINE 64

struct mb_shared {
    char *buf;
    uint64_t lines;
    uint64_t *start;              /* per thread, per chase: the line it starts at */
    unsigned threads, k;
    uint64_t ms;
    struct team team;
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
    team_wait(&s->team);
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

/* A built buffer: one random cycle of its lines, and the cycle's order
 * (order[i]: the i-th line visited), from which every (threads, k) takes its
 * evenly spaced starting lines; one buffer serves any number of measurements. */
struct mb_cycle {
    char *buf;
    uint64_t bytes, lines;
    uint32_t *order;
    size_t mapped;
};

static void cycle_free(struct mb_cycle *c)
{
    if (c->buf)
        munmap(c->buf, c->mapped);
    free(c->order);
    *c = (struct mb_cycle){ 0 };
}

static int build_cycle(uint64_t bytes, bool thp, struct mb_cycle *c, char *err, size_t len)
{
    size_t map = (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    char *buf = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t lines = bytes / LINE;
    uint32_t *order = lines <= UINT32_MAX ? malloc(lines * sizeof *order) : NULL;
    *c = (struct mb_cycle){ .buf = buf == MAP_FAILED ? NULL : buf, .bytes = bytes, .lines = lines, .order = order, .mapped = map };
    if (!c->buf || !order) {
        snprintf(err, len, "--bench memory: out of memory for a %llu-byte buffer", (unsigned long long)bytes);
        cycle_free(c);
        return -1;
    }
    madvise(buf, map, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    /* Sattolo: a uniformly random cyclic permutation, as a visiting order */
    struct cht_rng rng;
    cht_rng_seed(&rng, 0x6d656d6265ull, bytes);
    for (uint64_t i = 0; i < lines; i++)
        order[i] = (uint32_t)i;
    for (uint64_t i = lines - 1; i > 0; i--) {
        if (!(i & 65535) && runner_interrupted)     /* a 1T buffer takes minutes to build */
            break;
        uint64_t j = cht_rng_below(cht_rng_next(&rng), i);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint64_t i = 0; i < lines && !runner_interrupted; i++)
        *(char **)(buf + (uint64_t)order[i] * LINE) = buf + (uint64_t)order[(i + 1) % lines] * LINE;
    if (runner_interrupted) {
        snprintf(err, len, "interrupted");
        cycle_free(c);
        return -1;
    }
    return 0;
}

/* One measurement on a built buffer: threads threads, each with k chases
 * started at threads*k evenly spaced points of the cycle, for about ms. */
static int cycle_measure(const struct mb_cycle *c, bool thp, unsigned threads, unsigned k, unsigned ms,
                         const struct pin_topology *topo, const struct pin_plan *plan, struct membench_point *out,
                         char *err, size_t len)
{
    struct mb_shared s = { .buf = c->buf, .lines = c->lines, .threads = threads, .k = k, .ms = ms, .topo = topo,
                           .plan = plan };
    const unsigned nstart = threads * k;
    s.start = calloc(nstart, sizeof *s.start);
    struct mb_worker *w = aligned_alloc(64, sizeof *w * threads);
    if (!s.start || !w) {
        snprintf(err, len, "--bench memory: out of memory");
        free(s.start);
        free(w);
        return -1;
    }
    for (unsigned j = 0; j < nstart; j++)
        s.start[j] = c->order[(uint64_t)j * c->lines / nstart];
    memset(w, 0, sizeof *w * threads);
    for (unsigned i = 0; i < threads; i++) {
        w[i].s = &s;
        w[i].tid = i;
    }
    if (team_start(&s.team, threads, false, mb_worker_main, w, sizeof *w) != 0) {
        snprintf(err, len, "--bench memory: out of memory");
        free(s.start);
        free(w);
        return -1;
    }
    team_join(&s.team);
    uint64_t loads = 0, ns = 0;
    for (unsigned i = 0; i < threads; i++) {
        loads += w[i].loads;
        ns = w[i].ns > ns ? w[i].ns : ns;
    }
    *out = (struct membench_point){ .bytes = c->bytes, .thp = thp, .threads = threads, .k = k };
    out->ns_per_load = loads ? (double)ns * threads / (double)loads : 0;
    out->mloads_per_s = ns ? (double)loads / ((double)ns / 1e9) / 1e6 : 0;
    clock_gettime(CLOCK_REALTIME, &out->end_time);
    free(s.start);
    free(w);
    return 0;
}

static int check_size(uint64_t bytes, unsigned threads, unsigned k, char *err, size_t len)
{
    if (bytes >= (uint64_t)LINE * threads * k)
        return 0;
    snprintf(err, len, "--size: %llu bytes hold fewer lines than %u threads x %u chases",
             (unsigned long long)bytes, threads, k);
    return -1;
}

int membench_measure(uint64_t bytes, bool thp, unsigned threads, unsigned k, unsigned ms,
                     const struct pin_topology *topo, const struct pin_plan *plan, struct membench_point *out,
                     char *err, size_t len)
{
    struct mb_cycle c;
    if (check_size(bytes, threads, k, err, len) || build_cycle(bytes, thp, &c, err, len))
        return -1;
    int rc = cycle_measure(&c, thp, threads, k, ms, topo, plan, out, err, len);
    cycle_free(&c);
    return rc;
}

static const unsigned ks[] = { 1, 2, 4, 8, 16, 32 };
#define NK (sizeof ks / sizeof ks[0])

/* ---------------- --bench memory as a mode (mode.h): one cell per (size, pages, threads) ---------------- */

static const uint64_t default_sizes[] = { 16u << 10, 64u << 10, 256u << 10, 1u << 20, 4u << 20, 16u << 20,
                                          64u << 20, 256u << 20 };

static const uint64_t *mem_sizes(const struct bench_config *cfg, unsigned *n)
{
    *n = cfg->mem_sizes ? cfg->n_mem_sizes : sizeof default_sizes / sizeof default_sizes[0];
    return cfg->mem_sizes ? cfg->mem_sizes : default_sizes;
}

/* ms per point: -d, default 200 */
static unsigned point_ms(const struct bench_config *cfg) { return cfg->duration_ms_given ? (unsigned)cfg->duration_ms : 200; }

static int mem_prepare(struct run_context *ctx)
{
    (void)ctx;   /* the sizes were checked by the command line (src/cli/run_checks.c) against the thread counts */
    return 0;
}

static unsigned mem_cells(const struct run_context *ctx)
{
    unsigned n;
    mem_sizes(ctx->cfg, &n);
    return n * 2 * ctx->cfg->nthreads;
}

/* a cell's repetitions are the chase counts k of ks[] */
static void mem_cell(const struct run_context *ctx, unsigned i, struct mode_cell *c)
{
    unsigned nt = ctx->cfg->nthreads, ti = i % nt;
    *c = (struct mode_cell){ .name = "memory", .threads = ctx->cfg->threads[ti], .reps = NK,
                             .sub = { i / (2 * nt), (i / nt) % 2, ti } };
}

static int mem_run(struct run_context *ctx, const struct mode_cell *c, unsigned rep, void *result)
{
    unsigned n;
    const uint64_t *sizes = mem_sizes(ctx->cfg, &n);
    char err[256] = "";
    struct membench_point *pt = result;
    if (membench_measure(sizes[c->sub[0]], c->sub[1], c->threads, ks[rep], point_ms(ctx->cfg), ctx->topo,
                         &ctx->plans[c->sub[2]], pt, err, sizeof err) != 0) {
        if (runner_interrupted)
            return REP_INTERRUPTED;
        fprintf(stderr, "chtbench: %s\n", err);
        return REP_FATAL;
    }
    if (runner_interrupted)   /* a point cut short is no measurement: no row */
        return REP_INTERRUPTED;
    return 0;
}

/* ---------------- the memory-bench CSV (--csv, --json): one declaration a column (report.h) ---------------- */

#define MEMORY_COLUMNS(X, S) \
    S(SCHEMA, "memory-bench schema version (" REPORT_STR(MEMBENCH_CSV_SCHEMA_VERSION) ")") \
    S(RUN_ID, "the invocation's id") \
    S(TIMESTAMP, "when the point was measured, UTC, ISO 8601 with milliseconds") \
    S(HOST, "hostname") \
    X(CSV, bytes, "int", "bytes", "", "working set: one random cycle through all its 64-byte lines", VAL_U(p->bytes)) \
    X(CSV, pages, "text", "", "", "`4k` (`MADV_NOHUGEPAGE`) or `thp` (`MADV_HUGEPAGE`)", VAL_S(p->thp ? "thp" : "4k")) \
    X(CSV, threads, "int", "", "", "threads chasing in the one shared buffer", VAL_U(p->threads)) \
    X(CSV, k, "int", "", "", "chases in flight per thread (1: pure latency)", VAL_U(p->k)) \
    X(CSV, ns_per_load, "float", "ns", "", "per thread: elapsed / loads of one thread (k = 1: the load-to-use latency)", VAL_D(p->ns_per_load)) \
    X(CSV, mloads_per_s, "float", "M loads/s", "", "all threads: loads / elapsed / 10^6", VAL_D(p->mloads_per_s))

#define MEMORY_FN(where, name, type, unit, flag, meaning, value)                       \
    static void memory_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                  \
        const struct membench_point *p = item;                                         \
        (void)row;                                                                     \
        value;                                                                         \
    }
#define MEMORY_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, memory_##name),
MEMORY_COLUMNS(MEMORY_FN, REPORT_NO_FN)
static const struct report_col memory_cols[] = { MEMORY_COLUMNS(MEMORY_ENTRY, REPORT_SHARED_ENTRY) };

static const struct timespec *point_end(const void *item) { return &((const struct membench_point *)item)->end_time; }

static const struct report_schema memory_schema = {
    "memory", MEMBENCH_CSV_SCHEMA_VERSION, "M", "--csv of --bench memory", "chtbench memory-bench CSV (--bench memory)",
    { REPORT_PART(memory_cols), REPORT_CONTEXT_PART }, point_end, NULL,
};

static void mem_rows(struct run_context *ctx, const struct mode_cell *c, unsigned rep, const void *result,
                     struct speedup s)
{
    (void)c, (void)rep, (void)s;
    mode_emit(ctx, &memory_schema, result);
}

static void mem_console_header(struct run_context *ctx)
{
    FILE *f = ctx->human;
    fprintf(f, "# bench=memory: dependent loads over a random cycle of cache lines; k chases per thread, %u ms each\n",
            point_ms(ctx->cfg));
    fprintf(f, "%12s %5s %7s %10s", "bytes", "pages", "threads", "ns/load");
    for (unsigned i = 0; i < NK; i++)
        fprintf(f, "  Mload/s k=%-2u", ks[i]);
    fprintf(f, "\n");
}

static void mem_console_summary(struct run_context *ctx, const struct mode_cell *c, const void *results, unsigned n,
                                struct speedup s)
{
    (void)s;
    const struct membench_point *pt = results;
    FILE *f = ctx->human;
    fprintf(f, "%12llu %5s %7u %10.1f", (unsigned long long)pt[0].bytes, c->sub[1] ? "thp" : "4k", c->threads,
            pt[0].ns_per_load);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "  %13.1f", pt[i].mloads_per_s);
    fprintf(f, "\n");
    fflush(f);
}

const struct mode memory_mode = {
    .name = "memory",
    .files = { [OUT_MAIN] = &memory_schema },
    .result_size = sizeof(struct membench_point),
    .prepare = mem_prepare,
    .cells = mem_cells,
    .cell = mem_cell,
    .run = mem_run,
    .rows = mem_rows,
    .console_header = mem_console_header,
    .console_summary = mem_console_summary,
};

/* ---------------- the ceiling of a table run, cached per machine ---------------- */

/* A cached ceiling is believed only when it is a plausible measurement: a
 * finite miss rate in (0, 10^5] Mloads/s (10^11 loads/s is far above any
 * machine's memory). Anything else - 0, 1e308, a torn or hand-edited line -
 * is ignored, so the point is measured again and the new value appended
 * (the last valid line for a key wins). */
#define CEILING_MAX_MLOADS 1e5
#define CEILING_PASSES 3

/* A line is "bytes,threads,Mloads" (4 KiB pages: every file before huge pages
 * were told apart) or "bytes,threads,Mloads,thp". */
static bool cache_lookup(const char *path, uint64_t bytes, unsigned threads, bool thp, double *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        if (!c2 || (c3 && (strcmp(c3, ",thp") != 0)))
            continue;
        *c1 = *c2 = '\0';
        if (c3)
            *c3 = '\0';
        uint64_t b, t;
        double v;
        if (parse_uint(line, &b) && parse_uint(c1 + 1, &t) && parse_double(c2 + 1, &v) && b == bytes &&
            t == threads && (c3 != NULL) == thp && v > 0 && v <= CEILING_MAX_MLOADS) {
            *out = v;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The working set a table's ceiling is measured at: its bytes rounded up to
 * m * 2^e / 8 (m = 8..15), at least 1 MiB, at most 1 TiB; so at most 12.5%
 * above the table. Rounding up to a power of two measured a 1.09 GB table
 * at 2 GiB: twice its pages to walk, twice its page tables to cache. */
uint64_t ceiling_size(uint64_t bytes)
{
    if (bytes <= (1u << 20))
        return 1u << 20;
    if (bytes >= (1ull << 40))
        return 1ull << 40;
    const uint64_t step = (1ull << (63 - __builtin_clzll(bytes))) / 8;
    return (bytes + step - 1) / step * step;
}

bool ceiling_on_thp(bool hugepages, const struct memsnap *after_prefill, uint64_t bytes)
{
    return hugepages && after_prefill->thp_ok && after_prefill->thp >= bytes / 2;
}

double membench_ceiling(uint64_t bytes, unsigned threads, bool thp, const struct pin_topology *topo,
                        const struct pin_plan *plan)
{
    const uint64_t b = ceiling_size(bytes);
    char host[200] = "unknown", path[512] = "";
    gethostname(host, sizeof host - 1);
    struct stat st;
    if (stat("results", &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(path, sizeof path, "results/ceiling-v2-%s.csv", host);
    double best = 0;
    if (path[0] && cache_lookup(path, b, threads, thp, &best))
        return best;
    /* One buffer, every k, CEILING_PASSES times; the best of all. A busy host
     * (a neighbour on the memory bus, a stolen core) only ever lowers a
     * point, so the maximum is the estimate of what the machine can do; one
     * pass, cached for good, was seen at 21 M/s where later passes gave 86. */
    struct mb_cycle c;
    char err[256] = "";
    if (build_cycle(b, thp, &c, err, sizeof err) == 0) {
        for (unsigned pass = 0; pass < CEILING_PASSES; pass++)
            for (unsigned i = 0; i < NK && !runner_interrupted; i++) {
                struct membench_point pt;
                if (check_size(b, threads, ks[i], err, sizeof err) == 0 &&
                    cycle_measure(&c, thp, threads, ks[i], 100, topo, plan, &pt, err, sizeof err) == 0 &&
                    pt.mloads_per_s > best)
                    best = pt.mloads_per_s;
            }
        cycle_free(&c);
    }
    if (path[0] && best > 0 && !runner_interrupted) {
        FILE *f = fopen(path, "a");
        if (f) {
            fprintf(f, "%llu,%u,%.6g%s\n", (unsigned long long)b, threads, best, thp ? ",thp" : "");
            fclose(f);
        }
    }
    return best;
}

/* ---------------- --ceiling-slices: the chase inside a table run ---------------- */

struct ceiling_chase {
    struct mb_cycle cycle;
    char **start;      /* [threads * MEMBENCH_MAX_K]: thread t's chains start at start[t * MEMBENCH_MAX_K ...] */
};

struct ceiling_chase *ceiling_chase_new(uint64_t table_bytes, bool thp, unsigned threads, char *err, size_t len)
{
    const uint64_t b = ceiling_size(table_bytes);
    const unsigned nstart = threads * MEMBENCH_MAX_K;
    struct ceiling_chase *c = calloc(1, sizeof *c);
    char why[160] = "";
    if (!c || b / LINE < nstart || build_cycle(b, thp, &c->cycle, why, sizeof why) != 0) {
        snprintf(err, len, "--ceiling-slices: %s", runner_interrupted ? "interrupted"
                 : c && b / LINE < nstart ? "the chase buffer holds fewer lines than threads x 32 chases"
                 : "out of memory for the chase buffer");
        free(c);
        return NULL;
    }
    c->start = malloc(nstart * sizeof *c->start);
    if (!c->start) {
        snprintf(err, len, "--ceiling-slices: out of memory for the chase buffer");
        ceiling_chase_free(c);
        return NULL;
    }
    for (unsigned j = 0; j < nstart; j++)   /* as cycle_measure spreads threads * k chases */
        c->start[j] = c->cycle.buf + (uint64_t)c->cycle.order[(uint64_t)j * c->cycle.lines / nstart] * LINE;
    free(c->cycle.order);    /* the starts are all the run needs of the order */
    c->cycle.order = NULL;
    return c;
}

void ceiling_chase_chains(const struct ceiling_chase *c, unsigned tid, char *q[MEMBENCH_MAX_K])
{
    memcpy(q, c->start + (size_t)tid * MEMBENCH_MAX_K, MEMBENCH_MAX_K * sizeof *q);
}

void ceiling_chase_free(struct ceiling_chase *c)
{
    if (!c)
        return;
    cycle_free(&c->cycle);
    free(c->start);
    free(c);
}

/* K chains in lock step, 64 steps between looks at the flag (2048 loads at
 * K = 32: tens of microseconds, against slices of milliseconds) */
#define CHASE_WHILE(K)                                                               \
    static uint64_t chase_while_##K(char **p, const int *flag, int value)            \
    {                                                                                \
        char *q[K];                                                                  \
        uint64_t steps = 0;                                                          \
        memcpy(q, p, sizeof q);                                                      \
        while (__atomic_load_n(flag, __ATOMIC_RELAXED) == value) {                   \
            for (int i = 0; i < 64; i++)                                             \
                for (int j = 0; j < K; j++)                                          \
                    q[j] = *(char **)q[j];                                           \
            steps += 64;                                                             \
        }                                                                            \
        memcpy(p, q, sizeof q);                                                      \
        return steps * K;                                                            \
    }
CHASE_WHILE(16)
CHASE_WHILE(32)

uint64_t ceiling_chase_while(char *q[MEMBENCH_MAX_K], unsigned k, const int *flag, int value)
{
    return k == 16 ? chase_while_16(q, flag, value) : chase_while_32(q, flag, value);
}
