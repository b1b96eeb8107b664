#!/usr/bin/env python3
"""test_byte_keys.py - byte-string keys (--key-type; docs/workloads.md "Byte-string keys").

    test_byte_keys.py CHTBENCH KEYS_DUMP

The arena's keys (tests/keys_dump.c prints them): YCSB's exact strings, computed here from YCSB's
Utils.fnvhash64 independently of the C code; every format's keys distinct and deterministic; the
bytes:MIN..MAX lengths; words' alphabet and lengths. The driver: a table without byte keys refused
(one line naming --key-type and the table, exit 2, no results file), the other refusals, the
key_type column, a byte-key run's final check exact, and the key sum catching a lost key.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

BIN, DUMP = sys.argv[1], sys.argv[2]
failures = checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def dump(kt, n, first=None, last=None):
    args = [DUMP, kt, str(n)] + ([str(first), str(last)] if first else [])
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    keys, retries = {}, None
    for line in p.stdout.splitlines():
        f = line.split()
        if f[0] == "retries":
            retries = int(f[1])
        else:
            keys[int(f[0])] = bytes.fromhex(f[2]) if len(f) > 2 else b""
            assert len(keys[int(f[0])]) == int(f[1])
    return p.returncode, keys, retries


def fnvhash64(val):
    """YCSB Utils.fnvhash64: FNV-1 over the 8 bytes of a long, low byte first, then Math.abs."""
    h = 0xCBF29CE484222325
    for _ in range(8):
        h ^= val & 0xFF
        val >>= 8
        h = (h * 1099511628211) % 2 ** 64
    s = h - 2 ** 64 if h >= 2 ** 63 else h
    return s if s == -2 ** 63 else abs(s)   # Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE


def run(*args, env=None, timeout=300):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=e)


def records(p):
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


# ---- ycsb: "user" + fnvhash64(k - 1) in decimal, exactly ----
rc, keys, retries = dump("ycsb", 5000)
want = {k: ("user%d" % fnvhash64(k - 1)).encode() for k in range(1, 5001)}
bad = [k for k in want if keys.get(k) != want[k]]
check(rc == 0 and not bad and retries == 0 and keys[1] == b"user6284781860667377211",
      f"ycsb: keys 1..5000 are 'user' + YCSB's fnvhash64(k - 1) (key 1: {keys.get(1)}; {len(bad)} differ, "
      f"retries {retries})")
rc, tail, _ = dump("ycsb", 5000, 4990, 5000)
check(all(tail[k] == want[k] for k in range(4990, 5001)), "ycsb: keys FIRST..LAST of the arena are the same keys")
check(fnvhash64(0) == 6284781860667377211 and len(want[1]) == 23, "ycsb: the first YCSB key is 23 bytes, as YCSB's")

# ---- distinct and deterministic ----
for kt, n in (("words", 30000), ("bytes:1..40", 30000), ("bytes:16", 30000), ("bytes:8..32", 30000)):
    rc, a, ra = dump(kt, n)
    rc2, b, _ = dump(kt, n)
    check(rc == 0 and rc2 == 0 and len(a) == n and len(set(a.values())) == n and a == b,
          f"{kt}: {n} keys, all distinct, the same twice ({len(set(a.values()))} distinct, retries {ra})")
    if kt == "bytes:16":
        check(ra == 0 and all(len(v) == 16 for v in a.values()), "bytes:16: every key 16 bytes, no retry (a bijection)")
    if kt == "words":
        words = a
        ok = all(3 <= len(w) <= 32 and all(c in b"abcdefghijklmnopqrstuvwxyz-" for c in w) for w in a.values())
        plain = [w for w in a.values() if b"-" not in w]
        check(ok and len(plain) > 0.99 * n and max(len(w) for w in plain) <= 12 and min(len(w) for w in plain) >= 3,
              f"words: lower-case letters, 3..12 letters (a '-' suffix only on a retry: {n - len(plain)} of {n})")
        vowels = sum(w.count(c) for w in plain for c in b"aeiouy") / sum(len(w) for w in plain)
        check(0.3 < vowels < 0.55, f"words: pronounceable, vowels {vowels:.2f} of the letters")
    if kt == "bytes:8..32":
        lens = [len(v) for v in a.values()]
        mean = sum(lens) / n
        per = {l: lens.count(l) for l in range(8, 33)}
        check(min(lens) == 8 and max(lens) == 32 and abs(mean - 20) < 0.3 and min(per.values()) > 0.6 * n / 25,
              f"bytes:8..32: lengths exactly 8..32, mean {mean:.3f} within 0.3 of 20, every length present "
              f"(fewest {min(per.values())})")
rc, a, ra = dump("bytes:2", 65536)
check(rc == 0 and len(set(a.values())) == 65536 and ra == 0, "bytes:2: 65536 keys are all 65536 2-byte strings")
rc, small, _ = dump("words", 1000)
check(all(small[k] == words[k] for k in range(1, 1001) if b"-" not in words[k]),
      "words: a key does not depend on the arena's size (unless a retry)")

# ---- refusals: one line naming --key-type, exit 2, nothing written ----
tmp = tempfile.mkdtemp(prefix="chtbench-keys-")
out = os.path.join(tmp, "refused.csv")
for args, says in ((["-t", "clht-lb", "--key-type", "ycsb"], "table clht-lb takes integer keys only"),
                   (["-t", "locked", "--key-type", "words"], "locked:impl=own takes integer keys only"),
                   (["-t", "clht-str", "--key-type", "bytes:1", "-r", "1000"], "fewer than the 1000"),
                   (["-t", "clht-str", "--key-type", "ycsb", "--workload", "ycsb-d"], "ycsb-d"),
                   (["-t", "clht-str", "--key-type", "words", "--keys", "sparse"], "--keys sparse"),
                   (["-t", "clht-str", "--key-type", "words", "--trace", "/dev/null"], "--trace"),
                   (["-t", "clht-str", "--key-type", "bytes:0"], "expected bytes:LEN"),
                   (["-t", "clht-str", "--key-type", "bytes:9..3"], "expected bytes:LEN"),
                   (["-t", "clht-str", "--key-type", "string"], "expected u64, bytes:LEN")):
    p = run(*args, "-i", "1000", *([] if "--trace" in args else ["-d", "10"]), "--csv", out)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "--key-type" in lines[0] and says in lines[0] and
          not os.path.exists(out), f"{' '.join(args)}: exit 2, one line ({p.stderr.strip()})")

# ---- the column, and a run's final check exact ----
csvf = os.path.join(tmp, "runs.csv")
for kt in ("u64", "words"):
    p = run("-t", "clht-str", "-i", "2000", "--ops", "2000", "-u", "50", "-n", "2", "--key-type", kt, "--csv", csvf)
    check(p.returncode == 0, f"clht-str --key-type {kt}: runs ({p.stderr.strip()[-200:]})")
rows = list(csv.DictReader(open(csvf))) if os.path.exists(csvf) else []
check([r.get("key_type") for r in rows] == ["u64", "words"], f"column key_type: {[r.get('key_type') for r in rows]}")
for table, kt in (("clht-str", "ycsb"), ("clht-str", "bytes:8..64"), ("clht-str", "words"),
                  ("locked:impl=std", "ycsb"), ("chain", "words")):
    p = run("-t", table, "-i", "20000", "--ops", "20000", "-u", "50", "-n", "2", "--key-type", kt, "--json")
    r = (records(p) or [{}])[0]
    check(p.returncode == 0 and r.get("key_type") == kt and r.get("outcome") == "ok" and r.get("size_ok") == 1 and
          r.get("verify_ok") == 1 and r.get("verify_keysum_ok") == 1 and r.get("verify_bad_values") == 0 and
          r.get("verify_found") == r.get("final_size") == r.get("expected_size") and r.get("ins_suc", 0) > 0 and
          r.get("rem_suc", 0) > 0,
          f"{table} {kt}: the final check exact (found {r.get('verify_found')} = size {r.get('final_size')} = expected "
          f"{r.get('expected_size')}, key sum ok {r.get('verify_keysum_ok')}, bad values {r.get('verify_bad_values')})")
    if kt == "ycsb":
        check(r.get("bytes_per_key", 0) > 23, f"ycsb: bytes per key count the out-of-line keys "
                                             f"({r.get('bytes_per_key')} > 23)")
p = run("-t", "clht-str", "-i", "20000", "-d", "50", "-u", "20", "-n", "2", "--key-type", "ycsb", "--json",
        env={"CHTBENCH_TEST_FAULT_DROP_PAIR": "1"})
r = (records(p) or [{}])[0]
check(p.returncode == 1 and r.get("outcome") == "keysum_mismatch" and r.get("verify_keysum_ok") == 0 and
      r.get("size_ok") == 1, f"a key lost and another kept (DROP_PAIR) under byte keys: the key sum catches it "
                             f"(exit {p.returncode}, outcome {r.get('outcome')})")

# ---- chtbench check with byte keys ----
p = run("check", "-t", "clht-str", "--key-type", "words", "--seconds", "0.2", "--checks", "model,stress,values")
check(p.returncode == 0 and "check: 3 passed, 0 failed" in p.stdout and p.stdout.count("keys=words") == 3,
      f"chtbench check --key-type words: clht-str passes model, stress, values with byte keys ({p.stdout.strip()[-60:]})")
p = run("check", "-t", "cuckoo", "--key-type", "ycsb")
check(p.returncode == 2 and "table cuckoo takes integer keys only" in p.stderr,
      f"chtbench check --key-type on an integer-only table: exit 2 ({p.stderr.strip()})")

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
