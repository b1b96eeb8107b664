#!/usr/bin/env python3
"""test_trust.py - results a researcher can trust (docs/cli.md "The final
check", docs/csv.md "Results files cannot be corrupted").

The final check catches a table that silently loses one insert in a million
(which size() cannot); results files are opened and checked before any run
(pseudo files, FIFOs, foreign or other-schema headers, one file for two
schemas, unwritable side files: exit 2, nothing written, file untouched);
torn last lines are not merged; every row of every file carries run_id and
the build context and joins to the main CSV; --csv -; SIGINT/SIGTERM stop
cleanly with exit 130/143 and no partial row; --warmup is uncounted but in
the accounting; a full fixed-capacity table is its own outcome (exit 3);
row writers take 1000-character option strings; timestamps are each
repetition's end; the memory estimate refuses what cannot fit.
"""
import csv
import json
import socket
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
# the table CSV's schema version, as this chtbench declares it (`chtbench --schema`)
SCHEMA = str(json.loads(subprocess.run([BIN, "--schema"], capture_output=True, text=True).stdout)["table"]["version"])
from checks import check, finish  # noqa: E402 (tests/checks.py)


def run(*args, env=None, timeout=300):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=e)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


tmp = tempfile.mkdtemp(prefix="chtbench-trust-")


def path(name):
    return os.path.join(tmp, name)


# ---- 1. the final check can fail: one insert in a million silently lost ----
drop = {"CHTBENCH_TEST_FAULT_DROP_INSERT": "1000000"}
f = path("drop.csv")
p = run("-t", "clht-lb", "-n", "2", "-i", "1M", "-d", "100", "--csv", f, "--json", env=drop)
r = rows(f)
# verify_found and verified_keys are in the --json record only (schema 8: docs/csv.md)
j = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")] or [{}]
check(p.returncode == 1 and len(r) == 1 and
      f"VERIFY FAILED: clht-lb, 2 threads, rep 0: 1 of {r[0]['expected_size']} keys missing (the final check" in p.stderr
      and "SIZE MISMATCH" not in p.stderr and "KEY SUM MISMATCH" not in p.stderr,
      f"a table losing 1 insert in 1M is caught by the run, the console names the check (exit {p.returncode})")
check(len(r) == 1 and r[0]["size_ok"] == "1" and r[0]["verify_ok"] == "0" and r[0]["outcome"] == "mismatch" and
      r[0]["verify"] == "full" and j[0].get("verify_found") == int(r[0]["expected_size"]) - 1 and
      j[0].get("verified_keys") == 2 * 1048576,
      "size() agrees (by construction) but verify finds exactly one key missing: verify_ok=0, outcome=mismatch")
p = run("-t", "clht-lb", "-n", "2", "-i", "1M", "-d", "100", "--verify", "off", "--json", env=drop)
check(p.returncode == 0 and json.loads(p.stdout.splitlines()[0])["verify"] == "off",
      "with --verify off the same loss goes unnoticed (the size check alone cannot see it)")
p = run("-t", "clht-lb", "-n", "2", "-i", "1M", "-d", "100", "--json")
rec = json.loads(p.stdout.splitlines()[0])
check(p.returncode == 0 and rec["verify_ok"] == 1 and rec["verify_found"] == rec["final_size"] == rec["expected_size"],
      "a correct table passes: verify_found == final_size == expected_size")
print(f"INFO verify sweep at i=1M, r=2M, 2 threads: {rec['verify_s']:.3f} s")
# sample mode on a large range; and a gross loss is caught by the sample too
p = run("-t", "clht-lb", "-i", "64K", "-r", "16M", "-d", "50", "--verify", "sample", "--json")
rec = json.loads(p.stdout.splitlines()[0])
check(p.returncode == 0 and rec["verify"] == "sample" and rec["verified_keys"] == 1 << 20 and rec["verify_ok"] == 1,
      "--verify sample: 2^20 sampled keys, within bounds")
p = run("-t", "clht-lb", "-i", "1M", "-r", "32M", "-d", "50", "--json", env={"CHTBENCH_TEST_FAULT_DROP_INSERT": "10"})
rec = json.loads(p.stdout.splitlines()[0]) if p.stdout else {}
check(p.returncode == 1 and rec.get("verify") == "sample" and rec.get("verify_ok") == 0,
      "default on a 32M range is a sample, and it catches losing 10% of the keys")
p = run("-t", "null", "-i", "1K", "-d", "20", "--json")
check(p.returncode == 0 and json.loads(p.stdout.splitlines()[0])["verify"] == "off",
      "a table that stores nothing is not swept (verify off)")

# ---- 2/3. results files: checked by opening, before any run ----
def untouched(args, name, content, what, flag):
    fp = path(name)
    with open(fp, "w") as fh:
        fh.write(content)
    p = run("-t", "clht-lb", "-i", "1K", "-d", "10", *[a.replace("@", fp) for a in args])
    check(p.returncode == 2 and flag in p.stderr and fp in p.stderr and open(fp).read() == content and
          len(p.stderr.strip().splitlines()) == 1 and "Mops" not in p.stdout,
          f"{what}: exit 2 naming {flag} and the file, file untouched (got {p.returncode}: {p.stderr.strip()[:160]})")
    return p


old3 = ("schema,timestamp,host,table,options,threads,pin,mops,size_ok\n"
        "3,2026-01-01T00:00:00Z,h,clht-lb,,1,default,10.5,1\n")
p = untouched(["--csv", "@"], "old.csv", old3, "a schema-3 table CSV", "--csv")
check("schema 3" in p.stderr and f"schema {SCHEMA}" in p.stderr, "the message names both schemas")
lock_csv = path("lock.csv")
run("--bench", "mutex", "--lock", "tas", "-d", "10", "--csv", lock_csv)
untouched(["--csv", "@"], "lock-copy.csv", open(lock_csv).read(), "a lock-bench CSV given to a table run", "--csv")
untouched(["--csv", "@"], "foreign.csv", "a,b,c\n1,2,3\n", "a foreign CSV", "--csv")
table_csv = path("table.csv")
run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", table_csv)
p = run("--bench", "mutex", "--lock", "tas", "-d", "10", "--csv", table_csv)
check(p.returncode == 2 and "lock-bench" in p.stderr and len(rows(table_csv)) == 1,
      "a table CSV given to a lock bench: exit 2, untouched")
untouched(["--latency", "--latency-csv", "@"], "lat-as-table.csv", open(table_csv).read(),
          "a table CSV given as --latency-csv", "--latency-csv")
untouched(["--timeline", "5", "--timeline-csv", "@"], "tl-as-table.csv", open(table_csv).read(),
          "a table CSV given as --timeline-csv", "--timeline-csv")
same = path("same.csv")
p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", same, "--latency", "--latency-csv", same)
check(p.returncode == 2 and "same file" in p.stderr and not os.path.exists(same),
      "--csv F --latency-csv F: refused, nothing created")
fifo = path("fifo")
os.mkfifo(fifo)
p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", fifo, timeout=20)
check(p.returncode == 2 and "FIFO" in p.stderr, "--csv on a FIFO: refused at once, no blocking")
for bad in ["/proc/chtbench-x.csv", "/proc/self/comm", "/sys/kernel/mm/transparent_hugepage/enabled",
            path("x" * 300 + ".csv"), path("no/such/dir/x.csv"), tmp]:
    before = open(bad).read() if os.path.isfile(bad) else None
    p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", bad)
    after = open(bad).read() if os.path.isfile(bad) else None
    check(p.returncode == 2 and "--csv" in p.stderr and before == after and len(p.stderr.strip().splitlines()) == 1,
          f"--csv {bad[:60]}: exit 2, one line, nothing written (got {p.returncode}: {p.stderr.strip()[:120]})")
good = path("good.csv")
p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", good, "--timeline", "5", "--timeline-csv", "/proc/x/t.csv")
check(p.returncode == 2 and "--timeline-csv" in p.stderr and not os.path.exists(good),
      "an unwritable --timeline-csv beside a good --csv: exit 2 before the run, the good file not created")
if os.geteuid() != 0:
    ro = path("ro.csv")
    open(ro, "w").close()
    os.chmod(ro, stat.S_IRUSR)
    p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", ro)
    check(p.returncode == 2 and "--csv" in p.stderr, "a read-only file: exit 2")

# a torn last line is never merged with the next row
torn = path("torn.csv")
run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", torn)
with open(torn, "a") as fh:
    fh.write("4,partial-row-without-newline")
p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", torn)
lines = open(torn).read().splitlines()
check(p.returncode == 0 and len(lines) == 4 and lines[2] == "4,partial-row-without-newline" and
      lines[3].startswith(f"{SCHEMA},") and len(lines[3].split(",")) == len(lines[0].split(",")),
      "a file not ending in a newline: the new row starts on its own line")

# ---- 4. run_id and context on every row of every file; side files join ----
m, lat, tl = path("m.csv"), path("lat.csv"), path("tl.csv")
p = run("-t", "clht-lb,locked", "-n", "1,2", "-i", "4K", "-d", "60", "-R", "2", "--csv", m, "--latency",
        "--latency-csv", lat, "--timeline", "10", "--timeline-csv", tl)
main_rows, lat_rows, tl_rows = rows(m), rows(lat), rows(tl)
ids = {r["run_id"] for r in main_rows + lat_rows + tl_rows}
check(p.returncode == 0 and len(main_rows) == 8 and len(ids) == 1 and re.fullmatch(r"[0-9a-f]{16}", ids.pop() or ""),
      "8 rows, one run_id (16 hex digits) on every row of all three files")
ver = run("--version").stdout
ctx = {k: v.strip() for k, v in (l.split(":", 1) for l in ver.splitlines() if ":" in l)}
for r in main_rows + lat_rows + tl_rows:
    if not all(r[k] == ctx[c] for k, c in [("version", "version"), ("git_rev", "git"), ("build_type", "build"),
                                           ("sanitizer", "sanitizer"), ("compiler", "compiler"),
                                           ("allocator", "allocator")]):
        check(False, f"row context equals --version: {r}")
        break
else:
    check(True, "every row's version, git_rev, build_type, sanitizer, compiler, allocator == --version")
key = ("run_id", "table", "options", "threads", "rep")
main_keys = {tuple(r[k] for k in key) for r in main_rows}
check({tuple(r[k] for k in key) for r in lat_rows} == main_keys == {tuple(r[k] for k in key) for r in tl_rows},
      "latency and timeline rows join to the main rows on (run_id, table, options, threads, rep)")
for side in (lat_rows, tl_rows):
    mr = {tuple(r[k] for k in key): r for r in main_rows}
    bad = [s for s in side if any(s[c] != mr[tuple(s[k] for k in key)][c]
                                   for c in ("timestamp", "host", "dist", "seed", "initial", "range", "update"))]
    check(not bad, "side rows repeat the main row's timestamp, host and workload")
for r in tl_rows:
    pass
tl_sum = {}
for r in tl_rows:
    k = tuple(r[c] for c in key)
    tl_sum[k] = tl_sum.get(k, 0) + int(r["interval_ops"])
check(all(tl_sum[tuple(r[c] for c in key)] == int(r["total_ops"]) for r in main_rows),
      "timeline interval_ops sum to each rep's total_ops")
p2 = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", m)
check(p2.returncode == 0 and len({r["run_id"] for r in rows(m)}) == 2, "a second invocation has another run_id")

# ---- 20. timestamps: each repetition's end, millisecond resolution, also for held-back 1-thread rows ----
ts = [r["timestamp"] for r in main_rows if r["table"] == "clht-lb" and r["threads"] == "1"]
check(all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", t) for t in ts) and len(set(ts)) == 2 and
      ts == sorted(ts), f"1-thread rows (held back for speedup) carry distinct rep-end times {ts}")

# ---- 5. --csv - ----
p = run("-t", "clht-lb", "-n", "1", "-i", "1K", "-d", "10", "-R", "2", "--csv", "-")
out = list(csv.DictReader(p.stdout.splitlines()))
check(p.returncode == 0 and len(out) == 2 and out[0]["table"] == "clht-lb" and "Mops/s" in p.stderr and
      "Mops/s" not in p.stdout, "--csv -: the CSV on stdout (header + 2 rows), the summary on stderr")
p = run("-t", "clht-lb", "-i", "1K", "-d", "10", "--csv", "-", "--json")
check(p.returncode == 2 and "--csv" in p.stderr, "--csv - with --json: refused")

# ---- 6. SIGINT / SIGTERM ----
for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
    f = path(f"sig{code}.csv")
    proc = subprocess.Popen([BIN, "-t", "clht-lb", "-n", "2", "-i", "16K", "-d", "300", "-R", "50", "--csv", f],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.6)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    got = rows(f) if os.path.exists(f) else []
    lines = open(f).read().splitlines() if os.path.exists(f) else []
    check(proc.returncode == code and "interrupted" in err and 1 <= len(got) < 50 and
          all(len(l.split(",")) == len(lines[0].split(",")) for l in lines) and
          [r["rep"] for r in got] == [str(i) for i in range(len(got))] and "clht-lb" in out,
          f"{sig.name}: exit {proc.returncode} (want {code}), {len(got)} complete rows, summary printed")
# every other mode, through the same pipeline: stopped after some repetitions, only complete rows, 130
MODE_RUNS = {
    "mutex": ["--bench", "mutex", "--lock", "tas", "-d", "100", "-R", "50"],
    "rwlock": ["--bench", "rwlock", "--lock", "ticket", "-n", "2", "-d", "100", "-R", "50"],
    "memory": ["--bench", "memory", "--size", "16K,32K,64K,128K", "-d", "50"],
    "occupancy": ["--bench", "occupancy", "-t", "dense", "--slots", "64K", "--load", "0.5,0.9", "--ops", "200000",
                  "-R", "500"],
}
procs = {m: subprocess.Popen([BIN, *a, "--csv", path(f"sig-{m}.csv")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for m, a in MODE_RUNS.items()}
time.sleep(1.5)
for m, proc in procs.items():
    proc.send_signal(signal.SIGINT)
for m, proc in procs.items():
    _, err = proc.communicate(timeout=30)
    f = path(f"sig-{m}.csv")
    lines = list(csv.reader(open(f))) if os.path.exists(f) else []
    whole = len(lines) >= 2 and all(len(l) == len(lines[0]) for l in lines)
    per_rep = 2 if m == "occupancy" else 1     # an occupancy repetition is a row per load
    check(proc.returncode == 130 and "interrupted by SIGINT" in err and whole and (len(lines) - 1) % per_rep == 0 and
          f"{(len(lines) - 1) // per_rep} repetition" in err,
          f"--bench {m} stopped by SIGINT: exit {proc.returncode} (want 130), {len(lines) - 1} complete rows, "
          f"the count on stderr ({err.strip().splitlines()[-1:] if err.strip() else ''})")

# ---- 18. --warmup ----
p = run("-t", "clht-lb", "-i", "4K", "--ops", "20000", "-u", "100", "--insert", "100", "--remove", "0",
        "--warmup", "100", "--json")
rec = json.loads(p.stdout.splitlines()[0])
check(p.returncode == 0 and rec["warmup_ms"] == 100 and rec["warmup_ops"] > 0 and rec["total_ops"] == 20000 and
      rec["final_size"] == rec["prefilled"] + rec["ins_suc"] + rec["warmup_ins_suc"] and rec["size_ok"] == 1 and
      rec["verify_ok"] == 1, "--warmup: uncounted ops, exactly --ops timed, warm-up inserts in the accounting")
a = json.loads(run("-t", "clht-lb", "-i", "4K", "--ops", "20000", "--json").stdout.splitlines()[0])
b = json.loads(run("-t", "clht-lb", "-i", "4K", "--ops", "20000", "--json").stdout.splitlines()[0])
check(a["warmup_ms"] == 0 and all(a[k] == b[k] for k in ("get_suc", "ins_suc", "rem_suc", "final_size")),
      "--ops runs default to no warm-up and stay reproducible")
d = json.loads(run("-t", "clht-lb", "-i", "4K", "-d", "50", "--json").stdout.splitlines()[0])
check(d["warmup_ms"] == 100 and d["warmup_ops"] > 0, "--duration runs warm up 100 ms by default")
p = run("-t", "clht-lb", "--warmup", "x")
check(p.returncode == 2 and "--warmup" in p.stderr, "--warmup x: exit 2")

# ---- Zipf drawn before the run (issue 14): the same keys as drawn in the loop ----
recs = []
for kb in ([], ["--keybuf", "0"], ["--keybuf", "1024"]):
    p = run("-t", "clht-lb", "-i", "64K", "--ops", "200000", "--dist", "zipf:0.99", *kb, "--json")
    recs.append(json.loads(p.stdout.splitlines()[0]))
same = all(recs[0][k] == recs[1][k] for k in ("get_suc", "get_fail", "ins_suc", "rem_suc", "final_size"))
check(same and recs[0]["keybuf"] == 262144 and recs[0]["keybuf_wrapped"] == 0 and recs[1]["keybuf"] == 0 and
      recs[0]["keygen_ns"] > 0, "zipf pre-generated: same outcomes as drawn in the loop (same seed, same keys)")
check(recs[2]["keybuf"] == 1024 and recs[2]["keybuf_wrapped"] == 1 and recs[2]["total_ops"] == 200000,
      "--keybuf 1024 with 200000 ops: the loop goes round the buffer and says so")
# uniform keys come from a buffer too (the in-loop draw's instructions cost throughput at large tables),
# with the very stream the loop would draw: --keybuf 0 gives the same outcomes
recs = []
for kb in ([], ["--keybuf", "0"]):
    p = run("-t", "clht-lb", "-i", "64K", "--ops", "100000", *kb, "--json")   # 1 thread: no interleaving
    recs.append(json.loads(p.stdout.splitlines()[0]))
check(all(recs[0][k] == recs[1][k] for k in ("get_suc", "get_fail", "ins_suc", "rem_suc", "final_size")) and
      recs[0]["keybuf"] == 131072 and recs[1]["keybuf"] == 0 and recs[0]["keybuf_bytes"] == 131072 * 8,
      "uniform pre-generated by default: same outcomes as drawn in the loop (same seed, same keys)")
d = json.loads(run("-t", "clht-lb", "-i", "1K", "-d", "30", "--json").stdout.splitlines()[0])
check(d["keybuf"] == 1 << 20, f"uniform, -d, r = 2K: the buffer holds 2^20 draws (>= 16 per key), got {d['keybuf']}")
d = json.loads(run("-t", "noop", "-n", "2", "-i", "1M", "-d", "30", "--json").stdout.splitlines()[0])
check(d["keybuf"] == 1 << 24 and d["keybuf_bytes"] == 2 * 8 << 24,
      f"uniform, -d, r = 2M, 2 threads: 2^24 draws each (16 per key, the cap), got {d['keybuf']}")
p = run("-t", "clht-lb", "--keybuf", "1000")
check(p.returncode == 2 and "--keybuf" in p.stderr, "--keybuf 1000 (not a power of two): exit 2")
# A loop that goes round its buffer of uniform keys with writes shifts each round's keys by a drawn
# amount (workloads/opsource.h OPSRC_SHIFT). Re-read as they were, round 2 would insert the keys round 1
# inserted and remove those it removed: at r = 128K and 512 writes a round, all but ~250 of 200000
# writes would fail (they did, before; the cheap failures ran 6x faster at -d on a 16M table).
for extra in ([], ["--pipeline", "16"]):
    p = run("-t", "clht-lb", "-i", "64K", "-u", "50", "--ops", "400000", "--keybuf", "1024", *extra, "--json")
    d = json.loads(p.stdout.splitlines()[0])
    shares = [d[f"{o}_suc"] / max(1, d[f"{o}_suc"] + d[f"{o}_fail"]) for o in ("ins", "rem", "get")]
    check(p.returncode == 0 and d["keybuf_wrapped"] == 1 and d["total_ops"] == 400000 and
          all(0.42 <= x <= 0.58 for x in shares) and "note:" not in p.stderr,
          f"--keybuf 1024, -u 50, 400000 ops {' '.join(extra)}: every round of the buffer writes new keys "
          f"(insert, remove, get success shares {[round(x, 3) for x in shares]}, each 0.42..0.58)")

# ---- 16. a full fixed-capacity table is its own outcome ----
f = path("full.csv")
p = run("-t", "cuckoo:ways=1,resize=0", "-i", "64K", "--density", "0.95", "-d", "50", "--csv", f)
r = rows(f)
check(p.returncode == 3 and "TABLE FULL" in p.stderr and "CORRECTNESS" not in p.stderr and len(r) == 1 and
      r[0]["outcome"] == "full" and int(r[0]["full_failures"]) > 0 and r[0]["size_ok"] == "1" and
      r[0]["verify_ok"] == "1", f"a table that fills up: exit 3, outcome full, accounting exact (got {p.returncode})")

# ---- 15. row writers and 1000-character option strings ----
long_opt = "cuckoo:hashes=" + "0" * 1000 + "2"
f, lat, tl = path("long.csv"), path("long-lat.csv"), path("long-tl.csv")
p = run("-t", long_opt, "-i", "1K", "-d", "30", "--csv", f, "--latency=1", "--latency-csv", lat, "--timeline", "1",
        "--timeline-csv", tl, "--json")
ok = p.returncode == 0
if ok:
    ok = all(rr["options"] == long_opt.split(":", 1)[1] for rr in rows(f) + rows(lat) + rows(tl))
    ok = ok and len(rows(tl)) >= 2 and json.loads(p.stdout.splitlines()[0])["options"] == long_opt.split(":", 1)[1]
check(ok, f"1000-character options through CSV, latency, timeline and JSON writers (exit {p.returncode}: "
          f"{p.stderr.strip()[-160:]})")

# ---- 7. the memory estimate refuses what cannot fit (ulimit -v) ----
f = path("oom.csv")
p = subprocess.run(["bash", "-c", f"ulimit -v 1000000; exec {BIN} -t clht-lb -i 256M -d 10 --csv {f}"],
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 1 and "needs about" in p.stderr and "ulimit -v" in p.stderr and not os.path.exists(f),
      f"ulimit -v 1 GB, -i 256M: refused before the prefill, exit 1, nothing written ({p.stderr.strip()[:140]})")

# ---- filters (CHT_CAP_APPROXIMATE): the harness keeps the truth; no false negative; fp rate measured ----
p = run("-t", "cuckoo-filter:fp_bits=8", "-n", "2", "-i", "256K", "-u", "40", "-d", "200", "--json")
r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
check(r and r["false_negatives"] == 0 and r["verify_ok"] == 1 and r["size_ok"] == 1 and
      r["final_size"] == r["prefilled"] + r["ins_suc"] + r["warmup_ins_suc"] - r["rem_suc"] - r["warmup_rem_suc"] and
      0.004 < r["fp_rate"] < 2 * 4 / 2 ** 8 and r["fp_checked"] > 200000 and r["bits_per_item"] > 8,
      f"cuckoo-filter fp_bits=8 under u=40, 2 threads: no false negative, exact size, fp_rate "
      f"{r.get('fp_rate')} within 2b/2^f = 3.1%, bits_per_item {r.get('bits_per_item')}")
r = json.loads(run("-t", "clht-lb", "-i", "1K", "-d", "10", "--json").stdout.splitlines()[0])
check(r["fp_rate"] is None and r["bits_per_item"] is None, "exact tables leave the filter columns empty")
p = run("-t", "cuckoo-filter", "--workload", "ycsb-c")
check(p.returncode == 2 and "--workload" in p.stderr, "a filter with --workload: exit 2")

# ---- --bench occupancy (seed 004): one row per load, fixed-capacity tables only ----
occ = path("occ.csv")
p = run("--bench", "occupancy", "-t", "dense,cuckoo:resize=0", "--slots", "16K", "--load", "0.5,0.9", "--ops", "20000",
        "--csv", occ)
orows = rows(occ) if os.path.exists(occ) else []
check(p.returncode == 0 and len(orows) == 4 and all(r["hit_failures"] == "0" and r["miss_hits"] == "0" and
      r["run_id"] and r["options"] in ("-", "resize=0") for r in orows) and
      all(abs(int(r["keys"]) - round(float(r["load_target"]) * int(r["slots"]))) <= 1 for r in orows if r["reached"] == "1"),
      f"--bench occupancy: 2 tables x 2 loads, loads within one key, exact lookups, run_id (exit {p.returncode})")
p = run("--bench", "occupancy", "-t", "clht-lb", "--slots", "16K", "--load", "0.5", "--csv", path("occ2.csv"))
check(p.returncode == 2 and "fixed capacity" in p.stderr and not os.path.exists(path("occ2.csv")),
      "--bench occupancy on a resizing table: exit 2, nothing written")
p = run("--bench", "occupancy", "-t", "dense", "--slots", "16K", "--load", "0.5,1.5")
check(p.returncode == 2 and "--load" in p.stderr, "--load 1.5: exit 2")
p = run("--bench", "occupancy", "-t", "dense", "--slots", "16K", "--load", "0.5", "-i", "1M")
check(p.returncode == 2 and "--initial" in p.stderr, "--initial with --bench occupancy: exit 2")
p = run("--bench", "occupancy", "-t", "dense", "--slots", "16K", "--load", "0.5", "--csv", table_csv)
check(p.returncode == 2 and "occupancy CSV" in p.stderr, "an occupancy run into a table CSV: exit 2")

# ---- --batch: gets in batches, exact counts, same outcomes as single gets ----
one = json.loads(run("-t", "clht-lb", "-i", "64K", "--ops", "100000", "-u", "0", "--json").stdout.splitlines()[0])
bat = json.loads(run("-t", "clht-lb", "-i", "64K", "--ops", "100000", "-u", "0", "--batch", "16",
                     "--json").stdout.splitlines()[0])
check(bat["batch"] == 16 and bat["total_ops"] == 100000 and
      (bat["get_suc"], bat["get_fail"]) == (one["get_suc"], one["get_fail"]),
      "--batch 16, get-only: the same keys found as with single gets (same stream), every op counted")
bat = json.loads(run("-t", "clht-lb", "-n", "2", "-i", "64K", "--ops", "100001", "-u", "20", "--batch", "7",
                     "--json").stdout.splitlines()[0])
check(bat["total_ops"] == 200002 and bat["size_ok"] == 1 and bat["verify_ok"] == 1,
      "--batch 7 with updates, 2 threads: partial last batch done, accounting exact")
p = run("-t", "clht-lb", "--batch", "65")
check(p.returncode == 2 and "--batch" in p.stderr, "--batch 65: exit 2")
p = run("-t", "clht-lb", "--batch", "8", "--latency")
check(p.returncode == 2 and "--batch" in p.stderr and "--latency" in p.stderr, "--batch with --latency: exit 2")

# ---- --hugepages: one policy for every table, recorded, and it takes effect ----
thp_sys = open("/sys/kernel/mm/transparent_hugepage/enabled").read() if os.path.exists(
    "/sys/kernel/mm/transparent_hugepage/enabled") else "[never]"
for t in ("clht-lb", "dense"):
    got = {}
    for mode in ("off", "thp"):
        p = run("-t", t, "-i", "2M", "--ops", "1000", "--verify", "off", "--hugepages", mode, "--json")
        got[mode] = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
    if "[never]" in thp_sys:
        check(got["off"].get("hugepages") == "off", f"{t}: --hugepages recorded (THP disabled on this system)")
        continue
    check(got["off"].get("thp_after_prefill_bytes") == 0 and got["thp"].get("hugepages") == "thp" and
          got["thp"].get("thp_after_prefill_bytes", 0) >= 8 << 20,
          f"{t}: --hugepages off leaves no huge page; thp puts the table in huge pages "
          f"({got['thp'].get('thp_after_prefill_bytes', 0) >> 20} MiB)")
p = run("-t", "clht-lb", "--hugepages", "2M")
check(p.returncode == 2 and "--hugepages" in p.stderr, "--hugepages 2M: exit 2")

# ---- the memory ceiling (issue 14): --bench memory and --ceiling ----
mb = path("mem.csv")
p = run("--bench", "memory", "--size", "64K,8M", "-d", "30", "--csv", mb)
mrows = rows(mb) if os.path.exists(mb) else []
pts = {(int(r["bytes"]), r["pages"], int(r["k"])): float(r["ns_per_load"]) for r in mrows}
tput = {(int(r["bytes"]), r["pages"], int(r["k"])): float(r["mloads_per_s"]) for r in mrows}
check(p.returncode == 0 and len(mrows) == 2 * 2 * 6 and {r["k"] for r in mrows} == {"1", "2", "4", "8", "16", "32"} and
      all(r["run_id"] == mrows[0]["run_id"] for r in mrows), "--bench memory: 2 sizes x 2 page modes x k=1..32 rows")
check(pts and pts[(8 << 20, "4k", 1)] > 1.5 * pts[(64 << 10, "4k", 1)] and
      tput[(8 << 20, "4k", 8)] > 2 * tput[(8 << 20, "4k", 1)],
      "a dependent load beyond L2 is slower than within L1, and 8 chases in flight beat 1 (memory-level parallelism)")
p = run("--bench", "memory", "--size", "1M,", "-d", "10")
check(p.returncode == 2 and "--size" in p.stderr, "--size with an empty element: exit 2")
p = run("--bench", "memory", "-i", "1M")
check(p.returncode == 2 and "--initial" in p.stderr, "--initial with --bench memory: exit 2")
p = run("-t", "clht-lb", "--size", "1M")
check(p.returncode == 2 and "--size" in p.stderr, "--size without --bench memory: exit 2")
cwd = tempfile.mkdtemp(prefix="chtbench-ceiling-")
os.mkdir(os.path.join(cwd, "results"))
p = subprocess.run([os.path.abspath(BIN), "-t", "clht-lb", "-i", "64K", "-d", "50", "-R", "2", "--ceiling", "--json"],
                   capture_output=True, text=True, cwd=cwd, timeout=120)
recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
cache = [f for f in os.listdir(os.path.join(cwd, "results")) if f.startswith("ceiling-")]
check(p.returncode == 0 and len(recs) == 2 and all(r["ceiling_mops"] > 0 and
      abs(r["ceiling_frac"] - r["mops"] / r["ceiling_mops"]) < 1e-3 * r["ceiling_frac"] for r in recs) and
      recs[0]["ceiling_mops"] == recs[1]["ceiling_mops"] and len(cache) == 1,
      "--ceiling: ceiling_mops measured once per (size, threads), cached in results/, ceiling_frac = mops / it")
r = json.loads(run("-t", "clht-lb", "-i", "1K", "-d", "10", "--json").stdout.splitlines()[0])
check(r["ceiling_mops"] is None and r["ceiling_frac"] is None, "without --ceiling the columns are empty")
# the ceiling is taken in the table's pages and at the table's size rounded up to m * 2^e / 8
# (m = 8..15): a cache seeded with one value per (size, page kind) - the 4 KiB lines in the
# three-field form, the value naming the size - gives each run the one of its size and pages;
# the old power-of-two file (ceiling-HOST.csv, one pass) is not read
def ceiling_size(b):
    if b <= 1 << 20:
        return 1 << 20
    step = (1 << (b.bit_length() - 1)) // 8
    return -(-b // step) * step
cwd = tempfile.mkdtemp(prefix="chtbench-ceiling-pages-")
os.mkdir(os.path.join(cwd, "results"))
grid = sorted({m << (e - 3) for e in range(20, 36) for m in range(8, 16)})
with open(os.path.join(cwd, "results", f"ceiling-v2-{socket.gethostname()}.csv"), "w") as f:
    for b in grid:
        f.write(f"{b},1,{b / 2**20 + 0.25}\n{b},1,{b / 2**20 + 0.5},thp\n{b},1,333,thp2\n")
with open(os.path.join(cwd, "results", f"ceiling-{socket.gethostname()}.csv"), "w") as f:
    for e in range(20, 36):
        f.write(f"{1 << e},1,111\n{1 << e},1,222,thp\n")
got = {}
for pages in ("off", "thp"):
    p = subprocess.run([os.path.abspath(BIN), "-t", "clht-lb", "-i", "256K", "-d", "20", "--warmup", "0",
                        "--hugepages", pages, "--ceiling", "--json"], capture_output=True, text=True, cwd=cwd,
                       timeout=120)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    got[pages] = recs[0] if p.returncode == 0 and len(recs) == 1 else {}
on_thp = (got["thp"].get("thp_after_prefill_bytes") or 0) >= (got["thp"].get("table_bytes_after_prefill") or 1) / 2
want = {pages: ceiling_size(got[pages].get("table_bytes_after_prefill") or 0) / 2**20 +
        (0.5 if pages == "thp" and on_thp else 0.25) for pages in got}
check(all(got[pages].get("ceiling_mops") == want[pages] for pages in got) and
      ceiling_size(got["off"].get("table_bytes_after_prefill") or 0) not in [1 << e for e in range(20, 36)],
      f"--ceiling at the table's size rounded up to m * 2^e / 8, in its pages: {want} (the table "
      f"{'is' if on_thp else 'is not'} mostly on huge pages; a line with another fourth field and the old "
      f"power-of-two file are ignored): {got['off'].get('ceiling_mops')}, {got['thp'].get('ceiling_mops')} "
      f"(tables of {got['off'].get('table_bytes_after_prefill')} bytes)")
check([ceiling_size(b) for b in (1, 1 << 20, (1 << 20) + 1, 1094215232, 1 << 30, (1 << 30) + 1, 15 << 27)] ==
      [1 << 20, 1 << 20, 9 << 17, 9 << 27, 1 << 30, 9 << 27, 15 << 27], "ceiling_size: the test's own rounding")

# --ceiling-slices: the ceiling in slices of the run itself (nothing cached), elapsed_s the table's half
cwd = tempfile.mkdtemp(prefix="chtbench-ceiling-slices-")
os.mkdir(os.path.join(cwd, "results"))
sl_csv = os.path.join(cwd, "s.csv")
p = subprocess.run([os.path.abspath(BIN), "-t", "clht-lb,dense", "-n", "1", "-i", "64K", "-u", "20", "-d", "400",
                    "--warmup", "0", "--pipeline", "auto", "--ceiling-slices", "20", "--ceiling", "--csv", sl_csv,
                    "--json"], capture_output=True, text=True, cwd=cwd, timeout=120)
recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
crow = rows(sl_csv) if os.path.exists(sl_csv) else []
check(p.returncode == 0 and len(recs) == 2 and len(crow) == 2 and
      all(r["outcome"] == "ok" and r["ceiling_slice_ms"] == 20 and r["ceiling_slices_k"] in (16, 32) and
          0 < r["ceiling_mops"] < 1e5 and abs(r["ceiling_frac"] - r["mops"] / r["ceiling_mops"]) < 1e-3 * r["ceiling_frac"]
          and 0.3 * 0.4 < r["elapsed_s"] < 0.7 * 0.4 and 0.3 * 0.4 < r["ceiling_slices_s"] < 0.7 * 0.4 and
          0.4 * 0.97 < r["elapsed_s"] + r["ceiling_slices_s"] < 0.4 * 1.5 and
          abs(r["mops"] - r["total_ops"] / r["elapsed_s"] / 1e6) < 1e-3 * r["mops"] for r in recs) and
      all(c["ceiling_slice_ms"] == "20" for c in crow) and not os.listdir(os.path.join(cwd, "results")),
      "--ceiling-slices 20 -d 400: every row's ceiling from its own chase slices (k 16 or 32, nothing cached, "
      "--ceiling's cache not used), elapsed_s the table's half of 0.4 s, the chase the other half, mops over it: "
      + str([(r["elapsed_s"], r["ceiling_slices_s"], r["ceiling_mops"], r["ceiling_slices_k"], r["outcome"]) for r in recs])
      + f" rc={p.returncode} {p.stderr[-300:]}")
shown = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\S+) .* ok  ceiling_frac (\d\.\d{3}) \(in slices\)$",
                                                            p.stderr, re.M)}
check(len(recs) == 2 and all(abs(shown.get(r["table"], -1) - r["ceiling_frac"]) < 0.0015 for r in recs),
      f"the console's summary line gives each table's median ceiling_frac, marked in slices: {shown}")
r = json.loads(run("-t", "clht-lb", "-i", "1K", "-d", "10", "--json").stdout.splitlines()[0])
check(r["ceiling_slice_ms"] is None and r["ceiling_slices_k"] is None and r["ceiling_slices_s"] is None,
      "without --ceiling-slices its fields are empty")
# threads beyond the cores, a tiny range, updates, through both loops and every source path: the
# slices come and go and the accounting holds (size, contents, key sum)
for extra in (["--pipeline", "16"], ["--keybuf", "4096"], ["--batch", "8", "-u", "0"]):
    p = run("-t", "clht-lb,cuckoo,dense", "-n", "4", "-r", "64", "-i", "32", "-u", "50", "-d", "300",
            "--ceiling-slices", "2", "--verify", "full", "--json", *extra)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    check(p.returncode == 0 and len(recs) == 3 and all(r["outcome"] == "ok" and r["size_ok"] == 1 and
          r["verify_keysum_ok"] == 1 and r["ceiling_slices_s"] > 0 for r in recs),
          f"--ceiling-slices 2 with 4 threads, r=64, {' '.join(extra)}: accounting exact through the slices "
          f"{[(r['table'], r['outcome']) for r in recs]} rc={p.returncode} {p.stderr[-200:]}")
# what it cannot be combined with: exit 2, one line naming the flag, nothing written
bad_csv = path("slices-bad.csv")
for extra, why in ((["--ops", "1000"], "--ops"), (["-d", "30"], "-d of at least 40"),
                   (["--timeline", "5", "--timeline-csv", path("slices-tl.csv")], "--timeline"),
                   (["--likwid-marker"], "--likwid-marker"), (["--counters", "ipc"], "--counters"),
                   (["--ceiling-slices", "0"], "1..10000")):
    p = run("-t", "clht-lb", "-i", "1K", "--ceiling-slices", "10", *extra, "--csv", bad_csv)
    check(p.returncode == 2 and why in p.stderr and len(p.stderr.strip().splitlines()) == 1 and
          not os.path.exists(bad_csv) and not os.path.exists(path("slices-tl.csv")),
          f"--ceiling-slices with {' '.join(extra)}: exit 2 naming {why}, nothing written ({p.stderr.strip()})")
# a signal during a chase slice ends the run as any signal does: exit 130, no row
sig_csv = path("slices-sig.csv")
pr = subprocess.Popen([BIN, "-t", "clht-lb", "-n", "2", "-i", "1K", "-d", "20000", "--ceiling-slices", "50",
                       "--csv", sig_csv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
time.sleep(1.5)
pr.send_signal(signal.SIGINT)
try:
    err = pr.communicate(timeout=20)[1]
except subprocess.TimeoutExpired:
    pr.kill()
    err = "hung"
check(pr.returncode == 130 and "interrupted" in err and
      (not os.path.exists(sig_csv) or len(rows(sig_csv)) == 0),
      f"SIGINT during --ceiling-slices: exit 130, no row (rc={pr.returncode})")

# every table: a size that cannot fit under the limit is refused up front, never a crash or a hang
listing = run("--list").stdout.splitlines()
for line in listing:
    if not line or line[0].isspace():   # a table's option lines
        continue
    name = line.split()[0]
    if "unavailable" in line or name in ("null", "noop"):
        continue
    p = subprocess.run(["bash", "-c", f"ulimit -v 1000000; exec {BIN} -t {name} -i 512M -d 10"],
                       capture_output=True, text=True, timeout=300)
    # noop-line stores no keys (no estimate to refuse with): its array, 512M x 64 bytes, fails at create
    says = "out of memory: 34359738368 bytes" if name == "noop-line" else "needs about"
    check(p.returncode == 1 and says in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          f"ulimit -v 1 GB, {name} -i 512M: one-line refusal ('{says}'), exit 1 (got {p.returncode}: "
          f"{p.stderr.strip()[:100]})")

finish()
