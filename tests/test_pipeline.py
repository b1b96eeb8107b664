#!/usr/bin/env python3
"""test_pipeline.py - --pipeline W (docs/cli.md "Pipelined operations"): per
thread, W ops in flight in k chunks (k = W / 16, 1 below 32) that rotate: each
turn one chunk is stepped (the table's pipe_step) and a new one drawn and
started (pipe_start), k turns before its step; ops whose step answers "again"
(a second cuckoo bucket, a dense run past its first lines, a clht-lb overflow
bucket) complete k turns later, out of order (sooner where a chunk stepped
before then has their key), and an op whose key an earlier op of its chunk
has is held and completes after it.

What must hold, each an exact check:
 - every drawn op runs (the FIFO drains inside the timed phase): total_ops ==
   threads x --ops, also when --ops is below W;
 - the driver's final check passes (size == prefill + inserted - removed,
   every key found with a value the run wrote, key sum) on clht-lb, cuckoo
   and dense (pipeline_mode hooks) and on tables without the hook (chain,
   the cuckoo filter: pipeline_mode fallback, single ops), with 1 and 2
   threads, W = 1, 3 (a ring that is not a power of two) and 64;
 - program order: one thread on a 64-key range (nearly every window holds
   two ops on one key, and absent keys send cuckoo gets to a second step)
   gives exactly the outcome counts of the same run without --pipeline, for
   W = 7 and 31 (one chunk), 47 (two of 24 and 23) and 64 (four), from the key
   buffer and from in-loop draws, uniform and Zipf, and for YCSB A and F
   (update, read-modify-write); without the rule that holds an op behind an
   earlier one on its key, or the one that completes a parked op early where
   a chunk stepped before its turn has its key, these counts differ; gets only
   (-u 0, YCSB C), where nothing writes and that rule is skipped, give the
   same counts with one key several times in a batch;
 - stress: 4 threads (more than the CPUs) on a 64-key range, half updates,
   a timed run: the final check passes, also with the run cut into chase
   slices every 2 ms (--ceiling-slices);
 - the checks stay live under --pipeline: an injected lost insert fails
   the run (exit 1, verify_ok 0);
 - noop-line (noop plus a line an op): its hooks run every op (counts equal
   to single ops, gets missed, writes succeeded, size exact), its array is
   exactly initial x bytes_per_key bytes in whole lines, it runs sliced,
   work=32 adds 8-16 instructions a round an op (valgrind's count, release
   builds), and bad values of its options are refused;
 - --pipeline auto picks single ops for a table that fits in the cache
   (pipeline 0, pipeline_mode plain), and above 4x the private cache W = 32,
   with writes or without; 0 is off; bad values and clashes are refused.

Usage: test_pipeline.py BIN
"""
import json
import os
import shutil
import subprocess
import sys

BIN = sys.argv[1]
from checks import check, finish, lean_keybuf, spread  # noqa: E402 (tests/checks.py)

# cuckoo:away=0: the two-step get without the away bits (every miss in the first bucket takes a second step);
# dense:simd=0: dense's key compares in SSE2 (dense: AVX2 where the CPU has it); dense:lines=1: a get's
# first step on its home line only (dense at these sizes: two lines); clht-lb:write_steps=2: a write past a
# chained head in two steps (clht-lb at these sizes: one)
HOOKS = ["clht-lb", "clht-lb:write_steps=2", "cuckoo", "cuckoo:away=0", "dense", "dense:simd=0", "dense:lines=1"]
FALLBACK = ["chain", "cuckoo-filter"]
OPS_DONE = ["get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail", "upd_suc", "upd_fail"]
COUNTS = OPS_DONE + ["final_size", "verify_found"]


def run(*args, env=None, timeout=120):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHTBENCH_TEST_")}
    e.update(env or {})
    p = subprocess.run([BIN, *lean_keybuf(args), "--json"], capture_output=True, text=True, timeout=timeout, env=e)
    return p, [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def clean(r):
    return (r.get("outcome") == "ok" and r.get("size_ok") == 1 and r.get("verify_ok") == 1 and
            r.get("verify_keysum_ok") in (1, None) and r.get("verify_bad_values") in (0, None))


def desc(r):
    return (f"outcome {r.get('outcome')} size_ok {r.get('size_ok')} verify_ok {r.get('verify_ok')} "
            f"keysum {r.get('verify_keysum_ok')} bad {r.get('verify_bad_values')} total {r.get('total_ops')} "
            f"pipeline {r.get('pipeline')}/{r.get('pipeline_w')}/{r.get('pipeline_mode')}")


# 1. final check and exact op totals, hooks and fallback, 1 and 2 threads
OPS = 20000
for table in HOOKS + FALLBACK:
    mode = "hooks" if table in HOOKS else "fallback"
    for w in spread((1, 64, 3)):
        p, recs = run("--table", table, "-n", "1,2", "-u", "50", "-i", "1K", "-r", "2K", "--ops", str(OPS),
                      "--pipeline", str(w), "--verify", "full")
        check(p.returncode == 0 and len(recs) == 2, f"{table} --pipeline {w}: exit 0, 2 rows" +
              ("" if p.returncode == 0 else f" (exit {p.returncode}: {p.stderr.strip()[-200:]})"))
        for r in recs:
            n = r.get("threads")
            check(clean(r) and r.get("total_ops") == n * OPS and
                  r.get("pipeline") == str(w) and r.get("pipeline_w") == (w if mode == "hooks" else 0) and r.get("pipeline_mode") == mode,
                  f"{table} -n {n} --pipeline {w}: final check ok, total_ops == {n * OPS}, mode {mode}: {desc(r)}")

# 2. program order: one thread, 64 keys, counts equal to single ops
ORDER_RUNS = [
    ("keybuf", ["-u", "50", "-i", "32", "-r", "64", "--ops", "10000"]),
    ("in-loop", ["-u", "50", "-i", "32", "-r", "64", "--ops", "10000", "--keybuf", "0"]),
    ("zipf", ["-u", "50", "-i", "32", "-r", "64", "--ops", "10000", "--dist", "zipf:0.99"]),
    ("ycsb-a", ["--workload", "ycsb-a", "-i", "64", "--ops", "10000"]),
    ("ycsb-f", ["--workload", "ycsb-f", "-i", "64", "--ops", "10000"]),
    # gets only: no clash test (nothing writes), so a batch holds one key several times
    ("gets-only", ["-u", "0", "-i", "32", "-r", "64", "--ops", "10000"]),
    ("ycsb-c", ["--workload", "ycsb-c", "-i", "64", "--ops", "10000"]),
]
for table in HOOKS:
    for name, args in spread(ORDER_RUNS):
        base_p, base = run("--table", table, "-n", "1", "--verify", "full", *args)
        ok_base = base_p.returncode == 0 and len(base) == 1 and clean(base[0])
        check(ok_base, f"{table} {name}: the single-op run passes" +
              ("" if ok_base else f" (exit {base_p.returncode}: {base_p.stderr.strip()[-200:]})"))
        for w in (7, 31, 47, 64):
            p, recs = run("--table", table, "-n", "1", "--verify", "full", "--pipeline", str(w), *args)
            r = recs[0] if len(recs) == 1 else {}
            same = ok_base and all(r.get(c) == base[0].get(c) for c in COUNTS)
            check(p.returncode == 0 and clean(r) and same,
                  f"{table} {name} --pipeline {w}: outcome counts equal to single ops "
                  f"({[r.get(c) for c in COUNTS]} vs {[base[0].get(c) for c in COUNTS] if base else None}); "
                  f"{desc(r)}")

# YCSB D (inserts claim new keys, reads pick the latest acknowledged one when drawn), 2 threads
p, recs = run("--table", ",".join(HOOKS), "-n", "2", "--workload", "ycsb-d", "-i", "4K", "--ops", "5000",
              "--pipeline", "16", "--verify", "full")
check(p.returncode == 0 and len(recs) == len(HOOKS) and all(clean(r) and r.get("total_ops") == 10000 for r in recs),
      "ycsb-d -n 2 --pipeline 16: final check ok on every hook table, all 10000 ops run: " +
      "; ".join(desc(r) for r in recs))

# stress: more threads than CPUs, a tiny range, half updates, stopped by the clock
for table in HOOKS:
    for w in spread((7, 64)):
        p, recs = run("--table", table, "-n", "4", "-u", "50", "-i", "32", "-r", "64", "-d", "300",
                      "--pipeline", str(w), "--verify", "full")
        r = recs[0] if len(recs) == 1 else {}
        check(p.returncode == 0 and clean(r) and r.get("pipeline_w") == w and r.get("total_ops", 0) > 0,
              f"{table} -n 4 -r 64 -u 50 --pipeline {w} -d 300: final check ok: {desc(r)}")

# the same with --ceiling-slices 2: every 2 ms the threads leave their ops in flight for a chase
# slice (the loop reads the stop flag at its chase value) and resume them after it
p, recs = run("--table", "clht-lb,cuckoo,dense", "-n", "4", "-u", "50", "-i", "32", "-r", "64", "-d", "300",
              "--pipeline", "16", "--verify", "full", "--ceiling-slices", "2")
check(p.returncode == 0 and len(recs) == 3 and all(clean(r) and r.get("ceiling_slices_s", 0) > 0 and
      r.get("ceiling_slice_ms") == 2 for r in recs),
      "-n 4 -r 64 -u 50 --pipeline 16 --ceiling-slices 2: the chase slices came and went, final check ok: "
      + "; ".join(desc(r) for r in recs))

# clht-lb's two-step writes on long chains: --density 8 puts ~8 keys on a bucket of 3 (and resizes)
for w in spread((64, 7)):
    p, recs = run("--table", "clht-lb:write_steps=2", "-n", "4", "-u", "50", "-i", "32", "-r", "64", "--density", "8",
                  "-d", "300", "--pipeline", str(w), "--verify", "full")
    r = recs[0] if len(recs) == 1 else {}
    check(p.returncode == 0 and clean(r) and r.get("pipeline_w") == w and r.get("total_ops", 0) > 0,
          f"clht-lb:write_steps=2 -n 4 -r 64 --density 8 -u 50 --pipeline {w} -d 300: final check ok: {desc(r)}")

# noop-line, noop plus one line an op (the loops' best at the memory): its pipe hooks run every op, in
# program order, with noop's fixed outcomes (gets miss, writes succeed), so a pipelined run's counts equal
# the single-op run's exactly (with work=K too: the work changes no outcome); its array is exactly
# initial x bytes_per_key bytes in whole lines
NL_RUN = ["-u", "50", "-i", "1000", "-r", "2K", "--ops", "20000"]
for spec in ("noop-line", "noop-line:bytes_per_key=65", "noop-line:work=5"):
    base_p, base = run("--table", spec, "-n", "1,2", *NL_RUN)
    for w in (1, 3, 64):
        p, recs = run("--table", spec, "-n", "1,2", "--pipeline", str(w), *NL_RUN)
        check(p.returncode == 0 and base_p.returncode == 0 and len(recs) == 2 == len(base),
              f"{spec} --pipeline {w}: exit 0, 2 rows (exit {p.returncode}: {p.stderr.strip()[-200:]})")
        for r, b in zip(recs, base):
            n = r.get("threads")
            gets, ins, rem = r.get("get_fail", -1), r.get("ins_suc", -1), r.get("rem_suc", -1)
            check(r.get("outcome") == "ok" and r.get("size_ok") == 1 and r.get("pipeline_mode") == "hooks" and
                  r.get("pipeline_w") == w and r.get("total_ops") == n * 20000 and gets + ins + rem == n * 20000 and
                  r.get("get_suc") == r.get("ins_fail") == r.get("rem_fail") == 0 and
                  r.get("final_size") == 1000 + ins - rem and all(r.get(c) == b.get(c) for c in COUNTS),
                  f"{spec} -n {n} --pipeline {w}: hooks ran all {n * 20000} ops, gets missed, writes succeeded, "
                  f"counts equal to single ops ({[r.get(c) for c in COUNTS]} vs {[b.get(c) for c in COUNTS]}): {desc(r)}")
sizes = {}
for bpk in (1, 64, 65):
    p, recs = run("--table", f"noop-line:bytes_per_key={bpk}", "-n", "1", "-i", "1000", "--ops", "100")
    sizes[bpk] = recs[0].get("table_bytes", 0) if p.returncode == 0 and len(recs) == 1 else -1
check(sizes[64] - sizes[1] == 64000 - 16 * 64 and sizes[65] - sizes[1] == 1016 * 64 - 16 * 64,
      f"noop-line's array at -i 1000: 1000 x 64 bytes; 1000 x 65 and 1000 x 1 rounded up to 1016 and 16 lines "
      f"of 64 (table_bytes by bytes_per_key {sizes})")
p, recs = run("--table", "noop-line", "-n", "4", "-u", "50", "-i", "32", "-r", "64", "-d", "300",
              "--pipeline", "16", "--ceiling-slices", "2")
r = recs[0] if len(recs) == 1 else {}
check(p.returncode == 0 and r.get("outcome") == "ok" and r.get("size_ok") == 1 and r.get("pipeline_mode") == "hooks"
      and r.get("ceiling_slice_ms") == 2 and (r.get("ceiling_frac") or 0) > 0,
      f"noop-line -n 4 -r 64 -u 50 --pipeline 16 --ceiling-slices 2: size accounting ok, a ceiling fraction of "
      f"its own seconds ({r.get('ceiling_frac')}): {desc(r)}")
for opt, bad, says in (("bytes_per_key", "0", "1..4096"), ("bytes_per_key", "4097", "1..4096"),
                       ("bytes_per_key", "-1", "1..4096"), ("bytes_per_key", "1K", "1..4096"),
                       ("bytes_per_key", "", "not key=value"), ("work", "257", "0..256"), ("work", "-1", "0..256"),
                       ("work", "x", "0..256")):
    p, recs = run("--table", f"noop-line:{opt}=" + bad, "-n", "1", "--ops", "10")
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and not recs and len(err) == 1 and opt in err[0] and says in err[0],
          f"noop-line:{opt}={bad}: exit 2, one line naming the option and '{says}', no row "
          f"(exit {p.returncode}: {err})")

# noop-line:work=K does its work: instructions counted by valgrind (deterministic, not a timing), the same
# run at work=0 and work=32, plain and pipelined; 32 rounds of four multiply-adds come to 8-16 instructions
# a round an op (~12.5 with gcc -O2/-O3). Release builds only (valgrind does not run a sanitizer build).
if shutil.which("valgrind") and "sanitizer: none" in subprocess.run([BIN, "--version"], capture_output=True,
                                                                      text=True).stdout:
    def instructions(spec, w):
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", BIN, "-t", spec,
                            "-n", "1", "-u", "50", "-i", "1000", "-r", "2K", "--ops", "100000", "--pipeline",
                            str(w), "--seed", "1"], capture_output=True, text=True, timeout=300)
        got = [ln.split()[-1] for ln in p.stderr.splitlines() if "Collected :" in ln]
        return int(got[0]) if p.returncode == 0 and got else -1
    for w in (0, 16):
        i0, i32 = instructions("noop-line", w), instructions("noop-line:work=32", w)
        per_op = (i32 - i0) / 100000 if i0 > 0 and i32 > 0 else -1
        check(32 * 8 <= per_op <= 32 * 16,
              f"noop-line:work=32 --pipeline {w}: {per_op:.1f} instructions an op more than work=0 "
              f"(32 rounds x 8..16; valgrind totals {i0}, {i32})")
else:
    print("skip: noop-line:work's instruction count needs valgrind and a release build")

# 3. --ops below W: the ops drawn all run
for table in HOOKS:
    p, recs = run("--table", table, "-n", "2", "-u", "50", "-i", "64", "-r", "128", "--ops", "5",
                  "--pipeline", "64", "--verify", "full")
    r = recs[0] if len(recs) == 1 else {}
    check(p.returncode == 0 and clean(r) and r.get("total_ops") == 10 and sum(r.get(c, 0) for c in OPS_DONE) == 10,
          f"{table} --ops 5 --pipeline 64 -n 2: all 10 ops run: {desc(r)}")

# 4. the checks stay live: a lost insert fails a pipelined run
for table in HOOKS:
    p, recs = run("--table", table, "-n", "1", "-u", "50", "-i", "1K", "-r", "2K", "--ops", "20000",
                  "--pipeline", "16", env={"CHTBENCH_TEST_FAULT_DROP_INSERT": "100"})
    r = recs[0] if len(recs) == 1 else {}
    # the fault keeps size() consistent (src/faults.c), so the key sweep is what catches it
    check(p.returncode == 1 and r.get("verify_ok") == 0 and r.get("outcome") == "mismatch",
          f"{table} --pipeline 16 with every 100th insert lost: exit 1, verify_ok 0 "
          f"(exit {p.returncode}, {desc(r)})")

# 5. auto: a table in the cache runs single ops; 2 threads, timed run
p, recs = run("--table", "clht-lb,chain", "-n", "2", "-u", "10", "-i", "1K", "-d", "30", "--pipeline", "auto")
got = {r.get("table"): (r.get("pipeline"), r.get("pipeline_w"), r.get("pipeline_mode")) for r in recs}
check(p.returncode == 0 and got == {"clht-lb": ("auto", 0, "plain"), "chain": ("auto", 0, "fallback")} and all(clean(r) for r in recs),
      f"--pipeline auto at i=1K: clht-lb (auto, 0, plain), chain (auto, 0, fallback): {got}")
# above 4x the private cache: W = 32 for gets only, else 16 (a table of 16x the
# largest L1/L2 as sysfs gives it, from 64K keys at a low --density)
def private_cache():
    best, d = 0, "/sys/devices/system/cpu/cpu0/cache"
    for i in range(8):
        try:
            level = int(open(f"{d}/index{i}/level").read())
            size = open(f"{d}/index{i}/size").read().strip()
        except (OSError, ValueError):
            break
        n = int(size.rstrip("KM")) * {"K": 1 << 10, "M": 1 << 20}.get(size[-1], 1)
        best = max(best, n) if level <= 2 else best
    try:
        return best or max(0, os.sysconf("SC_LEVEL2_CACHE_SIZE"))
    except (ValueError, OSError):
        return best


big = private_cache() or 1 << 20       # unknown to chtbench too: auto pipelines every table
density = f"{65536 / big:.6f}"          # dense: 16-byte slots, a power of two at least i / density
for u, want in (("0", 32), ("2", 32), ("50", 32)):
    p, recs = run("--table", "dense", "-n", "1", "-u", u, "-i", "64K", "--density", density, "--ops", "3000",
                  "--pipeline", "auto")
    r = recs[0] if len(recs) == 1 else {}
    check(p.returncode == 0 and r.get("pipeline_w") == want and r.get("pipeline_mode") == "hooks" and clean(r)
          and r.get("table_bytes_after_prefill", 0) > 4 * big,
          f"--pipeline auto, dense of {r.get('table_bytes_after_prefill')} bytes (private cache {big}), -u {u}: "
          f"W = {want} ({desc(r)}; {p.stderr.strip()[-200:]})")
p, recs = run("--table", "cuckoo", "-n", "2", "-u", "10", "-i", "1K", "-d", "30", "--pipeline", "16")
check(p.returncode == 0 and len(recs) == 1 and recs[0].get("pipeline_w") == 16 and clean(recs[0]),
      f"cuckoo -d 30 --pipeline 16 -n 2 (a timed run, stopped by the clock): final check ok")
p, recs = run("--table", "dense", "-n", "1", "-u", "0", "-i", "1K", "--ops", "1000")
check(p.returncode == 0 and recs and recs[0].get("pipeline") == "0" and recs[0].get("pipeline_w") == 0 and
      recs[0].get("pipeline_mode") == "-", "without --pipeline: pipeline 0, pipeline_w 0, pipeline_mode -")

# 6. refused
p, recs = run("--table", "clht-lb", "-n", "1", "-u", "0", "-i", "1K", "--ops", "1000", "--pipeline", "0",
              "--latency=4")
check(p.returncode == 0 and recs and recs[0].get("pipeline_w") == 0 and recs[0].get("pipeline_mode") == "-",
      "--pipeline 0 is off (and so combines with --latency): pipeline 0, pipeline_mode -")
for bad in (["--pipeline", "-1"], ["--pipeline", "65"], ["--pipeline", "x"], ["--pipeline", "8", "--latency=1"],
            ["--pipeline", "8", "--batch", "4"]):
    p = subprocess.run([BIN, "--table", "clht-lb", "-i", "1K", "--ops", "10", *bad], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 2 and "--pipeline" in p.stderr, f"{' '.join(bad)}: refused, exit 2 ({p.stderr.strip()[:120]})")

finish()
