#!/usr/bin/env python3
"""test_lockbench.py - the lock-only benchmarks (chtbench --bench mutex|rwlock).

Usage: test_lockbench.py BIN docs/csv.md

Checks: exact shared counters (invariant_ok=1, every counter == acquisitions)
for several locks at 1, 2 and 8 threads; RWBench's sum stays 0 with no reader
violation, reads + writes == acquisitions and the write share follows --write;
fairness shares bracket 1/threads; the invariant check does fail when the
locking is switched off (CHTBENCH_TEST_LOCKBENCH_NO_LOCK=1); RTM locks are usage
errors with the reason where the CPU has no RTM; the --lock shorthand for
table runs; usage errors (one line naming the flag, exit 2, nothing written);
the lock-bench CSV header equals docs/csv.md "Lock-bench CSV".
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


def run(*args, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("CHTBENCH_TEST_LOCKBENCH_NO_LOCK", None)
    e.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=e)


def records(p):
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


tmp = tempfile.mkdtemp(prefix="chtbench-lb-")

# ---- mutex: exact counters, several locks, 1/2/8 threads (8 > the CPUs of small machines) ----
MUTEX_LOCKS = ["tas", "ttas", "ttas-backoff", "ticket", "mcs", "clh", "pthread-mutex", "pthread-spin", "waiter",
               "c-bo-mcs", "c-tkt-tkt"]
THREADS = [1, 2, 8]
p = run("--bench", "mutex", "--lock", ",".join(MUTEX_LOCKS), "--threads", "1,2,8", "-d", "100", "--cs", "8",
        "--ncs", "16", "--json")
recs = records(p)
check(p.returncode == 0, f"mutex bench over {len(MUTEX_LOCKS)} locks x 1,2,8 threads: exit {p.returncode}" + (f" ({p.stderr.strip()[-200:]})" if p.returncode else ""))
check([(r["lock"], r["threads"]) for r in recs] == [(l, n) for l in MUTEX_LOCKS for n in THREADS],
      f"one JSON record per (lock, threads), in order ({len(recs)} records)")
for r in recs:
    tag = f"mutex {r['lock']} {r['threads']}t"
    n = r["threads"]
    check(r["invariant_ok"] == 1 and r["acquisitions"] > 0 and
          r["counter_min"] == r["counter_max"] == r["acquisitions"],
          f"{tag}: counters {r['counter_min']}..{r['counter_max']} == acquisitions {r['acquisitions']}")
    check(r["writes"] == r["acquisitions"] and r["reads"] == 0, f"{tag}: every acquisition is exclusive")
    check(r["min_share"] <= 1 / n + 1e-9 <= r["max_share"] + 2e-9 and r["max_share"] <= 1 + 1e-9,
          f"{tag}: min_share {r['min_share']:.4f} <= 1/{n} <= max_share {r['max_share']:.4f}")
    check(r["bench"] == "mutex" and r["cs"] == 8 and r["ncs"] == 16 and r["write_pct"] is None,
          f"{tag}: parameters recorded")
    check(all(r[k] is None for k in ["tx_begins", "tx_aborts", "fallbacks"]), f"{tag}: no RTM counters -> null")
check("Macq/s" in p.stderr and p.stderr.count(" ok") >= len(recs), "console summary (on stderr with --json) says ok")

# ---- rwlock (RWBench): sum 0, no torn read, reads + writes == acquisitions, write share ~ --write ----
RW_LOCKS = ["pthread-rwlock", "c-rw-np", "c-rw-rp", "c-rw-wp", "ticket", "mcs"]
PCT = 20
p = run("--bench", "rwlock", "--lock", ",".join(RW_LOCKS), "--threads", "1,2,8", "--write", str(PCT), "-d", "100",
        "--json")
recs = records(p)
check(p.returncode == 0 and len(recs) == len(RW_LOCKS) * 3, f"rwlock bench: exit 0, {len(recs)} records")
for r in recs:
    tag = f"rwlock {r['lock']} {r['threads']}t"
    n, N = r["threads"], r["acquisitions"]
    check(r["invariant_ok"] == 1 and r["final_sum"] == 0 and r["reader_violations"] == 0 and
          r["write_counter"] == r["writes"], f"{tag}: sum {r['final_sum']}, {r['reader_violations']} torn reads, "
          f"writer counter {r['write_counter']} == writes {r['writes']}")
    check(N > 0 and r["reads"] + r["writes"] == N, f"{tag}: reads + writes == acquisitions ({N})")
    # Every iteration is an independent Bernoulli(PCT%) draw, so writes ~ Binomial(N, p): 5 standard
    # deviations (false alarm ~6e-7 per check) plus 0.2 points of slack for the last, cut-off iterations.
    p_ = PCT / 100
    tol = 5 * math.sqrt(p_ * (1 - p_) / N) + 0.002 if N else 1
    share = r["writes"] / N if N else -1
    check(abs(share - p_) <= tol, f"{tag}: write share {share:.4f} within {tol:.4f} of {p_}")
    check(r["min_share"] <= 1 / n + 1e-9 <= r["max_share"] + 2e-9, f"{tag}: shares bracket 1/{n}")
for pct, key in [("0", "writes"), ("100", "reads")]:
    r = records(run("--bench", "rwlock", "--lock", "c-rw-np", "-n", "2", "--write", pct, "-d", "50", "--json"))
    check(len(r) == 1 and r[0][key] == 0 and r[0]["invariant_ok"] == 1, f"--write {pct}: no {key}")

# ---- the invariant check can fail: no locking at all must be caught ----
for bench, extra in [("mutex", []), ("rwlock", ["--write", "50"])]:
    csvp = os.path.join(tmp, f"broken-{bench}.csv")
    for attempt in range(6):   # lost updates need two threads truly in parallel: a loaded machine may not give that
        if os.path.exists(csvp):
            os.unlink(csvp)
        p = run("--bench", bench, "--lock", "ticket", "-n", "8", "-d", str(300 * (attempt + 1)), *extra, "--csv", csvp, "--json",
                env={"CHTBENCH_TEST_LOCKBENCH_NO_LOCK": "1"})
        if p.returncode == 1:
            break
    r = records(p)
    rows = list(csv.DictReader(open(csvp))) if os.path.exists(csvp) else []
    check(p.returncode == 1 and "INVARIANT FAILURE" in p.stderr and len(r) == 1 and r[0]["invariant_ok"] == 0 and
          len(rows) == 1 and rows[0]["invariant_ok"] == "0" and "FAILED" in p.stderr,
          f"{bench} with locking disabled: exit {p.returncode}, invariant_ok=0 in JSON and CSV, FAILED")

# ---- RTM locks: a usage error with the reason where the CPU has no RTM ----
p = run("--list=locks")
listing = {l.split()[0]: l for l in p.stdout.splitlines() if l.strip()}
rtm = [n for n in ["htm-retry", "slr-mcs", "slr-scm-mcs", "scm-ttas", "scm-ttas-opt"] if n in listing]
check(len(rtm) == 5, f"--list=locks lists the RTM locks ({rtm})")
for name in rtm:
    if "unavailable:" in listing[name]:
        why = listing[name].split("unavailable:", 1)[1].strip()
        csvp = os.path.join(tmp, "rtm.csv")
        p = run("--bench", "mutex", "--lock", f"ticket,{name}", "-d", "10", "--csv", csvp)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "--lock" in lines[0] and why in lines[0] and
              p.stdout == "" and not os.path.exists(csvp), f"--lock {name} without RTM: usage error with '{why}'")
    else:
        r = records(run("--bench", "mutex", "--lock", name, "-n", "2", "-d", "50", "--json"))
        check(len(r) == 1 and r[0]["invariant_ok"] == 1 and r[0]["tx_begins"] is not None,
              f"{name} (RTM present): exact counters, tx counters reported")

# ---- --lock without --bench: lock=NAME for the tables that take a lock ----
p = run("-t", "locked", "--lock", "ticket", "--json", "-d", "20", "-i", "1000")
r = records(p)
check(p.returncode == 0 and len(r) == 1 and "lock=ticket" in r[0]["options"] and r[0]["size_ok"] == 1,
      f"-t locked --lock ticket: options {r[0]['options'] if r else None!r}")
p = run("-t", "locked:lock=mcs,locked:hash=identity,noop", "--lock", "ticket", "--json", "-d", "20", "-i", "1000")
r = records(p)
check(p.returncode == 0 and [(x["table"], x["options"]) for x in r] ==
      [("locked", "lock=mcs"), ("locked", "lock=ticket,hash=identity"), ("noop", "-")],
      f"--lock keeps a table's own lock, adds to other options, skips tables without a lock: "
      f"{[(x['table'], x['options']) for x in r]}")

# ---- usage errors: one line naming the flag, exit 2, nothing written ----
bad_csv = os.path.join(tmp, "bad.csv")
BAD = [
    (["--bench", "spin", "--lock", "ticket"], "--bench"),
    (["--bench", "mutex"], "--lock"),
    (["--bench", "mutex", "--lock", "nosuch"], "--lock"),
    (["--bench", "mutex", "--lock", "ticket,"], "--lock"),
    (["--bench", "rwlock", "--lock", "ticket", "--write", "101"], "--write"),
    (["--bench", "rwlock", "--lock", "ticket", "--write", "-1"], "--write"),
    (["--bench", "mutex", "--lock", "ticket", "--cs", "-1"], "--cs"),
    (["--bench", "mutex", "--lock", "ticket", "--cs", "lots"], "--cs"),
    (["--bench", "mutex", "--lock", "ticket", "--ncs", "1.5"], "--ncs"),
    (["--bench", "rwlock", "--lock", "ticket", "--rcs", "x"], "--rcs"),
    (["--bench", "rwlock", "--lock", "ticket", "--wcs", "-3"], "--wcs"),
    (["--bench", "mutex", "--lock", "ticket", "--handoff", "0"], "--handoff"),
    (["--bench", "mutex", "--lock", "ticket", "--waiters", "x"], "--waiters"),
    (["--bench", "mutex", "--lock", "ticket", "-t", "locked"], "--table"),
    (["--bench", "mutex", "--lock", "ticket", "-u", "20"], "--update"),
    (["--bench", "mutex", "--lock", "ticket", "-i", "1000"], "--initial"),
    (["--bench", "mutex", "--lock", "ticket", "--ops", "100"], "--ops"),
    (["--bench", "mutex", "--lock", "ticket", "--write", "10"], "--write"),
    (["--bench", "rwlock", "--lock", "ticket", "--cs", "4"], "--cs"),
    (["--bench", "mutex", "--lock", "ticket", "-n", "0"], "--threads"),
    (["-t", "locked", "--cs", "4"], "--cs"),
    (["-t", "locked", "--write", "4"], "--write"),
    (["-t", "locked", "--lock", "nosuch"], "--lock"),
    (["-t", "locked", "--lock", "ticket,mcs"], "--lock"),
    (["-t", "noop", "--lock", "ticket"], "--lock"),
]
for args, flag in BAD:
    p = run(*args, "-d", "10", "--csv", bad_csv)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and flag in lines[0] and p.stdout == "",
          f"usage error {' '.join(args)} -> exit {p.returncode}, {lines!r}")
check(not os.path.exists(bad_csv), "no CSV file was created by any invalid invocation")

# ---- the lock-bench CSV: documented header, one row per (lock, threads, rep) ----
doc_cols = []
for line in open(DOC):
    m = re.match(r"^\| L(\d+) \| ([a-z0-9_]+) \|", line)
    if m:
        doc_cols.append((int(m.group(1)), m.group(2)))
check([n for n, _ in doc_cols] == list(range(1, len(doc_cols) + 1)) and len(doc_cols) > 20,
      f"docs/csv.md numbers the lock-bench columns L1..L{len(doc_cols)}")
csvp = os.path.join(tmp, "lb.csv")
p = run("--bench", "mutex", "--lock", "ticket,pthread-mutex", "-n", "1,2", "-R", "2", "-d", "20", "--csv", csvp)
check(p.returncode == 0, f"2 locks x 2 thread counts x 2 reps: exit {p.returncode}" + (f" ({p.stderr.strip()[-200:]})" if p.returncode else ""))
header = open(csvp).readline().strip().split(",")
check(header == [c for _, c in doc_cols], f"lock-bench CSV header == docs/csv.md list ({len(header)} vs {len(doc_cols)})")
rows = list(csv.DictReader(open(csvp)))
check(len(rows) == 8 and [(r["lock"], r["threads"], r["rep"]) for r in rows] ==
      [(l, n, k) for l in ["ticket", "pthread-mutex"] for n in ["1", "2"] for k in ["0", "1"]],
      f"8 rows in (lock, threads, rep) order (got {len(rows)})")
# the lock-bench CSV's version as `chtbench --schema` declares it
LOCK_SCHEMA = str(json.loads(subprocess.run([BIN, "--schema"], capture_output=True, text=True).stdout)["lock"]["version"])
check(all(r["schema"] == LOCK_SCHEMA and r["bench"] == "mutex" and r["invariant_ok"] == "1" and r["tx_begins"] == "" and
          r["write_pct"] == "" for r in rows), f"schema {LOCK_SCHEMA}, bench mutex, invariant_ok 1, empty RTM and rwlock cells")
check(all(r["speedup"] != "" for r in rows), "every row carries speedup (1 thread in the list)")
# two runs may share a file: the header is written once
p = run("--bench", "rwlock", "--lock", "mcs", "-n", "1", "-d", "20", "--csv", csvp)
text = open(csvp).read().splitlines()
check(p.returncode == 0 and sum(1 for l in text if l.startswith("schema,")) == 1 and len(text) == 10,
      "a second run appends rows under the same header")

finish()
