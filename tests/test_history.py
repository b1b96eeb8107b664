#!/usr/bin/env python3
"""test_history.py - --verify history: the answers of the timed run checked
for linearizability on watched keys (docs/cli.md "Answers checked during the
run"; the checker itself on hand-built histories: tests/test_history.c).

Clean runs of several tables, workloads and thread counts (more threads than
cores among them) must find every watched key's history linearizable; the
recorded ops must be exactly the ops on watched keys (all keys watched, one
thread, --ops); a lost update, a false "absent" and a wrong value provoked by
fault hooks (src/faults.c) must each give outcome not_linearizable, exit 1 and
the window, where the final check passes; a full buffer must cut the history
soundly; bad combinations are usage errors that write nothing.

Usage: test_history.py BIN
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
from checks import check, finish, lean_keybuf, spread  # noqa: E402 (tests/checks.py)


def run(*args, env=None, timeout=300):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHTBENCH_TEST_")}
    e.update(env or {})
    p = subprocess.run([BIN, *lean_keybuf(args), "--json"], capture_output=True, text=True, timeout=timeout, env=e)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    return p, recs[0] if len(recs) == 1 else {}


HIST_RE = re.compile(r"chtbench: history: (\S+), (\d+) threads, rep 0: (\d+) watched keys \(the multiples of (\d+)\), "
                     r"(\d+) ops on (\d+) of them recorded over the first ([0-9.]+) s of the timed phase(.*?), (\d+) of "
                     r"them cut before their answer: (all linearizable|(\d+) NOT LINEARIZABLE), (\d+) undecided")


def history_line(p):
    ls = [HIST_RE.match(l) for l in p.stderr.splitlines() if l.startswith("chtbench: history:")]
    return ls[0] if len(ls) == 1 and ls[0] else None


def agrees(m, r):
    """the stderr line says what the record says"""
    return m is not None and int(m.group(3)) == r.get("history_watched") and \
        int(m.group(4)) == r.get("history_every") and int(m.group(5)) == r.get("history_ops") and \
        int(m.group(6)) == r.get("history_keys") and int(m.group(9)) == r.get("history_unanswered") and \
        int(m.group(11) or 0) == r.get("history_violations") and int(m.group(12)) == r.get("history_undecided")


# ---- clean runs: every watched key's history linearizable ----
clean = [("clht-lb", 2, ["-u", "50"]), ("chain", 4, ["-u", "50"]), ("cuckoo", 3, ["-u", "50"]),
         ("locked", 4, ["-u", "100"]), ("clht-lf", 4, ["-u", "50"]), ("hopscotch", 3, ["-u", "20"]),
         ("chain", 2, ["--workload", "ycsb-a"]), ("clht-lb", 4, ["--workload", "ycsb-f"]),
         ("cuckoo", 2, ["--workload", "ycsb-d"]), ("clht-lb", 3, ["-u", "50", "--keys", "sparse"]),
         ("chain", 2, ["-u", "50", "--value-size", "40"]), ("clht-lb", 1, ["-u", "50"]),
         # pipelined: watched ops are held and stepped one by one (pipe_start, pipe_step), each recorded
         ("cuckoo", 2, ["-u", "50", "--pipeline", "16"]), ("clht-lb", 3, ["-u", "20", "--pipeline", "32"]),
         ("dense", 2, ["-u", "50", "--pipeline", "8"]), ("clht-lb", 2, ["-u", "0", "--pipeline", "16"]),
         ("cuckoo", 2, ["--workload", "ycsb-f", "--pipeline", "16"])]
for table, n, extra in spread(clean):
    p, r = run("-t", table, "-n", str(n), "-i", "1K", "-d", "150", "--verify", "history", *extra)
    m = history_line(p)
    check(p.returncode == 0 and r.get("outcome") == "ok" and r.get("history_violations") == 0 and
          r.get("history_ops", 0) > 1000 and r.get("history_undecided") == 0 and r.get("history_keys", 0) > 100 and
          r.get("verify_ok") == 1 and agrees(m, r),
          f"clean {table} {' '.join(extra)} on {n} threads: outcome ok, 0 violations, {r.get('history_ops')} ops on "
          f"{r.get('history_keys')} keys checked, the line agrees (exit {p.returncode}: {p.stderr.strip()[-300:]})")

# ---- exactly the ops on watched keys are recorded ----
# all keys watched (K >= r), one thread, a fixed op count: every op is recorded
p, r = run("-t", "clht-lb", "-n", "1", "-i", "1K", "--ops", "200000", "-u", "50", "--verify", "history:4096")
check(p.returncode == 0 and r.get("history_every") == 1 and r.get("history_watched") == 2048 and
      r.get("history_ops") == r.get("total_ops") == 200000 and r.get("history_keys") == 2048 and
      r.get("history_lost") == 0 and r.get("history_covered_s", 0) > 0,
      f"K >= r: all 2048 keys watched, history_ops == total_ops == 200000 (got {r.get('history_ops')}, "
      f"every {r.get('history_every')}, watched {r.get('history_watched')})")
# YCSB-F: a read-modify-write is a get and an update, both recorded (every key present: every get finds it)
p, r = run("-t", "clht-lb", "-n", "1", "-i", "1K", "--ops", "100000", "--workload", "ycsb-f", "--verify",
           "history:4096")
check(p.returncode == 0 and r.get("history_ops") == r.get("total_ops", 0) + r.get("upd_suc", -1) and
      r.get("upd_fail") == 0 and r.get("history_violations") == 0,
      f"ycsb-f: history_ops == total_ops + upd_suc ({r.get('history_ops')} == {r.get('total_ops')} + "
      f"{r.get('upd_suc')})")
# a sample of the keys: d = r / K made odd, the watched keys its multiples
p, r = run("-t", "clht-lb", "-n", "1", "-i", "64K", "--ops", "300000", "-u", "50", "--verify", "history:100")
check(p.returncode == 0 and r.get("history_every") == 1311 and r.get("history_watched") == 131072 // 1311 and
      0 < r.get("history_ops", 0) < 300000 * 3 / 1311,
      f"-r 128K, K 100: the multiples of 1311 (131072 / 100, odd), {131072 // 1311} keys, about 1/1311 of the ops "
      f"(every {r.get('history_every')}, watched {r.get('history_watched')}, ops {r.get('history_ops')})")
# the same run twice: one thread, --ops, same seed: the same history
p2, r2 = run("-t", "clht-lb", "-n", "1", "-i", "64K", "--ops", "300000", "-u", "50", "--verify", "history:100")
check(r2.get("history_ops") == r.get("history_ops") and r2.get("history_keys") == r.get("history_keys"),
      "one thread, --ops, one seed: the same ops recorded twice")

# ---- faults only the history sees ----
NOT_RE = re.compile(r"chtbench: NOT LINEARIZABLE: (\S+), (\d+) threads, rep 0: key (\d+) \(at the start (.*?)\): no "
                    r"order of its ops explains thread (\d+) (get|insert|remove|update) (.*), \[\+([0-9.]+), "
                    r"\+([0-9.]+)\] us$")


def fault(table, n, hook, every, extra, what):
    p, r = run("-t", table, "-n", str(n), "-i", "1K", "-d", "200", *extra, env={hook: str(every)})
    nl = [l for l in p.stderr.splitlines() if l.startswith("chtbench: NOT LINEARIZABLE:")]
    m = NOT_RE.match(nl[0]) if len(nl) == 1 else None
    window = [l for l in p.stderr.splitlines() if l.startswith("    open then:") or l.startswith("    done before:")]
    key_ok = m is not None and int(m.group(3)) % r.get("history_every", 0) == 0
    check(p.returncode == 1 and r.get("outcome") == "not_linearizable" and
          0 < r.get("history_violations", 0) <= r.get("history_keys", 0) and m is not None and
          m.group(1) == table and int(m.group(2)) == n and key_ok and 1 <= len(window) <= 4 + n and
          agrees(history_line(p), r),
          f"{what} ({hook}={every}) on {table}, {n} threads: exit 1, not_linearizable, "
          f"{r.get('history_violations')} keys, the line names a watched key and the op, a window of "
          f"{len(window)} ops (exit {p.returncode}: {nl[0][:200] if nl else p.stderr.strip()[-200:]})")
    return p, r


# a lost update: counts, values and the key sum all stay right, so the final check passes
for table, n in [("chain", 2), ("clht-lb", 3), ("cuckoo", 4)]:
    p, r = fault(table, n, "CHTBENCH_TEST_FAULT_DROP_UPDATE", 1000, ["--workload", "ycsb-a", "--verify",
                 "full,history"], "a lost update")
    check(r.get("verify_ok") == 1 and r.get("size_ok") == 1 and r.get("verify_bad_values") == 0,
          f"... and the final check passed on it ({table}): verify_ok 1, size_ok 1, verify_bad_values 0")
p, r = run("-t", "chain", "-n", "2", "-i", "1K", "-d", "200", "--workload", "ycsb-a", "--verify", "full",
           env={"CHTBENCH_TEST_FAULT_DROP_UPDATE": "1000"})
check(p.returncode == 0 and r.get("outcome") == "ok" and r.get("history_ops") is None,
      "without history the lost updates pass: exit 0, outcome ok, history_ops empty")
# a false "absent" (the final check is off: it would see the misses too)
fault("clht-lb", 2, "CHTBENCH_TEST_FAULT_MISS_GET", 3000, ["-u", "10", "--verify", "off,history"],
      "a present key answered absent")
fault("chain", 4, "CHTBENCH_TEST_FAULT_MISS_GET", 3000, ["-u", "50", "--verify", "off,history"],
      "a present key answered absent")
# another key's value
fault("cuckoo", 2, "CHTBENCH_TEST_FAULT_STALE_GET", 2000, ["-u", "10", "--verify", "off,history"],
      "another key's value")

# a pipelined get answering "absent" for a present key
fault("cuckoo", 2, "CHTBENCH_TEST_FAULT_PIPE_MISS_GET", 2000, ["-u", "10", "--pipeline", "16", "--verify",
      "off,history"], "a pipelined get of a present key answered absent")
fault("clht-lb", 3, "CHTBENCH_TEST_FAULT_PIPE_MISS_GET", 2000, ["-u", "0", "--pipeline", "32", "--verify",
      "off,history"], "a pipelined get of a present key answered absent")
# all keys watched, one thread, --ops, pipelined: every op recorded
p, r = run("-t", "cuckoo", "-n", "1", "-i", "1K", "--ops", "100000", "-u", "50", "--pipeline", "16", "--verify",
           "history:4096")
check(p.returncode == 0 and r.get("pipeline_w") == 16 and r.get("history_ops") == r.get("total_ops") == 100000 and
      r.get("history_violations") == 0,
      f"pipelined, all keys watched: history_ops == total_ops == 100000 (got {r.get('history_ops')})")

# ---- a full buffer: the history is cut, soundly ----
# all keys watched, 2 x 1.2M ops: more than the 2 x 838860 records 64 MiB holds
p, r = run("-t", "clht-lb", "-n", "2", "-i", "1K", "--ops", "1200000", "-u", "50", "--verify", "history:4096")
m = history_line(p)
check(p.returncode == 0 and r.get("history_lost", 0) > 0 and 0 < r.get("history_covered_s", 9) < r.get("elapsed_s", 0)
      and r.get("history_violations") == 0 and m is not None and "then the buffers were full" in m.group(8) and
      r.get("history_ops", 0) * 40 <= 64 << 20 and r.get("history_ops", 0) + r.get("history_lost", 0) <= 2400000,
      f"2 x 1.2M ops, all watched: the buffers fill, the check covers the first {r.get('history_covered_s')} s of "
      f"{r.get('elapsed_s')}, {r.get('history_lost')} ops not recorded, {r.get('history_ops')} checked, no violation")

# ---- usage errors: exit 2, one line naming the flag, nothing written ----
tmp = tempfile.mkdtemp()
for args, words in [(["--verify", "history", "--latency"], "history is not with --latency"),
                    (["--verify", "history", "--batch", "4"], "history is not with --batch"),
                    (["--verify", "history", "--timeline", "10"], "history is not with --timeline"),
                    (["--verify", "history:0"], "--verify: expected"),
                    (["--verify", "history:2M"], "--verify: expected"),
                    (["--verify", "full,sample"], "--verify: expected"),
                    (["--verify", "history,history"], "--verify: expected"),
                    (["--verify", "full,"], "--verify: expected"),
                    (["--verify", "history", "-t", "cuckoo-filter"], "history is not for cuckoo-filter")]:
    out = os.path.join(tmp, "x.csv")
    a = ["-t", "clht-lb"] + args if "-t" not in args else args
    p = subprocess.run([BIN, *a, "-d", "10", "--csv", out], capture_output=True, text=True, timeout=60)
    err = [l for l in p.stderr.splitlines() if l.strip()]
    check(p.returncode == 2 and len(err) == 1 and words in err[0] and not os.path.exists(out),
          f"{' '.join(args)}: exit 2, one line '{words}', no results file (exit {p.returncode}: {p.stderr.strip()[:160]})")

# ---- the CSV columns ----
out = os.path.join(tmp, "h.csv")
subprocess.run([BIN, "-t", "clht-lb", "-i", "1K", "-d", "50", "--verify", "history", "--csv", out], capture_output=True,
               timeout=60)
subprocess.run([BIN, "-t", "clht-lb", "-i", "1K", "-d", "50", "--csv", out], capture_output=True, timeout=60)
rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
check(len(rows) == 2 and int(rows[0]["history_ops"]) > 0 and rows[0]["history_violations"] == "0" and
      rows[1]["history_ops"] == "" and rows[1]["history_violations"] == "",
      "CSV: history_ops and history_violations filled with --verify history, empty without")

finish()
