/*
 * test_occupancy.c - the occupancy benchmark (src/occupancy.c) through the
 * mode pipeline (src/modes.c, mode_run): one CSV row per (table, rep, load) with the documented
 * columns, loads honoured within one key, the maximum load, hit failures 0
 * and miss hits 0 for exact tables, tables without a fixed capacity refused
 * with exit 2 and nothing written, an unreachable load marked reached=0,
 * lines_hit/lines_miss (schema 2) filled for tables with probe_lines
 * (cuckoo's misses exactly 2 lines: both candidate buckets; dense's misses
 * growing with the load) and empty for the filter, which has no hook;
 * the build context (allocator last) on every row (schema 3).
 *
 * The header equals docs/csv.md "Occupancy CSV"'s column list (O1..On, in order).
 *
 *   test_occupancy CSVPATH [docs/csv.md]     (the file is removed first)
 */
#include <math.h>
#include <unistd.h>
#include "config.h"
#include "mode.h"
#include "occupancy.h"
#include "test_check.h"

static unsigned one_thread[] = { 1 };

/* an occupancy invocation: --slots 4096 --load LOADS --ops LOOKUPS --reps REPS --seed 1 --csv CSV */
static void setup(struct bench_config *cfg, const char *csv, const double *loads, unsigned nloads,
                  uint64_t lookups, unsigned reps)
{
    cfg->bench = BENCH_OCCUPANCY;
    cfg->threads = one_thread;
    cfg->nthreads = 1;
    cfg->occ_slots = 4096;
    cfg->occ_loads = (double *)loads;
    cfg->occ_nloads = nloads;
    cfg->ops = lookups;
    cfg->reps = reps;
    cfg->seed = 1;
    cfg->csv = csv;
}

/* splits a CSV line into cells[] in place, unquoting RFC 4180 cells (a sanitizer build's
 * "address,undefined"); returns their count */
static unsigned split(char *line, char **cells, unsigned max)
{
    unsigned n = 0;
    line[strcspn(line, "\n")] = 0;
    for (char *p = line, *w; p && n < max;) {
        cells[n++] = w = p;
        bool quoted = *p == '"';
        for (p += quoted; *p && (quoted || *p != ','); p++) {
            if (quoted && *p == '"') {
                if (p[1] != '"') {
                    quoted = false;
                    continue;
                }
                p++;
            }
            *w++ = *p;
        }
        char *next = *p == ',' ? p + 1 : NULL;
        *w = 0;
        p = next;
    }
    return n;
}

static void choose(struct bench_config *cfg, const char *spec)
{
    char err[512];
    if (registry_parse_table(spec, &cfg->table[cfg->ntables], err, sizeof err) != 0) {
        fprintf(stderr, "FAIL %s\n", err);
        exit(1);
    }
    cfg->ntables++;
}

static unsigned count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned n = 0;
    for (int ch; (ch = fgetc(f)) != EOF;)
        n += ch == '\n';
    fclose(f);
    return n;
}

/* "name,name,..." from the "| O<n> | name |" (or "| O<a>-O<b> | n1, n2, ... |") rows of docs/csv.md,
 * checking that the numbers run 1, 2, ... */
static void doc_columns(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot read %s", path);
    char line[2048];
    unsigned next = 1;
    size_t n = 0;
    out[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned a, b;
        int used = 0;
        if (sscanf(line, "| O%u-O%u | %n", &a, &b, &used) == 2 && used) {
        } else if (sscanf(line, "| O%u | %n", &a, &used) == 1 && used) {
            b = a;
        } else {
            continue;
        }
        CHECK(a == next, "docs: column O%u where O%u was expected", a, next);
        next = b + 1;
        char *names = line + used, *end = strchr(names, '|');
        if (!end)
            continue;
        *end = 0;
        unsigned count = 0;
        for (char *tok = strtok(names, ", "); tok; tok = strtok(NULL, ", ")) {
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "", tok);
            count++;
        }
        CHECK(count == b - a + 1, "docs: O%u-O%u names %u columns", a, b, count);
    }
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s CSVPATH [docs/csv.md]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        char doc[2048], hdr[2048];
        doc_columns(argv[2], doc, sizeof doc);
        snprintf(hdr, sizeof hdr, "%s", report_header_line(occupancy_mode.files[OUT_MAIN]));
        hdr[strcspn(hdr, "\n")] = 0;
        CHECK(strcmp(doc, hdr) == 0, "occupancy CSV header differs from docs/csv.md:\n  code: %s\n  docs: %s", hdr,
              doc);
    }
    const char *csv = argv[1];
    unlink(csv);
    static const double loads[] = { 0.9, 0.5, 0.7 };    /* any order: run ascending */

    /* refusals: nothing written, exit 2 */
    static struct bench_config bad;
    setup(&bad, csv, loads, 3, 20000, 1);
    choose(&bad, "dense");
    choose(&bad, "clht-lb");
    CHECK(mode_run(&bad) == EXIT_USAGE, "clht-lb (resizes) was not refused");
    static struct bench_config bad2;
    setup(&bad2, csv, loads, 3, 20000, 1);
    choose(&bad2, "cuckoo");
    CHECK(mode_run(&bad2) == EXIT_USAGE, "cuckoo without resize=0 was not refused");
    static const double bad_load[] = { 0.5, 1.5 };
    static struct bench_config bad3;
    setup(&bad3, csv, bad_load, 2, 20000, 1);
    choose(&bad3, "dense");
    CHECK(mode_run(&bad3) == EXIT_USAGE, "--load 1.5 was not refused");
    CHECK(access(csv, F_OK) != 0, "a refused run wrote %s", csv);

    /* dense, cuckoo:resize=0, the filter and chain-bounded, 2 reps */
    static struct bench_config cfg;
    setup(&cfg, csv, loads, 3, 20000, 2);
    choose(&cfg, "dense");
    choose(&cfg, "cuckoo:resize=0");
    choose(&cfg, "cuckoo-filter:fp_bits=8");
    choose(&cfg, "chain-bounded");
    CHECK(mode_run(&cfg) == 0, "occupancy run failed");
    CHECK(count_lines(csv) == 1 + 4 * 2 * 3, "%s: %u lines, expected header + 24 rows", csv, count_lines(csv));

    FILE *f = fopen(csv, "r");
    char line[2048], *cell[64];
    CHECK(f && fgets(line, sizeof line, f), "cannot read %s", csv);
    CHECK(strncmp(line, "schema,bench,timestamp,host,table,options,rep,slots,load_target,keys,load,reached,", 82) == 0,
          "header: %s", line);
    CHECK(strstr(line, ",miss_hits,lines_hit,lines_miss,max_load,"), "header without lines_hit,lines_miss: %s", line);
    unsigned ncols = split(line, cell, 64);
    CHECK(ncols == 30 && strcmp(cell[ncols - 1], "allocator") == 0 && strcmp(cell[22], "plugin") == 0,
          "schema 3: 30 columns, plugin after run_id, allocator last (%u columns)", ncols);
    unsigned rows = 0;
    double dense_miss[2][3] = { { 0 } };
    while (f && fgets(line, sizeof line, f)) {
        if (split(line, cell, 64) != ncols || strcmp(cell[0], "3") != 0 || strcmp(cell[1], "occupancy") != 0) {
            CHECK(0, "row does not parse: %s", line);
            continue;
        }
        const char *table = cell[4], *lcell = cell[17];
        unsigned rep = (unsigned)atoi(cell[6]), reached = (unsigned)atoi(cell[11]);
        unsigned long long slots = strtoull(cell[7], NULL, 10), keys = strtoull(cell[9], NULL, 10);
        unsigned long long hf = strtoull(cell[15], NULL, 10), mh = strtoull(cell[16], NULL, 10);
        double target = atof(cell[8]), ins = atof(cell[12]), hit = atof(cell[13]), miss = atof(cell[14]);
        double lh = lcell[0] ? atof(lcell) : -1, lm = cell[18][0] ? atof(cell[18]) : -1, maxl = atof(cell[19]);
        rows++;
        CHECK(cell[21][0] && cell[ncols - 1][0] && !cell[22][0], "%s: run_id and allocator set, no plugin", table);
        if (strcmp(table, "cuckoo-filter") == 0)
            CHECK(lh < 0 && lm < 0, "cuckoo-filter has no probe_lines but its row has lines");
        else
            CHECK(lh >= 1 && lm >= 1, "%s: lines_hit %.3f, lines_miss %.3f: expected >= 1", table, lh, lm);
        if (strcmp(table, "cuckoo") == 0)
            CHECK(lm == 2 && lh >= 1 && lh < 2, "cuckoo (2 candidates): lines_hit %.4f (in [1,2)), lines_miss %.4f (2)",
                  lh, lm);
        if (strcmp(table, "dense") == 0 && rep < 2)
            dense_miss[rep][target < 0.6 ? 0 : target < 0.8 ? 1 : 2] = lm;
        CHECK(reached == 1, "%s: load %.2f not reached", table, target);
        CHECK(fabs((double)keys - target * (double)slots) <= 1, "%s: %llu keys for load %.2f of %llu slots", table,
              keys, target, slots);
        CHECK(ins > 0 && hit > 0 && miss > 0, "%s: throughput missing", table);
        CHECK(hf == 0, "%s: %llu present keys not found", table, hf);
        CHECK(mh == 0 || strcmp(table, "cuckoo-filter") == 0, "%s: %llu absent keys found", table, mh);
        CHECK(maxl >= target && maxl <= 1, "%s: max_load %.4f below target %.2f", table, maxl, target);
        if (strcmp(table, "cuckoo") == 0)
            CHECK(maxl > 0.95, "cuckoo: max load %.4f", maxl);
        if (strcmp(table, "cuckoo-filter") == 0 && target > 0.85)
            CHECK(mh > 0 && mh < 20000 * 8 / 256 * 2, "cuckoo-filter f=8 at %.2f: %llu false positives of 20000",
                  target, mh);
    }
    CHECK(rows == 24, "%u rows parsed", rows);
    for (int r = 0; r < 2; r++)
        CHECK(dense_miss[r][0] < dense_miss[r][1] && dense_miss[r][1] < dense_miss[r][2],
              "dense rep %d: lines_miss %.3f %.3f %.3f at loads 0.5 0.7 0.9: expected growing", r, dense_miss[r][0],
              dense_miss[r][1], dense_miss[r][2]);
    if (f)
        fclose(f);

    /* a load beyond the filter's maximum: reached=0, empty throughput cells */
    unlink(csv);
    static const double high[] = { 0.5, 0.999 };
    static struct bench_config one;
    setup(&one, csv, high, 2, 1000, 1);
    choose(&one, "cuckoo-filter:retries=20");
    CHECK(mode_run(&one) == 0, "unreachable load: run failed");
    f = fopen(csv, "r");
    unsigned unreached = 0;
    while (f && fgets(line, sizeof line, f))
        unreached += strstr(line, ",0.999,") && strstr(line, ",0,,,,,,,,");
    if (f)
        fclose(f);
    CHECK(unreached == 1, "load 0.999 with retries=20 should be unreached (one row with empty cells)");
    unlink(csv);
    if (failures) {
        fprintf(stderr, "test_occupancy: %d checks failed\n", failures);
        return 1;
    }
    printf("occupancy: refusals, 24 rows, loads within one key, max load, lines per get, unreachable load: ok\n");
    return 0;
}
