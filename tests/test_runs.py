#!/usr/bin/env python3
"""test_runs.py - the driver's own concurrency under the sanitizers: short
real runs through every path of the runner (warm-up, final check full and
sample, pre-generated Zipf, hotspot shifts, YCSB, traces, batches, timeline,
latency, SIGINT), each of which must pass its checks. scripts/test runs this
in the address/undefined and thread sanitizer builds (suite 'driver'), where
a race or an overflow in src/run/ fails the run.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
failures = checks = 0
tmp = tempfile.mkdtemp(prefix="chtbench-runs-")


def check(cond, what):
    global failures, checks
    checks += 1
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


trace = os.path.join(tmp, "t.txt")
with open(trace, "w") as f:
    for i in range(3000):
        f.write(f"{['get', 'insert', 'remove', 'update'][i % 4]} {1 + (i * 7919) % 2000}\n")

RUNS = [
    ["-t", "clht-lb", "-n", "2", "-i", "16K", "-d", "100", "--warmup", "30"],
    ["-t", "chain", "-n", "3", "-i", "4K", "-d", "100", "--verify", "sample", "-r", "4M"],
    ["-t", "cuckoo", "-n", "2", "-i", "16K", "--ops", "20000", "--dist", "zipf:0.99"],
    ["-t", "clht-lf", "-n", "2", "-i", "16K", "-d", "150", "--dist", "hotspot:keys=10,ops=90,shift=20",
     "--timeline", "10", "--timeline-csv", os.path.join(tmp, "tl.csv")],
    ["-t", "clht-lb", "-n", "2", "-i", "16K", "--ops", "20000", "--workload", "ycsb-d"],
    ["-t", "clht-lb", "-n", "2", "-i", "16K", "--ops", "20000", "--workload", "ycsb-f"],
    ["-t", "locked", "-n", "2", "-i", "1K", "--trace", trace],
    ["-t", "dense", "-n", "2", "-i", "16K", "--ops", "20000", "--batch", "8", "-u", "20"],
    ["-t", "hopscotch", "-n", "2", "-i", "16K", "--ops", "20000", "--latency=4",
     "--latency-csv", os.path.join(tmp, "lat.csv")],
    ["-t", "noop", "-n", "2", "-i", "1K", "-d", "50"],
]
for args in RUNS:
    p = subprocess.run([BIN, *args, "--json"], capture_output=True, text=True, timeout=600)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    ok = p.returncode == 0 and len(recs) == 1 and recs[0]["size_ok"] == 1 and recs[0]["outcome"] == "ok"
    check(ok, f"{' '.join(args[:4])} ... {' '.join(args[6:9])}: exit {p.returncode}, checks pass"
          + ("" if ok else f" ({p.stderr.strip()[-300:]})"))

proc = subprocess.Popen([BIN, "-t", "clht-lb", "-n", "2", "-i", "16K", "-d", "5000", "-R", "3"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(2)
proc.send_signal(signal.SIGINT)
_, err = proc.communicate(timeout=120)
check(proc.returncode == 130 and "interrupted" in err, f"SIGINT mid-run: exit {proc.returncode}, clean stop")

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
