#!/usr/bin/env python3
"""test_verify.py - the final check of values, keys and filters (docs/cli.md
"The final check", "Testing the final check", "The cuckoo filter").

Every value a run writes is a hash of its key and a version; the verify sweep
checks each found value (verify_bad_values, outcome value_mismatch) and sums
the keys found against prefill + inserted - removed (verify_keysum_ok,
outcome keysum_mismatch). A filter fails when its false positives exceed its
bound by 6 standard deviations (outcome fp_excess), and the ops the harness
does not send to a filter are counted apart. Each failure is provoked by a
fault-injection hook (src/faults.c) on several tables with 2-4 threads, and
must give exit 1, the exact columns and the console line naming the check;
clean runs of the same tables must pass with verify_bad_values == 0.

Usage: test_verify.py BIN
"""
import json
import math
import os
import re
import subprocess
import sys

BIN = sys.argv[1]
from checks import check, finish, lean_keybuf, spread  # noqa: E402 (tests/checks.py)


def run(*args, env=None, timeout=300):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHTBENCH_TEST_")}
    e.update(env or {})
    p = subprocess.run([BIN, *lean_keybuf(args), "--json"], capture_output=True, text=True, timeout=timeout, env=e)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    return p, recs[0] if len(recs) == 1 else {}


def lines(p, word):
    """the stderr lines naming a check"""
    return [l for l in p.stderr.splitlines() if l.startswith(f"chtbench: {word}:")]


CHECK_WORDS = ["SIZE MISMATCH", "VERIFY FAILED", "VALUE MISMATCH", "KEY SUM MISMATCH", "FP EXCESS"]


def only(p, word):
    """exactly one failed-check line, and it is `word`'s"""
    return len(lines(p, word)) == 1 and all(not lines(p, w) for w in CHECK_WORDS if w != word)


def said(p):
    """the failed-check lines, for a message"""
    return " | ".join(l for l in p.stderr.splitlines() if any(f"chtbench: {w}:" in l for w in CHECK_WORDS))[:300] or \
        p.stderr.strip()[-200:]


def summary_says(p, word):
    return any(l.rstrip().endswith(word) for l in (p.stdout + p.stderr).splitlines() if not l.startswith("{"))


BASE = ["-d", "50", "-u", "20"]

# ---- clean runs: every found value is one the run wrote, the key sum holds ----
clean = [("clht-lb", 2, []), ("cuckoo", 3, []), ("chain", 4, []), ("locked", 2, []),
         ("chain", 2, ["--value-size", "100"]), ("hotring", 2, ["--workload", "ycsb-a", "--value-size", "40"]),
         ("clht-lb", 2, ["--workload", "ycsb-f"]), ("cuckoo", 2, ["--workload", "ycsb-d"]),
         ("clht-lb", 3, ["--keys", "sparse", "--warmup", "20"])]
for table, n, extra in spread(clean):
    mix = ["-d", "50"] if "--workload" in extra else BASE
    p, r = run("-t", table, "-n", str(n), "-i", "64K", *mix, *extra)
    check(p.returncode == 0 and r.get("outcome") == "ok" and r.get("verify") == "full" and
          r.get("verify_bad_values") == 0 and r.get("verify_keysum_ok") == 1 and
          not any(lines(p, w) for w in CHECK_WORDS),
          f"clean {table} {' '.join(extra)} on {n} threads: outcome ok, verify_bad_values 0, verify_keysum_ok 1 "
          f"(exit {p.returncode}: {said(p)})")
p, r = run("-t", "clht-lb", "-n", "2", "-i", "64K", "-r", "4M", "--verify", "sample", *BASE)
check(p.returncode == 0 and r.get("verify") == "sample" and r.get("verify_bad_values") == 0 and
      r.get("verify_keysum_ok") is None, "--verify sample checks values but cannot sum keys: verify_keysum_ok empty")
p, r = run("-t", "clht-lb", "-n", "2", "-i", "64K", "--verify", "off", *BASE)
check(p.returncode == 0 and r.get("verify_bad_values") is None and r.get("verify_keysum_ok") is None,
      "--verify off: both columns empty")

# ---- a table returning another key's value 1 in 10^5 (or 10^4) found gets ----
VALUE_RE = re.compile(r"chtbench: VALUE MISMATCH: (\S+), (\d+) threads, rep 0: key (\d+) read "
                      r"0x([0-9a-f]{16}) \((.*)\): (\d+) of the (\d+) keys found hold a value the run did not write")


def value_fault(table, n, every, initial, extra=(), hook="CHTBENCH_TEST_FAULT_STALE_GET"):
    p, r = run("-t", table, "-n", str(n), "-i", initial, *BASE, *extra, env={hook: str(every)})
    m = VALUE_RE.match(lines(p, "VALUE MISMATCH")[0]) if lines(p, "VALUE MISMATCH") else None
    found = r.get("verify_found", 0)
    bad = r.get("verify_bad_values")
    # the hook counts found gets; the sweep's found gets are consecutive counts, so exactly
    # floor or ceil of found/every of them are hit
    exact = bad in (found // every, -(-found // every)) and bad > 0
    check(p.returncode == 1 and r.get("outcome") == "value_mismatch" and exact and r.get("size_ok") == 1 and
          r.get("verify_ok") == 1 and r.get("verify_keysum_ok") == 1 and only(p, "VALUE MISMATCH") and
          m is not None and m.group(1) == table.split(":")[0] and int(m.group(2)) == n and
          int(m.group(6)) == bad and int(m.group(7)) == found and summary_says(p, "VALUE MISMATCH"),
          f"{hook}={every} on {table} {' '.join(extra)}, {n} threads: exit 1, outcome value_mismatch, "
          f"verify_bad_values {bad} = found/{every} of {found}, size/count/key sum fine, one VALUE MISMATCH line "
          f"(exit {p.returncode}: {said(p)})")
    return m


# run_val: bits 45..62 the key's hash, 32..44 the writer (0 prefill, t + 1), 0..31 its write sequence
def keybits(key):
    return (key * 0x9e3779b97f4a7c15 % 2 ** 64) >> 46


WRITER_RE = re.compile(r"writer (\d+) seq (\d+), key bits 0x([0-9a-f]{5}), expected 0x([0-9a-f]{5}); writer (\d+) "
                       r"used seqs 0\.\.(-?\d+); writers 0\.\.(\d+)$")
m = value_fault("clht-lb", 2, 100000, "256K")
if m:
    key, v, w = int(m.group(3)), int(m.group(4), 16), WRITER_RE.match(m.group(5))
    check(w is not None and int(w.group(1)) == (v >> 32) & 0x1fff and int(w.group(2)) == v & 0xffffffff and
          int(w.group(3), 16) == v >> 45 and (v >> 45) != keybits(key) and int(w.group(4), 16) == keybits(key) and
          w.group(5) == w.group(1) and int(w.group(7)) == 2,
          f"the line names the key, the value's writer and seq, its key bits and the key's: key {key} read "
          f"0x{v:016x} ({m.group(5)})")
# a value of the right key whose write sequence its writer never used (seq 2^32 - 1)
m = value_fault("clht-lb", 2, 10000, "64K", hook="CHTBENCH_TEST_FAULT_UNWRITTEN_GET")
if m:
    key, v, w = int(m.group(3)), int(m.group(4), 16), WRITER_RE.match(m.group(5))
    check(w is not None and v >> 45 == keybits(key) and v & 0xffffffff == 0xffffffff and
          int(w.group(6)) < 0xffffffff and w.group(3) == w.group(4),
          f"a value never written (its key's bits, a seq past its writer's last) is named with its writer's seqs "
          f"({m.group(5) if m else ''})")
for table, n, extra in spread([("cuckoo", 3, ()), ("chain", 4, ()), ("locked", 2, ()), ("chain", 2, ("--value-size", "100"))]):
    value_fault(table, n, 10000, "64K", extra)
for table, n, extra in spread([("cuckoo", 3, ()), ("chain", 2, ("--value-size", "100"))]):
    value_fault(table, n, 10000, "64K", extra, hook="CHTBENCH_TEST_FAULT_UNWRITTEN_GET")
# a torn multiword value, as cht_value_read reports it
m = value_fault("chain", 3, 10000, "64K", ("--value-size", "100"), hook="CHTBENCH_TEST_FAULT_TORN_GET")
check(m is not None and m.group(4) == "bad0bad0bad0bad0" and m.group(5).startswith("torn"),
      "a torn value is named torn, with no writer: read 0xbad0bad0bad0bad0 (torn: ...)")

# ---- an insert and a remove of different keys dropped: counts agree, the key sum does not ----
SUM_RE = re.compile(r"chtbench: KEY SUM MISMATCH: (\S+), (\d+) threads, rep 0: the keys found sum to 0x([0-9a-f]{16}), "
                    r"the prefilled \+ inserted - removed keys to 0x([0-9a-f]{16}) \(mod 2\^64; found - expected = "
                    r"(-?\d+)\)")
for table, n in spread([("clht-lb", 2), ("cuckoo", 3), ("chain", 4), ("locked", 2)]):
    p, r = run("-t", table, "-n", str(n), "-i", "64K", *BASE, env={"CHTBENCH_TEST_FAULT_DROP_PAIR": "1"})
    m = SUM_RE.match(lines(p, "KEY SUM MISMATCH")[0]) if lines(p, "KEY SUM MISMATCH") else None
    ok = m is not None and int(m.group(3), 16) != int(m.group(4), 16)
    ok = ok and int(m.group(5)) == (int(m.group(3), 16) - int(m.group(4), 16) + 2 ** 63) % 2 ** 64 - 2 ** 63
    check(p.returncode == 1 and r.get("outcome") == "keysum_mismatch" and r.get("verify_keysum_ok") == 0 and
          r.get("size_ok") == 1 and r.get("verify_ok") == 1 and r.get("verify_bad_values") == 0 and
          r.get("verify_found") == r.get("expected_size") == r.get("final_size") and ok and
          only(p, "KEY SUM MISMATCH") and summary_says(p, "KEY SUM MISMATCH"),
          f"DROP_PAIR on {table}, {n} threads: size and count agree, exit 1, outcome keysum_mismatch, "
          f"verify_keysum_ok 0, one KEY SUM MISMATCH line (exit {p.returncode}: {said(p)})")
p, r = run("-t", "clht-lb", "-n", "2", "-i", "64K", "-r", "4M", "--verify", "sample", *BASE,
           env={"CHTBENCH_TEST_FAULT_DROP_PAIR": "1"})
check(p.returncode == 0 and r.get("verify_keysum_ok") is None,
      "the same fault under --verify sample goes unseen, as documented (no key sum of a sample)")

# ---- each console line names its own check ----
p, r = run("-t", "clht-lb", "-n", "2", "-i", "64K", *BASE, env={"CHTBENCH_TEST_FAULT_DROP_INSERT": "100"})
exp, found = r.get("expected_size", 0), r.get("verify_found", 0)
check(p.returncode == 1 and r.get("outcome") == "mismatch" and r.get("size_ok") == 1 and r.get("verify_ok") == 0 and
      r.get("verify_keysum_ok") == 0 and found < exp and only(p, "VERIFY FAILED") and
      lines(p, "VERIFY FAILED")[0].startswith(f"chtbench: VERIFY FAILED: clht-lb, 2 threads, rep 0: {exp - found} of "
                                              f"{exp} keys missing (the final check, --verify full") and
      summary_says(p, "VERIFY FAILED"),
      f"lost inserts: 'VERIFY FAILED: ... {exp - found} of {exp} keys missing', no SIZE MISMATCH, no KEY SUM line "
      f"(the count said it): {said(p)}")
p, r = run("-t", "chain", "-n", "3", "-i", "64K", *BASE, env={"CHTBENCH_TEST_FAULT_DROP_REMOVE": "100"})
exp, found = r.get("expected_size", 0), r.get("verify_found", 0)
check(p.returncode == 1 and r.get("outcome") == "mismatch" and r.get("size_ok") == 1 and r.get("verify_ok") == 0 and
      found > exp and only(p, "VERIFY FAILED") and
      lines(p, "VERIFY FAILED")[0].startswith(f"chtbench: VERIFY FAILED: chain, 3 threads, rep 0: {found - exp} keys "
                                              f"too many, {exp} expected (the final check, --verify full"),
      f"removes that leave the key: 'VERIFY FAILED: ... {found - exp} keys too many, {exp} expected': {said(p)}")
p, r = run("-t", "cuckoo", "-n", "2", "-i", "64K", *BASE, env={"CHTBENCH_TEST_FAULT_SIZE_SKEW": "3"})
check(p.returncode == 1 and r.get("outcome") == "mismatch" and r.get("size_ok") == 0 and r.get("verify_ok") == 1 and
      r.get("final_size") == r.get("expected_size") + 3 and only(p, "SIZE MISMATCH") and
      summary_says(p, "SIZE MISMATCH") and "size after prefill 65539 (expected 65536)" in p.stderr,
      f"size() off by 3: SIZE MISMATCH alone (exit {p.returncode}: {said(p)})")

# ---- filters: bounded false positives, skipped ops counted apart ----
def bound(f, b):
    return 1 - (1 - 1 / (2 ** f - 1)) ** (2 * b)


for opts, n in spread([("fp_bits=8", 2), ("fp_bits=12,ways=2", 3), ("fp_bits=4,ways=8", 2)]):
    f = int(re.search(r"fp_bits=(\d+)", opts).group(1))
    b = int(re.search(r"ways=(\d+)", opts).group(1)) if "ways" in opts else 4
    p, r = run("-t", f"cuckoo-filter:{opts}", "-n", str(n), "-i", "64K", "-u", "40", "-d", "100")
    m, pb = r.get("fp_checked", 0), bound(f, b)
    limit = (m * pb + 6 * math.sqrt(m * pb * (1 - pb)) + 3) / m if m else 0
    check(p.returncode == 0 and r.get("outcome") == "ok" and math.isclose(r.get("fp_bound") or 0, pb, rel_tol=1e-5) and
          math.isclose(r.get("fp_limit") or 0, limit, rel_tol=1e-5) and 0 < r["fp_rate"] <= r["fp_limit"] and
          r.get("false_negatives") == 0 and r.get("verify_bad_values") is None and r.get("verify_keysum_ok") is None,
          f"cuckoo-filter:{opts}, {n} threads: fp_rate {r.get('fp_rate')} within bound {pb:.4g} + 6 sd "
          f"(limit {limit:.4g}), outcome ok")
    # the filter never refuses an insert at this load, and removes only keys it holds: every failed
    # insert / remove is one the harness did not send
    check(r.get("filter_skipped_ins") == r.get("ins_fail") > 0 and r.get("filter_skipped_rem") == r.get("rem_fail") > 0,
          f"  skipped ops counted apart: filter_skipped_ins {r.get('filter_skipped_ins')} == ins_fail, "
          f"filter_skipped_rem {r.get('filter_skipped_rem')} == rem_fail")
p, r = run("-t", "cuckoo-filter", "-n", "2", "-i", "64K", "-u", "20", "-d", "50",
           env={"CHTBENCH_TEST_FAULT_MISS_GET": "1000"})
fn = r.get("false_negatives", 0)
check(p.returncode == 1 and r.get("outcome") == "mismatch" and r.get("verify_ok") == 0 and r.get("size_ok") == 1 and
      fn > 0 and only(p, "VERIFY FAILED") and
      lines(p, "VERIFY FAILED")[0] == f"chtbench: VERIFY FAILED: cuckoo-filter, 2 threads, rep 0: {fn} keys present "
                                      "not found (false negatives) by the final check (--verify full)",
      f"a filter with false negatives: exit 1, mismatch, 'VERIFY FAILED: ... {fn} keys present not found': {said(p)}")
p, r = run("-t", "clht-lb", "-i", "1K", "-d", "10")
check(all(r.get(c) is None for c in ["fp_bound", "fp_limit", "filter_skipped_ins", "filter_skipped_rem"]),
      "exact tables leave the filter columns empty")
FP_RE = re.compile(r"chtbench: FP EXCESS: cuckoo-filter, 2 threads, rep 0: rate 1 > bound 0\.0001221 \+ 6 sd "
                   r"\(limit [0-9.e-]+\): (\d+) of (\d+) absent keys answered \"present\" \(f = 16 fingerprint bits, "
                   r"b = 4 slots per bucket\)")
p, r = run("-t", "cuckoo-filter", "-n", "2", "-i", "64K", "-u", "20", "-d", "50",
           env={"CHTBENCH_TEST_FAULT_FILTER_ALWAYS": "1"})
m = FP_RE.match(lines(p, "FP EXCESS")[0]) if lines(p, "FP EXCESS") else None
check(p.returncode == 1 and r.get("outcome") == "fp_excess" and r.get("fp_rate") == 1 and
      r.get("false_negatives") == 0 and r.get("verify_ok") == 1 and m is not None and
      int(m.group(1)) == int(m.group(2)) == r.get("fp_checked") and only(p, "FP EXCESS") and
      summary_says(p, "FP EXCESS"),
      f"a filter answering 'present' to everything: exit 1, outcome fp_excess, one FP EXCESS line "
      f"(exit {p.returncode}: {said(p)})")

finish()
