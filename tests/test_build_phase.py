#!/usr/bin/env python3
"""test_build_phase.py - the build phase and the memory per element (docs/measurement.md "The build
phase", "Memory per element").

Usage: test_build_phase.py BIN [TWINS_PLUGIN]
Checks: every table row carries build_ms > 0 and build_mops = prefilled / build_ms / 10^3; a pre-sized
table completes no resize in the build, a resizable one started by --grow / --initial-capacity 256 does
(and with -u 0 every resize of the run is one of the build's); --grow and --initial-capacity are refused
(one line naming the flag, exit 2, no results file) for a fixed-capacity table, a table whose options keep
it from growing, and together; chtbench check takes --initial-capacity for resizable tables only;
alloc_bytes_per_key = alloc_bytes / initial from the source that serves malloc (mallinfo2 for glibc,
jemalloc for jemalloc, rss under a sanitizer), and, where the allocator counts: a malloc-per-node table
(chain) is its own bytes plus 8..24 bytes a node (glibc's and jemalloc's rounding of its 24-byte nodes),
and a table of one big array (malloc'ed: dense; mapped by the table: noop-line, clht-lb) is its own
bytes plus at most 64 KiB (jemalloc's dense: its size class, at most a quarter more, and 1 MiB); a
plugin's table (tests/twins.c) is measured by RSS, and build_resizes is empty for one without stats().
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
PLUGIN = sys.argv[2] if len(sys.argv) > 2 else None
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402 (tests/checks.py)

TMP = tempfile.mkdtemp(prefix="chtbench-build-")
VERSION = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout
SANITIZED = not re.search(r"^sanitizer: none$", VERSION, re.M)
ALLOCATOR = (re.search(r"^allocator: (\S+)", VERSION, re.M) or [None, "?"])[1]
SOURCE = "rss" if SANITIZED else {"system": "mallinfo2", "jemalloc": "jemalloc"}.get(ALLOCATOR, "rss")
I = 100000
SLACK = 64 << 10   # a table's header, a mapped chunk's page rounding, a worker's first malloc state


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


def records(p):
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def close(a, b, rel=1e-4):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


# ---- every row: the build phase's columns, pre-sized tables, the memory per element ----
out = os.path.join(TMP, "rows.csv")
p = run("-t", "chain,dense,noop-line,clht-lb", "-i", str(I), "--ops", "1000", "-n", "2", "-u", "0", "--json",
        "--csv", out)
recs = {r["table"]: r for r in records(p)}
check(p.returncode == 0 and len(recs) == 4, f"four tables pre-sized: exit 0, four rows (exit {p.returncode})")
with open(out) as fh:
    rows = {r["table"]: r for r in csv.DictReader(fh)}
for name, r in recs.items():
    check(r.get("prefilled") == I and r.get("build_ms", 0) > 0 and
          close(r.get("build_mops"), I / r["build_ms"] / 1e3),
          f"{name}: build_ms > 0 and build_mops = prefilled / build_ms / 10^3 ({r.get('build_ms')} ms, "
          f"{r.get('build_mops')} Mops/s)")
    check(r.get("initial_capacity") is None and r.get("build_resizes") == 0 and r.get("resizes") == 0,
          f"{name}: sized for i, no --initial-capacity: initial_capacity empty, build_resizes 0 "
          f"(got {r.get('initial_capacity')}, {r.get('build_resizes')})")
    check(r.get("alloc_bytes_source") == SOURCE and isinstance(r.get("alloc_bytes"), int) and
          close(r.get("alloc_bytes_per_key"), r["alloc_bytes"] / I),
          f"{name}: alloc_bytes_source {SOURCE} and alloc_bytes_per_key = alloc_bytes / initial "
          f"({r.get('alloc_bytes_source')}, {r.get('alloc_bytes_per_key')}, {r.get('alloc_bytes')})")
    c = rows.get(name, {})
    check(c.get("initial_capacity") == "" and c.get("build_resizes") == "0" and
          c.get("alloc_bytes_source") == SOURCE and close(float(c.get("build_ms") or 0), r.get("build_ms")) and
          close(float(c.get("alloc_bytes_per_key") or 0), r.get("alloc_bytes_per_key")),
          f"{name}: the CSV row carries the same build and memory values")
if SOURCE != "rss":
    ch = recs.get("chain", {})
    extra = (ch.get("alloc_bytes") or 0) - (ch.get("table_bytes_after_prefill") or 0)
    check(8 * I <= extra <= 24 * I + SLACK,
          f"chain: alloc_bytes is its stats() bytes plus 8..24 bytes a node and at most 64 KiB "
          f"({extra / I:.2f} bytes a key more)")
    for name in ("dense", "noop-line", "clht-lb"):
        r = recs.get(name, {})
        own = r.get("table_bytes_after_prefill") or 0
        extra = (r.get("alloc_bytes") or 0) - own
        # glibc maps a large chunk to the page; jemalloc rounds it up to its size class (at most 25% more,
        # four classes a doubling) and its threads' caches come on top
        most = SLACK if SOURCE == "mallinfo2" or name != "dense" else own // 4 + (1 << 20)
        check(0 <= extra <= most, f"{name}: one big array: alloc_bytes is its stats() bytes plus 0..{most >> 10} KiB "
                                  f"(got {extra} more)")
else:
    check(all((r.get("alloc_bytes_per_key") or 0) > 0 for r in recs.values()),
          "under the sanitizer's allocator: alloc_bytes_per_key from RSS, positive")

if PLUGIN:
    p = run("--plugin", PLUGIN, "-t", "twin,twin-nostats", "-i", "10000", "--ops", "100", "--json")
    tw = {r["table"]: r for r in records(p)}
    check(p.returncode == 0 and tw.get("twin", {}).get("alloc_bytes_source") == "rss" and
          tw.get("twin", {}).get("build_resizes") == 0 and
          tw.get("twin-nostats", {}).get("alloc_bytes_source") == "rss" and
          "build_resizes" in tw.get("twin-nostats", {}) and tw["twin-nostats"]["build_resizes"] is None,
          f"plugin tables: alloc_bytes_source rss; build_resizes 0 with stats(), empty without "
          f"({[(k, r.get('alloc_bytes_source'), r.get('build_resizes')) for k, r in tw.items()]})")

# ---- --grow, --initial-capacity: the table grows during the build ----
n = 20000
for spec, prefill in (("cuckoo", "parallel"), ("clht-lb", "single"), ("locked", "parallel")):
    for flag in (["--grow"], ["--initial-capacity", "256"]):
        p = run("-t", spec, "-i", str(n), "--ops", "1000", "-n", "2", "-u", "0", "--prefill", prefill, "--json",
                *flag)
        r = (records(p) or [{}])[0]
        cap = 1 if flag == ["--grow"] else 256
        check(p.returncode == 0 and r.get("outcome") == "ok" and r.get("size_ok") == 1 and
              r.get("prefilled") == n and r.get("initial_capacity") == cap and r.get("build_resizes", 0) > 0 and
              r.get("build_resizes") == r.get("resizes"),
              f"{spec} {' '.join(flag)} --prefill {prefill}: grows from {cap} to {n} in the build "
              f"(build_resizes {r.get('build_resizes')} = resizes {r.get('resizes')} with -u 0; "
              f"{r.get('outcome')}, exit {p.returncode})")
p = run("-t", "cuckoo", "-i", str(n), "--ops", "1000", "-u", "0", "--json")
r = (records(p) or [{}])[0]
check(p.returncode == 0 and r.get("build_resizes") == 0 and r.get("initial_capacity") is None,
      f"cuckoo sized for i: build_resizes 0 (got {r.get('build_resizes')})")

# ---- refusals: one line naming the flag, exit 2, nothing written ----
for args, flag, words in (
        (["-t", "hopscotch", "--grow"], "--grow", "does not resize"),
        (["-t", "cuckoo,dense", "--initial-capacity", "16"], "--initial-capacity", "does not resize"),
        (["-t", "cuckoo:resize=0", "--grow"], "--initial-capacity 1 (--grow)", "does not grow"),
        (["-t", "cuckoo", "--grow", "--initial-capacity", "4"], "--grow", "give one of"),
        (["-t", "cuckoo", "--initial-capacity", "0"], "--initial-capacity", "expected a size")):
    f = os.path.join(TMP, "refused.csv")
    p = run(*args, "-i", "10000", "--ops", "100", "--csv", f)
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(err) == 1 and err[0].startswith(f"chtbench: {flag}") and words in err[0] and
          not os.path.exists(f) and p.stdout == "",
          f"{' '.join(args)}: exit 2, one line naming {flag} ({words}), no results file ({p.returncode}, {err})")

# ---- chtbench check --initial-capacity ----
p = run("check", "-t", "hopscotch", "--initial-capacity", "1", "--checks", "model")
check(p.returncode == 2 and "does not resize" in p.stderr and "PASS" not in p.stdout,
      f"chtbench check --initial-capacity on a fixed-capacity table: exit 2 ({p.returncode})")
p = run("check", "-t", "clht-lf", "--initial-capacity", "1", "--checks", "model", "--seconds", "0.3")
check(p.returncode == 0 and "PASS model clht-lf" in p.stdout,
      f"chtbench check --initial-capacity 1 -t clht-lf: model passes growing from 1 (exit {p.returncode})")

for name in os.listdir(TMP):
    os.unlink(os.path.join(TMP, name))
os.rmdir(TMP)
finish()
