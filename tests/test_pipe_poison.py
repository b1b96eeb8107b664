#!/usr/bin/env python3
"""test_pipe_poison.py - every answer of a pipelined step is checked (issue 50.5; docs/cli.md
"Pipelined operations", "Every answer checked"). The driver sets each op's result to
CHT_PIPE_POISON when it draws it and before a second step; after the op's last step anything but
1/0 fails the run: BAD ANSWER on stderr naming the table, the op's kind and key and the step,
outcome=bad_answer in the row, exit 1, the op counted as a failure.

The tables are tests/twins.c (a plugin built against the SDK headers): twin (correct; one key in 8
takes two steps) must pass with exact counts, in the ordered loop (-u 50) and the gets-only loop
(-u 0), one chunk (W = 8) and four (W = 64), 1 and 4 threads; its broken twins must each be caught,
every time, in both loops:
  fault=pipe-first-only   steps only the first op of each call (an old plugin misread): the others'
                          untouched poison; at -u 0 --pipeline 8 the run that reported 47 Mops/s and
                          a 12.5% hit rate with outcome ok before ABI 4
  fault=pipe-again-twice  a second step answers "again"
  fault=pipe-garbage      a step answers 2

Usage: test_pipe_poison.py BIN TWINS.so
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, TWINS = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="pipe-poison-")
OUTCOMES = ["get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail", "upd_suc", "upd_fail"]


def run(spec, *args):
    out = os.path.join(tmp, f"r{run.n}.csv")
    run.n += 1
    p = subprocess.run([BIN, "--plugin", TWINS, "-t", spec, "-i", "4K", "--seed", "7", "--csv", out, *args],
                       capture_output=True, text=True)
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    return p, rows


run.n = 0

# The correct twin: exact counts, the same as single ops (one thread: program order), ok.
for u in ("50", "0"):
    base_p, base = run("twin", "-n", "1", "--ops", "20000", "-u", u)
    for w in ("8", "64"):
        p, rows = run("twin", "-n", "1", "--ops", "20000", "-u", u, "--pipeline", w)
        ok = p.returncode == 0 and len(rows) == 1 and rows[0]["outcome"] == "ok" and \
            rows[0]["pipeline_w"] == w and rows[0]["total_ops"] == "20000"
        same = ok and base and [rows[0][k] for k in OUTCOMES] == [base[0][k] for k in OUTCOMES]
        check(ok and same, f"twin -u {u} --pipeline {w}, 1 thread: ok, 20000 ops, the outcome counts of single ops "
              f"({[rows[0][k] for k in OUTCOMES] if rows else p.stderr.strip()[-300:]} vs "
              f"{[base[0][k] for k in OUTCOMES] if base else base_p.stderr.strip()[-200:]})")
    p, rows = run("twin", "-n", "4", "--ops", "20000", "-u", u, "--pipeline", "64")
    check(p.returncode == 0 and len(rows) == 1 and rows[0]["outcome"] == "ok" and rows[0]["total_ops"] == "80000"
          and rows[0]["size_ok"] == "1", f"twin -u {u} --pipeline 64, 4 threads: ok, 80000 ops, size exact "
          f"({p.returncode}: {p.stderr.strip()[-300:]})")

# The broken twins: caught in every run, the first bad op named.
LEFT = {
    "pipe-first-only": r"left the result it was given untouched \(CHT_PIPE_POISON\), expected 1 or 0(?: or "
                       r"CHT_PIPE_AGAIN with stage 1)?",
    "pipe-again-twice": r"answered CHT_PIPE_AGAIN again, expected 1 or 0",
    "pipe-garbage": r"answered 2, expected 1 or 0",
}
for fault, left in LEFT.items():
    for u in ("50", "0"):
        for threads in ("1", "2"):
            p, rows = run(f"twin:fault={fault}", "-n", threads, "--ops", "20000", "-u", u, "--pipeline", "8")
            line = [x for x in p.stderr.splitlines() if "BAD ANSWER" in x]
            want = (rf"^chtbench: BAD ANSWER: twin, {threads} threads, rep 0: pipe_step of a pipelined "
                    rf"(get|insert|remove|update) of key \d+ \(its (first|second) step\) .*{left}.*: (\d+) ops "
                    r"answered so, counted as failures$")
            m = re.match(want, line[0]) if line else None
            if m and u == "0" and m.group(1) != "get":
                m = None                                   # gets only
            if m and fault == "pipe-again-twice" and m.group(2) != "second":
                m = None
            bad = int(m.group(3)) if m else 0
            failed = sum(int(rows[0][k]) for k in ("get_fail", "ins_fail", "rem_fail", "upd_fail")) if rows else 0
            check(p.returncode == 1 and len(rows) == 1 and rows[0]["outcome"] == "bad_answer" and m is not None and
                  0 < bad <= failed and rows[0]["total_ops"] == str(20000 * int(threads)),
                  f"fault={fault} -u {u}, {threads} thread(s): exit 1, outcome bad_answer, {bad} bad ops named and "
                  f"counted as failures ({p.returncode}, {rows[0]['outcome'] if rows else None}: {line[:1]} / "
                  f"{p.stderr.strip()[-300:]})")
    if fault == "pipe-first-only":
        # seven ops in eight of every chunk never stepped: most of them named, none counted a success
        p, rows = run(f"twin:fault={fault}", "-n", "1", "--ops", "20000", "-u", "0", "--pipeline", "8")
        m = re.search(r": (\d+) ops answered so", p.stderr)
        check(m and int(m.group(1)) >= 20000 * 7 // 8 - 100 and rows and int(rows[0]["get_suc"]) <= 20000 // 8,
              f"fault=pipe-first-only -u 0 --pipeline 8: >= 7/8 of the gets caught, none counted found beyond the "
              f"first of each chunk ({m.group(1) if m else None}, get_suc {rows[0]['get_suc'] if rows else None})")

# Without --pipeline the broken twins are correct tables (the bugs live in pipe_step alone): the check
# does not cry wolf.
p, rows = run("twin:fault=pipe-garbage", "-n", "2", "--ops", "20000", "-u", "50")
check(p.returncode == 0 and rows and rows[0]["outcome"] == "ok", f"fault=pipe-garbage without --pipeline: ok "
      f"({p.returncode}: {p.stderr.strip()[-200:]})")
finish()
