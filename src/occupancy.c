/*
 * occupancy.c - the occupancy and hit/miss benchmark (Alibaba's indexlib
 * note: dense vs chain vs 4-way cuckoo across occupancy 50%..90%+, hit-only
 * and miss-only lookups, the load at the first failed insert). One thread,
 * as the note. docs/csv.md "Occupancy CSV"; occupancy.h for the wiring.
 *
 * Per (table, rep), on a fresh table created with initial = slots and
 * density 1.0 (its real slot capacity C is stats.buckets afterwards):
 *   for each load L, ascending: insert the distinct keys 1.. up to
 *     n_L = round(L * C) (one key of precision: size() must equal n_L),
 *     timing that band of inserts; then `lookups` gets of keys drawn
 *     uniformly from the n_L present ones (hit phase: each must succeed) and
 *     `lookups` gets of keys never inserted, from [2^61, 2^61 + 2^40) (miss
 *     phase: each must fail, except on an approximate table, where the hits
 *     are its false positives), each phase timed on its own. The key draws
 *     (one xoroshiro step and a multiply-shift) are inside both timed loops.
 *   then, untimed, the table's probe_lines hook (cht.h; NULL: cells empty)
 *     averaged over min(lookups, 2^16) hit keys and as many miss keys drawn
 *     the same way from a separate stream (seed, 2^32 + rep): lines_hit,
 *     lines_miss (distinct 64-byte lines of key/value storage per get).
 *   an insert refused before n_L: the load is unreachable; that row and the
 *     higher ones say reached=0 and carry no throughput.
 *   after the last load: insert on until the first refusal (or C keys):
 *     max_load = keys at the first failed insert / C, the same in every row
 *     of that (table, rep); rows are written once it is known.
 * Tables without a fixed capacity (neither CHT_CAP_FIXED_CAP nor a
 * resizable table given resize=0) are refused before anything runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "occupancy.h"
#include "keygen.h"
#include "util.h"
#include "outfile.h"
#include "version.h"

#define OCC_SCHEMA OCCUPANCY_CSV_SCHEMA_VERSION
#define OCC_LINE_SAMPLE (UINT64_C(1) << 16)
#define OCC_MISS_BASE (UINT64_C(1) << 61)
#define OCC_MISS_SPAN (UINT64_C(1) << 40)

struct occ_row {
    double load_target, load, insert_mops, hit_mops, miss_mops, max_load, lines_hit, lines_miss;
    uint64_t slots, keys, hit_failures, miss_hits, bytes;
    unsigned rep;
    bool reached, lines;    /* lines: lines_hit/lines_miss measured (the table has probe_lines) */
};

static const char *const occ_columns =
    "schema,bench,timestamp,host,table,options,rep,slots,load_target,keys,load,reached,insert_mops,hit_mops,"
    "miss_mops,hit_failures,miss_hits,lines_hit,lines_miss,max_load,bytes,run_id,version,git_rev,build_type,sanitizer,compiler";

/* the header with its newline, for outfile_open */
const char *occupancy_csv_header(void)
{
    static char buf[512];
    if (!buf[0])
        snprintf(buf, sizeof buf, "%s\n", occ_columns);
    return buf;
}

/* the invocation's run_id (src/report.c); "-" where it is not linked in (tests/test_occupancy.c) */
const char *report_run_id(void) __attribute__((weak));
/* SIGINT/SIGTERM (src/runner.c); absent where runner.c is not linked in (tests/test_occupancy.c) */
extern volatile int runner_interrupted __attribute__((weak));
static bool interrupted(void) { return &runner_interrupted && runner_interrupted; }

bool occupancy_fixed_capacity(const struct table_choice *c, char *why, size_t len)
{
    const struct cht_ops *o = c->ops;
    if (o->caps & CHT_CAP_NO_DATA) {
        snprintf(why, len, "table '%s' stores nothing", o->name);
        return false;
    }
    if (o->caps & CHT_CAP_FIXED_CAP)
        return true;
    const char *r = cht_option_get(c->options, "resize");
    if ((o->caps & CHT_CAP_RESIZE) && r && strcmp(r, "0") == 0)
        return true;
    int n = snprintf(why, len, "table '%s' has no fixed capacity (it %s); fixed-capacity tables:", o->name,
                     o->caps & CHT_CAP_RESIZE ? "grows when full: give it resize=0 if it takes that option"
                                              : "never refuses an insert");
    const struct cht_ops *t;
    for (unsigned i = 0; (t = registry_table_at(i)) && n > 0 && (size_t)n < len; i++)
        if (t->caps & CHT_CAP_FIXED_CAP)
            n += snprintf(why + n, len - (size_t)n, " %s", t->name);
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline cht_key_t key_in(uint64_t i) { return i + 1; }

static void csv_fields(FILE *f, const struct bench_config *cfg, const struct table_choice *c,
                       const struct occ_row *r)
{
    char ts[32] = "", host[128] = "";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(host, sizeof host - 1);
    (void)cfg;
    fprintf(f, "%d,occupancy,%s,%s,%s,\"%s\",%u,%llu,%.4f,%llu,%.6f,%d,", OCC_SCHEMA, ts, host, c->ops->name,
            c->options_text[0] ? c->options_text : "-", r->rep, (unsigned long long)r->slots, r->load_target, (unsigned long long)r->keys,
            r->load, r->reached);
    if (r->reached)
        fprintf(f, "%.4f,%.4f,%.4f,%llu,%llu,", r->insert_mops, r->hit_mops, r->miss_mops,
                (unsigned long long)r->hit_failures, (unsigned long long)r->miss_hits);
    else
        fprintf(f, ",,,,,");
    if (r->reached && r->lines)
        fprintf(f, "%.4f,%.4f,", r->lines_hit, r->lines_miss);
    else
        fprintf(f, ",,");
    fprintf(f, "%.6f,%llu,%s,%s,%s,%s,%s,%s\n", r->max_load, (unsigned long long)r->bytes,
            report_run_id ? report_run_id() : "-", CHTBENCH_VERSION, CHTBENCH_GIT_REV, CHTBENCH_BUILD_TYPE,
            CHTBENCH_SANITIZER, CHTBENCH_COMPILER);
}

/* appends rows under an exclusive file lock; the header only into an empty file. Through the
 * invocation's checked results file (outfile.h) when main opened one. */
static int csv_append(const char *path, const struct bench_config *cfg, const struct table_choice *c,
                      const struct occ_row *rows, unsigned n)
{
    if (cfg->csv_out) {
        char *buf = NULL, err[512];
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            return -1;
        for (unsigned i = 0; i < n; i++)
            csv_fields(m, cfg, c, &rows[i]);
        fclose(m);
        int rc = outfile_append(cfg->csv_out, buf, len, err, sizeof err);
        if (rc)
            fprintf(stderr, "chtbench: %s\n", err);
        free(buf);
        return rc;
    }
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    int fd = fileno(f);
    flock(fd, LOCK_EX);
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size == 0)
        fprintf(f, "%s\n", occ_columns);
    for (unsigned i = 0; i < n; i++)
        csv_fields(f, cfg, c, &rows[i]);
    int err = fflush(f);
    flock(fd, LOCK_UN);
    return fclose(f) || err ? -1 : 0;
}

static void json_row(const struct table_choice *c, const struct occ_row *r)
{
    printf("{\"bench\":\"occupancy\",\"schema\":%d,\"table\":\"%s\",\"options\":\"%s\",\"rep\":%u,\"slots\":%llu,"
           "\"load_target\":%.4f,\"keys\":%llu,\"load\":%.6f,\"reached\":%d,",
           OCC_SCHEMA, c->ops->name, c->options_text, r->rep, (unsigned long long)r->slots, r->load_target,
           (unsigned long long)r->keys, r->load, r->reached);
    if (r->reached)
        printf("\"insert_mops\":%.4f,\"hit_mops\":%.4f,\"miss_mops\":%.4f,\"hit_failures\":%llu,\"miss_hits\":%llu,",
               r->insert_mops, r->hit_mops, r->miss_mops, (unsigned long long)r->hit_failures,
               (unsigned long long)r->miss_hits);
    else
        printf("\"insert_mops\":null,\"hit_mops\":null,\"miss_mops\":null,\"hit_failures\":null,\"miss_hits\":null,");
    if (r->reached && r->lines)
        printf("\"lines_hit\":%.4f,\"lines_miss\":%.4f,", r->lines_hit, r->lines_miss);
    else
        printf("\"lines_hit\":null,\"lines_miss\":null,");
    printf("\"max_load\":%.6f,\"bytes\":%llu}\n", r->max_load, (unsigned long long)r->bytes);
}

/* one (table, rep): fills rows[0..nloads); false on a correctness failure */
static bool occ_one(const struct bench_config *cfg, const struct table_choice *c, const struct occupancy_spec *sp,
                    const double *loads, unsigned rep, struct occ_row *rows, char *err, size_t elen)
{
    const struct cht_ops *o = c->ops;
    struct cht_config tc = { .initial = sp->slots, .density = 1.0, .range = OCC_MISS_BASE + OCC_MISS_SPAN,
                             .max_threads = 1, .numa_nodes = 1 };
    registry_apply_choice(c, &tc);
    void *t = o->create(&tc, err, elen);
    if (!t)
        return false;
    if (o->thread_init)
        o->thread_init(t, 0);
    struct cht_stats st = { 0 };
    if (o->stats)
        o->stats(t, &st);
    uint64_t C = st.buckets ? st.buckets : sp->slots, n = 0, lookups = sp->lookups ? sp->lookups : 1u << 20;
    bool full = false, ok = true;
    struct cht_rng r, rl;
    cht_rng_seed(&r, cfg->seed, rep);
    cht_rng_seed(&rl, cfg->seed, (UINT64_C(1) << 32) + rep);
    for (unsigned i = 0; i < sp->nloads; i++) {
        struct occ_row *row = &rows[i];
        *row = (struct occ_row){ .load_target = loads[i], .slots = C, .rep = rep };
        uint64_t target = (uint64_t)(loads[i] * (double)C + 0.5);
        uint64_t t0 = now_ns(), first = n;
        while (!full && n < target) {
            if (!(n & 4095) && interrupted())
                break;
            if (o->insert(t, key_in(n), key_in(n)))
                n++;
            else
                full = true;
        }
        uint64_t t1 = now_ns();
        if (interrupted()) {
            snprintf(err, elen, "interrupted");
            ok = false;
            break;
        }
        row->keys = n;
        row->load = (double)n / (double)C;
        row->reached = n == target;
        if (!row->reached)
            continue;
        if (o->size(t) != n) {
            snprintf(err, elen, "table %s: size() %zu after %llu distinct inserts", o->name, o->size(t),
                     (unsigned long long)n);
            ok = false;
            break;
        }
        row->insert_mops = n > first && t1 > t0 ? (double)(n - first) * 1e3 / (double)(t1 - t0) : 0;
        uint64_t misses = 0, hits = 0;
        t0 = now_ns();
        for (uint64_t q = 0; q < lookups && n; q++) {
            if (!(q & 65535) && interrupted())
                break;
            cht_val_t v;
            misses += !o->get(t, key_in(cht_rng_below(cht_rng_next(&r), n)), &v);
        }
        t1 = now_ns();
        row->hit_mops = t1 > t0 ? (double)lookups * 1e3 / (double)(t1 - t0) : 0;
        t0 = now_ns();
        for (uint64_t q = 0; q < lookups; q++) {
            if (!(q & 65535) && interrupted())
                break;
            cht_val_t v;
            hits += o->get(t, OCC_MISS_BASE + cht_rng_below(cht_rng_next(&r), OCC_MISS_SPAN), &v);
        }
        t1 = now_ns();
        row->miss_mops = t1 > t0 ? (double)lookups * 1e3 / (double)(t1 - t0) : 0;
        row->hit_failures = misses;
        row->miss_hits = hits;
        if (o->probe_lines && n) {     /* untimed: lines per get, replayed by the table */
            uint64_t sample = lookups < OCC_LINE_SAMPLE ? lookups : OCC_LINE_SAMPLE, lh = 0, lm = 0;
            for (uint64_t q = 0; q < sample; q++)
                lh += o->probe_lines(t, key_in(cht_rng_below(cht_rng_next(&rl), n)));
            for (uint64_t q = 0; q < sample; q++)
                lm += o->probe_lines(t, OCC_MISS_BASE + cht_rng_below(cht_rng_next(&rl), OCC_MISS_SPAN));
            row->lines = true;
            row->lines_hit = (double)lh / (double)sample;
            row->lines_miss = (double)lm / (double)sample;
        }
        if (misses || (hits && !(o->caps & CHT_CAP_APPROXIMATE))) {
            snprintf(err, elen, "table %s at load %.4f: %llu present keys not found, %llu absent keys found",
                     o->name, row->load, (unsigned long long)misses, (unsigned long long)hits);
            ok = false;
        }
    }
    /* on to the first refusal: the maximum load */
    while (ok && !full && n < C) {
        if (!(n & 4095) && interrupted()) {
            snprintf(err, elen, "interrupted");
            ok = false;
            break;
        }
        if (o->insert(t, key_in(n), key_in(n)))
            n++;
        else
            full = true;
    }
    if (o->stats)
        o->stats(t, &st);
    for (unsigned i = 0; i < sp->nloads; i++) {
        rows[i].max_load = (double)n / (double)C;
        rows[i].bytes = st.bytes;
    }
    if (o->thread_exit)
        o->thread_exit(t, 0);
    o->destroy(t);
    return ok;
}

int occupancy_check(const struct bench_config *cfg, const struct occupancy_spec *sp)
{
    char why[512];
    if (sp->nloads == 0 || sp->slots < 64) {
        fprintf(stderr, "chtbench: --bench occupancy: need --slots N (>= 64) and --load LIST\n");
        return EXIT_USAGE;
    }
    for (unsigned i = 0; i < sp->nloads; i++)
        if (!(sp->loads[i] > 0 && sp->loads[i] <= 1)) {
            fprintf(stderr, "chtbench: --load: %g is not a load factor in (0, 1]\n", sp->loads[i]);
            return EXIT_USAGE;
        }
    for (unsigned i = 0; i < cfg->ntables; i++)
        if (!occupancy_fixed_capacity(&cfg->table[i], why, sizeof why)) {
            fprintf(stderr, "chtbench: --bench occupancy: %s\n", why);
            return EXIT_USAGE;
        }
    return 0;
}

int occupancy_run(const struct bench_config *cfg, const struct occupancy_spec *sp)
{
    char why[512];
    int rc = occupancy_check(cfg, sp);
    if (rc)
        return rc;
    double *loads = malloc(sp->nloads * sizeof *loads);
    struct occ_row *rows = calloc(sp->nloads, sizeof *rows);
    if (!loads || !rows) {
        free(loads);
        free(rows);
        fprintf(stderr, "chtbench: out of memory\n");
        return EXIT_FAILED;
    }
    memcpy(loads, sp->loads, sp->nloads * sizeof *loads);
    qsort(loads, sp->nloads, sizeof *loads, cmp_double);
    FILE *human = cfg->json ? stderr : stdout;
    fprintf(human, "# occupancy: slots=%llu lookups=%llu per phase, one thread, seed=%llu\n",
            (unsigned long long)sp->slots, (unsigned long long)(sp->lookups ? sp->lookups : 1u << 20),
            (unsigned long long)cfg->seed);
    fprintf(human, "%-28s %3s %10s %6s %8s %10s %9s %9s %9s %7s %7s %8s\n", "table", "rep", "slots", "target",
            "load", "ins_Mops", "hit_Mops", "miss_Mops", "miss_hits", "l_hit", "l_miss", "max_load");
    int status = 0;
    unsigned reps = cfg->reps ? cfg->reps : 1;
    for (unsigned ti = 0; ti < cfg->ntables && !interrupted(); ti++) {
        const struct table_choice *c = &cfg->table[ti];
        if (!registry_choice_available(c, why, sizeof why)) {
            fprintf(stderr, "chtbench: table %s is not available here: %s\n", c->ops->name, why);
            status = EXIT_FAILED;
            continue;
        }
        for (unsigned rep = 0; rep < reps; rep++) {
            char err[512] = "";
            bool done = occ_one(cfg, c, sp, loads, rep, rows, err, sizeof err);
            if (interrupted())   /* a repetition cut short: no row (main reports the signal) */
                break;
            if (!done) {
                fprintf(stderr, "chtbench: --bench occupancy: %s\n", err[0] ? err : "failed");
                status = EXIT_FAILED;
                break;
            }
            for (unsigned i = 0; i < sp->nloads; i++) {
                const struct occ_row *r = &rows[i];
                char name[2200];
                snprintf(name, sizeof name, "%s%s%s", c->ops->name, c->options_text[0] ? ":" : "",
                         c->options_text);
                char lh[16] = "-", lm[16] = "-";
                if (r->reached && r->lines) {
                    snprintf(lh, sizeof lh, "%.3f", r->lines_hit);
                    snprintf(lm, sizeof lm, "%.3f", r->lines_miss);
                }
                if (r->reached)
                    fprintf(human, "%-28s %3u %10llu %6.3f %8.5f %10.3f %9.3f %9.3f %9llu %7s %7s %8.5f\n", name,
                            rep, (unsigned long long)r->slots, r->load_target, r->load, r->insert_mops, r->hit_mops,
                            r->miss_mops, (unsigned long long)r->miss_hits, lh, lm, r->max_load);
                else
                    fprintf(human, "%-28s %3u %10llu %6.3f %8.5f %10s %9s %9s %9s %7s %7s %8.5f\n", name, rep,
                            (unsigned long long)r->slots, r->load_target, r->load, "unreached", "-", "-", "-", "-",
                            "-", r->max_load);
                if (cfg->json)
                    json_row(c, r);
            }
            if (cfg->csv && csv_append(cfg->csv, cfg, c, rows, sp->nloads) != 0) {
                if (!cfg->csv_out)
                    fprintf(stderr, "chtbench: --csv: cannot append to '%s': %s\n", cfg->csv, strerror(errno));
                status = EXIT_FAILED;
            }
        }
    }
    free(loads);
    free(rows);
    return status;
}
