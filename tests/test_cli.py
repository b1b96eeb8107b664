#!/usr/bin/env python3
"""test_cli.py - the chtbench binary as a user meets it.

Usage errors (one line naming the flag, exit 2, no CSV written), --list,
reproducible --ops runs, exact accounting, CSV append-safety under parallel
writers, --print-pinning, size syntax, uneven op splits, allocation failure.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

BIN = sys.argv[1]
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if cond:
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}")


def run(*args, timeout=120):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def records(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


tmp = tempfile.mkdtemp(prefix="chtbench-cli-")
csv_path = os.path.join(tmp, "bad.csv")

# ---- usage errors: (args, flag the message must name) ----
BAD = [
    (["-t", "nosuch"], "--table"),
    (["-t", "locked:nosuch=1"], "--table"),
    (["-t", "locked:lock=nosuch"], "--table"),
    (["-t", "locked:hash=foo"], "--table"),
    (["-t", "locked:lock"], "--table"),
    (["-t", "null", "-n", "0"], "--threads"),
    (["-t", "null", "-n", "-1"], "--threads"),
    (["-t", "null", "-n", "1,,2"], "--threads"),
    (["-t", "null", "-n", "4-2"], "--threads"),
    (["-t", "null", "-n", "abc"], "--threads"),
    (["-t", "null", "-u", "101"], "--update"),
    (["-t", "null", "-u", "-5"], "--update"),
    (["-t", "null", "--insert", "60", "--remove", "50"], "--insert/--remove"),
    (["-t", "null", "-u", "10", "--insert", "20"], "--insert"),
    (["-t", "null", "-i", "1000", "-r", "999"], "--range"),
    (["-t", "null", "-i", "0"], "--initial"),
    (["-t", "null", "-i", "1Q"], "--initial"),
    (["-t", "null", "--dist", "zipf:0"], "--dist"),
    (["-t", "null", "--dist", "zipf:-1"], "--dist"),
    (["-t", "null", "--dist", "zipf"], "--dist"),
    (["-t", "null", "--dist", "pareto"], "--dist"),
    (["-t", "null", "-d", "0"], "--duration"),
    (["-t", "null", "-d", "10", "--ops", "10"], "--ops"),
    (["-t", "null", "-R", "0"], "--reps"),
    (["-t", "null", "--density", "0"], "--density"),
    (["-t", "null", "--prefill", "some"], "--prefill"),
    (["-t", "null", "-p", "scattered"], "--pin"),
    (["-t", "null", "-p", "list:0,x"], "--pin"),
    (["-t", "null", "-p", "list:9999"], "--pin"),
    (["-t", "null", "-n", "3", "-p", "list:0,1"], "--pin"),
    (["-t", "null", "--mem", "far"], "--mem"),
    (["--print-pinning", "--topology", "pack:2 core:0"], "--topology"),
    (["--print-pinning", "--topology", "/no/such/topology.xml"], "--topology"),
    (["-t", "null", "--topology", "pack:2 core:8 pu:2"], "--topology"),
    (["-t", "null", "--csv", "/no/such/dir/x.csv"], "--csv"),
    (["-t", "null", "--csv", tmp], "--csv"),
    (["--bogus"], "--bogus"),
    (["-t"], "-t"),
    ([], "--table"),
]
for args, flag in BAD:
    extra = [] if "--csv" in args else ["--csv", csv_path]
    p = run(*args, *extra, "-d", "10") if "-d" not in args and "--ops" not in args and "--print-pinning" not in args and args else run(*args, *extra)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and flag in lines[0] and p.stdout == "",
          f"usage error {' '.join(args) or '(none)'} -> exit {p.returncode}, stderr {lines!r}")
check(not os.path.exists(csv_path), "no CSV file was created by any invalid invocation")

# ---- --list names every table first on its line ----
p = run("--list")
names = [l.split()[0] for l in p.stdout.splitlines() if l.strip()]
check(p.returncode == 0 and "null" in names and "locked" in names, f"--list names tables: {names}")
check(all(l.rstrip().endswith("available") or "unavailable:" in l for l in p.stdout.splitlines()),
      "--list gives availability on every line")
p = run("--list=locks")
check(p.returncode == 0 and "pthread-mutex" in p.stdout.split(), "--list=locks lists pthread-mutex")
p = run("--version")
check(p.returncode == 0 and "hwloc" in p.stdout and "features:" in p.stdout, "--version reports features")

# ---- exact accounting and reproducibility ----
for table in ["locked", "null"]:
    a = records("-t", table, "-n", "1", "--ops", "200000", "--seed", "7", "-i", "4096", "-u", "40")
    b = records("-t", table, "-n", "1", "--ops", "200000", "--seed", "7", "-i", "4096", "-u", "40")
    keys = ["get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail", "final_size"]
    check([a[0][k] for k in keys] == [b[0][k] for k in keys], f"{table}: same seed, --ops, 1 thread -> same counters")
    r = a[0]
    check(r["total_ops"] == 200000 and sum(r[k] for k in keys[:6]) == 200000, f"{table}: --ops 200000 -> 200000 ops")
    check(r["final_size"] == 4096 + r["ins_suc"] - r["rem_suc"] and r["size_ok"] == 1,
          f"{table}: final size = i + ins_suc - rem_suc")
c = records("-t", "locked", "-n", "1", "--ops", "200000", "--seed", "8", "-i", "4096", "-u", "40")
check(c[0]["get_suc"] != a[0]["get_suc"] or c[0]["ins_suc"] != a[0]["ins_suc"], "a different seed gives a different run")

# ---- uneven split and the thesis' default split ----
r = records("-t", "null", "-n", "2", "--ops", "100000", "--insert", "30", "--remove", "10")[0]
check(r["update"] == 40 and r["insert"] == 30 and r["remove"] == 10, "--insert 30 --remove 10 -> update 40")
ins = (r["ins_suc"] + r["ins_fail"]) / r["total_ops"]
rem = (r["rem_suc"] + r["rem_fail"]) / r["total_ops"]
check(abs(ins - 0.30) < 0.01 and abs(rem - 0.10) < 0.01, f"op mix follows the split: insert {ins:.3f}, remove {rem:.3f}")
r = records("-t", "null", "-n", "1", "--ops", "100000", "-u", "0")[0]
check(r["get_fail"] == 100000 and r["ins_suc"] == 0, "u=0 -> only gets")

# ---- HTM columns: present for tables under an elided lock, empty for the others ----
r = records("-t", "clht-rtm:lock=mcs,clht-lb", "-n", "1", "--ops", "2000", "-i", "1000")
check(r[0]["tx_begins"] == 0 and r[0]["tx_fallbacks"] == 0 and r[1]["tx_begins"] is None,
      "tx_* columns: 0 for clht-rtm under a non-RTM lock, null for clht-lb")

# ---- sizes ----
for spec, val in [("2^10", 1024), ("1K", 1024), ("1000", 1000), ("3M", 3 << 20)]:
    r = records("-t", "null", "--ops", "10", "-i", spec)[0]
    check(r["initial"] == val and r["range"] == 2 * val, f"--initial {spec} -> {val}, range 2i")

# ---- reps, thread lists, CSV ----
csv_ok = os.path.join(tmp, "ok.csv")
p = run("-t", "null,locked:lock=pthread-spin", "-n", "1-2", "-R", "2", "-d", "20", "-i", "1000", "--csv", csv_ok)
check(p.returncode == 0, f"a 2x2x2 run succeeds (exit {p.returncode}: {p.stderr.strip()})")
rows = list(csv.DictReader(open(csv_ok)))
check(len(rows) == 8, f"2 tables x 2 thread counts x 2 reps -> 8 rows (got {len(rows)})")
check([r["table"] for r in rows] == ["null"] * 4 + ["locked"] * 4 and rows[4]["options"] == "lock=pthread-spin",
      "rows carry table and options")
check(all(r["size_ok"] == "1" for r in rows), "every row passed its size check")
lines = open(csv_ok).read().splitlines()
check(lines[0].startswith("schema,timestamp,host,table,options,threads"), "CSV header starts with the schema columns")

# parallel writers: 6 processes append to one file at once
par = os.path.join(tmp, "par.csv")
with ThreadPoolExecutor(6) as ex:
    procs = list(ex.map(lambda i: run("-t", "null", "-n", "1", "-R", "5", "-d", "5", "-i", "100",
                                      "--seed", str(i), "--csv", par), range(6)))
check(all(p.returncode == 0 for p in procs), "6 parallel runs succeed")
text = open(par).read().splitlines()
header = text[0]
ncol = len(header.split(","))
check(sum(1 for l in text if l == header) == 1, "parallel writers: exactly one header")
check(len(text) == 31 and all(len(next(csv.reader([l]))) == ncol for l in text),
      f"parallel writers: 30 whole rows of {ncol} fields (got {len(text) - 1} rows)")

# ---- pinning plans through the CLI ----
p = run("--print-pinning", "--topology", "pack:2 core:8 pu:2", "-n", "24", "-p", "compact")
plan = [l.split() for l in p.stdout.splitlines() if not l.startswith("#")]
check(p.returncode == 0 and len(plan) == 24, "--print-pinning prints one line per thread")
check(all(r[3] == "0" for r in plan[:16]) and all(r[3] == "1" for r in plan[16:]) and
      len({r[2] for r in plan[16:]}) == 4, "compact 24 on E5-2630: 16 on socket 0, 8 on 4 cores of socket 1")
p = run("--print-pinning", "-n", "2")
check(p.returncode == 0 and [l.split()[1:] for l in p.stdout.splitlines() if not l.startswith("#")] ==
      [["-"] * 4] * 2, "default pinning prints '-' columns")

# ---- oversubscription warns, runs, stays exact ----
p = run("-t", "locked", "-n", "16", "--ops", "20000", "-i", "64", "-u", "50", "--json")
r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
check(p.returncode == 0 and "oversubscribed" in p.stderr and r.get("size_ok") == 1 and r.get("total_ops") == 320000,
      "16 threads on a small machine: warning, exact counts")

# ---- allocation failure is a clean error ----
bad_csv = os.path.join(tmp, "oom.csv")
p = run("-t", "locked", "-i", "20G", "-d", "10", "--csv", bad_csv)
check(p.returncode == 1 and "cannot create" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
      f"--initial 20G: one-line error, exit 1 (got {p.returncode}: {p.stderr.strip()[:120]})")
check(not os.path.exists(bad_csv), "--initial 20G: no CSV row")
# issue 13 point 8: sizes whose slot count is not representable are refused, not grown forever
for impl in ["own", "std"]:
    p = run("-t", f"locked:impl={impl}", "-i", "2^61", "--density", "0.1", "-d", "10", timeout=60)
    check(p.returncode == 1 and "out of memory" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          f"locked:impl={impl} -i 2^61 --density 0.1: refused (got {p.returncode}: {p.stderr.strip()[:120]})")

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
