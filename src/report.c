/*
 * report.c - what a run leaves behind: an aligned console summary, CSV rows
 * and JSON records. Every column is declared once below ("the schemas"); docs/csv.md
 * is generated from the declarations (chtbench --schema). Bump the schema's version
 * on any column change.
 *
 * CSV rows are appended to possibly shared files by parallel chtbench runs:
 * each row is formatted in memory, then written with one write() on an
 * O_APPEND descriptor while holding flock(LOCK_EX), the header only when the
 * file is empty under that same lock. A torn or interleaved row is impossible.
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "report.h"
#include "version.h"
#include "memstat.h"
#include "util.h"
#include "membench.h"
#include "occupancy.h"

#define MAX_FIELDS 512

/* ================= the schemas: ONE declaration per column =================
 *
 * Every column of every file chtbench writes is declared below, in file order: name, type,
 * unit, the chtbench flag a sweep cell's value is matched against in it (scripts/chtb/config.py;
 * "" for none) and its meaning. From these come the CSV headers, the --json field names,
 * `chtbench --schema` and docs/csv.md's column tables (scripts/chtb/schema.py --update docs/csv.md;
 * tests/test_schema.py checks the doc equals the generated text).
 *
 * The row builders below still put values by name (put_s/put_u/put_d/put_ou/put_od/r_put_i),
 * but each put is checked against the declaration at that position: a column put and not
 * declared, declared in another order, or declared and never put aborts chtbench on its first
 * header (every run builds it), naming the column. So no column reaches a file undeclared.
 *
 * To add a column: a COL(...) line at its place here (JSON_ONLY(...) for a field the --json
 * record carries and the CSV leaves out), the put_*() call at the same place in the builder,
 * bump the schema's version, scripts/chtb/schema.py --update docs/csv.md, and a migration note
 * in docs/csv.md. A put_*() added without its declaration compiles, and the first run says
 * "the table row puts column 'X' at position N, where src/report.c declares 'Y'": add X's
 * COL line just before Y's. Types: "int", "float", "text", "0/1"; units: "" or a short unit
 * ("bytes", "ns", "cycles", "s", "ms", "Mops/s", "%", "share", ...). */

enum col_where { IN_CSV, IN_JSON };   /* IN_JSON: a detail field of the --json record only */
struct col_decl {
    const char *name, *type, *unit, *flag, *meaning;
    enum col_where where;
};
#define COL(name, type, unit, flag, meaning) { name, type, unit, flag, meaning, IN_CSV }
#define JSON_ONLY(name, type, unit, flag, meaning) { name, type, unit, flag, meaning, IN_JSON }
#define STR_(x) #x
#define STR(x) STR_(x)
#define NCOLS(a) (unsigned)(sizeof a / sizeof a[0])

/* the table CSV's first column, and each side file's */
static const struct col_decl table_head[] = {
    COL("schema", "int", "", "", "this schema's version (" STR(CSV_SCHEMA_VERSION) ")"),
};
static const struct col_decl latency_head[] = {
    COL("schema", "int", "", "", "the latency side file's schema version (" STR(LATENCY_CSV_SCHEMA_VERSION) ")"),
};
static const struct col_decl timeline_head[] = {
    COL("schema", "int", "", "", "the timeline side file's schema version (" STR(TIMELINE_CSV_SCHEMA_VERSION) ")"),
};

/* The run key: what identifies a run and its workload. The table CSV's columns after `schema`,
 * and the prefix of every side-file row (to join them exactly). */
static const struct col_decl run_key_cols[] = {
    COL("run_id", "text", "", "", "one random 64-bit id (hex) per chtbench invocation: every row of every file the invocation writes carries it"),
    COL("timestamp", "text", "", "", "end of the repetition (after its timed phase), UTC, ISO 8601 with milliseconds (`2026-11-23T09:21:35.256Z`)"),
    COL("host", "text", "", "", "hostname"),
    COL("table", "text", "", "table", "table name"),
    COL("options", "text", "", "", "table options as given (`lock=mcs,hash=identity`), `-` if none (an empty cell would read as NaN in pandas)"),
    COL("threads", "int", "", "threads", "worker threads"),
    COL("pin", "text", "", "pin", "`default`, `compact`, `balanced`, `list`"),
    COL("mem", "text", "", "mem", "`local`, `interleave`, `node:N`"),
    COL("dist", "text", "", "dist", "`uniform`, `zipf:THETA[,scramble]`"),
    COL("workload", "text", "", "workload", "`none`, `ycsb-a` .. `ycsb-f` (`--workload`), or `trace` (`--trace`)"),
    COL("trace", "text", "", "", "`--trace` file as given; empty without"),
    COL("seed", "int", "", "seed", "`--seed`"),
    COL("prefill", "text", "", "prefill", "`single` or `parallel`"),
    COL("update", "int", "%", "update", "update percent (= insert + remove)"),
    COL("insert", "int", "%", "insert", "insert percent"),
    COL("remove", "int", "%", "remove", "remove percent"),
    COL("initial", "int", "", "initial", "prefilled keys `i`"),
    COL("range", "int", "", "range", "key range `r`"),
    COL("density", "float", "", "density", "`--density`"),
    COL("duration_ms", "int", "ms", "duration", "requested timed phase (0 when `--ops` was used)"),
    COL("ops", "int", "", "ops", "requested operations per thread (0 when `--duration` was used)"),
    COL("warmup_ms", "int", "ms", "", "`--warmup`: uncounted operations after the start barrier, before the timed phase (default 100 with `--duration`, 0 with `--ops`)"),
    COL("hugepages", "text", "", "", "`--hugepages`: `off` or `thp` (docs/cli.md \"Huge pages\")"),
    COL("rep", "int", "", "", "repetition, from 0"),
};

/* The table CSV after the run key, up to the build context */
static const struct col_decl table_cols[] = {
    COL("elapsed_s", "float", "s", "", "measured: last thread's end − first thread's start; with `--ceiling-slices`, less the mean time a thread spent in the chase slices (`ceiling_slices_s`): the table's own time"),
    COL("total_ops", "int", "", "", "operations performed by all threads"),
    COL("mops", "float", "Mops/s", "", "total_ops / elapsed_s / 10^6"),
    COL("get_suc", "int", "", "", "gets that found the key"),
    COL("get_fail", "int", "", "", "gets that did not"),
    COL("ins_suc", "int", "", "", "inserts that added the key"),
    COL("ins_fail", "int", "", "", "inserts of a present key (or refused by a full fixed-capacity table)"),
    COL("rem_suc", "int", "", "", "removes that removed the key"),
    COL("rem_fail", "int", "", "", "removes of an absent key"),
    COL("upd_suc", "int", "", "", "updates (YCSB A/B, traces) and read-modify-writes (YCSB F) that found their key"),
    COL("upd_fail", "int", "", "", "updates and read-modify-writes of an absent key"),
    COL("warmup_ops", "int", "", "", "operations done in the warm-up (not in `total_ops`, `mops` or the six counts)"),
    JSON_ONLY("warmup_ins_suc", "int", "", "", "successful inserts of the warm-up (they count in `expected_size`)"),
    JSON_ONLY("warmup_rem_suc", "int", "", "", "successful removes of the warm-up (they count in `expected_size`)"),
    COL("prefilled", "int", "", "", "prefill inserts that succeeded (= `initial` unless a fixed-capacity table refused keys: `outcome` full)"),
    COL("final_size", "int", "", "", "`size()` after the timed phase"),
    COL("expected_size", "int", "", "", "`prefilled + ins_suc + warmup_ins_suc − rem_suc − warmup_rem_suc`"),
    COL("size_ok", "0/1", "", "", "`size()` after the prefill equals `prefilled` and `final_size == expected_size`"),
    COL("verify", "text", "", "", "the final check that ran (docs/cli.md \"The final check\"): `full` (every key of `[1, range]` looked up), `sample` (a uniform sample of distinct keys), `off` (`--verify off`, or a table that stores nothing)"),
    JSON_ONLY("verified_keys", "int", "", "", "keys the final check looked up with `get()` (all worker threads, each a slice)"),
    JSON_ONLY("verify_found", "int", "", "", "of those, keys `get()` found"),
    COL("verify_ok", "0/1", "", "", "full: `verify_found == expected_size` (a filter, which may answer yes for absent keys: `>=`); sample: `verify_found` within 6 standard deviations of `verified_keys × expected_size / range`; empty when `verify` is off"),
    JSON_ONLY("verify_s", "float", "s", "", "seconds the final check took (not part of `elapsed_s`)"),
    COL("outcome", "text", "", "", "`ok`; `full` (a fixed-capacity table refused inserts for lack of room: exit 3); `oom` (the table could not allocate memory: exit 1); correctness failures, exit 1, the first that applies in this order: `bad_answer` (an answer given during the timed run was impossible: a `--pipeline` step left a result other than 1/0, or answered \"again\" where it may not; the console names the op), `not_linearizable` (`--verify history`: `history_violations` > 0; the console prints the first violating window), `mismatch` (`size_ok` or `verify_ok` is 0), `value_mismatch` (`verify_bad_values` > 0), `keysum_mismatch` (`verify_keysum_ok` = 0), `fp_excess` (a filter's `fp_rate` above `fp_limit`). The accounting is exact in the first three"),
    COL("fp_rate", "float", "share", "", "filters (`CHT_CAP_APPROXIMATE`): the share of the absent keys the final check looked up that the table answered \"present\"; empty for exact tables or `--verify off`"),
    JSON_ONLY("fp_checked", "int", "", "", "filters: absent keys the final check looked up (the denominator of `fp_rate`)"),
    JSON_ONLY("false_negatives", "int", "", "", "filters: keys the harness knows present that `get()` did not find (must be 0: else `verify_ok=0`)"),
    COL("bits_per_item", "float", "", "", "filters: `table_bytes × 8 / final_size`"),
    COL("oversubscribed", "0/1", "", "", "more threads than usable CPUs (or a pin list repeating a CPU)"),
    COL("batch", "int", "", "", "`--batch`: gets issued per `get_batch` call (1: single gets)"),
    JSON_ONLY("get_batch", "text", "", "", "`table` (the table has its own batched lookup), `single gets` (`--batch` > 1 on a table without one: the driver issues the gets one by one), `-` (no batching)"),
    COL("keybuf", "int", "", "", "ops drawn before the run per thread (`--keybuf`, docs/cli.md \"What is timed\"); 0: drawn in the loop"),
    JSON_ONLY("keybuf_bytes", "int", "bytes", "", "memory of those buffers, all threads"),
    JSON_ONLY("keybuf_wrapped", "0/1", "", "", "a thread's timed loop went round its buffer (the stream repeats its sample; uniform dense keys with writes shifted each round)"),
    JSON_ONLY("keygen_ns", "float", "ns", "", "the generator's cost per draw, measured while filling the buffers; empty when drawn in the loop"),
    COL("ceiling_mops", "float", "Mops/s", "", "`--ceiling`: how many independent cache-line misses per second (millions) this many threads complete at the table's size (`table_bytes_after_prefill` rounded up to m × 2^e / 8, m = 8..15: at most 12.5% more, in the table's pages: transparent huge pages when `--hugepages thp` put at least half of the table on them, else 4 KiB; the best k of `--bench memory` in three passes on one buffer); measured once per machine, size, thread count and pages and cached in `results/ceiling-v2-HOST.csv`. With `--ceiling-slices`, measured inside the run instead: the same chase (k = 32 and 16, the better; `ceiling_slices_k`) on the same size and pages, in every other slice of the timed phase, as the summed per-thread rate; empty without either flag, and for a table without `stats()`"),
    COL("ceiling_frac", "float", "share", "", "`mops / ceiling_mops`: how close the table gets to one independent miss per operation at the machine's limit"),
    COL("ceiling_slice_ms", "int", "ms", "", "`--ceiling-slices MS`: the table and the ceiling's chase took turns every MS ms of the timed phase, so `ceiling_frac` compares rates of the same seconds and `elapsed_s`, `mops` are the table's slices; empty when the ceiling (if any) is `--ceiling`'s cached one"),
    JSON_ONLY("ceiling_slices_s", "float", "s", "", "`--ceiling-slices`: seconds a thread chased, mean of the threads (left out of `elapsed_s`)"),
    JSON_ONLY("ceiling_slices_k", "int", "", "", "`--ceiling-slices`: chains a thread (32 or 16) whose rate is `ceiling_mops`"),
    COL("table_bytes", "int", "bytes", "", "the table's own `stats()` bytes at the end (0 if it reports none)"),
    COL("buckets", "int", "", "", "the table's `stats()` buckets (or slots) at the end; 0 if it reports none"),
    COL("resizes", "int", "", "", "resizes the table performed"),
    COL("full_failures", "int", "", "", "inserts refused because a fixed-capacity table was full"),
    COL("alloc_failures", "int", "", "", "inserts refused because memory could not be allocated (tables that allocate per key)"),
    COL("tx_begins", "int", "", "", "transactions started (tables under an RTM-elided lock, e.g. clht-rtm; empty for others; 0 when the lock ran without RTM)"),
    JSON_ONLY("tx_commits", "int", "", "", "transactions committed"),
    COL("tx_aborts", "int", "", "", "transactions aborted (abort rate = tx_aborts / tx_begins)"),
    JSON_ONLY("tx_fallbacks", "int", "", "", "critical sections that took the fallback lock (in the CSV until schema 9)"),
    JSON_ONLY("table_bytes_after_prefill", "int", "bytes", "", "the table's `stats()` bytes, taken by thread 0 right after the prefill size check; empty if the table has no `stats()`"),
    COL("bytes_per_key", "float", "bytes", "", "`table_bytes_after_prefill / initial`; empty if the table has no `stats()`"),
    COL("rss_before_create_bytes", "int", "bytes", "", "process RSS (`VmRSS` of /proc/self/status) just before the table is created"),
    COL("rss_after_prefill_bytes", "int", "bytes", "", "process RSS after the prefill (thread 0, after the size check)"),
    COL("thp_after_prefill_bytes", "int", "bytes", "", "memory of the process in transparent huge pages after the prefill (AnonHugePages of /proc/self/smaps_rollup); empty where the kernel does not report it"),
    JSON_ONLY("rss_after_run_bytes", "int", "bytes", "", "process RSS after the timed phase, before the table is destroyed"),
    COL("rss_peak_bytes", "int", "bytes", "", "`VmHWM` (peak RSS of the whole process so far: it never decreases over the rows of one invocation) after the run; with `--ceiling-slices` it counts the chase's buffer too (freed before `rss_after_run_bytes` is taken)"),
    JSON_ONLY("jemalloc_allocated_before_create_bytes", "int", "bytes", "", "jemalloc `stats.allocated` before create (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`"),
    JSON_ONLY("jemalloc_allocated_after_prefill_bytes", "int", "bytes", "", "jemalloc `stats.allocated` after prefill (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`"),
    JSON_ONLY("jemalloc_resident_after_prefill_bytes", "int", "bytes", "", "jemalloc `stats.resident` after prefill (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`"),
    JSON_ONLY("jemalloc_allocated_after_run_bytes", "int", "bytes", "", "jemalloc `stats.allocated` after run (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`"),
    JSON_ONLY("jemalloc_resident_after_run_bytes", "int", "bytes", "", "jemalloc `stats.resident` after run (after refreshing `epoch`); empty unless built with `-Dallocator=jemalloc`"),
    COL("speedup", "float", "", "", "`mops / median(mops of this table's 1-thread rows)` (the speedup S = T(N)/T(1) of the Tsinghua 2012 thesis on OS scalability on multicore); empty when the invocation's thread list has no 1, and for rows written before the first 1-thread group finished (a list like `4,1` leaves the 4-thread rows empty) — so it is empty in every multi-thread row of `scripts/sweep` and `scripts/figure`, which run each cell as its own invocation; their `summary*.csv` carries speedup = T(n)/T(1) across cells instead (docs/figures.md). The 1-thread rows themselves are held back until their group's reps are done, then written with their speedup"),
    COL("counter_names", "text", "", "", "`--counters`: the PAPI events counted, `;`-joined (e.g. `PAPI_TOT_INS;PAPI_TOT_CYC`); empty when none could be counted"),
    COL("counter_values_per_op", "text", "", "", "the events' totals over all threads (started after the start barrier, stopped after each thread's timed loop) divided by `total_ops`, `;`-joined in `counter_names` order; empty when not counted"),
    COL("lat_every", "int", "", "", "`--latency`: one op in `lat_every` was timed (1: every op); empty without `--latency`"),
    JSON_ONLY("lat_tsc_hz", "float", "Hz", "", "TSC frequency measured against CLOCK_MONOTONIC at start-up (ns = cycles × 10^9 / lat_tsc_hz)"),
    JSON_ONLY("lat_overhead_cycles", "int", "cycles", "", "median cost of an empty timing (stamp pair), subtracted from every sample (a sample below it counts as 0)"),
    JSON_ONLY("lat_dropped", "int", "", "", "samples not kept because a thread's buffer for that store was full (the first samples are kept, later ones dropped)"),
    COL("lat_get_suc_p50_ns", "float", "ns", "", "`get_suc` latency (gets that found the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_get_suc_p99_ns", "float", "ns", "", "`get_suc` latency (gets that found the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_get_suc_p999_ns", "float", "ns", "", "`get_suc` latency (gets that found the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_get_fail_p50_ns", "float", "ns", "", "`get_fail` latency (gets of an absent key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_get_fail_p99_ns", "float", "ns", "", "`get_fail` latency (gets of an absent key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_get_fail_p999_ns", "float", "ns", "", "`get_fail` latency (gets of an absent key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_ins_suc_p50_ns", "float", "ns", "", "`ins_suc` latency (inserts that added the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_ins_suc_p99_ns", "float", "ns", "", "`ins_suc` latency (inserts that added the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_ins_suc_p999_ns", "float", "ns", "", "`ins_suc` latency (inserts that added the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_ins_fail_p50_ns", "float", "ns", "", "`ins_fail` latency (inserts of a present key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_ins_fail_p99_ns", "float", "ns", "", "`ins_fail` latency (inserts of a present key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    JSON_ONLY("lat_ins_fail_p999_ns", "float", "ns", "", "`ins_fail` latency (inserts of a present key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_rem_suc_p50_ns", "float", "ns", "", "`rem_suc` latency (removes that removed the key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_rem_suc_p99_ns", "float", "ns", "", "`rem_suc` latency (removes that removed the key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_rem_suc_p999_ns", "float", "ns", "", "`rem_suc` latency (removes that removed the key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_rem_fail_p50_ns", "float", "ns", "", "`rem_fail` latency (removes of an absent key), median (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("lat_rem_fail_p99_ns", "float", "ns", "", "`rem_fail` latency (removes of an absent key), 99th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    JSON_ONLY("lat_rem_fail_p999_ns", "float", "ns", "", "`rem_fail` latency (removes of an absent key), 99.9th percentile (nearest rank over the timed samples); empty when no sample (the latency side file has every statistic)"),
    COL("value_size", "int", "", "value-size", "`--value-size`: bytes per value (8, the default: the 8-byte value inline; more: stored out of line, replaced on update; docs/cli.md \"Value size\")"),
    COL("keys", "text", "", "keys", "`--keys`: `dense` (the default: keys 1..r as drawn) or `sparse` (each key k mapped by a fixed bijection of [1, 2^61] before the run, off the clock; docs/cli.md \"Key layout\")"),
    COL("verify_bad_values", "int", "", "", "the final check of values (docs/cli.md \"The final check\"): found keys whose value is not one the run wrote for that key (another key's, a version the run never wrote, garbage, or torn: `CHT_VAL_TORN`); must be 0, else `outcome=value_mismatch`, exit 1. Empty for filters (they store no values) and when `verify` is off"),
    COL("verify_keysum_ok", "0/1", "", "", "`--verify full` on an exact table: the keys found sum (mod 2^64) to the prefilled keys + the inserted keys − the removed keys (each as the table reported success), so a lost key and a key that should be gone cannot cancel in `verify_found`; 0: `outcome=keysum_mismatch` (unless the count failed too: `mismatch`), exit 1. Empty for `sample`, `off` and filters"),
    COL("history_ops", "int", "", "", "`--verify history`: ops of the timed phase on watched keys recorded and checked (docs/cli.md \"Answers checked during the run\"); empty without it"),
    COL("history_violations", "int", "", "", "`--verify history`: watched keys whose history no order of their ops explains as a register (a lost update, a stale read, a wrong \"absent\" or \"present\", a value never written); must be 0, else `outcome=not_linearizable`, exit 1; empty without it"),
    JSON_ONLY("history_watched", "int", "", "", "`--verify history`: the watched keys (the multiples of `history_every` in the range, and YCSB-D's new keys so far) at the timed phase's start"),
    JSON_ONLY("history_every", "int", "", "", "`--verify history`: the watched keys are the multiples of this odd number (about range / K)"),
    JSON_ONLY("history_keys", "int", "", "", "`--verify history`: watched keys that the recorded ops touched"),
    JSON_ONLY("history_lost", "int", "", "", "`--verify history`: watched ops not recorded because their thread's buffer was full (its share of 64 MiB)"),
    JSON_ONLY("history_unanswered", "int", "", "", "`--verify history`: writes the cut (a full buffer) left without their answer, checked as pending"),
    JSON_ONLY("history_undecided", "int", "", "", "`--verify history`: watched keys the search gave up on (more than 64 ops open at once, or over 100000 states at one return); neither passed nor failed"),
    JSON_ONLY("history_covered_s", "float", "s", "", "`--verify history`: the first this many seconds of the timed phase are checked (all of it unless a buffer filled)"),
    JSON_ONLY("history_check_s", "float", "s", "", "`--verify history`: seconds the checker took (not part of `elapsed_s`)"),
    JSON_ONLY("fp_bound", "float", "", "", "filters: the theoretical false-positive rate from the table's `stats()` (f fingerprint bits, b slots per bucket: `1 − (1 − 1/(2^f − 1))^(2b)`, about 2b/2^f); empty for exact tables, `verify` off, or a filter that states none"),
    JSON_ONLY("fp_limit", "float", "", "", "filters: the rate above which the run fails: `(m·p + 6·sqrt(m·p·(1 − p)) + 3) / m` for `m = fp_checked`, `p = fp_bound`; `fp_rate` above it is `outcome=fp_excess`, exit 1"),
    JSON_ONLY("filter_skipped_ins", "int", "", "", "filters: inserts of the timed phase not sent to the filter because the harness' membership says the key is present (a filter cannot refuse a duplicate); counted in `ins_fail` and `total_ops`. The filter's own inserts are `ins_suc + ins_fail − filter_skipped_ins`. Empty for exact tables"),
    JSON_ONLY("filter_skipped_rem", "int", "", "", "filters: removes of the timed phase not sent because the key is absent (removing an absent key could delete another key's fingerprint); counted in `rem_fail` and `total_ops`"),
    COL("plugin", "text", "", "", "the plugin (docs/plugins.md) that provided the table, or the lock it ran under (`TABLE;LOCK` when two plugins did); empty for built-ins"),
    COL("plugin_sha256", "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins"),
    /* schema 9: --pipeline (docs/cli.md "Pipelined operations") */
    COL("pipeline", "text", "", "pipeline", "`--pipeline` as given: `0` (off, the default) .. `64`, or `auto` (what a sweep's cell asked for)"),
    COL("pipeline_w", "int", "", "", "operations in flight per thread in the timed loop (W); 0: single ops (no `--pipeline`, a table without the `pipe_start`/`pipe_step` hooks, or `auto` on a table no larger than 4x the core's private cache, L2)"),
    JSON_ONLY("pipeline_mode", "text", "", "", "`-` (no `--pipeline`), `hooks` (the table's `pipe_start`/`pipe_step` hooks, W ops in flight), `fallback` (`--pipeline` on a table without the hook, or a filter: single ops), `plain` (`--pipeline auto` chose single ops: the table is no larger than 4x the core's private cache, L2)"),
    JSON_ONLY("cpu_share", "float", "share", "", "CPU time of the threads' timed loops / (threads × `elapsed_s`): below 1 when the threads were descheduled (a busy machine); `mops / cpu_share` is the rate while on a CPU"),
};

/* The build context: on every row of every file */
static const struct col_decl context_cols[] = {
    COL("version", "text", "", "", "chtbench version"),
    COL("git_rev", "text", "", "", "git revision chtbench was built from (`git describe --always --dirty`; `unknown` outside a checkout)"),
    COL("build_type", "text", "", "", "Meson build type (`release`, `debugoptimized`, ...)"),
    COL("sanitizer", "text", "", "", "Meson `b_sanitize` (`none`, `address,undefined`, `thread`)"),
    COL("compiler", "text", "", "", "C compiler id and version (`gcc 12.2.0`)"),
    COL("allocator", "text", "", "allocator", "what served malloc, found in the process (docs/cli.md \"Allocators\"): `system` (the C library's; in a sanitizer build the sanitizer runtime's), `jemalloc` (`-Dallocator=jemalloc` or `--allocator jemalloc`), `mimalloc`, `tcmalloc` (`--allocator`), else the file name of the library that defines malloc (one preloaded from outside)"),
};

/* --latency-csv: one row per (run, rep, operation class), after the run key and the context */
static const struct col_decl latency_cols[] = {
    COL("store", "text", "", "", "the operation class: `get_suc`, `get_fail`, `ins_suc`, `ins_fail`, `rem_suc`, `rem_fail`, `upd_suc`, `upd_fail` (the outcome counts of the table CSV); one row each"),
    COL("every", "int", "", "", "`--latency`: one op in `every` was timed (1: every op); the table CSV's `lat_every`"),
    COL("tsc_hz", "float", "Hz", "", "TSC frequency measured against CLOCK_MONOTONIC at start-up (ns = cycles × 10^9 / tsc_hz)"),
    COL("overhead_cycles", "int", "cycles", "", "median cost of an empty timing (stamp pair), subtracted from every sample (a sample below it counts as 0)"),
    COL("dropped", "int", "", "", "samples of the run (all classes) not kept because a thread's buffer for their class was full (the first samples are kept, later ones dropped)"),
    COL("count", "int", "", "", "samples of this class kept (all threads)"),
    COL("avg_cycles", "float", "cycles", "", "latency, mean; empty when no sample"),
    COL("stdev_cycles", "float", "cycles", "", "latency, sample standard deviation"),
    COL("absdev_cycles", "float", "cycles", "", "latency, mean absolute deviation from avg"),
    COL("min_cycles", "float", "cycles", "", "latency, minimum"),
    COL("max_cycles", "float", "cycles", "", "latency, maximum"),
    COL("p50_cycles", "float", "cycles", "", "latency, median (nearest rank)"),
    COL("p90_cycles", "float", "cycles", "", "latency, 90th percentile (nearest rank)"),
    COL("p99_cycles", "float", "cycles", "", "latency, 99th percentile (nearest rank)"),
    COL("p999_cycles", "float", "cycles", "", "latency, 99.9th percentile (nearest rank)"),
    COL("avg_ns", "float", "ns", "", "`avg_cycles` in ns"),
    COL("stdev_ns", "float", "ns", "", "`stdev_cycles` in ns"),
    COL("absdev_ns", "float", "ns", "", "`absdev_cycles` in ns"),
    COL("min_ns", "float", "ns", "", "`min_cycles` in ns"),
    COL("max_ns", "float", "ns", "", "`max_cycles` in ns"),
    COL("p50_ns", "float", "ns", "", "`p50_cycles` in ns (the table CSV's `lat_<class>_p50_ns`)"),
    COL("p90_ns", "float", "ns", "", "`p90_cycles` in ns"),
    COL("p99_ns", "float", "ns", "", "`p99_cycles` in ns (the table CSV's `lat_<class>_p99_ns`)"),
    COL("p999_ns", "float", "ns", "", "`p999_cycles` in ns (the table CSV's `lat_<class>_p999_ns`)"),
    COL("within10_share", "float", "share", "", "sspfd value clustering: share (0..1) of the samples within ±10% of avg"),
    COL("within25_share", "float", "share", "", "the same within ±25%"),
    COL("within50_share", "float", "share", "", "the same within ±50%"),
    COL("hist_log2", "text", "cycles", "", "the log2 histogram: `b:n` for each non-empty bucket, `;`-joined, b ascending; bucket b holds the samples of [2^b, 2^(b+1) − 1] cycles (bucket 0: 0 and 1); the n sum to `count`; empty when no sample"),
};

/* --timeline-csv: one row per interval, after the run key and the context */
static const struct col_decl timeline_cols[] = {
    COL("t_ms", "float", "ms", "", "the sample time since the start of the timed phase (after any warm-up)"),
    COL("interval_ops", "int", "", "", "operations of all threads since the previous row (each thread publishes its count every 1024 ops; the last row adds the exact remainder, so the rows of a rep sum to `total_ops`)"),
    COL("interval_mops", "float", "Mops/s", "", "interval_ops / interval"),
    COL("hot_base", "int", "", "", "where the hot set of `--dist hotspot:...,shift=MS` starts at that moment (0 otherwise; it grows by the hot set's size at each shift)"),
};

/* --bench mutex|rwlock --csv, then the context */
static const struct col_decl lock_cols[] = {
    COL("schema", "int", "", "", "lock-bench schema version (" STR(LOCK_CSV_SCHEMA_VERSION) ")"),
    COL("run_id", "text", "", "", "the invocation's id, as in the table CSV"),
    COL("bench", "text", "", "bench", "`mutex` or `rwlock`"),
    COL("timestamp", "text", "", "", "end of the repetition, UTC, ISO 8601 with milliseconds"),
    COL("host", "text", "", "", "hostname"),
    COL("lock", "text", "", "lock", "lock name (`--list=locks`)"),
    COL("threads", "int", "", "threads", "threads contending for the one lock"),
    COL("pin", "text", "", "pin", "`default`, `compact`, `balanced`, `list`"),
    COL("oversubscribed", "int", "", "", "1 when threads exceed the usable CPUs (or a `list:` repeats a CPU)"),
    COL("seed", "int", "", "seed", "`--seed` (rwlock: thread `t` of repetition `k` draws from stream `(seed + k, t)`)"),
    COL("duration_ms", "int", "ms", "duration", "`-d`"),
    COL("rep", "int", "", "", "repetition, from 0"),
    COL("cs", "int", "", "cs", "mutex: `--cs` work units inside the critical section; empty for rwlock"),
    COL("ncs", "int", "", "ncs", "`--ncs` work units outside it"),
    COL("write_pct", "int", "%", "write", "rwlock: `--write`, probability (%) that an iteration writes; empty for mutex"),
    COL("rcs", "int", "", "rcs", "rwlock: `--rcs` work units of a read critical section"),
    COL("wcs", "int", "", "wcs", "rwlock: `--wcs` add/subtract pairs of a write critical section"),
    COL("handoff_bound", "int", "", "handoff", "`lock_config.handoff_bound` (`--handoff`)"),
    COL("waiter_threshold", "int", "", "waiters", "`lock_config.waiter_threshold` (`--waiters`)"),
    COL("elapsed_s", "float", "s", "", "last thread's end − first thread's start"),
    COL("acquisitions", "int", "", "", "critical sections of all threads (mutex: `lock()`s; rwlock: reads + writes)"),
    COL("acq_per_s", "float", "1/s", "", "acquisitions / elapsed_s"),
    COL("reads", "int", "", "", "rwlock: `read_lock()` sections; mutex: 0"),
    COL("writes", "int", "", "", "rwlock: `lock()` sections; mutex: = acquisitions"),
    COL("min_share", "float", "share", "", "smallest per-thread acquisitions / acquisitions (fair: 1/threads)"),
    COL("max_share", "float", "share", "", "largest per-thread share; with one thread both are 1"),
    COL("speedup", "float", "", "", "acq_per_s / median acq_per_s of this lock's 1-thread repetitions (S = T(N)/T(1), as in the Tsinghua 2012 thesis on OS scalability on multicore, §1.1.2); empty without 1 in `--threads` before this count"),
    COL("counter_min", "int", "", "", "mutex: smallest of the 4 shared counters after the run; empty for rwlock"),
    COL("counter_max", "int", "", "", "mutex: largest of them (`invariant_ok` needs both = acquisitions)"),
    COL("final_sum", "int", "", "", "rwlock: sum of the 64-integer array after the run, signed (must be 0); empty for mutex"),
    COL("reader_violations", "int", "", "", "rwlock: read sections that saw a nonzero sum (a half-done write)"),
    COL("write_counter", "int", "", "", "rwlock: counter bumped non-atomically by writers (must equal writes)"),
    COL("invariant_ok", "int", "", "", "1 when the bench's invariant held; 0 also prints `INVARIANT FAILURE` and exits 1"),
    COL("tx_begins", "int", "", "", "RTM transactions started: `lock_ops.stats` + every thread's `ctx_stats`; empty for locks that count nothing"),
    COL("tx_commits", "int", "", "", "transactions committed (same source)"),
    COL("tx_aborts", "int", "", "", "transactions aborted"),
    COL("abort_conflict", "int", "", "", "aborts with `_XABORT_CONFLICT`"),
    COL("abort_capacity", "int", "", "", "aborts with `_XABORT_CAPACITY`"),
    COL("abort_explicit", "int", "", "", "aborts by `xabort` (e.g. the fallback lock was held)"),
    COL("abort_retry", "int", "", "", "aborts with `_XABORT_RETRY`"),
    COL("abort_other", "int", "", "", "other aborts"),
    COL("fallbacks", "int", "", "", "acquisitions that took the fallback lock"),
    COL("plugin", "text", "", "", "the plugin (docs/plugins.md) that provided the lock; empty for built-ins"),
    COL("plugin_sha256", "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins"),
};

/* --bench memory --csv, then the context */
static const struct col_decl memory_cols[] = {
    COL("schema", "int", "", "", "memory-bench schema version (" STR(MEMBENCH_CSV_SCHEMA_VERSION) ")"),
    COL("run_id", "text", "", "", "the invocation's id"),
    COL("timestamp", "text", "", "", "when the point was measured, UTC, ISO 8601 with milliseconds"),
    COL("host", "text", "", "", "hostname"),
    COL("bytes", "int", "bytes", "", "working set: one random cycle through all its 64-byte lines"),
    COL("pages", "text", "", "", "`4k` (`MADV_NOHUGEPAGE`) or `thp` (`MADV_HUGEPAGE`)"),
    COL("threads", "int", "", "", "threads chasing in the one shared buffer"),
    COL("k", "int", "", "", "chases in flight per thread (1: pure latency)"),
    COL("ns_per_load", "float", "ns", "", "per thread: elapsed / loads of one thread (k = 1: the load-to-use latency)"),
    COL("mloads_per_s", "float", "M loads/s", "", "all threads: loads / elapsed / 10^6"),
};

/* --bench occupancy --csv, then the plugin columns and the context */
static const struct col_decl occupancy_cols[] = {
    COL("schema", "int", "", "", "occupancy schema version (" STR(OCCUPANCY_CSV_SCHEMA_VERSION) ")"),
    COL("bench", "text", "", "", "`occupancy`"),
    COL("timestamp", "text", "", "", "end of the repetition, UTC, ISO 8601 with milliseconds"),
    COL("host", "text", "", "", "hostname"),
    COL("table", "text", "", "", "table name"),
    COL("options", "text", "", "", "the table's options as given (`resize=0`; quoted when they hold a comma); `-` if none"),
    COL("rep", "int", "", "", "repetition, from 0 (keys of the lookups: stream `(seed, rep)`)"),
    COL("slots", "int", "", "", "the table's real slot capacity C (`stats.buckets`; tables round `--slots` up, e.g. to powers of two)"),
    COL("load_target", "float", "", "", "the `--load` value of this row"),
    COL("keys", "int", "", "", "keys in the table: round(load_target × C) when reached (one key of precision), else the count at the first refused insert"),
    COL("load", "float", "", "", "keys / C"),
    COL("reached", "int", "", "", "1 when all `keys` went in; 0 when an insert was refused first (then O13-O19 are empty)"),
    COL("insert_mops", "float", "Mops/s", "", "inserts of this load band (from the previous row's keys to this row's), millions per second"),
    COL("hit_mops", "float", "Mops/s", "", "hit-only gets (keys known present), millions per second"),
    COL("miss_mops", "float", "Mops/s", "", "miss-only gets (keys known absent), millions per second"),
    COL("hit_failures", "int", "", "", "hit-phase gets that returned false (always 0, or the run fails)"),
    COL("miss_hits", "int", "", "", "miss-phase gets that returned true: 0 for exact tables; an approximate table's false positives (fp rate = miss_hits / Q)"),
    COL("lines_hit", "float", "", "", "distinct 64-byte lines of key/value storage one hit-phase get reads, averaged over min(Q, 2^16) present keys; measured untimed, after both timed phases, through the table's `probe_lines` hook (docs/adding-a-table.md); empty for a table without one (and for an unreached load)"),
    COL("lines_miss", "float", "", "", "the same over as many keys never inserted (the miss phase's key space)"),
    COL("max_load", "float", "", "", "keys at the first refused insert / C (1 if none was refused up to C keys)"),
    COL("bytes", "int", "bytes", "", "`stats.bytes` after the max-load fill"),
    COL("run_id", "text", "", "", "the invocation's id, as in the table CSV"),
};

/* the plugin that provided the table of an occupancy row (occupancy schema 3) */
static const struct col_decl occupancy_plugin_cols[] = {
    COL("plugin", "text", "", "", "the plugin (docs/plugins.md) that provided the table, or the lock it ran under (`TABLE;LOCK` when two plugins did); empty for built-ins"),
    COL("plugin_sha256", "text", "", "", "sha256 of each plugin file named in `plugin` (`;`-joined likewise); empty for built-ins"),
};

/* A schema: its parts in file order, flattened once at start-up (schema_flatten). */
struct part {
    const struct col_decl *c;
    unsigned n;
};
struct schema_def {
    const char *name;          /* `chtbench --schema NAME` */
    int version;
    const char *label;         /* docs/csv.md numbers the columns label1, label2, ... */
    const char *file;          /* which file, in words (for --schema) */
    struct part parts[4];
    const struct col_decl *flat[MAX_FIELDS];
    unsigned n;
};
#define PART(a) { a, NCOLS(a) }
static struct schema_def schemas[SCHEMAS] = {
    [SCHEMA_TABLE] = { "table", CSV_SCHEMA_VERSION, "", "--csv of table runs (and --json, with its JSON-only fields)",
                       { PART(table_head), PART(run_key_cols), PART(table_cols), PART(context_cols) } },
    [SCHEMA_LATENCY] = { "latency", LATENCY_CSV_SCHEMA_VERSION, "S", "--latency-csv",
                         { PART(latency_head), PART(run_key_cols), PART(context_cols), PART(latency_cols) } },
    [SCHEMA_TIMELINE] = { "timeline", TIMELINE_CSV_SCHEMA_VERSION, "T", "--timeline-csv",
                          { PART(timeline_head), PART(run_key_cols), PART(context_cols), PART(timeline_cols) } },
    [SCHEMA_LOCK] = { "lock", LOCK_CSV_SCHEMA_VERSION, "L", "--csv of --bench mutex|rwlock",
                      { PART(lock_cols), PART(context_cols) } },
    [SCHEMA_MEMORY] = { "memory", MEMBENCH_CSV_SCHEMA_VERSION, "M", "--csv of --bench memory",
                        { PART(memory_cols), PART(context_cols) } },
    [SCHEMA_OCCUPANCY] = { "occupancy", OCCUPANCY_CSV_SCHEMA_VERSION, "O", "--csv of --bench occupancy",
                           { PART(occupancy_cols), PART(occupancy_plugin_cols), PART(context_cols) } },
};

/* before main: the row builders and headers then read the flat lists without a first-use race */
__attribute__((constructor)) static void schema_flatten(void)
{
    for (int s = 0; s < SCHEMAS; s++)
        for (int p = 0; p < 4; p++)
            for (unsigned i = 0; i < schemas[s].parts[p].n && schemas[s].n < MAX_FIELDS; i++)
                schemas[s].flat[schemas[s].n++] = &schemas[s].parts[p].c[i];
}

/* ================= the row builder: values put by name, checked against the declaration ================= */

enum col_kind { COL_STR, COL_U64, COL_F64, COL_EMPTY, COL_I64 };   /* EMPTY: not measured (CSV empty, JSON null) */

struct field {
    const char *name;
    const struct col_decl *decl;
    enum col_kind kind;
    const char *s;
    uint64_t u;
    double d;
    int64_t i;
};

struct row {
    struct field f[MAX_FIELDS];
    unsigned n;
    const struct schema_def *schema;
    char strbuf[8][128];
    char plugin[2][160];   /* plugin, plugin_sha256: up to two entries each */
    char counters[CNT_MAX_EVENTS * 32];
};

static void row_begin(struct row *r, int schema)
{
    r->n = 0;
    r->schema = &schemas[schema];
}

/* The next field, if `name` is the column declared at this position; anything else is a bug
 * in this file (an undeclared or misplaced column): stop before a wrong header reaches a file. */
static struct field *slot(struct row *r, const char *name)
{
    const struct schema_def *s = r->schema;
    if (r->n >= s->n || strcmp(s->flat[r->n]->name, name) != 0) {
        fprintf(stderr, "chtbench: internal error: the %s row puts column '%s' at position %u, where src/report.c "
                "declares %s%s%s; declare each column in \"the schemas\" of src/report.c, in row order\n", s->name, name,
                r->n + 1, r->n < s->n ? "'" : "", r->n < s->n ? s->flat[r->n]->name : "no more columns",
                r->n < s->n ? "'" : "");
        abort();
    }
    struct field *f = &r->f[r->n];
    *f = (struct field){ .name = s->flat[r->n]->name, .decl = s->flat[r->n] };
    r->n++;
    return f;
}

/* a row is complete when every declared column was put */
static void row_end(const struct row *r)
{
    if (r->n != r->schema->n) {
        fprintf(stderr, "chtbench: internal error: the %s row ends after %u columns, but src/report.c declares %u "
                "(next: '%s'): a declared column is never put\n", r->schema->name, r->n, r->schema->n,
                r->schema->flat[r->n]->name);
        abort();
    }
}

static void put_s(struct row *r, const char *name, const char *s)
{
    struct field *f = slot(r, name);
    f->kind = COL_STR;
    f->s = s;
}
static void put_u(struct row *r, const char *name, uint64_t u)
{
    struct field *f = slot(r, name);
    f->kind = COL_U64;
    f->u = u;
}
static void put_d(struct row *r, const char *name, double d)
{
    struct field *f = slot(r, name);
    f->kind = COL_F64;
    f->d = d;
}

static void r_put_i(struct row *r, const char *name, int64_t i)
{
    struct field *f = slot(r, name);
    f->kind = COL_I64;
    f->i = i;
}

static void put_ou(struct row *r, const char *name, bool have, uint64_t u)
{
    if (have)
        put_u(r, name, u);
    else
        slot(r, name)->kind = COL_EMPTY;
}
static void put_od(struct row *r, const char *name, bool have, double d)
{
    if (have)
        put_d(r, name, d);
    else
        slot(r, name)->kind = COL_EMPTY;
}

/* The table CSV's latency columns: lat_every, then p50/p99/p99.9 in ns of the six get/insert/remove
 * classes (what one plots); every statistic of all eight classes goes to --latency-csv. */
enum { LAT_MAIN_STORES = 6 };
static void put_latency(struct row *row, const struct lat_result *l)
{
    double ns = l->on && l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0;
    put_ou(row, "lat_every", l->on, l->every);
    put_od(row, "lat_tsc_hz", l->on, l->tsc_hz);
    put_ou(row, "lat_overhead_cycles", l->on, l->overhead_cycles);
    put_ou(row, "lat_dropped", l->on, l->dropped);
    for (int st = 0; st < LAT_MAIN_STORES; st++) {
        const struct lat_stats *x = &l->st[st];
        bool have = l->on && x->count > 0;
        const struct { const char *name; double v; } pct[3] = { { "p50", x->p50 }, { "p99", x->p99 },
                                                                { "p999", x->p999 } };
        for (int i = 0; i < 3; i++) {
            char name[48];
            snprintf(name, sizeof name, "lat_%s_%s_ns", lat_store_name[st], pct[i].name);
            put_od(row, name, have, pct[i].v * ns);
        }
    }
}

static const char *prefill_name(enum prefill_mode m) { return m == PREFILL_SINGLE ? "single" : "parallel"; }

static const char *mem_name(const struct bench_config *c, char *buf, size_t len)
{
    if (c->mem == MEM_NODE) {
        snprintf(buf, len, "node:%d", c->mem_node);
        return buf;
    }
    return c->mem == MEM_INTERLEAVE ? "interleave" : "local";
}

/* ---------------- the invocation's context, on every row of every file ---------------- */

static char run_id[40];

void report_init(void)
{
    uint64_t r[2] = { 0, 0 };
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {   /* no entropy source: time and pid still differ */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r[0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        r[1] = (uint64_t)getpid();
    }
    snprintf(run_id, sizeof run_id, "%016llx", (unsigned long long)(r[0] ^ (r[1] * 0x9e3779b97f4a7c15ull)));
}

const char *report_run_id(void)
{
    if (!run_id[0])
        report_init();
    return run_id;
}

void report_version(FILE *f)
{
    fprintf(f, "version: %s\ngit: %s\nbuild: %s\nsanitizer: %s\ncompiler: %s\nallocator: %s\n", CHTBENCH_VERSION,
            CHTBENCH_GIT_REV, CHTBENCH_BUILD_TYPE, CHTBENCH_SANITIZER, CHTBENCH_COMPILER, memstat_allocator());
}

static void put_context(struct row *row)
{
    put_s(row, "version", CHTBENCH_VERSION);
    put_s(row, "git_rev", CHTBENCH_GIT_REV);
    put_s(row, "build_type", CHTBENCH_BUILD_TYPE);
    put_s(row, "sanitizer", CHTBENCH_SANITIZER);
    put_s(row, "compiler", CHTBENCH_COMPILER);
    put_s(row, "allocator", memstat_allocator());
}

/* "2026-11-23T09:12:46.123Z": the repetition's end, UTC, millisecond resolution */
static void format_time(const struct timespec *ts, char *buf, size_t len)
{
    struct timespec now;
    if (!ts->tv_sec) {          /* not recorded: now */
        clock_gettime(CLOCK_REALTIME, &now);
        ts = &now;
    }
    struct tm tm;
    time_t sec = ts->tv_sec;
    gmtime_r(&sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts->tv_nsec / 1000000);
}

static void put_host(struct row *row, char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
    put_s(row, "host", buf);
}

/* The columns that identify a run and its workload: the main CSV's first
 * columns, and the prefix of every side-file row (to join them exactly). */
static void put_run_key(struct row *row, const struct record *rec)
{
    const struct bench_config *c = rec->cfg;
    format_time(&rec->r->end_time, row->strbuf[0], sizeof row->strbuf[0]);
    keygen_format(&c->dist, row->strbuf[2], sizeof row->strbuf[2]);
    put_s(row, "run_id", report_run_id());
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_s(row, "table", rec->table->ops->name);
    /* "-" for none: an empty cell would read as NaN in pandas and drop out of a groupby */
    put_s(row, "options", rec->table->options_text[0] ? rec->table->options_text : "-");
    put_u(row, "threads", rec->threads);
    put_s(row, "pin", pin_policy_name(c->pin.policy));
    put_s(row, "mem", mem_name(c, row->strbuf[3], sizeof row->strbuf[3]));
    put_s(row, "dist", row->strbuf[2]);
    put_s(row, "workload", c->trace_path ? "trace" : workload_name(c->workload));
    put_s(row, "trace", c->trace_path ? c->trace_path : "-");
    put_u(row, "seed", c->seed);
    put_s(row, "prefill", prefill_name(c->prefill));
    put_u(row, "update", c->update);
    put_u(row, "insert", c->insert);
    put_u(row, "remove", c->remove);
    put_u(row, "initial", c->initial);
    put_u(row, "range", rec->range);
    put_d(row, "density", c->density);
    put_u(row, "duration_ms", c->duration_ms);
    put_u(row, "ops", c->ops);
    put_u(row, "warmup_ms", c->warmup_ms);
    put_s(row, "hugepages", c->hugepages ? "thp" : "off");
    put_u(row, "rep", rec->rep);
}

const char *report_outcome_name(enum run_outcome o)
{
    static const char *const names[] = { [OUTCOME_OK] = "ok", [OUTCOME_FULL] = "full", [OUTCOME_OOM] = "oom",
                                         [OUTCOME_FP_EXCESS] = "fp_excess",
                                         [OUTCOME_KEYSUM_MISMATCH] = "keysum_mismatch",
                                         [OUTCOME_VALUE_MISMATCH] = "value_mismatch",
                                         [OUTCOME_MISMATCH] = "mismatch", [OUTCOME_NOT_LINEARIZABLE] = "not_linearizable",
                                         [OUTCOME_BAD_ANSWER] = "bad_answer" };
    return names[o];
}

/* plugin, plugin_sha256 (table schema 8, lock schema 3): the plugins that
 * provided what was measured, a the table's (or the lock bench's lock), b
 * the lock it ran under; "A;B" when they differ, empty for built-ins. */
static void put_plugins(struct row *row, const struct registry_plugin *a, const struct registry_plugin *b)
{
    if (a == b || !a)
        a = a ? a : b, b = NULL;
    snprintf(row->plugin[0], sizeof row->plugin[0], "%s%s%s", a ? a->name : "", b ? ";" : "", b ? b->name : "");
    snprintf(row->plugin[1], sizeof row->plugin[1], "%s%s%s", a ? a->sha256 : "", b ? ";" : "", b ? b->sha256 : "");
    put_s(row, "plugin", row->plugin[0]);
    put_s(row, "plugin_sha256", row->plugin[1]);
}

/* The table row's values, in the order table_head/run_key_cols/table_cols/context_cols declare. */
static void build_row(const struct record *rec, struct row *row)
{
    const struct bench_config *c = rec->cfg;
    const struct run_result *r = rec->r;
    row_begin(row, SCHEMA_TABLE);
    put_u(row, "schema", CSV_SCHEMA_VERSION);
    put_run_key(row, rec);
    put_d(row, "elapsed_s", r->elapsed_s);
    put_u(row, "total_ops", r->total_ops);
    put_d(row, "mops", r->mops);
    put_u(row, "get_suc", r->count[GET_SUC]);
    put_u(row, "get_fail", r->count[GET_FAIL]);
    put_u(row, "ins_suc", r->count[INS_SUC]);
    put_u(row, "ins_fail", r->count[INS_FAIL]);
    put_u(row, "rem_suc", r->count[REM_SUC]);
    put_u(row, "rem_fail", r->count[REM_FAIL]);
    put_u(row, "upd_suc", r->count[UPD_SUC]);
    put_u(row, "upd_fail", r->count[UPD_FAIL]);
    put_u(row, "warmup_ops", r->warmup_count[GET_SUC] + r->warmup_count[GET_FAIL] + r->warmup_count[INS_SUC] +
                                 r->warmup_count[INS_FAIL] + r->warmup_count[REM_SUC] + r->warmup_count[REM_FAIL] +
                                 r->warmup_count[UPD_SUC] + r->warmup_count[UPD_FAIL]);
    put_u(row, "warmup_ins_suc", r->warmup_count[INS_SUC]);
    put_u(row, "warmup_rem_suc", r->warmup_count[REM_SUC]);
    put_u(row, "prefilled", r->check.prefilled);
    put_u(row, "final_size", r->check.final_size);
    put_u(row, "expected_size", r->check.expected_size);
    put_u(row, "size_ok", r->check.size_ok);
    put_s(row, "verify", verify_mode_name(r->check.verify_mode));
    put_u(row, "verified_keys", r->check.verified_keys);
    put_u(row, "verify_found", r->check.verify_found);
    put_ou(row, "verify_ok", r->check.verify_mode != VERIFY_OFF, r->check.verify_ok);
    put_d(row, "verify_s", r->check.verify_s);
    put_s(row, "outcome", report_outcome_name(r->outcome));
    bool approx = (rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->check.verify_mode != VERIFY_OFF;
    put_od(row, "fp_rate", approx, r->filter.fp_rate);
    put_ou(row, "fp_checked", approx, r->filter.fp_checked);
    put_ou(row, "false_negatives", approx, r->filter.false_negatives);
    put_od(row, "bits_per_item", (rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->check.final_size,
           r->check.final_size ? (double)r->memory.stats.bytes * 8 / (double)r->check.final_size : 0);
    put_u(row, "oversubscribed", rec->oversubscribed);
    put_u(row, "batch", c->batch);
    put_s(row, "get_batch", c->batch <= 1 ? "-" : rec->table->ops->get_batch ? "table" : "single gets");
    put_u(row, "keybuf", r->opbuf.opbuf_len);
    put_u(row, "keybuf_bytes", r->opbuf.opbuf_len * 8 * rec->threads);
    put_u(row, "keybuf_wrapped", r->opbuf.opbuf_wrapped);
    put_od(row, "keygen_ns", r->opbuf.opbuf_len > 0, r->opbuf.opbuf_len ? (double)r->opbuf.opbuf_ns / ((double)r->opbuf.opbuf_len * rec->threads) : 0);
    put_od(row, "ceiling_mops", r->ceiling.ceiling_mops > 0, r->ceiling.ceiling_mops);
    put_od(row, "ceiling_frac", r->ceiling.ceiling_mops > 0, r->ceiling.ceiling_mops > 0 ? r->mops / r->ceiling.ceiling_mops : 0);
    const bool sliced = r->ceiling.ceiling_slices_k != 0;
    put_ou(row, "ceiling_slice_ms", sliced, rec->cfg->ceiling_slice_ms);
    put_od(row, "ceiling_slices_s", sliced, r->ceiling.ceiling_slices_s);
    put_ou(row, "ceiling_slices_k", sliced, r->ceiling.ceiling_slices_k);
    put_u(row, "table_bytes", r->memory.stats.bytes);
    put_u(row, "buckets", r->memory.stats.buckets);
    put_u(row, "resizes", r->memory.stats.resizes);
    put_u(row, "full_failures", r->memory.stats.full_failures);
    put_u(row, "alloc_failures", r->memory.stats.alloc_failures);
    /* HTM (thesis tables 4.2-4.4): tables running under an elided lock report them */
    bool htm = rec->table->ops->caps & CHT_CAP_NEEDS_RTM;
    put_ou(row, "tx_begins", htm, r->memory.stats.tx_begins);
    put_ou(row, "tx_commits", htm, r->memory.stats.tx_commits);
    put_ou(row, "tx_aborts", htm, r->memory.stats.tx_aborts);
    put_ou(row, "tx_fallbacks", htm, r->memory.stats.tx_fallbacks);
    /* memory */
    put_ou(row, "table_bytes_after_prefill", r->memory.has_stats, r->memory.table_bytes_after_prefill);
    put_od(row, "bytes_per_key", r->memory.has_stats && c->initial, c->initial ? (double)r->memory.table_bytes_after_prefill / (double)c->initial : 0);
    put_ou(row, "rss_before_create_bytes", r->memory.mem_before_create.rss_ok, r->memory.mem_before_create.rss);
    put_ou(row, "rss_after_prefill_bytes", r->memory.mem_after_prefill.rss_ok, r->memory.mem_after_prefill.rss);
    put_ou(row, "thp_after_prefill_bytes", r->memory.mem_after_prefill.thp_ok, r->memory.mem_after_prefill.thp);
    put_ou(row, "rss_after_run_bytes", r->memory.mem_after_run.rss_ok, r->memory.mem_after_run.rss);
    put_ou(row, "rss_peak_bytes", r->memory.mem_after_run.rss_ok, r->memory.mem_after_run.peak);
    put_ou(row, "jemalloc_allocated_before_create_bytes", r->memory.mem_before_create.je_ok, r->memory.mem_before_create.je_allocated);
    put_ou(row, "jemalloc_allocated_after_prefill_bytes", r->memory.mem_after_prefill.je_ok, r->memory.mem_after_prefill.je_allocated);
    put_ou(row, "jemalloc_resident_after_prefill_bytes", r->memory.mem_after_prefill.je_ok, r->memory.mem_after_prefill.je_resident);
    put_ou(row, "jemalloc_allocated_after_run_bytes", r->memory.mem_after_run.je_ok, r->memory.mem_after_run.je_allocated);
    put_ou(row, "jemalloc_resident_after_run_bytes", r->memory.mem_after_run.je_ok, r->memory.mem_after_run.je_resident);
    /* scaling */
    put_od(row, "speedup", rec->has_speedup, rec->speedup);
    /* counters */
    const struct counter_set *cs = rec->counters;
    bool cnt = cs && cs->active && r->counters.counters_ok;
    size_t cl = 0;
    row->counters[0] = '\0';
    for (unsigned e = 0; cnt && e < cs->n; e++)
        cl += (size_t)snprintf(row->counters + cl, cl < sizeof row->counters ? sizeof row->counters - cl : 0, "%s%.6g",
                               e ? ";" : "", r->counters.counter_per_op[e]);
    put_s(row, "counter_names", cnt ? cs->joined : "");
    put_s(row, "counter_values_per_op", row->counters);
    /* latency */
    put_latency(row, &r->lat);
    put_u(row, "value_size", c->value_size);   /* schema 5 */
    put_s(row, "keys", c->keys_sparse ? "sparse" : "dense");   /* schema 6 */
    /* schema 7: the final check of values and keys, the filter's bound */
    bool exact = !(rec->table->ops->caps & CHT_CAP_APPROXIMATE) && r->check.verify_mode != VERIFY_OFF;
    put_ou(row, "verify_bad_values", exact, r->check.verify_bad_values);
    put_ou(row, "verify_keysum_ok", r->check.keysum_checked, r->check.keysum_ok);
    /* schema 11: --verify history */
    const struct hist_result *h = &r->history.hist;
    put_ou(row, "history_ops", r->history.hist_on, h->ops);
    put_ou(row, "history_violations", r->history.hist_on, h->violations);
    put_ou(row, "history_watched", r->history.hist_on, r->history.hist_watched);
    put_ou(row, "history_every", r->history.hist_on, r->history.hist_watch_every);
    put_ou(row, "history_keys", r->history.hist_on, h->keys);
    put_ou(row, "history_lost", r->history.hist_on, h->lost);
    put_ou(row, "history_unanswered", r->history.hist_on, h->unanswered);
    put_ou(row, "history_undecided", r->history.hist_on, h->undecided);
    put_od(row, "history_covered_s", r->history.hist_on, (double)h->covered_ns / 1e9);
    put_od(row, "history_check_s", r->history.hist_on, h->check_s);
    put_od(row, "fp_bound", approx && r->filter.fp_bound > 0, r->filter.fp_bound);
    put_od(row, "fp_limit", approx && r->filter.fp_bound > 0, r->filter.fp_limit);
    bool filter = rec->table->ops->caps & CHT_CAP_APPROXIMATE;
    put_ou(row, "filter_skipped_ins", filter, r->filter.filter_skipped[0]);
    put_ou(row, "filter_skipped_rem", filter, r->filter.filter_skipped[1]);
    const struct lock_ops *lk = registry_choice_lock(rec->table);
    put_plugins(row, registry_table_plugin(rec->table->ops), lk ? registry_lock_plugin(lk) : NULL);   /* schema 8 */
    /* schema 9: --pipeline, the W used and how (src/run/pipe.c run_pipe_choose). A row keeps pointers to its
     * strings until written, so each W has a string of its own that never changes (filled once,
     * always with the same text) */
    static const char *const pipe_modes[] = { "-", "hooks", "fallback", "plain" };
    static char pipe_asked[CHT_PIPELINE_MAX + 1][4];
    unsigned pw = c->pipeline <= CHT_PIPELINE_MAX ? c->pipeline : 0;
    snprintf(pipe_asked[pw], sizeof pipe_asked[pw], "%u", pw);
    put_s(row, "pipeline", c->pipeline_auto ? "auto" : pipe_asked[pw]);
    put_u(row, "pipeline_w", r->pipe.pipeline_w);
    put_s(row, "pipeline_mode", pipe_modes[r->pipe.pipeline_mode]);
    /* the share of the timed phase the threads were on a CPU: below 1 on a busy machine */
    put_od(row, "cpu_share", r->elapsed_s > 0 && r->cpu_ns,
           r->elapsed_s > 0 ? (double)r->cpu_ns * 1e-9 / ((double)rec->threads * r->elapsed_s) : 0);
    put_context(row);
    row_end(row);
}

/* ---------------- formatting: growable buffers, no fixed row size ---------------- */

struct sbuf {
    char *p;
    size_t n, cap;
    bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->n + (size_t)k)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* s quoted per RFC 4180 when it holds , " or a newline */
static void csv_str(struct sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        sb_printf(b, "%s", s);
        return;
    }
    sb_printf(b, "\"");
    for (; *s; s++)
        sb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    sb_printf(b, "\"");
}

static void format_value(struct sbuf *b, const struct field *f, bool json)
{
    switch (f->kind) {
    case COL_U64: sb_printf(b, "%llu", (unsigned long long)f->u); return;
    case COL_F64: sb_printf(b, "%.6g", f->d); return;
    case COL_I64: sb_printf(b, "%lld", (long long)f->i); return;
    case COL_EMPTY: sb_printf(b, "%s", json ? "null" : ""); return;
    case COL_STR:
        if (!json) {
            csv_str(b, f->s);
            return;
        }
        sb_printf(b, "\"");
        for (const char *s = f->s; *s; s++) {
            if (*s == '"' || *s == '\\')
                sb_printf(b, "\\%c", *s);
            else if ((unsigned char)*s < 0x20)
                sb_printf(b, "\\u%04x", *s);
            else
                sb_printf(b, "%c", *s);
        }
        sb_printf(b, "\"");
        return;
    }
}

/* fields [from, to) as CSV names (header) or values, comma-separated; the JSON-only fields
 * are left out (the --json record carries them) */
static void format_fields(struct sbuf *b, const struct row *r, unsigned from, unsigned to, bool names)
{
    bool first = true;
    for (unsigned i = from; i < to; i++) {
        if (r->f[i].decl->where == IN_JSON)
            continue;
        if (!first)
            sb_printf(b, ",");
        first = false;
        if (names)
            sb_printf(b, "%s", r->f[i].name);
        else
            format_value(b, &r->f[i], false);
    }
}

/* one header line, built once per file kind from a row of that kind */
static const char *header_of(char **cache, const struct row *r)
{
    if (!*cache) {
        struct sbuf b = { 0 };
        format_fields(&b, r, 0, r->n, true);
        sb_printf(&b, "\n");
        *cache = b.oom ? NULL : b.p;
    }
    return *cache ? *cache : "";
}

static int append_sbuf(struct outfile *o, struct sbuf *b, char *err, size_t len)
{
    int rc;
    if (b->oom) {
        snprintf(err, len, "%s: out of memory formatting a row", o->flag);
        rc = -1;
    } else {
        rc = outfile_append(o, b->p, b->n, err, len);
    }
    free(b->p);
    return rc;
}

static void dummy_record(struct record *rec, struct bench_config *c, struct table_choice *t, struct run_result *r)
{
    static const struct cht_ops dummy = { .name = "" };
    memset(c, 0, sizeof *c);
    memset(t, 0, sizeof *t);
    memset(r, 0, sizeof *r);
    t->ops = &dummy;
    *rec = (struct record){ .cfg = c, .table = t, .r = r };
}

static const char *table_header_line(void)
{
    static char *cache;
    if (!cache) {
        struct record rec;
        struct bench_config c;
        struct table_choice t;
        struct run_result r;
        struct row row;
        dummy_record(&rec, &c, &t, &r);
        build_row(&rec, &row);
        return header_of(&cache, &row);
    }
    return cache;
}

static void row_json(FILE *f, const struct row *r)
{
    struct sbuf b = { 0 };
    sb_printf(&b, "{");
    for (unsigned i = 0; i < r->n; i++) {
        sb_printf(&b, "%s\"%s\":", i ? "," : "", r->f[i].name);
        format_value(&b, &r->f[i], true);
    }
    sb_printf(&b, "}\n");
    if (!b.oom)
        fwrite(b.p, 1, b.n, f);
    free(b.p);
    fflush(f);
}

void report_console_header(FILE *f, const struct bench_config *c)
{
    char dist[128];
    keygen_format(&c->dist, dist, sizeof dist);
    fprintf(f, "# u=%u%% (insert %u%%, remove %u%%)  i=%llu  r=%llu  dist=%s  %s", c->update, c->insert, c->remove,
            (unsigned long long)c->initial, (unsigned long long)c->range, dist, c->keys_sparse ? "keys=sparse  " : "");
    if (c->ops)
        fprintf(f, "ops=%llu/thread", (unsigned long long)c->ops);
    else
        fprintf(f, "d=%llums", (unsigned long long)c->duration_ms);
    fprintf(f, "  reps=%u  pin=%s  prefill=%s  seed=%llu\n", c->reps, pin_policy_name(c->pin.policy),
            prefill_name(c->prefill), (unsigned long long)c->seed);
    fprintf(f, "%-28s %7s %9s %9s %9s %9s %8s %6s  %s\n", "table", "threads", "Mops/s:med", "mean", "min", "max",
            "stdev", "cv", "check");
}

void report_console_summary(FILE *f, const struct table_choice *t, unsigned threads, const char *pin,
                            const double *mops, unsigned n, const char *check)
{
    (void)pin;
    double v[n ? n : 1];
    memcpy(v, mops, n * sizeof *v);
    struct summary s;
    summarize(v, n, &s);
    char name[2200];
    snprintf(name, sizeof name, "%s%s%s", t->ops->name, t->options_text[0] ? ":" : "", t->options_text);
    char cv[16] = "-";
    if (n > 1 && s.mean > 0)
        snprintf(cv, sizeof cv, "%.1f%%", 100 * s.stdev / s.mean);
    fprintf(f, "%-28s %7u %9.3f %9.3f %9.3f %9.3f %8.3f %6s  %s\n", name, threads, s.median, s.mean, s.min, s.max,
            s.stdev, cv, check);
    fflush(f);
}

/* ---------------- side files: the run key, then their own columns ---------------- */

/* Side-file rows start with the main CSV's identifying columns (run_id ..
 * rep) and the build context, so they join to the main CSV exactly. */
static void side_prefix(struct row *row, const struct record *rec, int schema)
{
    row_begin(row, schema);
    put_u(row, "schema", (uint64_t)schemas[schema].version);
    put_run_key(row, rec);
    put_context(row);
}

/* --latency-csv: one row per operation class, every statistic (long form: the table CSV keeps
 * lat_<class>_p50/p99/p999_ns); hist: that class's "b:n;..." text, or "" */
static void put_latency_cols(struct row *row, const struct lat_result *l, int st, const char *hist)
{
    const struct lat_stats *x = &l->st[st];
    bool have = l->on && x->count > 0;
    double ns = l->on && l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0;
    static const char *const stat[9] = { "avg", "stdev", "absdev", "min", "max", "p50", "p90", "p99", "p999" };
    const double v[9] = { x->avg, x->stdev, x->absdev, x->min, x->max, x->p50, x->p90, x->p99, x->p999 };
    put_s(row, "store", lat_store_name[st]);
    put_u(row, "every", l->every);
    put_d(row, "tsc_hz", l->tsc_hz);
    put_u(row, "overhead_cycles", l->overhead_cycles);
    put_u(row, "dropped", l->dropped);
    put_u(row, "count", x->count);
    char name[32];
    for (int unit = 0; unit < 2; unit++)
        for (int i = 0; i < 9; i++) {
            snprintf(name, sizeof name, "%s_%s", stat[i], unit ? "ns" : "cycles");
            put_od(row, name, have, unit ? v[i] * ns : v[i]);
        }
    put_od(row, "within10_share", have, x->within10);
    put_od(row, "within25_share", have, x->within25);
    put_od(row, "within50_share", have, x->within50);
    put_s(row, "hist_log2", hist);
    row_end(row);
}

/* --timeline-csv: one row per interval */
static void put_timeline_cols(struct row *row, double t_ms, uint64_t ops, double mops, uint64_t hot_base)
{
    put_d(row, "t_ms", t_ms);
    put_u(row, "interval_ops", ops);
    put_d(row, "interval_mops", mops);
    put_u(row, "hot_base", hot_base);
    row_end(row);
}

/* a side file's header: its prefix and its own columns, built once */
static const char *side_header(char **cache, int schema, void (*cols)(struct row *))
{
    if (*cache)
        return *cache;
    struct record rec;
    struct bench_config c;
    struct table_choice t;
    struct run_result r;
    struct row row;
    dummy_record(&rec, &c, &t, &r);
    side_prefix(&row, &rec, schema);
    cols(&row);
    return header_of(cache, &row);
}

static void latency_header_cols(struct row *row)
{
    static const struct lat_result none;
    put_latency_cols(row, &none, 0, "");
}
static void timeline_header_cols(struct row *row) { put_timeline_cols(row, 0, 0, 0, 0); }

static const char *latency_header_line(void)
{
    static char *cache;
    return side_header(&cache, SCHEMA_LATENCY, latency_header_cols);
}

static const char *timeline_header_line(void)
{
    static char *cache;
    return side_header(&cache, SCHEMA_TIMELINE, timeline_header_cols);
}

static int latency_append(struct outfile *o, const struct record *rec, char *err, size_t len)
{
    const struct lat_result *l = &rec->r->lat;
    struct row row;
    struct sbuf prefix = { 0 }, b = { 0 };
    side_prefix(&row, rec, SCHEMA_LATENCY);
    unsigned np = row.n;
    format_fields(&prefix, &row, 0, np, false);
    for (int st = 0; l->on && st < LAT_STORES && !prefix.oom; st++) {
        struct sbuf hist = { 0 };
        for (int k = 0; k < LAT_HIST_BUCKETS; k++)
            if (l->st[st].hist[k])
                sb_printf(&hist, "%s%d:%llu", hist.n ? ";" : "", k, (unsigned long long)l->st[st].hist[k]);
        b.oom |= hist.oom;
        row.n = np;
        put_latency_cols(&row, l, st, hist.p ? hist.p : "");
        sb_printf(&b, "%s,", prefix.p);
        format_fields(&b, &row, np, row.n, false);
        sb_printf(&b, "\n");
        free(hist.p);
    }
    b.oom |= prefix.oom;
    free(prefix.p);
    if (!b.n && !b.oom)
        return 0;
    return append_sbuf(o, &b, err, len);
}

static int timeline_append(struct outfile *o, const struct record *rec, char *err, size_t len)
{
    const struct run_result *r = rec->r;
    struct row row;
    struct sbuf prefix = { 0 }, b = { 0 };
    side_prefix(&row, rec, SCHEMA_TIMELINE);
    unsigned np = row.n;
    format_fields(&prefix, &row, 0, np, false);
    double prev = 0;
    for (size_t i = 0; r->timeline.samples && i < r->timeline.n && !prefix.oom; i++) {
        double dt = r->timeline.samples[i].t_ms - prev;
        row.n = np;
        put_timeline_cols(&row, r->timeline.samples[i].t_ms, r->timeline.samples[i].ops,
                      dt > 0 ? (double)r->timeline.samples[i].ops / (dt * 1e3) : 0, r->timeline.samples[i].hot_base);
        sb_printf(&b, "%s,", prefix.p);
        format_fields(&b, &row, np, row.n, false);
        sb_printf(&b, "\n");
        prev = r->timeline.samples[i].t_ms;
    }
    b.oom |= prefix.oom;
    free(prefix.p);
    if (!b.n && !b.oom)
        return 0;
    return append_sbuf(o, &b, err, len);
}

void report_console_latency(FILE *f, const struct record *rec)
{
    const struct lat_result *l = &rec->r->lat;
    if (!l->on)
        return;
    double ns = l->tsc_hz > 0 ? 1e9 / l->tsc_hz : 0;
    fprintf(f, "#   latency %s, %u threads, rep %u: 1 op in %llu timed, TSC %.3f GHz, empty stamp %llu cycles subtracted%s\n",
            rec->table->ops->name, rec->threads, rec->rep, (unsigned long long)l->every, l->tsc_hz / 1e9,
            (unsigned long long)l->overhead_cycles, l->dropped ? " (buffers full: later samples dropped)" : "");
    fprintf(f, "#   %-8s %10s %9s %9s %9s %9s %9s %9s %9s  %s\n", "store", "samples", "avg", "stdev", "p50", "p90",
            "p99", "p99.9", "avg ns", "within 10/25/50% of avg");
    for (int st = 0; st < LAT_STORES; st++) {
        const struct lat_stats *x = &l->st[st];
        if (!x->count)
            continue;
        fprintf(f, "#   %-8s %10llu %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.1f  %.0f%% %.0f%% %.0f%%\n", lat_store_name[st],
                (unsigned long long)x->count, x->avg, x->stdev, x->p50, x->p90, x->p99, x->p999, x->avg * ns,
                100 * x->within10, 100 * x->within25, 100 * x->within50);
    }
}

/* ---------------- lock benches (--bench): docs/csv.md "Lock-bench CSV" ---------------- */

static const char *lock_bench_name(enum bench_kind b) { return b == BENCH_RWLOCK ? "rwlock" : "mutex"; }

/* The lock-bench row's values, in the order lock_cols/context_cols declare. */
static void build_lock_row(const struct lock_record *rec, struct row *row)
{
    const struct bench_config *c = rec->cfg;
    const struct lb_result *r = rec->r;
    bool rw = c->bench == BENCH_RWLOCK;
    row_begin(row, SCHEMA_LOCK);
    format_time(&r->end_time, row->strbuf[0], sizeof row->strbuf[0]);

    put_u(row, "schema", LOCK_CSV_SCHEMA_VERSION);
    put_s(row, "run_id", report_run_id());
    put_s(row, "bench", lock_bench_name(c->bench));
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_s(row, "lock", rec->lock->name);
    put_u(row, "threads", rec->threads);
    put_s(row, "pin", pin_policy_name(c->pin.policy));
    put_u(row, "oversubscribed", rec->oversubscribed);
    put_u(row, "seed", c->seed);
    put_u(row, "duration_ms", c->duration_ms);
    put_u(row, "rep", rec->rep);
    put_ou(row, "cs", !rw, c->cs);
    put_u(row, "ncs", c->ncs);
    put_ou(row, "write_pct", rw, c->write_pct);
    put_ou(row, "rcs", rw, c->rcs);
    put_ou(row, "wcs", rw, c->wcs);
    put_u(row, "handoff_bound", c->handoff_bound);
    put_u(row, "waiter_threshold", c->waiter_threshold);
    put_d(row, "elapsed_s", r->elapsed_s);
    put_u(row, "acquisitions", r->acquisitions);
    put_d(row, "acq_per_s", r->acq_per_s);
    put_u(row, "reads", r->reads);
    put_u(row, "writes", r->writes);
    put_d(row, "min_share", r->min_share);
    put_d(row, "max_share", r->max_share);
    put_od(row, "speedup", rec->has_speedup, rec->speedup);
    /* mutex: the smallest and largest of the 4 shared counters (both == acquisitions when ok) */
    uint64_t lo = r->counter[0], hi = r->counter[0];
    for (unsigned k = 1; k < LB_COUNTERS; k++) {
        lo = r->counter[k] < lo ? r->counter[k] : lo;
        hi = r->counter[k] > hi ? r->counter[k] : hi;
    }
    put_ou(row, "counter_min", !rw, lo);
    put_ou(row, "counter_max", !rw, hi);
    if (rw)
        r_put_i(row, "final_sum", r->final_sum);
    else
        put_ou(row, "final_sum", false, 0);
    put_ou(row, "reader_violations", rw, r->reader_violations);
    put_ou(row, "write_counter", rw, r->write_counter);
    put_u(row, "invariant_ok", r->invariant_ok);
    bool st = r->has_lock_stats;
    put_ou(row, "tx_begins", st, r->ls.tx_begins);
    put_ou(row, "tx_commits", st, r->ls.tx_commits);
    put_ou(row, "tx_aborts", st, r->ls.tx_aborts);
    put_ou(row, "abort_conflict", st, r->ls.abort_conflict);
    put_ou(row, "abort_capacity", st, r->ls.abort_capacity);
    put_ou(row, "abort_explicit", st, r->ls.abort_explicit);
    put_ou(row, "abort_retry", st, r->ls.abort_retry);
    put_ou(row, "abort_other", st, r->ls.abort_other);
    put_ou(row, "fallbacks", st, r->ls.fallbacks);
    put_plugins(row, registry_lock_plugin(rec->lock), NULL);   /* lock schema 3 */
    put_context(row);
    row_end(row);
}

static const char *lock_header_line(void)
{
    static char *cache;
    if (cache)
        return cache;
    struct bench_config c = { 0 };
    struct lb_result r = { 0 };
    static const struct lock_ops dummy = { .name = "" };
    struct lock_record rec = { .cfg = &c, .lock = &dummy, .r = &r };
    struct row row;
    build_lock_row(&rec, &row);
    return header_of(&cache, &row);
}


void report_lock_console_header(FILE *f, const struct bench_config *c)
{
    if (c->bench == BENCH_RWLOCK)
        fprintf(f, "# bench=rwlock write=%u%% rcs=%llu wcs=%llu ncs=%llu", c->write_pct, (unsigned long long)c->rcs,
                (unsigned long long)c->wcs, (unsigned long long)c->ncs);
    else
        fprintf(f, "# bench=mutex cs=%llu ncs=%llu", (unsigned long long)c->cs, (unsigned long long)c->ncs);
    fprintf(f, "  d=%llums  reps=%u  pin=%s  seed=%llu\n", (unsigned long long)c->duration_ms, c->reps,
            pin_policy_name(c->pin.policy), (unsigned long long)c->seed);
    fprintf(f, "%-14s %7s %10s %9s %9s %8s %9s %9s%s  %s\n", "lock", "threads", "Macq/s:med", "min", "max", "speedup",
            "min_share", "max_share", c->bench == BENCH_RWLOCK ? "   writes" : "", "check");
}

void report_lock_console_summary(FILE *f, const struct bench_config *c, const struct lb_summary *s)
{
    char speedup[32] = "-", wr[32] = "";
    if (s->has_speedup)
        snprintf(speedup, sizeof speedup, "%.2f", s->speedup);
    if (c->bench == BENCH_RWLOCK)
        snprintf(wr, sizeof wr, " %7.2f%%", 100 * s->write_share);
    fprintf(f, "%-14s %7u %10.3f %9.3f %9.3f %8s %9.4f %9.4f%s  %s\n", s->lock, s->threads, s->median, s->min, s->max,
            speedup, s->min_share, s->max_share, wr, s->ok ? "ok" : "FAILED");
    fflush(f);
}

/* ---------------- --bench memory and --bench occupancy rows ---------------- */

static void build_memory_row(const struct membench_point *p, struct row *row)
{
    row_begin(row, SCHEMA_MEMORY);
    format_time(&p->end_time, row->strbuf[0], sizeof row->strbuf[0]);
    put_u(row, "schema", MEMBENCH_CSV_SCHEMA_VERSION);
    put_s(row, "run_id", report_run_id());
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_u(row, "bytes", p->bytes);
    put_s(row, "pages", p->thp ? "thp" : "4k");
    put_u(row, "threads", p->threads);
    put_u(row, "k", p->k);
    put_d(row, "ns_per_load", p->ns_per_load);
    put_d(row, "mloads_per_s", p->mloads_per_s);
    put_context(row);
    row_end(row);
}

static void build_occupancy_row(const struct occ_record *rec, struct row *row)
{
    static const struct timespec unrecorded;
    const struct occ_row *r = rec->row;
    row_begin(row, SCHEMA_OCCUPANCY);
    format_time(rec->end_time ? rec->end_time : &unrecorded, row->strbuf[0], sizeof row->strbuf[0]);
    put_u(row, "schema", OCCUPANCY_CSV_SCHEMA_VERSION);
    put_s(row, "bench", "occupancy");
    put_s(row, "timestamp", row->strbuf[0]);
    put_host(row, row->strbuf[1], sizeof row->strbuf[1]);
    put_s(row, "table", rec->table->ops->name);
    put_s(row, "options", rec->table->options_text[0] ? rec->table->options_text : "-");
    put_u(row, "rep", rec->rep);
    put_u(row, "slots", r->slots);
    put_d(row, "load_target", r->load_target);
    put_u(row, "keys", r->keys);
    put_d(row, "load", r->load);
    put_u(row, "reached", r->reached);
    /* an unreached load has no throughput */
    put_od(row, "insert_mops", r->reached, r->insert_mops);
    put_od(row, "hit_mops", r->reached, r->hit_mops);
    put_od(row, "miss_mops", r->reached, r->miss_mops);
    put_ou(row, "hit_failures", r->reached, r->hit_failures);
    put_ou(row, "miss_hits", r->reached, r->miss_hits);
    put_od(row, "lines_hit", r->reached && r->lines, r->lines_hit);
    put_od(row, "lines_miss", r->reached && r->lines, r->lines_miss);
    put_d(row, "max_load", r->max_load);
    put_u(row, "bytes", r->bytes);
    put_s(row, "run_id", report_run_id());
    const struct lock_ops *lk = registry_choice_lock(rec->table);
    put_plugins(row, registry_table_plugin(rec->table->ops), lk ? registry_lock_plugin(lk) : NULL);
    put_context(row);
    row_end(row);
}

/* ---------------- every file's rows: one entry point ---------------- */

/* the one-line rows (the side files write a repetition's lines at once) */
static void build_item(const struct report_item *it, struct row *row)
{
    switch (it->schema) {
    case SCHEMA_TABLE: build_row(it->table, row); return;
    case SCHEMA_LOCK: build_lock_row(it->lock, row); return;
    case SCHEMA_MEMORY: build_memory_row(it->memory, row); return;
    case SCHEMA_OCCUPANCY: build_occupancy_row(it->occupancy, row); return;
    default: break;
    }
    fprintf(stderr, "chtbench: internal error: no one-line row for the %s schema\n", schemas[it->schema].name);
    abort();
}

int report_append(struct outfile *o, const struct report_item *it, char *err, size_t len)
{
    if (it->schema == SCHEMA_LATENCY)
        return latency_append(o, it->table, err, len);
    if (it->schema == SCHEMA_TIMELINE)
        return timeline_append(o, it->table, err, len);
    struct row row;
    struct sbuf b = { 0 };
    build_item(it, &row);
    format_fields(&b, &row, 0, row.n, false);
    sb_printf(&b, "\n");
    return append_sbuf(o, &b, err, len);
}

void report_json_item(FILE *f, const struct report_item *it)
{
    if (it->schema == SCHEMA_LATENCY || it->schema == SCHEMA_TIMELINE)
        return;   /* the --json record carries the table row only */
    struct row row;
    build_item(it, &row);
    row_json(f, &row);
}

/* a header from a row of nothing */
static const char *empty_row_header(enum report_schema s)
{
    static char *cache[SCHEMAS];
    if (cache[s])
        return cache[s];
    static const struct cht_ops none = { .name = "" };
    struct table_choice t = { .ops = &none };
    struct membench_point mp = { 0 };
    struct occ_row orow = { 0 };
    struct occ_record occ = { .table = &t, .row = &orow };
    struct report_item it = { .schema = s };
    if (s == SCHEMA_MEMORY)
        it.memory = &mp;
    else
        it.occupancy = &occ;
    struct row row;
    build_item(&it, &row);
    return header_of(&cache[s], &row);
}

const char *report_header_line(enum report_schema s)
{
    switch (s) {
    case SCHEMA_TABLE: return table_header_line();
    case SCHEMA_LATENCY: return latency_header_line();
    case SCHEMA_TIMELINE: return timeline_header_line();
    case SCHEMA_LOCK: return lock_header_line();
    default: return empty_row_header(s);
    }
}

const char *report_file_kind(enum report_schema s)
{
    static const char *const what[SCHEMAS] = {
        [SCHEMA_TABLE] = "chtbench table CSV (--csv)",
        [SCHEMA_LATENCY] = "chtbench latency-histogram CSV (--latency-csv)",
        [SCHEMA_TIMELINE] = "chtbench timeline CSV (--timeline-csv)",
        [SCHEMA_LOCK] = "chtbench lock-bench CSV (--bench)",
        [SCHEMA_MEMORY] = "chtbench memory-bench CSV (--bench memory)",
        [SCHEMA_OCCUPANCY] = "chtbench occupancy CSV (--bench occupancy)",
    };
    static char kind[SCHEMAS][96];
    if (!kind[s][0])
        snprintf(kind[s], sizeof kind[s], "%s, schema %d", what[s], schemas[s].version);
    return kind[s];
}

/* ---------------- chtbench --schema: the declarations above, as JSON ---------------- */

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* [{name, column, type, unit, flag, meaning}, ...]: column is the 1-based CSV position, null for
 * a field only the --json record carries */
static void schema_columns_json(FILE *f, const struct schema_def *s)
{
    unsigned pos = 0;
    fputs("[", f);
    for (unsigned i = 0; i < s->n; i++) {
        const struct col_decl *c = s->flat[i];
        fprintf(f, "%s\n  {\"name\":", i ? "," : "");
        json_text(f, c->name);
        if (c->where == IN_CSV)
            fprintf(f, ",\"column\":%u", ++pos);
        else
            fputs(",\"column\":null", f);
        fputs(",\"type\":", f);
        json_text(f, c->type);
        fputs(",\"unit\":", f);
        json_text(f, c->unit);
        fputs(",\"flag\":", f);
        json_text(f, c->flag);
        fputs(",\"meaning\":", f);
        json_text(f, c->meaning);
        fputs("}", f);
    }
    fputs("\n]", f);
}

int report_schema(FILE *f, const char *which)
{
    /* every row builder checks itself against its declaration (it aborts, naming the column,
     * on a mismatch): build each header once */
    for (int s = 0; s < SCHEMAS; s++)
        (void)report_header_line(s);
    if (which) {
        for (int s = 0; s < SCHEMAS; s++)
            if (strcmp(which, schemas[s].name) == 0) {
                schema_columns_json(f, &schemas[s]);
                fputs("\n", f);
                return 0;
            }
        fprintf(stderr, "chtbench: --schema: no schema '%s' (expected", which);
        for (int s = 0; s < SCHEMAS; s++)
            fprintf(stderr, "%s%s", s ? ", " : " ", schemas[s].name);
        fprintf(stderr, ")\n");
        return 2;
    }
    /* all of them: {"table": {"version": 8, "label": "", "file": "...", "columns": [...]}, ...} */
    fputs("{", f);
    for (int s = 0; s < SCHEMAS; s++) {
        fprintf(f, "%s\n\"%s\": {\"version\": %d, \"label\": ", s ? "," : "", schemas[s].name, schemas[s].version);
        json_text(f, schemas[s].label);
        fputs(", \"file\": ", f);
        json_text(f, schemas[s].file);
        fputs(", \"columns\": ", f);
        schema_columns_json(f, &schemas[s]);
        fputs("}", f);
    }
    fputs("\n}\n", f);
    return 0;
}
