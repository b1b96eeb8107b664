#!/usr/bin/env python3
"""test_check.py - `chtbench check` (docs/cli.md "chtbench check"): the test
suite's conformance checks (src/check/) on any table or lock.

Good tables and locks: one exact PASS line per check and the summary, exit 0.
Broken ones must give FAIL lines with their first counter-example and exit 1:
the fault hooks of a run (src/faults.h) wrap the table here too, the lock
bench's no-lock hook reaches the lock checks, and examples/plugin-table built
-DBROKEN (one insert in 100000 reported but never stored) is caught 10 times
in a row, each run within 30 s. Usage errors: one line, exit 2, nothing on
stdout.

Usage: test_check.py BIN GOOD_PLUGIN BROKEN_PLUGIN
"""
import os
import re
import subprocess
import sys
import time

BIN, GOOD, BROKEN = sys.argv[1:4]
from checks import check, finish  # noqa: E402 (tests/checks.py)


def run(*args, env=None, timeout=120):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHTBENCH_TEST_") and k != "CHTBENCH_PLUGINS"}
    e.update(env or {})
    return subprocess.run([BIN, "check", *args], capture_output=True, text=True, timeout=timeout, env=e)


def out(p):
    return p.stdout.splitlines()


def show(p):
    return (p.stdout.strip() + " | " + p.stderr.strip())[-400:]


OPS = r"\d+ ops"
# a counter-example: "[thread T ]key K [final ]OP expected X got Y ..."
CEX = r"(thread \d+ )?key \d+ (final |prefill )?(insert|remove|get|update) expected .+ got .+"

# ---- good tables: every check passes, one exact line each ----
p = run("--table", "clht-lb,cuckoo,chain", "--seconds", "0.2")
want = []
for t in ["clht-lb", "cuckoo", "chain"]:
    want += [rf"PASS model {t} \({OPS}\)", rf"PASS disjoint {t} \({OPS}\)",
             rf"PASS stable {t} \({OPS}, \d+ resizes under load\)", rf"PASS stress {t} \({OPS}\)",
             rf"PASS values {t} \({OPS}{', value size 100' if t == 'chain' else ''}\)", rf"PASS steady {t} \({OPS}\)",
             rf"PASS versions {t} \({OPS}\)", rf"PASS history {t} \({OPS}\)"]
want.append(r"check: 24 passed, 0 failed, 0 skipped")
lines = out(p)
check(p.returncode == 0 and len(lines) == len(want) and all(re.fullmatch(w, l) for w, l in zip(want, lines)),
      f"clht-lb, cuckoo, chain: 24 exact PASS lines and the summary, exit 0 (exit {p.returncode}: {show(p)})")
check(p.stderr == "", f"nothing on stderr without --verbose ({p.stderr[-200:]!r})")

# a filter (its own model), a check that does not apply, a table that stores nothing
p = run("--table", "cuckoo-filter,noop", "--checks", "model,values", "--seconds", "0.2")
want = [rf"PASS model cuckoo-filter \({OPS}\)", r"SKIP values cuckoo-filter: no update\(\)",
        r"SKIP model noop: stores nothing \(only the stress accounting applies\)",
        r"SKIP values noop: stores nothing \(only the stress accounting applies\)",
        r"check: 1 passed, 0 failed, 3 skipped"]
lines = out(p)
check(p.returncode == 0 and len(lines) == len(want) and all(re.fullmatch(w, l) for w, l in zip(want, lines)),
      f"cuckoo-filter, noop: PASS and SKIP lines with the reason, exit 0 (exit {p.returncode}: {show(p)})")

# ---- good locks ----
p = run("--lock", "mcs,pthread-rwlock", "--seconds", "0.2")
want = []
for l in ["mcs", "pthread-rwlock"]:
    want += [rf"PASS mutex {l} \(\d+ acquisitions, 16 threads\)",
             rf"PASS rw {l} \(\d+ ops, \d+ writes, 16 threads, most readers inside at once \d+\)",
             rf"PASS rwbench {l} \(\d+ reads, \d+ writes, 16 threads\)"]
want.append(r"check: 6 passed, 0 failed, 0 skipped")
lines = out(p)
check(p.returncode == 0 and len(lines) == len(want) and all(re.fullmatch(w, l) for w, l in zip(want, lines)),
      f"mcs, pthread-rwlock: mutex, rw, rwbench PASS, exit 0 (exit {p.returncode}: {show(p)})")

# ---- broken tables through the fault hooks: the first counter-example, exit 1 ----
# one thread, a fixed seed: the model's first divergence is always the same op
p = run("--table", "clht-lb", "--checks", "model", "--seconds", "30",
        env={"CHTBENCH_TEST_FAULT_DROP_INSERT": "1000"})
check(p.returncode == 1 and out(p) == ["FAIL model clht-lb: key 3407 update expected true got false (op 3879, seed 1)",
                                       "check: 0 passed, 1 failed, 0 skipped"],
      f"DROP_INSERT=1000: model names key, op, expected and got, exit 1 ({show(p)})")
p = run("--table", "chain", "--checks", "stress", "--seconds", "0.2", env={"CHTBENCH_TEST_FAULT_SIZE_SKEW": "1"})
check(p.returncode == 1 and out(p) == ["FAIL stress chain: size() after prefill expected 32 got 33",
                                       "check: 0 passed, 1 failed, 0 skipped"],
      f"SIZE_SKEW=1: stress names size(), expected and got, exit 1 ({show(p)})")
# under concurrency: one insert in 10^4 dropped, caught by the disjoint threads
p = run("--table", "cuckoo", "--checks", "disjoint", "--seconds", "5", env={"CHTBENCH_TEST_FAULT_DROP_INSERT": "10000"})
lines = out(p)
check(p.returncode == 1 and len(lines) == 2 and re.fullmatch(rf"FAIL disjoint cuckoo: {CEX}", lines[0]) and
      lines[1] == "check: 0 passed, 1 failed, 0 skipped",
      f"DROP_INSERT=10000: disjoint fails with a counter-example, exit 1 ({show(p)})")
p = run("--table", "clht-lb", "--checks", "stable,values", "--seconds", "0.3",
        env={"CHTBENCH_TEST_FAULT_TORN_GET": "1000"})
lines = out(p)
check(p.returncode == 1 and len(lines) == 3 and
      re.fullmatch(r"FAIL stable clht-lb: thread \d+ key \d+ get expected value [0-9a-f]+ got bad0bad0bad0bad0 .*",
                   lines[0]) and
      re.fullmatch(r"FAIL values clht-lb: thread \d+ key \d+ get expected a value written for it got "
                   r"bad0bad0bad0bad0 \(torn\) .*", lines[1]),
      f"TORN_GET: stable and values show the torn value, exit 1 ({show(p)})")

# ---- a broken lock: the lock bench's no-lock hook ----
# (the mutex check yields inside its critical section, so it loses increments on any machine; RWBench's
# readers see a half-done write only when a thread is preempted in one: a loaded machine may need longer)
for attempt in range(4):
    p = run("--lock", "ttas", "--checks", "mutex,rwbench", "--seconds", str(0.2 * (attempt + 1)),
            env={"CHTBENCH_TEST_LOCKBENCH_NO_LOCK": "1"})
    lines = out(p)
    if len(lines) == 3 and lines[1].startswith("FAIL "):
        break
check(p.returncode == 1 and len(lines) == 3 and
      re.fullmatch(r"FAIL mutex ttas: counter expected (\d+) got (\d+) \(\d+ increments lost: no mutual exclusion, "
                   r"16 threads\)", lines[0]) and
      re.fullmatch(r"FAIL rwbench ttas: array sum expected 0 got -?\d+, .*", lines[1]) and
      lines[2] == "check: 0 passed, 2 failed, 0 skipped",
      f"no-lock hook: mutex loses increments, RWBench's sum is not 0, exit 1 ({show(p)})")

# ---- plugins: examples/plugin-table, good and -DBROKEN ----
p = run("--plugin", GOOD, "--table", "ex-striped:lock=ttas", "--checks", "model,disjoint,stable,history", "--seconds",
        "1")
want = [rf"PASS model ex-striped:lock=ttas \({OPS}\)", rf"PASS disjoint ex-striped:lock=ttas \({OPS}\)",
        rf"PASS stable ex-striped:lock=ttas \({OPS}, 0 resizes under load\)",
        rf"PASS history ex-striped:lock=ttas \({OPS}\)", r"check: 4 passed, 0 failed, 0 skipped"]
lines = out(p)
check(p.returncode == 0 and len(lines) == len(want) and all(re.fullmatch(w, l) for w, l in zip(want, lines)),
      f"plugin ex-striped: PASS, exit 0 (exit {p.returncode}: {show(p)})")
caught, slowest = 0, 0.0
for i in range(10):
    t0 = time.monotonic()
    p = run("--plugin", BROKEN, "--table", "ex-striped", "--checks", "disjoint,stable", "--seconds", "4", timeout=60)
    dt = time.monotonic() - t0
    slowest = max(slowest, dt)
    lines = out(p)
    fails = [l for l in lines if l.startswith("FAIL ")]
    good = (p.returncode == 1 and fails and lines[-1].startswith("check: ") and
            all(re.fullmatch(rf"FAIL disjoint ex-striped: {CEX}", l) or
                re.fullmatch(r"FAIL stable ex-striped: size\(\) expected \d+ \+ \d+ - \d+ got \d+", l) for l in fails)
            and dt < 30)
    caught += bool(good)
    if not good:
        print(f"run {i + 1}: exit {p.returncode} in {dt:.1f} s: {show(p)}")
check(caught == 10, f"plugin ex-striped built -DBROKEN: FAIL with a counter-example and exit 1 in {caught} of 10 "
      f"runs, slowest {slowest:.1f} s (< 30 s)")

# ---- usage errors: one line on stderr, exit 2, nothing on stdout ----
for args, start in [([], "chtbench check: --table: "),
                    (["--table", "clht-lb", "--seconds", "0"], "chtbench check: --seconds: "),
                    (["--table", "clht-lb", "--seconds", "x"], "chtbench check: --seconds: "),
                    (["--table", "clht-lb", "--threads", "0"], "chtbench check: --threads: "),
                    (["--table", "clht-lb", "--checks", "model,bogus"], "chtbench check: --checks: "),
                    (["--table", "clht-lb", "--checks", "model,"], "chtbench check: --checks: "),
                    (["--table", "nosuch"], "chtbench: --table: "),
                    (["--table", "cuckoo:hashes=9"], "chtbench check: --table cuckoo: "),
                    (["--table", "clht-lb", "--value-size", "100"], "chtbench: --value-size: "),
                    (["--lock", "nosuch"], "chtbench: --lock: "),
                    (["--table", "clht-lb", "--bogus"], "chtbench check: --bogus: "),
                    (["--table", "clht-lb", "extra"], "chtbench check: 'extra': "),
                    (["--plugin", "/nonexistent/x.so", "--table", "clht-lb"], "chtbench: ")]:
    p = run(*args)
    err = p.stderr.splitlines()
    check(p.returncode == 2 and p.stdout == "" and len(err) == 1 and err[0].startswith(start),
          f"check {' '.join(args)}: exit 2, one line starting {start!r} (exit {p.returncode}: {p.stderr.strip()[:200]})")
p = run("--help")
check(p.returncode == 0 and p.stdout.startswith("usage: chtbench check"), "check --help: the synopsis, exit 0")

finish()
