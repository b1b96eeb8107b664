#!/usr/bin/env python3
"""`chtbench check` catches lost updates and stale reads (issue 50.2/50.4; docs/cli.md "chtbench check",
the versions check): the broken twins of tests/twins.c, a plugin built against the SDK, each fail the
versions check 10 times in 10, each run within seconds, with the first counter-example and the exact
counts by kind; the correct twin passes. The faults:
  lost-update       one update in 10^4 answers true and stores nothing
  race-lost-update  the same, only over updates made while another thread is inside an op
  stale-read        one get in 10^4 that finds its key while another thread is inside an op returns
                    the key's previous value
  false-absent      one get in 10^4 that finds its key while another thread is inside an op answers
                    "absent" (history only: versions never removes)
  false-present     one get in 10^4 that misses the key last removed from its bucket, while another
                    thread is inside an op, answers "present" with its old value (history only)
The history check (every answer of 4 threads on 16 shared keys checked for linearizability) catches
lost-update, stale-read, false-absent and false-present 10 times in 10; race-lost-update it catches in most
runs only (14 of 15 at 8 threads: the fault needs two threads inside ops at once, rarer when 4 threads share
2 CPUs), so it is left to versions here.
A history catch names the first op no order explains: the faulty answer itself, or a later write whose
answer it made impossible (a false "absent" ordered before a concurrent remove, then an update -> true).
Every write of the check stores a value unique to (key, writer, the writer's version of the key), so
the older value is told from the newest; before these, every write of a key by one thread stored the
same value and all six checks passed these tables.

Usage: test_twins_check.py BIN TWINS.so
"""
import re
import subprocess
import sys
import time

from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, TWINS = sys.argv[1], sys.argv[2]


def run(spec, checks="versions"):
    t0 = time.monotonic()
    p = subprocess.run([BIN, "check", "--plugin", TWINS, "-t", spec, "--checks", checks, "--seconds", "5"],
                       capture_output=True, text=True, timeout=120)
    return p, time.monotonic() - t0


p, _ = run("twin", "versions,disjoint,values,stress")
check(p.returncode == 0 and p.stdout.splitlines()[-1] == "check: 4 passed, 0 failed, 0 skipped",
      f"the correct twin passes versions, disjoint, values, stress ({p.stdout.strip()[-300:]})")
COUNTS = r"(\d+) wrong results in all, (\d+) lost updates, (\d+) stale reads, (\d+) values never written, " \
         r"(\d+) keys not at their last write at the end; 64 keys, 8 threads"
FIRST = {
    "lost-update": r"key \d+ update to version \d+ returned true, then get read version \d+ twice \(a lost update; "
                   r"op \d+\)",
    "race-lost-update": r"key \d+ (update to version \d+ returned true, then get read version \d+ twice \(a lost "
                        r"update|get read version \d+ after this thread (wrote|read) version \d+ \(a stale read); "
                        r"op \d+\)",
    "stale-read": r"key \d+ get read version \d+ after this thread (wrote|read) version \d+ \(a stale read; op \d+\)",
}
for fault, first in FIRST.items():
    caught, slowest, example = 0, 0.0, ""
    for _ in range(10):
        p, dt = run(f"twin:fault={fault}")
        lines = p.stdout.splitlines()
        m = re.fullmatch(rf"FAIL versions twin:fault={fault}: thread \d+ {first}; {COUNTS}", lines[0]) if lines else None
        ok = p.returncode == 1 and m is not None
        if ok:
            wrong, lost, stale, unwritten = (int(m.group(i)) for i in range(m.lastindex - 4, m.lastindex))
            # the kinds add up to the wrong results; the fault makes only its own kind (race: lost, or stale
            # where a read-back raced another reader's) and never a value that was not written
            ok = wrong == lost + stale + unwritten and unwritten == 0 and \
                (lost > 0 if fault == "lost-update" else stale > 0 if fault == "stale-read" else lost + stale > 0)
            if fault == "lost-update":
                ok = ok and stale == 0
        caught += ok
        slowest = max(slowest, dt)
        example = example or (lines[0] if ok else "")
        if not ok:
            example = f"missed: {p.returncode} {p.stdout.strip()[-300:]}"
            break
    check(caught == 10 and slowest < 20, f"fault={fault}: caught 10 times in 10 (caught {caught}), slowest run "
          f"{slowest:.1f} s: {example}")

# ---- the history check: every answer of a concurrent run on 16 shared keys linearizable ----
p, _ = run("twin", "history")
check(p.returncode == 0 and re.fullmatch(r"PASS history twin \(\d+ ops\)", p.stdout.splitlines()[0]),
      f"the correct twin passes history ({p.stdout.strip()[-200:]})")
HIST_FIRST = {
    "lost-update": r"get -> 0x[0-9a-f]{16} \((thread \d+'s write \d+|the prefill's)\)",
    "stale-read": r"get -> 0x[0-9a-f]{16} \((thread \d+'s write \d+|the prefill's)\)",
    "false-absent": r"get -> absent",
    "false-present": r"get -> 0x[0-9a-f]{16} \((thread \d+'s write \d+|the prefill's)\)",
}
for fault, first in HIST_FIRST.items():
    caught, slowest, example = 0, 0.0, ""
    for _ in range(10):
        p, dt = run(f"twin:fault={fault}", "history")
        lines = p.stdout.splitlines()
        # the first op no order explains is the faulty answer, or a later write whose answer the faulty one
        # made impossible (a false "absent" linearized before a remove, then an update -> true)
        m = re.match(rf"FAIL history twin:fault={fault}: key \d+ \(at the start [^)]*\)+: no order of its ops "
                     rf"explains thread \d+ (?:{first}|(?:insert|update|remove) [^\[]*-> (?:true|false)), "
                     rf"\[\+[0-9.]+, \+[0-9.]+\] us", lines[0]) if lines else None
        ok = p.returncode == 1 and m is not None and len(lines) == 2
        caught += ok
        slowest = max(slowest, dt)
        example = example or (lines[0][:240] if ok else "")
        if not ok:
            example = f"missed: {p.returncode} {p.stdout.strip()[-300:]}"
            break
    check(caught == 10 and slowest < 20, f"history, fault={fault}: caught 10 times in 10 (caught {caught}), slowest "
          f"run {slowest:.1f} s: {example}")
finish()
