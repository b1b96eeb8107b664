#!/usr/bin/env python3
"""test_measure.py - the measurement features of chtbench (docs/cli.md "Measurement").

Usage: test_measure.py BIN docs/csv.md
Checks: usage errors of the new flags; the CSV header equals the documented
column list in order; --latency=1 sample counts per store equal the outcome
counts; histograms sum to the sample counts; timeline rows sum to total_ops;
the PAPI no-events path (one warning, empty cells, exit 0) or, where events
exist, instruction counts growing with --ops; memory columns; speedup.
"""
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

BIN, DOC = sys.argv[1], sys.argv[2]
from checks import check, finish  # noqa: E402 (tests/checks.py)


def run(*args, timeout=300):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def records(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], p


tmp = tempfile.mkdtemp(prefix="chtbench-measure-")
out = os.path.join(tmp, "never.csv")
version = run("--version").stdout
built = version.split("features:")[1].split("\n")[0].split()
check("allocator:" in version, "--version reports the allocator")

# ---- usage errors: one line naming the flag, exit 2, nothing written ----
BAD = [
    (["--latency=0"], "--latency"),
    (["--latency=x"], "--latency"),
    (["--latency=-3"], "--latency"),
    (["--latency-csv", os.path.join(tmp, "l.csv")], "--latency-csv"),       # without --latency
    (["--latency", "--latency-csv", "/no/such/dir/l.csv"], "--latency-csv"),
    (["--latency", "--latency-csv", tmp], "--latency-csv"),
    (["--timeline", "0", "--timeline-csv", os.path.join(tmp, "t.csv")], "--timeline"),
    (["--timeline", "abc", "--timeline-csv", os.path.join(tmp, "t.csv")], "--timeline"),
    (["--timeline", "10"], "--timeline"),
    (["--timeline-csv", os.path.join(tmp, "t.csv")], "--timeline-csv"),
    (["--timeline", "10", "--timeline-csv", "/no/such/dir/t.csv"], "--timeline-csv"),
    (["--counters", ""], "--counters"),
    (["--counters", "no_such_event_xyz"], "--counters"),
    (["--counters", "PAPI_TOT_INS,bogus_evt"], "--counters"),
]
if "likwid" not in built:
    BAD.append((["--likwid-marker"], "--likwid-marker"))
for args, flag in BAD:
    p = run("-t", "null", "-d", "10", "--csv", out, *args)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and flag in lines[0] and p.stdout == "",
          f"usage error {' '.join(args)} -> exit {p.returncode}, {lines!r}")
if "papi" not in built:
    p = run("-t", "null", "-d", "10", "--counters", "ipc")
    check(p.returncode == 2 and "PAPI" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "--counters without PAPI built in: usage error saying so")
check(not os.listdir(tmp), "no file was created by any invalid invocation")

# ---- the CSV header is the documented schema, in order ----
doc_cols = []
for line in open(DOC):
    m = re.match(r"^\| (\d+) \| ([a-z0-9_]+) \|", line)
    if m:
        doc_cols.append((int(m.group(1)), m.group(2)))
check([n for n, _ in doc_cols] == list(range(1, len(doc_cols) + 1)), "docs/csv.md numbers its columns 1..n")
hdr_csv = os.path.join(tmp, "hdr.csv")
p = run("-t", "null", "--ops", "100", "-i", "100", "--csv", hdr_csv)
header = open(hdr_csv).readline().strip().split(",")
check(header == [c for _, c in doc_cols],
      f"CSV header == docs/csv.md column list ({len(header)} vs {len(doc_cols)} columns; first difference: "
      f"{next(((i, a, b) for i, (a, b) in enumerate(zip(header, [c for _, c in doc_cols])) if a != b), None)})")
row = next(csv.DictReader(open(hdr_csv)))
# the table CSV's version as `chtbench --schema` declares it (a version bump needs no edit here)
SCHEMA = str(json.loads(run("--schema").stdout)["table"]["version"])
check(row["schema"] == SCHEMA, f"schema is {SCHEMA}, the version --schema declares")
check(len(header) <= 100, f"the table CSV has at most 100 columns (has {len(header)})")
check(row["keys"] == "dense", "keys: dense by default")
for col in ["lat_every", "lat_get_suc_p50_ns", "counter_names", "counter_values_per_op"]:
    check(row[col] == "", f"{col} is empty when not asked for / not available")
check(not any(c.startswith("jemalloc_") or c.endswith("_cycles") for c in header),
      "jemalloc columns and cycle statistics are not in the table CSV (--json, --latency-csv)")

# ---- latency: EVERY=1 counts every op into its store ----
STORES = ["get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail"]
# the statistics are in --latency-csv, one row per (rep, class), joined to the records on run_id + rep
lat_csv = os.path.join(tmp, "lat.csv")
recs, p = records("-t", "locked", "-n", "2", "--ops", "50000", "-i", "4096", "-u", "40", "--latency=1",
                  "--latency-csv", lat_csv, "-R", "2")
check(len(recs) == 2, "two reps -> two records")
lat = {(h["run_id"], int(h["rep"]), h["store"]): h for h in csv.DictReader(open(lat_csv))}
check(len(lat) == 2 * 8, f"--latency-csv: one row per (rep, class): 2 x 8 rows (got {len(lat)})")
ALL = STORES + ["upd_suc", "upd_fail"]
for r in recs:
    h = {s: lat.get((r["run_id"], r["rep"], s)) for s in ALL}
    check(all(h.values()), f"rep {r['rep']}: a latency row per class, joined on run_id + rep")
    if not all(h.values()):
        continue
    check(all(int(h[s]["count"]) == r[s] for s in ALL) and all(h[s]["dropped"] == "0" for s in ALL),
          f"rep {r['rep']}: --latency=1 samples per class == outcome counts {[r[s] for s in ALL]}")
    g = {k: float(v) for k, v in h["get_suc"].items() if k.endswith(("_cycles", "_ns", "_share", "_hz"))}
    check(g["min_cycles"] <= g["p50_cycles"] <= g["p90_cycles"] <= g["p99_cycles"] <= g["p999_cycles"] <= g["max_cycles"],
          "min <= p50 <= p90 <= p99 <= p99.9 <= max")
    check(abs(g["avg_ns"] - g["avg_cycles"] * 1e9 / g["tsc_hz"]) < 1e-3 * g["avg_ns"] + 1e-6, "ns = cycles / TSC GHz")
    check(0 <= g["within10_share"] <= g["within25_share"] <= g["within50_share"] <= 1,
          "clustering shares are nested in [0,1]")
    for s in STORES:
        for q in ("p50", "p99", "p999"):
            check(math.isclose(r[f"lat_{s}_{q}_ns"], float(h[s][f"{q}_ns"]), rel_tol=1e-4) if r[s] else
                  r[f"lat_{s}_{q}_ns"] is None and h[s][f"{q}_ns"] == "",
                  f"rep {r['rep']} {s}: the record's lat_{s}_{q}_ns is the latency file's {q}_ns (empty without samples)")
    for s in ALL:
        pairs = [tuple(map(int, x.split(":"))) for x in h[s]["hist_log2"].split(";") if x]
        check(sum(n for _, n in pairs) == int(h[s]["count"]) and [b for b, _ in pairs] == sorted({b for b, _ in pairs})
              and all(0 <= b < 64 and n > 0 for b, n in pairs),
              f"rep {r['rep']} {s}: hist_log2 has ascending non-empty buckets summing to count {h[s]['count']}")
        if pairs:   # bucket b holds [2^b, 2^(b+1)-1] cycles: min and max fall in the first and last bucket
            lo, hi = float(h[s]["min_cycles"]), float(h[s]["max_cycles"])
            check((pairs[0][0] == 0 and lo <= 1 or 2 ** pairs[0][0] <= lo < 2 ** (pairs[0][0] + 1)) and
                  (pairs[-1][0] == 0 and hi <= 1 or 2 ** pairs[-1][0] <= hi < 2 ** (pairs[-1][0] + 1)),
                  f"rep {r['rep']} {s}: min and max cycles fall in the histogram's first and last bucket")
check("latency locked" in p.stderr and "get_suc" in p.stderr, "console latency table printed")

# sampling: EVERY=8 times one op in 8 (per thread: floor(ops/8)); counts from the latency file
lat8 = os.path.join(tmp, "lat8.csv")
recs, _ = records("-t", "null", "-n", "2", "--ops", "80000", "--latency=8", "--latency-csv", lat8)
check(sum(int(h["count"]) for h in csv.DictReader(open(lat8))) == 2 * 10000 and recs[0]["lat_every"] == 8,
      "--latency=8: 80000 ops/thread x 2 threads -> 20000 samples")
lat512 = os.path.join(tmp, "lat512.csv")
recs, _ = records("-t", "null", "--ops", "51200", "--latency", "--latency-csv", lat512)
check(recs[0]["lat_every"] == 512 and sum(int(h["count"]) for h in csv.DictReader(open(lat512))) == 100,
      "--latency default EVERY is 512")

# ---- timeline: rows sum to total_ops ----
for mode in (["--ops", "300000"], ["-d", "200"]):
    tl = os.path.join(tmp, f"tl{mode[0]}.csv")
    recs, _ = records("-t", "locked", "-n", "2", "-i", "4096", "--timeline", "10", "--timeline-csv", tl, *mode)
    rows = list(csv.DictReader(open(tl)))
    total = sum(int(r["interval_ops"]) for r in rows)
    check(len(rows) >= 2 and total == recs[0]["total_ops"],
          f"timeline {' '.join(mode)}: {len(rows)} rows, ops sum {total} == total_ops {recs[0]['total_ops']}")
    ts = [float(r["t_ms"]) for r in rows]
    check(ts == sorted(ts) and all(int(r["interval_ops"]) >= 0 for r in rows), "timeline times increase")

# ---- counters ----
p = run("-t", "locked", "-n", "1", "--ops", "20000", "-i", "1000", "--counters", "ipc", "--json")
if "papi" in built:
    r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
    warn = [l for l in p.stderr.splitlines() if "warning" in l]
    if r.get("counter_names"):
        def ins_per_run(ops):
            q = records("-t", "locked", "-n", "1", "--ops", str(ops), "-i", "1000", "--counters", "PAPI_TOT_INS")[0][0]
            return float(q["counter_values_per_op"]) * q["total_ops"]
        a, b = ins_per_run(100000), ins_per_run(400000)
        check(b > 3 * a, f"instructions grow with --ops: {a:.0f} -> {b:.0f}")
    else:
        msgs = [l for l in p.stderr.splitlines() if l.startswith("chtbench:")]   # the rest is the --json summary
        check(p.returncode == 0 and len(warn) == 1 and "--counters" in warn[0] and len(msgs) == 1,
              f"no hardware events: exit 0, one warning line ({warn!r})")
        check(r.get("counter_names") == "" and r.get("counter_values_per_op") == "" and r.get("size_ok") == 1,
              "no hardware events: counter cells empty, run ok")
        print("skip instruction counts grow with --ops: PAPI finds no hardware events here")

# ---- likwid outside likwid-perfctr is harmless ----
if "likwid" in built:
    p = run("-t", "locked", "-n", "2", "--ops", "10000", "-i", "1000", "--likwid-marker")
    check(p.returncode == 0 and len(p.stderr.strip().splitlines()) <= 1, "--likwid-marker outside likwid-perfctr: runs")

# ---- memory and speedup ----
recs, _ = records("-t", "locked", "-n", "1,2", "-R", "3", "--ops", "20000", "-i", "64K")
ones = sorted(r["mops"] for r in recs if r["threads"] == 1)
med = ones[1]
check(all(r["speedup"] is not None and abs(r["speedup"] - r["mops"] / med) < 1e-3 * r["speedup"] + 1e-9 for r in recs),
      "speedup = mops / median of the 1-thread mops on every row")
check([r["threads"] for r in recs] == [1, 1, 1, 2, 2, 2], "rows keep their order")
r = recs[0]
check(r["rss_before_create_bytes"] > 0 and r["rss_peak_bytes"] >= r["rss_after_run_bytes"] and
      r["rss_after_prefill_bytes"] >= r["rss_before_create_bytes"], "RSS columns are plausible")
check(r["table_bytes_after_prefill"] > 0 and abs(r["bytes_per_key"] - r["table_bytes_after_prefill"] / 65536) < 1e-3,
      "bytes_per_key = table_bytes_after_prefill / initial")
check((r["jemalloc_allocated_after_run_bytes"] is not None) == (r["allocator"] == "jemalloc"),
      "jemalloc columns filled exactly when malloc is jemalloc")
recs, _ = records("-t", "locked", "-n", "2,1", "--ops", "20000", "-i", "1000")
check(recs[0]["threads"] == 2 and recs[0]["speedup"] is None and recs[1]["speedup"] is not None,
      "thread list 2,1: the 2-thread row written before the 1-thread median is known has no speedup")
recs, _ = records("-t", "locked", "-n", "2", "--ops", "20000", "-i", "1000")
check(recs[0]["speedup"] is None, "no 1 in the list: no speedup")

finish()
