/*
 * table_columns.c - the columns of the table run's results files, each one declaration carrying
 * its value (report.h): the table CSV (one row per repetition; --json prints the same row with
 * its JSON-only fields), --latency-csv (one row per operation class) and --timeline-csv (one
 * row per interval). Side-file rows start with the table CSV's run key and the build context,
 * so they join to it exactly.
 *
 * To add a column: an X(...) line at its place below (JSON for a field only the --json record
 * carries), bump the schema's version (table_columns.h), scripts/chtb/schema.py --update
 * docs/csv.md, and a migration note in docs/csv.md. Types: "int", "float", "text", "0/1";
 * units: "" or a short unit ("bytes", "ns", "cycles", "s", "ms", "Mops/s", "%", "share", ...).
 */
#include <string.h>
#include "table_columns.h"
#include "counters.h"
#include "registry.h"

/* ---------------- values more than one expression long ---------------- */

const char *run_outcome_name(enum run_outcome o)
{
    static const char *const names[] = { [OUTCOME_OK] = "ok", [OUTCOME_FULL] = "full", [OUTCOME_OOM] = "oom",
                                         [OUTCOME_FP_EXCESS] = "fp_excess",
                                         [OUTCOME_KEYSUM_MISMATCH] = "keysum_mismatch",
                                         [OUTCOME_VALUE_MISMATCH] = "value_mismatch",
                                         [OUTCOME_MISMATCH] = "mismatch", [OUTCOME_NOT_LINEARIZABLE] = "not_linearizable",
                                         [OUTCOME_BAD_ANSWER] = "bad_answer" };
    return names[o];
}

static const char *prefill_name(enum prefill_mode m) { return m == PREFILL_SINGLE ? "single" : "parallel"; }

static void mem_text(struct report_cell *cell, const struct bench_config *c)
{
    if (c->mem == MEM_NODE)
        cell_printf(cell, "node:%d", c->mem_node);
    else
        cell_s(cell, c->mem == MEM_INTERLEAVE ? "interleave" : "local");
}

static void dist_text(struct report_cell *cell, const struct bench_config *c)
{
    char buf[128];
    keygen_format(&c->dist, buf, sizeof buf);
    cell_printf(cell, "%s", buf);
}

void table_plugins(struct report_cell *cell, const struct table_choice *t, bool sha)
{
    const struct lock_ops *lk = registry_choice_lock(t);
    const struct registry_plugin *a = registry_table_plugin(t->ops), *b = lk ? registry_lock_plugin(lk) : NULL;
    if (a == b || !a)
        a = a ? a : b, b = NULL;
    if (sha)
        cell_printf(cell, "%s%s%s", a ? a->sha256 : "", b ? ";" : "", b ? b->sha256 : "");
    else
        cell_printf(cell, "%s%s%s", a ? a->name : "", b ? ";" : "", b ? b->name : "");
}

static bool is_filter(const struct record *rec) { return rec->table->ops->caps & CHT_CAP_APPROXIMATE; }
/* a filter whose answers the final check looked at */
static bool approx_checked(const struct record *rec)
{
    return is_filter(rec) && rec->r->check.verify_mode != VERIFY_OFF;
}
static bool exact_checked(const struct record *rec)
{
    return !is_filter(rec) && rec->r->check.verify_mode != VERIFY_OFF;
}
/* HTM (thesis tables 4.2-4.4): tables running under an elided lock report them */
static bool has_htm(const struct record *rec) { return rec->table->ops->caps & CHT_CAP_NEEDS_RTM; }

static uint64_t warmup_ops(const struct run_result *r)
{
    return r->warmup_count[GET_SUC] + r->warmup_count[GET_FAIL] + r->warmup_count[INS_SUC] +
           r->warmup_count[INS_FAIL] + r->warmup_count[REM_SUC] + r->warmup_count[REM_FAIL] +
           r->warmup_count[UPD_SUC] + r->warmup_count[UPD_FAIL];
}

static bool counted(const struct record *rec)
{
    return rec->counters && rec->counters->active && rec->r->counters.counters_ok;
}

static void counter_values(struct report_cell *cell, const struct record *rec)
{
    char buf[CNT_MAX_EVENTS * 32];
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned e = 0; counted(rec) && e < rec->counters->n; e++)
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%.6g", e ? ";" : "",
                              rec->r->counters.counter_per_op[e]);
    cell_printf(cell, "%s", buf);
}

/* --pipeline as given (src/run/pipe.c run_pipe_choose picks the W used) */
static void pipeline_asked(struct report_cell *cell, const struct bench_config *c)
{
    if (c->pipeline_auto)
        cell_s(cell, "auto");
    else
        cell_printf(cell, "%u", c->pipeline <= CHT_PIPELINE_MAX ? c->pipeline : 0);
}

static const char *pipeline_mode_name(unsigned mode)
{
    static const char *const names[] = { "-", "hooks", "fallback", "plain" };
    return names[mode];
}

/* the table CSV's latency columns: p50/p99/p99.9 in ns of the six get/insert/remove classes
 * (what one plots); every statistic of all eight classes goes to --latency-csv */
static bool lat_have(const struct lat_result *l, int st) { return l->on && l->st[st].count > 0; }
static double lat_ns(const struct lat_result *l, double cycles)
{
    return cycles * (l->on && l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0);
}
#define LAT_NS(ST, P) VAL_OD(lat_have(&r->lat, ST), lat_ns(&r->lat, r->lat.st[ST].P))

static void hist_text(struct report_cell *cell, const struct lat_stats *x)
{
    char buf[LAT_HIST_BUCKETS * 28];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < LAT_HIST_BUCKETS; k++)
        if (x->hist[k] && n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d:%llu", n ? ";" : "", k, (unsigned long long)x->hist[k]);
    cell_printf(cell, "%s", buf);
}

/* a table counter's value: an integer when it is one (a count stays exact past 6 digits) */
static bool integral(double v) { return v == (double)(int64_t)v && v > -9.2e18 && v < 9.2e18; }
static void counter_value(struct report_cell *cell, double v)
{
    if (integral(v))
        cell_i(cell, (int64_t)v);
    else
        cell_d(cell, v);
}

/* --json's table_counters: {"name": value, ...} (names are [a-z][a-z0-9_]*: no escaping) */
static void table_counters_json(struct report_cell *cell, const struct run_result *r)
{
    if (!r->memory.has_stats) {
        cell_none(cell);
        return;
    }
    char buf[CHT_COUNTERS_MAX * (CHT_COUNTER_NAME_MAX + 32) + 4];
    size_t n = (size_t)snprintf(buf, sizeof buf, "{");
    for (unsigned i = 0; i < r->table_counters.n && n < sizeof buf; i++) {
        double v = r->table_counters.c[i].value;
        n += integral(v) ? (size_t)snprintf(buf + n, sizeof buf - n, "%s\"%s\":%lld", i ? "," : "",
                                            r->table_counters.c[i].name, (long long)v)
                         : (size_t)snprintf(buf + n, sizeof buf - n, "%s\"%s\":%.17g", i ? "," : "",
                                            r->table_counters.c[i].name, v);
    }
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "}");
    cell_json(cell, buf);
}

static void alloc_bytes_cell(struct report_cell *cell, const struct run_result *r)
{
    if (r->build.has_alloc)
        cell_i(cell, (int64_t)r->build.alloc_bytes);
    else
        cell_none(cell);
}

static double interval_mops(const struct run_result *r, unsigned i)
{
    double dt = r->timeline.samples[i].t_ms - (i ? r->timeline.samples[i - 1].t_ms : 0);
    return dt > 0 ? (double)r->timeline.samples[i].ops / (dt * 1e3) : 0;
}

/* ---------------- the columns ---------------- */

/* The run key: what identifies a run and its workload. The table CSV's columns after `schema`,
 * and the prefix of every side-file row (to join them exactly). */
#define RUN_KEY_COLUMNS(X, S) \
    S(RUN_ID, "one random 64-bit id (hex) per chtbench invocation: every row of every file the invocation writes carries it") \
    S(TIMESTAMP, "end of the repetition (after its timed phase), UTC, ISO 8601 with milliseconds (`2026-11-23T09:21:35.256Z`)") \
    S(HOST, "hostname") \
    X(CSV, table, "text", "", "table", "table name", VAL_S(rec->table->ops->name)) \
    X(CSV, options, "text", "", "", "table options as given (`lock=mcs,hash=identity`), `-` if none (an empty cell would read as NaN in pandas)", VAL_S(rec->table->options_text[0] ? rec->table->options_text : "-")) \
    X(CSV, threads, "int", "", "threads", "worker threads", VAL_U(rec->threads)) \
    X(CSV, pin, "text", "", "pin", "`default`, `compact`, `balanced`, `list`", VAL_S(pin_policy_name(cfg->pin.policy))) \
    X(CSV, mem, "text", "", "mem", "`local`, `interleave`, `node:N`", mem_text(cell, cfg)) \
    X(CSV, dist, "text", "", "dist", "`uniform`, `zipf:THETA[,scramble]`", dist_text(cell, cfg)) \
    X(CSV, workload, "text", "", "workload", "`none`, `ycsb-a` .. `ycsb-f` (`--workload`), or `trace` (`--trace`)", VAL_S(cfg->trace_path ? "trace" : workload_name(cfg->workload))) \
    X(CSV, trace, "text", "", "", "`--trace` file as given; empty without", VAL_S(cfg->trace_path ? cfg->trace_path : "-")) \
    X(CSV, seed, "int", "", "seed", "`--seed`", VAL_U(cfg->seed)) \
    X(CSV, prefill, "text", "", "prefill", "`single` or `parallel`", VAL_S(prefill_name(cfg->prefill))) \
    X(CSV, update, "int", "%", "update", "update percent (= insert + remove)", VAL_U(cfg->update)) \
    X(CSV, insert, "int", "%", "insert", "insert percent", VAL_U(cfg->insert)) \
    X(CSV, remove, "int", "%", "remove", "remove percent", VAL_U(cfg->remove)) \
    X(CSV, initial, "int", "", "initial", "prefilled keys `i`", VAL_U(cfg->initial)) \
    X(CSV, range, "int", "", "range", "key range `r`", VAL_U(rec->range)) \
    X(CSV, density, "float", "", "density", "`--density`", VAL_D(cfg->density)) \
    X(CSV, duration_ms, "int", "ms", "duration", "requested timed phase (0 when `--ops` was used)", VAL_U(cfg->duration_ms)) \
    X(CSV, ops, "int", "", "ops", "requested operations per thread (0 when `--duration` was used)", VAL_U(cfg->ops)) \
    X(CSV, warmup_ms, "int", "ms", "", "`--warmup`: uncounted operations after the start barrier, before the timed phase (default 100 with `--duration`, 0 with `--ops`)", VAL_U(cfg->warmup_ms)) \
    X(CSV, hugepages, "text", "", "", "`--hugepages`: `off` or `thp` (docs/cli.md \"Huge pages\")", VAL_S(cfg->hugepages ? "thp" : "off")) \
    X(CSV, rep, "int", "", "", "repetition, from 0", VAL_U(rec->rep))

#define RUN_KEY_FN(where, name, type, unit, flag, meaning, value)                     \
    static void key_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                 \
        const struct record *rec = item;                                              \
        const struct bench_config *cfg = rec->cfg;                                    \
        (void)cfg, (void)row;                                                         \
        value;                                                                        \
    }
#define RUN_KEY_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, key_##name),
RUN_KEY_COLUMNS(RUN_KEY_FN, REPORT_NO_FN)
static const struct report_col run_key_cols[] = { RUN_KEY_COLUMNS(RUN_KEY_ENTRY, REPORT_SHARED_ENTRY) };

/* The table CSV after the run key, up to the build context */
#define TABLE_COLUMNS(X, S) \
    X(CSV, elapsed_s, "float", "s", "", "measured: last thread's end − first thread's start; with `--ceiling-slices`, less the mean time a thread spent in the chase slices (`ceiling_slices_s`): the table's own time", VAL_D(r->elapsed_s)) \
    X(CSV, total_ops, "int", "", "", "operations performed by all threads", VAL_U(r->total_ops)) \
    X(CSV, mops, "float", "Mops/s", "", "total_ops / elapsed_s / 10^6", VAL_D(r->mops)) \
    X(CSV, get_suc, "int", "", "", "gets that found the key", VAL_U(r->count[GET_SUC])) \
    X(CSV, get_fail, "int", "", "", "gets that did not", VAL_U(r->count[GET_FAIL])) \
    X(CSV, ins_suc, "int", "", "", "inserts that added the key", VAL_U(r->count[INS_SUC])) \
    X(CSV, ins_fail, "int", "", "", "inserts of a present key (or refused by a full fixed-capacity table)", VAL_U(r->count[INS_FAIL])) \
    X(CSV, rem_suc, "int", "", "", "removes that removed the key", VAL_U(r->count[REM_SUC])) \
    X(CSV, rem_fail, "int", "", "", "removes of an absent key", VAL_U(r->count[REM_FAIL])) \
    X(CSV, upd_suc, "int", "", "", "updates (YCSB A/B, traces) and read-modify-writes (YCSB F) that found their key", VAL_U(r->count[UPD_SUC])) \
    X(CSV, upd_fail, "int", "", "", "updates and read-modify-writes of an absent key", VAL_U(r->count[UPD_FAIL])) \
    X(CSV, warmup_ops, "int", "", "", "operations done in the warm-up (not in `total_ops`, `mops` or the six counts)", VAL_U(warmup_ops(r))) \
    X(JSON, warmup_ins_suc, "int", "", "", "successful inserts of the warm-up (they count in `expected_size`)", VAL_U(r->warmup_count[INS_SUC])) \
    X(JSON, warmup_rem_suc, "int", "", "", "successful removes of the warm-up (they count in `expected_size`)", VAL_U(r->warmup_count[REM_SUC])) \
    X(CSV, prefilled, "int", "", "", "prefill inserts that succeeded (= `initial` unless a fixed-capacity table refused keys: `outcome` full)", VAL_U(r->check.prefilled)) \
    X(CSV, final_size, "int", "", "", "`size()` after the timed phase", VAL_U(r->check.final_size)) \
    X(CSV, expected_size, "int", "", "", "`prefilled + ins_suc + warmup_ins_suc − rem_suc − warmup_rem_suc`", VAL_U(r->check.expected_size)) \
    X(CSV, size_ok, "0/1", "", "", "`size()` after the prefill equals `prefilled` and `final_size == expected_size`", VAL_U(r->check.size_ok)) \
    X(CSV, verify, "text", "", "", "the final check that ran (docs/cli.md \"The final check\"): `full` (every key of `[1, range]` looked up), `sample` (a uniform sample of distinct keys), `off` (`--verify off`, or a table that stores nothing)", VAL_S(verify_mode_name(r->check.verify_mode))) \
    X(JSON, verified_keys, "int", "", "", "keys the final check looked up with `get()` (all worker threads, each a slice)", VAL_U(r->check.verified_keys)) \
    X(JSON, verify_found, "int", "", "", "of those, keys `get()` found", VAL_U(r->check.verify_found)) \
    X(CSV, verify_ok, "0/1", "", "", "full: `verify_found == expected_size` (a filter, which may answer yes for absent keys: `>=`); sample: `verify_found` within 6 standard deviations of `verified_keys × expected_size / range`; empty when `verify` is off", VAL_OU(r->check.verify_mode != VERIFY_OFF, r->check.verify_ok)) \
    X(JSON, verify_s, "float", "s", "", "seconds the final check took (not part of `elapsed_s`)", VAL_D(r->check.verify_s)) \
    X(CSV, outcome, "text", "", "", "`ok`; `full` (a fixed-capacity table refused inserts for lack of room: exit 3); `oom` (the table could not allocate memory: exit 1); correctness failures, exit 1, the first that applies in this order: `bad_answer` (an answer given during the timed run was impossible: a `--pipeline` step left a result other than 1/0, or answered \"again\" where it may not; the console names the op), `not_linearizable` (`--verify history`: `history_violations` > 0; the console prints the first violating window), `mismatch` (`size_ok` or `verify_ok` is 0), `value_mismatch` (`verify_bad_values` > 0), `keysum_mismatch` (`verify_keysum_ok` = 0), `fp_excess` (a filter's `fp_rate` above `fp_limit`). The accounting is exact in the first three", VAL_S(run_outcome_name(r->outcome))) \
    X(CSV, fp_rate, "float", "share", "", "filters (`CHT_CAP_APPROXIMATE`): the share of the absent keys the final check looked up that the table answered \"present\"; empty for exact tables or `--verify off`", VAL_OD(approx_checked(rec), r->filter.fp_rate)) \
    X(JSON, fp_checked, "int", "", "", "filters: absent keys the final check looked up (the denominator of `fp_rate`)", VAL_OU(approx_checked(rec), r->filter.fp_checked)) \
    X(JSON, false_negatives, "int", "", "", "filters: keys the harness knows present that `get()` did not find (must be 0: else `verify_ok=0`)", VAL_OU(approx_checked(rec), r->filter.false_negatives)) \
    X(CSV, bits_per_item, "float", "", "", "filters: `table_bytes × 8 / final_size`", VAL_OD((rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->check.final_size, r->check.final_size ? (double)r->memory.stats.bytes * 8 / (double)r->check.final_size : 0)) \
    X(CSV, oversubscribed, "0/1", "", "", "more threads than usable CPUs (or a pin list repeating a CPU)", VAL_U(rec->oversubscribed)) \
    X(CSV, batch, "int", "", "", "`--batch`: gets issued per `get_batch` call (1: single gets)", VAL_U(cfg->batch)) \
    X(JSON, get_batch, "text", "", "", "`table` (the table has its own batched lookup), `single gets` (`--batch` > 1 on a table without one: the driver issues the gets one by one), `-` (no batching)", VAL_S(cfg->batch <= 1 ? "-" : rec->table->ops->get_batch ? "table" : "single gets")) \
    X(CSV, keybuf, "int", "", "", "ops drawn before the run per thread (`--keybuf`, docs/cli.md \"What is timed\"); 0: drawn in the loop", VAL_U(r->opbuf.opbuf_len)) \
    X(JSON, keybuf_bytes, "int", "bytes", "", "memory of those buffers, all threads", VAL_U(r->opbuf.opbuf_len * 8 * rec->threads)) \
    X(JSON, keybuf_wrapped, "0/1", "", "", "a thread's timed loop went round its buffer (the stream repeats its sample; uniform dense keys with writes shifted each round)", VAL_U(r->opbuf.opbuf_wrapped)) \
    X(JSON, keygen_ns, "float", "ns", "", "the generator's cost per draw, measured while filling the buffers; empty when drawn in the loop", VAL_OD(r->opbuf.opbuf_len > 0, r->opbuf.opbuf_len ? (double)r->opbuf.opbuf_ns / ((double)r->opbuf.opbuf_len * rec->threads) : 0)) \
    X(CSV, ceiling_mops, "float", "Mops/s", "", "`--ceiling`: how many independent cache-line misses per second (millions) this many threads complete at the table's size (`table_bytes_after_prefill` rounded up to m × 2^e / 8, m = 8..15: at most 12.5% more, in the table's pages: transparent huge pages when `--hugepages thp` put at least half of the table on them, else 4 KiB; the best k of `--bench memory` in three passes on one buffer); measured once per machine, size, thread count and pages and cached in `results/ceiling-v2-HOST.csv`. With `--ceiling-slices`, measured inside the run instead: the same chase (k = 32 and 16, the better; `ceiling_slices_k`) on the same size and pages, in every other slice of the timed phase, as the summed per-thread rate; empty without either flag, and for a table without `stats()`", VAL_OD(r->ceiling.ceiling_mops > 0, r->ceiling.ceiling_mops)) \
    X(CSV, ceiling_frac, "float", "share", "", "`mops / ceiling_mops`: how close the table gets to one independent miss per operation at the machine's limit", VAL_OD(r->ceiling.ceiling_mops > 0, r->ceiling.ceiling_mops > 0 ? r->mops / r->ceiling.ceiling_mops : 0)) \
    X(CSV, ceiling_slice_ms, "int", "ms", "", "`--ceiling-slices MS`: the table and the ceiling's chase took turns every MS ms of the timed phase, so `ceiling_frac` compares rates of the same seconds and `elapsed_s`, `mops` are the table's slices; empty when the ceiling (if any) is `--ceiling`'s cached one", VAL_OU(r->ceiling.ceiling_slices_k != 0, rec->cfg->ceiling_slice_ms)) \
    X(JSON, ceiling_slices_s, "float", "s", "", "`--ceiling-slices`: seconds a thread chased, mean of the threads (left out of `elapsed_s`)", VAL_OD(r->ceiling.ceiling_slices_k != 0, r->ceiling.ceiling_slices_s)) \
    X(JSON, ceiling_slices_k, "int", "", "", "`--ceiling-slices`: chains a thread (32 or 16) whose rate is `ceiling_mops`", VAL_OU(r->ceiling.ceiling_slices_k != 0, r->ceiling.ceiling_slices_k)) \
    X(CSV, table_bytes, "int", "bytes", "", "the table's own `stats()` bytes at the end (0 if it reports none)", VAL_U(r->memory.stats.bytes)) \
    X(CSV, buckets, "int", "", "", "the table's `stats()` buckets (or slots) at the end; 0 if it reports none", VAL_U(r->memory.stats.buckets)) \
    X(CSV, resizes, "int", "", "", "resizes the table performed", VAL_U(r->memory.stats.resizes)) \
    /* schema 12: the build phase (docs/measurement.md "The build phase", "Memory per element") */ \
    X(CSV, initial_capacity, "int", "", "initial-capacity", "`--initial-capacity N` (`--grow`: 1): the table was created sized for N keys and grew to `initial` during the build phase; empty when not given (sized for `initial`)", VAL_OU(cfg->initial_capacity != 0, cfg->initial_capacity)) \
    X(CSV, build_ms, "float", "ms", "", "the build phase: the prefill's wall time, from the barrier that releases the prefill threads (all of them, `--prefill parallel`, or thread 0 alone, `single`) to the last one's end; not part of `elapsed_s`", VAL_D(r->build.build_s * 1e3)) \
    X(CSV, build_mops, "float", "Mops/s", "", "`prefilled / build_ms / 10^3`: the build phase's inserts per second (millions); empty when `build_ms` is 0", VAL_OD(r->build.build_s > 0, r->build.build_s > 0 ? (double)r->check.prefilled / r->build.build_s / 1e6 : 0)) \
    X(CSV, build_resizes, "int", "", "", "resizes the table completed during the build phase (its `stats()` resizes after the prefill less those after create); empty for a table without `stats()`", VAL_OU(r->build.has_resizes, r->build.build_resizes)) \
    X(CSV, alloc_bytes_per_key, "float", "bytes", "", "`alloc_bytes / initial`: the bytes the allocator handed out (allocated, not resident) for create() and the build phase, over `initial` (docs/measurement.md \"Memory per element\"); empty when it could not be read", VAL_OD(r->build.has_alloc && cfg->initial, cfg->initial ? r->build.alloc_bytes / (double)cfg->initial : 0)) \
    X(CSV, alloc_bytes_source, "text", "", "", "where `alloc_bytes` comes from: `jemalloc` (`stats.allocated`, jemalloc serving malloc), `mallinfo2` (glibc's malloc: `uordblks + hblkhd`), each plus the arrays tables map themselves; `rss` (VmRSS: sanitizer runtimes, mimalloc, tcmalloc, and plugin tables, whose memory may come from a heap of their own)", VAL_S(r->build.has_alloc ? r->build.alloc_source : "")) \
    X(JSON, alloc_bytes, "int", "bytes", "", "the allocator's count after create() less before it, plus after the build phase less before it (the driver's own allocations between the two, per-thread buffers, a filter's bitmap, are left out; so is what a table allocates in `thread_init`)", alloc_bytes_cell(cell, r)) \
    X(CSV, full_failures, "int", "", "", "inserts refused because a fixed-capacity table was full", VAL_U(r->memory.stats.full_failures)) \
    X(JSON, alloc_failures, "int", "", "", "inserts refused because memory could not be allocated (tables that allocate per key)", VAL_U(r->memory.stats.alloc_failures)) \
    X(CSV, tx_begins, "int", "", "", "transactions started (tables under an RTM-elided lock, e.g. clht-rtm; empty for others; 0 when the lock ran without RTM)", VAL_OU(has_htm(rec), r->memory.stats.tx_begins)) \
    X(JSON, tx_commits, "int", "", "", "transactions committed", VAL_OU(has_htm(rec), r->memory.stats.tx_commits)) \
    X(CSV, tx_aborts, "int", "", "", "transactions aborted (abort rate = tx_aborts / tx_begins)", VAL_OU(has_htm(rec), r->memory.stats.tx_aborts)) \
    X(JSON, tx_fallbacks, "int", "", "", "critical sections that took the fallback lock (in the CSV until schema 9)", VAL_OU(has_htm(rec), r->memory.stats.tx_fallbacks)) \
    X(JSON, table_bytes_after_prefill, "int", "bytes", "", "the table's `stats()` bytes, taken by thread 0 right after the prefill size check; empty if the table has no `stats()`", VAL_OU(r->memory.has_stats, r->memory.table_bytes_after_prefill)) \
    X(CSV, bytes_per_key, "float", "bytes", "", "`table_bytes_after_prefill / initial`; empty if the table has no `stats()`", VAL_OD(r->memory.has_stats && cfg->initial, cfg->initial ? (double)r->memory.table_bytes_after_prefill / (double)cfg->initial : 0)) \
    X(JSON, rss_before_create_bytes, "int", "bytes", "", "process RSS (`VmRSS` of /proc/self/status) just before the table is created", VAL_OU(r->memory.mem_before_create.rss_ok, r->memory.mem_before_create.rss)) \
    X(JSON, rss_after_prefill_bytes, "int", "bytes", "", "process RSS after the prefill (thread 0, after the size check)", VAL_OU(r->memory.mem_after_prefill.rss_ok, r->memory.mem_after_prefill.rss)) \
    X(JSON, thp_after_prefill_bytes, "int", "bytes", "", "memory of the process in transparent huge pages after the prefill (AnonHugePages of /proc/self/smaps_rollup); empty where the kernel does not report it", VAL_OU(r->memory.mem_after_prefill.thp_ok, r->memory.mem_after_prefill.thp)) \
    X(JSON, rss_after_run_bytes, "int", "bytes", "", "process RSS after the timed phase, before the table is destroyed", VAL_OU(r->memory.mem_after_run.rss_ok, r->memory.mem_after_run.rss)) \
    X(JSON, rss_peak_bytes, "int", "bytes", "", "`VmHWM` (peak RSS of the whole process so far: it never decreases over the rows of one invocation) after the run; with `--ceiling-slices` it counts the chase's buffer too (freed before `rss_after_run_bytes` is taken)", VAL_OU(r->memory.mem_after_run.rss_ok, r->memory.mem_after_run.peak)) \
    X(JSON, jemalloc_allocated_before_create_bytes, "int", "bytes", "", "jemalloc `stats.allocated` before create (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`", VAL_OU(r->memory.mem_before_create.je_ok, r->memory.mem_before_create.je_allocated)) \
    X(JSON, jemalloc_allocated_after_prefill_bytes, "int", "bytes", "", "jemalloc `stats.allocated` after prefill (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`", VAL_OU(r->memory.mem_after_prefill.je_ok, r->memory.mem_after_prefill.je_allocated)) \
    X(JSON, jemalloc_resident_after_prefill_bytes, "int", "bytes", "", "jemalloc `stats.resident` after prefill (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`", VAL_OU(r->memory.mem_after_prefill.je_ok, r->memory.mem_after_prefill.je_resident)) \
    X(JSON, jemalloc_allocated_after_run_bytes, "int", "bytes", "", "jemalloc `stats.allocated` after run (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`", VAL_OU(r->memory.mem_after_run.je_ok, r->memory.mem_after_run.je_allocated)) \
    X(JSON, jemalloc_resident_after_run_bytes, "int", "bytes", "", "jemalloc `stats.resident` after run (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`", VAL_OU(r->memory.mem_after_run.je_ok, r->memory.mem_after_run.je_resident)) \
    X(CSV, speedup, "float", "", "", "`mops / median(mops of this table's 1-thread rows)` (the speedup S = T(N)/T(1) of the Tsinghua 2012 thesis on OS scalability on multicore); empty when the invocation's thread list has no 1, and for rows written before the first 1-thread group finished (a list like `4,1` leaves the 4-thread rows empty) — so it is empty in every multi-thread row of `scripts/sweep` and `scripts/figure`, which run each cell as its own invocation; their `summary*.csv` carries speedup = T(n)/T(1) across cells instead (docs/figures.md). The 1-thread rows themselves are held back until their group's reps are done, then written with their speedup", VAL_OD(rec->has_speedup, rec->speedup)) \
    X(CSV, counter_names, "text", "", "", "`--counters`: the PAPI events counted, `;`-joined (e.g. `PAPI_TOT_INS;PAPI_TOT_CYC`); empty when none could be counted", VAL_S(counted(rec) ? rec->counters->joined : "")) \
    X(CSV, counter_values_per_op, "text", "", "", "the events' totals over all threads (started after the start barrier, stopped after each thread's timed loop) divided by `total_ops`, `;`-joined in `counter_names` order; empty when not counted", counter_values(cell, rec)) \
    X(CSV, lat_every, "int", "", "", "`--latency`: one op in `lat_every` was timed (1: every op); empty without `--latency`", VAL_OU(r->lat.on, r->lat.every)) \
    X(JSON, lat_tsc_hz, "float", "Hz", "", "TSC frequency measured against CLOCK_MONOTONIC at start-up (ns = cycles × 10^9 / lat_tsc_hz)", VAL_OD(r->lat.on, r->lat.tsc_hz)) \
    X(JSON, lat_overhead_cycles, "int", "cycles", "", "median cost of an empty timing (stamp pair), subtracted from every sample (a sample below it counts as 0)", VAL_OU(r->lat.on, r->lat.overhead_cycles)) \
    X(JSON, lat_dropped, "int", "", "", "samples not kept because a thread's buffer for that store was full (the first samples are kept, later ones dropped)", VAL_OU(r->lat.on, r->lat.dropped)) \
    X(CSV, lat_get_suc_p50_ns, "float", "ns", "", "`get_suc` latency (gets that found the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_SUC, p50)) \
    X(CSV, lat_get_suc_p99_ns, "float", "ns", "", "`get_suc` latency (gets that found the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_SUC, p99)) \
    X(CSV, lat_get_suc_p999_ns, "float", "ns", "", "`get_suc` latency (gets that found the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_SUC, p999)) \
    X(CSV, lat_get_fail_p50_ns, "float", "ns", "", "`get_fail` latency (gets of an absent key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_FAIL, p50)) \
    X(CSV, lat_get_fail_p99_ns, "float", "ns", "", "`get_fail` latency (gets of an absent key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_FAIL, p99)) \
    X(JSON, lat_get_fail_p999_ns, "float", "ns", "", "`get_fail` latency (gets of an absent key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(GET_FAIL, p999)) \
    X(CSV, lat_ins_suc_p50_ns, "float", "ns", "", "`ins_suc` latency (inserts that added the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_SUC, p50)) \
    X(CSV, lat_ins_suc_p99_ns, "float", "ns", "", "`ins_suc` latency (inserts that added the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_SUC, p99)) \
    X(CSV, lat_ins_suc_p999_ns, "float", "ns", "", "`ins_suc` latency (inserts that added the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_SUC, p999)) \
    X(CSV, lat_ins_fail_p50_ns, "float", "ns", "", "`ins_fail` latency (inserts of a present key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_FAIL, p50)) \
    X(CSV, lat_ins_fail_p99_ns, "float", "ns", "", "`ins_fail` latency (inserts of a present key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_FAIL, p99)) \
    X(JSON, lat_ins_fail_p999_ns, "float", "ns", "", "`ins_fail` latency (inserts of a present key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(INS_FAIL, p999)) \
    X(CSV, lat_rem_suc_p50_ns, "float", "ns", "", "`rem_suc` latency (removes that removed the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_SUC, p50)) \
    X(CSV, lat_rem_suc_p99_ns, "float", "ns", "", "`rem_suc` latency (removes that removed the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_SUC, p99)) \
    X(JSON, lat_rem_suc_p999_ns, "float", "ns", "", "`rem_suc` latency (removes that removed the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_SUC, p999)) \
    X(CSV, lat_rem_fail_p50_ns, "float", "ns", "", "`rem_fail` latency (removes of an absent key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_FAIL, p50)) \
    X(CSV, lat_rem_fail_p99_ns, "float", "ns", "", "`rem_fail` latency (removes of an absent key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_FAIL, p99)) \
    X(JSON, lat_rem_fail_p999_ns, "float", "ns", "", "`rem_fail` latency (removes of an absent key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)", LAT_NS(REM_FAIL, p999)) \
    X(CSV, value_size, "int", "", "value-size", "`--value-size`: bytes per value (8, the default: the 8-byte value inline; more: stored out of line, replaced on update; docs/cli.md \"Value size\")", VAL_U(cfg->value_size)) \
    X(CSV, keys, "text", "", "keys", "`--keys`: `dense` (the default: keys 1..r as drawn) or `sparse` (each key k mapped by a fixed bijection of [1, 2^61] before the run, off the clock; docs/cli.md \"Key layout\")", VAL_S(cfg->keys_sparse ? "sparse" : "dense")) \
    X(CSV, key_type, "text", "", "", "`--key-type`: `u64` (the default: integer keys), `bytes:LEN`, `bytes:MIN..MAX`, `ycsb` or `words` (byte-string keys of the key arena: docs/workloads.md \"Byte-string keys\")", VAL_S(key_type_label(&cfg->key_type))) \
    X(CSV, verify_bad_values, "int", "", "", "the final check of values (docs/cli.md \"The final check\"): found keys whose value is not one the run wrote for that key (another key's, a version the run never wrote, garbage, or torn: `CHT_VAL_TORN`); must be 0, else `outcome=value_mismatch`, exit 1. Empty for filters (they store no values) and when `verify` is off", VAL_OU(exact_checked(rec), r->check.verify_bad_values)) \
    X(CSV, verify_keysum_ok, "0/1", "", "", "`--verify full` on an exact table: the keys found sum (mod 2^64) to the prefilled keys + the inserted keys − the removed keys (each as the table reported success), so a lost key and a key that should be gone cannot cancel in `verify_found`; 0: `outcome=keysum_mismatch` (unless the count failed too: `mismatch`), exit 1. Empty for `sample`, `off` and filters", VAL_OU(r->check.keysum_checked, r->check.keysum_ok)) \
    X(CSV, history_ops, "int", "", "", "`--verify history`: ops of the timed phase on watched keys recorded and checked (docs/cli.md \"Answers checked during the run\"); empty without it", VAL_OU(r->history.hist_on, r->history.hist.ops)) \
    X(CSV, history_violations, "int", "", "", "`--verify history`: watched keys whose history no order of their ops explains as a register (a lost update, a stale read, a wrong \"absent\" or \"present\", a value never written); must be 0, else `outcome=not_linearizable`, exit 1; empty without it", VAL_OU(r->history.hist_on, r->history.hist.violations)) \
    X(JSON, history_watched, "int", "", "", "`--verify history`: the watched keys (the multiples of `history_every` in the range, and YCSB-D's new keys so far) at the timed phase's start", VAL_OU(r->history.hist_on, r->history.hist_watched)) \
    X(JSON, history_every, "int", "", "", "`--verify history`: the watched keys are the multiples of this odd number (about range / K)", VAL_OU(r->history.hist_on, r->history.hist_watch_every)) \
    X(JSON, history_keys, "int", "", "", "`--verify history`: watched keys that the recorded ops touched", VAL_OU(r->history.hist_on, r->history.hist.keys)) \
    X(JSON, history_lost, "int", "", "", "`--verify history`: watched ops not recorded because their thread's buffer was full (its share of 64 MiB)", VAL_OU(r->history.hist_on, r->history.hist.lost)) \
    X(JSON, history_unanswered, "int", "", "", "`--verify history`: writes the cut (a full buffer) left without their answer, checked as pending", VAL_OU(r->history.hist_on, r->history.hist.unanswered)) \
    X(JSON, history_undecided, "int", "", "", "`--verify history`: watched keys the search gave up on (more than 64 ops open at once, or over 100000 states at one return); neither passed nor failed", VAL_OU(r->history.hist_on, r->history.hist.undecided)) \
    X(JSON, history_covered_s, "float", "s", "", "`--verify history`: the first this many seconds of the timed phase are checked (all of it unless a buffer filled)", VAL_OD(r->history.hist_on, (double)r->history.hist.covered_ns / 1e9)) \
    X(JSON, history_check_s, "float", "s", "", "`--verify history`: seconds the checker took (not part of `elapsed_s`)", VAL_OD(r->history.hist_on, r->history.hist.check_s)) \
    X(JSON, fp_bound, "float", "", "", "filters: the theoretical false-positive rate from the table's `stats()` (f fingerprint bits, b slots per bucket: `1 − (1 − 1/(2^f − 1))^(2b)`, about 2b/2^f); empty for exact tables, `verify` off, or a filter that states none", VAL_OD(approx_checked(rec) && r->filter.fp_bound > 0, r->filter.fp_bound)) \
    X(JSON, fp_limit, "float", "", "", "filters: the rate above which the run fails: `(m·p + 6·sqrt(m·p·(1 − p)) + 3) / m` for `m = fp_checked`, `p = fp_bound`; `fp_rate` above it is `outcome=fp_excess`, exit 1", VAL_OD(approx_checked(rec) && r->filter.fp_bound > 0, r->filter.fp_limit)) \
    X(JSON, filter_skipped_ins, "int", "", "", "filters: inserts of the timed phase not sent to the filter because the harness' membership says the key is present (a filter cannot refuse a duplicate); counted in `ins_fail` and `total_ops`. The filter's own inserts are `ins_suc + ins_fail − filter_skipped_ins`. Empty for exact tables", VAL_OU(is_filter(rec), r->filter.filter_skipped[0])) \
    X(JSON, filter_skipped_rem, "int", "", "", "filters: removes of the timed phase not sent because the key is absent (removing an absent key could delete another key's fingerprint); counted in `rem_fail` and `total_ops`", VAL_OU(is_filter(rec), r->filter.filter_skipped[1])) \
    X(CSV, plugin, "text", "", "", "the plugin (docs/plugins.md) that provided the table, or the lock it ran under (`TABLE;LOCK` when two plugins did); empty for built-ins", table_plugins(cell, rec->table, false)) \
    X(CSV, plugin_sha256, "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins", table_plugins(cell, rec->table, true)) \
    /* schema 9: --pipeline (docs/cli.md "Pipelined operations") */ \
    X(CSV, pipeline, "text", "", "pipeline", "`--pipeline` as given: `0` (off, the default) .. `64`, or `auto` (what a sweep's cell asked for)", pipeline_asked(cell, cfg)) \
    X(CSV, pipeline_w, "int", "", "", "operations in flight per thread in the timed loop (W); 0: single ops (no `--pipeline`, a table without the `pipe_start`/`pipe_step` hooks, or `auto` on a table no larger than 4x the core's private cache, L2)", VAL_U(r->pipe.pipeline_w)) \
    X(JSON, pipeline_mode, "text", "", "", "`-` (no `--pipeline`), `hooks` (the table's `pipe_start`/`pipe_step` hooks, W ops in flight), `fallback` (`--pipeline` on a table without the hook, or a filter: single ops), `plain` (`--pipeline auto` chose single ops: the table is no larger than 4x the core's private cache, L2)", VAL_S(pipeline_mode_name(r->pipe.pipeline_mode))) \
    X(JSON, cpu_share, "float", "share", "", "CPU time of the threads' timed loops / (threads × `elapsed_s`): below 1 when the threads were descheduled (a busy machine); `mops / cpu_share` is the rate while on a CPU", VAL_OD(r->elapsed_s > 0 && r->cpu_ns, r->elapsed_s > 0 ? (double)r->cpu_ns * 1e-9 / ((double)rec->threads * r->elapsed_s) : 0)) \
    X(JSON, table_counters, "object", "", "", "the counters the table reported itself after the run (`cht_stats_counter`, docs/plugins.md), `{\"name\": value, ...}`; `{}` when it reports none, null for a table without stats(); one row each in `--table-counters-csv`", table_counters_json(cell, r))

#define TABLE_FN(where, name, type, unit, flag, meaning, value)                         \
    static void table_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                   \
        const struct record *rec = item;                                                \
        const struct bench_config *cfg = rec->cfg;                                      \
        const struct run_result *r = rec->r;                                            \
        (void)cfg, (void)r, (void)row;                                                  \
        value;                                                                          \
    }
#define TABLE_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, table_##name),
TABLE_COLUMNS(TABLE_FN, REPORT_NO_FN)
static const struct report_col table_cols[] = { TABLE_COLUMNS(TABLE_ENTRY, REPORT_SHARED_ENTRY) };

/* --latency-csv: one row per (run, rep, operation class), after the run key and the context */
#define LATENCY_COLUMNS(X, S) \
    X(CSV, store, "text", "", "", "the operation class: `get_suc`, `get_fail`, `ins_suc`, `ins_fail`, `rem_suc`, `rem_fail`, `upd_suc`, `upd_fail` (the outcome counts of the table CSV); one row each", VAL_S(lat_store_name[row])) \
    X(CSV, every, "int", "", "", "`--latency`: one op in `every` was timed (1: every op); the table CSV's `lat_every`", VAL_U(l->every)) \
    X(CSV, tsc_hz, "float", "Hz", "", "TSC frequency measured against CLOCK_MONOTONIC at start-up (ns = cycles × 10^9 / tsc_hz)", VAL_D(l->tsc_hz)) \
    X(CSV, overhead_cycles, "int", "cycles", "", "median cost of an empty timing (stamp pair), subtracted from every sample (a sample below it counts as 0)", VAL_U(l->overhead_cycles)) \
    X(CSV, dropped, "int", "", "", "samples of the run (all classes) not kept because a thread's buffer for their class was full (the first samples are kept, later ones dropped)", VAL_U(l->dropped)) \
    X(CSV, count, "int", "", "", "samples of this class kept (all threads)", VAL_U(x->count)) \
    X(CSV, avg_cycles, "float", "cycles", "", "latency, mean; empty when no sample", VAL_OD(have, x->avg)) \
    X(CSV, stdev_cycles, "float", "cycles", "", "latency, sample standard deviation", VAL_OD(have, x->stdev)) \
    X(CSV, absdev_cycles, "float", "cycles", "", "latency, mean absolute deviation from avg", VAL_OD(have, x->absdev)) \
    X(CSV, min_cycles, "float", "cycles", "", "latency, minimum", VAL_OD(have, x->min)) \
    X(CSV, max_cycles, "float", "cycles", "", "latency, maximum", VAL_OD(have, x->max)) \
    X(CSV, p50_cycles, "float", "cycles", "", "latency, median (nearest rank)", VAL_OD(have, x->p50)) \
    X(CSV, p90_cycles, "float", "cycles", "", "latency, 90th percentile (nearest rank)", VAL_OD(have, x->p90)) \
    X(CSV, p99_cycles, "float", "cycles", "", "latency, 99th percentile (nearest rank)", VAL_OD(have, x->p99)) \
    X(CSV, p999_cycles, "float", "cycles", "", "latency, 99.9th percentile (nearest rank)", VAL_OD(have, x->p999)) \
    X(CSV, avg_ns, "float", "ns", "", "`avg_cycles` in ns", VAL_OD(have, x->avg * ns)) \
    X(CSV, stdev_ns, "float", "ns", "", "`stdev_cycles` in ns", VAL_OD(have, x->stdev * ns)) \
    X(CSV, absdev_ns, "float", "ns", "", "`absdev_cycles` in ns", VAL_OD(have, x->absdev * ns)) \
    X(CSV, min_ns, "float", "ns", "", "`min_cycles` in ns", VAL_OD(have, x->min * ns)) \
    X(CSV, max_ns, "float", "ns", "", "`max_cycles` in ns", VAL_OD(have, x->max * ns)) \
    X(CSV, p50_ns, "float", "ns", "", "`p50_cycles` in ns (the table CSV's `lat_<class>_p50_ns`)", VAL_OD(have, x->p50 * ns)) \
    X(CSV, p90_ns, "float", "ns", "", "`p90_cycles` in ns", VAL_OD(have, x->p90 * ns)) \
    X(CSV, p99_ns, "float", "ns", "", "`p99_cycles` in ns (the table CSV's `lat_<class>_p99_ns`)", VAL_OD(have, x->p99 * ns)) \
    X(CSV, p999_ns, "float", "ns", "", "`p999_cycles` in ns (the table CSV's `lat_<class>_p999_ns`)", VAL_OD(have, x->p999 * ns)) \
    X(CSV, within10_share, "float", "share", "", "sspfd value clustering: share (0..1) of the samples within ±10% of avg", VAL_OD(have, x->within10)) \
    X(CSV, within25_share, "float", "share", "", "the same within ±25%", VAL_OD(have, x->within25)) \
    X(CSV, within50_share, "float", "share", "", "the same within ±50%", VAL_OD(have, x->within50)) \
    X(CSV, hist_log2, "text", "cycles", "", "the log2 histogram: `b:n` for each non-empty bucket, `;`-joined, b ascending; bucket b holds the samples of [2^b, 2^(b+1) − 1] cycles (bucket 0: 0 and 1); the n sum to `count`; empty when no sample", hist_text(cell, x))

#define LATENCY_FN(where, name, type, unit, flag, meaning, value)                     \
    static void lat_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                 \
        const struct lat_result *l = &((const struct record *)item)->r->lat;          \
        const struct lat_stats *x = &l->st[row];                                      \
        bool have = lat_have(l, (int)row);                                            \
        double ns = lat_ns(l, 1);                                                     \
        (void)x, (void)have, (void)ns;                                                \
        value;                                                                        \
    }
#define LATENCY_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, lat_##name),
LATENCY_COLUMNS(LATENCY_FN, REPORT_NO_FN)
static const struct report_col latency_cols[] = { LATENCY_COLUMNS(LATENCY_ENTRY, REPORT_SHARED_ENTRY) };

/* --timeline-csv: one row per interval, after the run key and the context */
#define TIMELINE_COLUMNS(X, S) \
    X(CSV, t_ms, "float", "ms", "", "the sample time since the start of the timed phase (after any warm-up)", VAL_D(sample->t_ms)) \
    X(CSV, interval_ops, "int", "", "", "operations of all threads since the previous row (each thread publishes its count every 1024 ops; the last row adds the exact remainder, so the rows of a rep sum to `total_ops`)", VAL_U(sample->ops)) \
    X(CSV, interval_mops, "float", "Mops/s", "", "interval_ops / interval", VAL_D(interval_mops(r, row))) \
    X(CSV, hot_base, "int", "", "", "where the hot set of `--dist hotspot:...,shift=MS` starts at that moment (0 otherwise; it grows by the hot set's size at each shift)", VAL_U(sample->hot_base))

#define TIMELINE_FN(where, name, type, unit, flag, meaning, value)                   \
    static void tl_##name(struct report_cell *cell, const void *item, unsigned row) \
    {                                                                                \
        const struct run_result *r = ((const struct record *)item)->r;               \
        const struct tl_sample *sample = &r->timeline.samples[row];                  \
        (void)sample;                                                                \
        value;                                                                       \
    }
#define TIMELINE_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, tl_##name),
TIMELINE_COLUMNS(TIMELINE_FN, REPORT_NO_FN)
static const struct report_col timeline_cols[] = { TIMELINE_COLUMNS(TIMELINE_ENTRY, REPORT_SHARED_ENTRY) };

/* --table-counters-csv: one row per counter the table reported (cht_stats_counter), long form */
#define TABLE_COUNTERS_COLUMNS(X, S) \
    X(CSV, counter, "text", "", "", "the counter's name as the table reports it: `[a-z][a-z0-9_]*`, at most 47 characters (include/cht.h `cht_stats_counter`)", VAL_S(c->name)) \
    X(CSV, value, "float", "", "", "its value after the repetition (the table's stats() once the threads are joined); an integral value is written as an integer", counter_value(cell, c->value))

#define TABLE_COUNTERS_FN(where, name, type, unit, flag, meaning, value)                 \
    static void tc_##name(struct report_cell *cell, const void *item, unsigned row)    \
    {                                                                                   \
        const struct table_counter *c = &((const struct record *)item)->r->table_counters.c[row]; \
        value;                                                                          \
    }
#define TABLE_COUNTERS_ENTRY(where, name, type, unit, flag, meaning, value) \
    REPORT_ENTRY(where, name, type, unit, flag, meaning, tc_##name),
TABLE_COUNTERS_COLUMNS(TABLE_COUNTERS_FN, REPORT_NO_FN)
static const struct report_col table_counters_cols[] = { TABLE_COUNTERS_COLUMNS(TABLE_COUNTERS_ENTRY, REPORT_SHARED_ENTRY) };

/* each file's first column */
static const struct report_col table_head[] = {
    REPORT_COL_SCHEMA("this schema's version (" REPORT_STR(CSV_SCHEMA_VERSION) ")"),
};
static const struct report_col latency_head[] = {
    REPORT_COL_SCHEMA("the latency side file's schema version (" REPORT_STR(LATENCY_CSV_SCHEMA_VERSION) ")"),
};
static const struct report_col timeline_head[] = {
    REPORT_COL_SCHEMA("the timeline side file's schema version (" REPORT_STR(TIMELINE_CSV_SCHEMA_VERSION) ")"),
};
static const struct report_col table_counters_head[] = {
    REPORT_COL_SCHEMA("the table-counters side file's schema version (" REPORT_STR(TABLE_COUNTERS_CSV_SCHEMA_VERSION) ")"),
};

/* ---------------- the schemas ---------------- */

static const struct timespec *record_end(const void *item) { return &((const struct record *)item)->r->end_time; }

static unsigned latency_rows(const void *item)
{
    return ((const struct record *)item)->r->lat.on ? LAT_STORES : 0;
}

static unsigned timeline_rows(const void *item)
{
    const struct run_result *r = ((const struct record *)item)->r;
    return r->timeline.samples ? (unsigned)r->timeline.n : 0;
}

const struct report_schema table_schema = {
    "table", CSV_SCHEMA_VERSION, "", "--csv of table runs (and --json, with its JSON-only fields)",
    "chtbench table CSV (--csv)",
    { REPORT_PART(table_head), REPORT_PART(run_key_cols), REPORT_PART(table_cols), REPORT_CONTEXT_PART },
    record_end, NULL,
};
const struct report_schema latency_schema = {
    "latency", LATENCY_CSV_SCHEMA_VERSION, "S", "--latency-csv", "chtbench latency-histogram CSV (--latency-csv)",
    { REPORT_PART(latency_head), REPORT_PART(run_key_cols), REPORT_CONTEXT_PART, REPORT_PART(latency_cols) },
    record_end, latency_rows,
};
static unsigned table_counters_rows(const void *item)
{
    return ((const struct record *)item)->r->table_counters.n;
}

const struct report_schema table_counters_schema = {
    "table-counters", TABLE_COUNTERS_CSV_SCHEMA_VERSION, "U", "--table-counters-csv",
    "chtbench table-counters CSV (--table-counters-csv)",
    { REPORT_PART(table_counters_head), REPORT_PART(run_key_cols), REPORT_CONTEXT_PART,
      REPORT_PART(table_counters_cols) },
    record_end, table_counters_rows,
};
const struct report_schema timeline_schema = {
    "timeline", TIMELINE_CSV_SCHEMA_VERSION, "T", "--timeline-csv", "chtbench timeline CSV (--timeline-csv)",
    { REPORT_PART(timeline_head), REPORT_PART(run_key_cols), REPORT_CONTEXT_PART, REPORT_PART(timeline_cols) },
    record_end, timeline_rows,
};
