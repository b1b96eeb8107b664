#!/usr/bin/env python3
"""test_workloads.py - the workloads of HotRing's evaluation (seed 001) as a
user runs them: the hotspot shift is on time, YCSB mixes give their op
fractions, traces replay exactly and malformed ones are refused.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
# the table CSV's schema version, as this chtbench declares it (`chtbench --schema`)
SCHEMA = str(json.loads(subprocess.run([BIN, "--schema"], capture_output=True, text=True).stdout)["table"]["version"])
failures = checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def run(*args, timeout=300):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def records(p):
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


tmp = tempfile.mkdtemp(prefix="chtbench-workloads-")

# ---- hotspot with shift: the hot set moves every MS, seen within one timeline interval ----
tl = os.path.join(tmp, "shift.csv")
p = run("-t", "clht-lb", "-i", "64K", "-d", "400", "--dist", "hotspot:keys=10,ops=90,shift=50", "--timeline", "10",
        "--timeline-csv", tl, "--json")
rows = list(csv.DictReader(open(tl))) if os.path.exists(tl) else []
hot_n = round(0.10 * 131072)
shifts = [int(r["hot_base"]) // hot_n for r in rows]   # base = shifts * hot_n (no wrap within 8 shifts of 10%)
lag = [s - int(float(r["t_ms"]) // 50) for s, r in zip(shifts, rows)]
check(p.returncode == 0 and len(rows) >= 30 and shifts == sorted(shifts) and all(abs(x) <= 1 for x in lag) and
      7 <= shifts[-1] <= 9, f"hotspot shift=50: the hot set moved {shifts[-1] if shifts else 0} times in 400 ms, "
      f"each within one 10 ms interval of its time (lags {sorted(set(lag))})")
r = records(p)
check(len(r) == 1 and r[0]["dist"] == "hotspot:keys=10,ops=90,shift=50" and r[0]["verify_ok"] == 1,
      "the row names the hotspot spec; the run passes its final check")

# ---- YCSB core mixes: op fractions within 1%, every key loaded, D inserts new keys ----
MIX = {"a": {"get": .50, "upd": .50}, "b": {"get": .95, "upd": .05}, "c": {"get": 1.0},
       "d": {"get": .95, "ins": .05}, "f": {"get": .50, "upd": .50}}
for w, mix in MIX.items():
    p = run("-t", "clht-lb", "-n", "2", "-i", "64K", "--ops", "200000", "--workload", f"ycsb-{w}", "--json")
    r = records(p)
    if p.returncode != 0 or len(r) != 1:
        check(False, f"ycsb-{w}: ran (exit {p.returncode}: {p.stderr.strip()[-200:]})")
        continue
    r = r[0]
    t = r["total_ops"]
    got = {"get": (r["get_suc"] + r["get_fail"]) / t, "upd": (r["upd_suc"] + r["upd_fail"]) / t,
           "ins": (r["ins_suc"] + r["ins_fail"]) / t, "rem": (r["rem_suc"] + r["rem_fail"]) / t}
    ok = all(abs(got[k] - mix.get(k, 0)) <= 0.01 * max(mix.get(k, 0), 0.05) for k in got)
    check(ok and t == 400000 and r["workload"] == f"ycsb-{w}" and
          r["dist"] == ("zipf:0.99" if w == "d" else "zipf:0.99,scramble") and
          r["range"] == 65536 and r["upd_fail"] == 0 and r["verify_ok"] == 1 and
          r["get_fail"] == 0,
          f"ycsb-{w}: op fractions {{{', '.join(f'{k} {v:.4f}' for k, v in got.items() if v)}}} within 1% of the mix, "
          f"every read and update finds its key, final check ok")
    if w == "d":
        check(r["ins_suc"] == r["ins_fail"] + r["ins_suc"] and r["final_size"] == 65536 + r["ins_suc"] +
              r["warmup_ins_suc"] and r["verified_keys"] >= r["final_size"],
              "ycsb-d: every insert is a new key above the range; the final check sweeps them too")
# drawn in the loop (--keybuf 0), a workload's ops are the ones its buffer would hold: the same counts, op for op
COUNTS = ["get_suc", "get_fail", "ins_suc", "ins_fail", "upd_suc", "upd_fail", "final_size", "verify_found"]
for w in ("a", "d"):
    res = [records(run("-t", "clht-lb", "-i", "1K", "--ops", "20000", "--seed", "7", "--workload", f"ycsb-{w}",
                       "--keybuf", kb, "--json")) for kb in ("0", "32K")]
    same = all(len(x) == 1 for x in res) and all(res[0][0][k] == res[1][0][k] for k in COUNTS)
    other = "upd_suc" if w == "a" else "ins_suc"
    check(same and res[0][0][other] > 0 and res[0][0]["keybuf"] == 0,
          f"ycsb-{w} --keybuf 0: the buffered run's exact counts "
          f"({', '.join(f'{k} {res[0][0][k]}' for k in COUNTS[:6]) if same else 'differ'})")
p = run("-t", "clht-lb", "-i", "1K", "--ops", "1000", "--workload", "ycsb-d", "--dist", "zipf:0.99,scramble",
        "--csv", os.path.join(tmp, "d-scramble.csv"))
check(p.returncode == 2 and "--dist" in p.stderr and "ycsb-d" in p.stderr and len(p.stderr.strip().splitlines()) == 1
      and not os.path.exists(os.path.join(tmp, "d-scramble.csv")),
      "ycsb-d with a scrambled Zipf (its draw is a recency rank): exit 2, one line, no file")
p = run("-t", "clht-lb", "--workload", "ycsb-a", "-u", "10")
check(p.returncode == 2 and "--update" in p.stderr and "--workload" in p.stderr, "--workload with -u: exit 2")
p = run("-t", "null", "--workload", "ycsb-a")
check(p.returncode == 2 and "update()" in p.stderr, "ycsb-a on a table without update(): exit 2 naming update()")
p = run("-t", "null", "-i", "1K", "-d", "10", "--workload", "ycsb-c")
check(p.returncode == 0, "ycsb-c (reads only) runs on a table without update()")
p = run("-t", "clht-lb", "--workload", "ycsb-z")
check(p.returncode == 2 and "--workload" in p.stderr, "--workload ycsb-z: exit 2")

# ---- traces: replayed exactly, both formats, round trip, malformed ones refused with the line ----
import random  # noqa: E402
rng = random.Random(5)
ops = [(rng.choices(["get", "insert", "remove", "update"], [60, 20, 10, 10])[0], rng.randint(1, 3000))
       for _ in range(20000)]
txt, binf, back = (os.path.join(tmp, n) for n in ("t.txt", "t.bin", "back.txt"))
with open(txt, "w") as f:
    f.write("# a comment, then a blank line\n\n")
    f.writelines(f"{o} {k}\n" for o, k in ops)
conv = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "trace-convert")
c1 = subprocess.run([sys.executable, conv, txt, binf, "--to", "binary"], capture_output=True, text=True)
c2 = subprocess.run([sys.executable, conv, binf, back, "--to", "text"], capture_output=True, text=True)
check(c1.returncode == 0 and c2.returncode == 0 and
      open(back).read() == "".join(f"{o} {k}\n" for o, k in ops) and os.path.getsize(binf) == 24 + 8 * len(ops),
      "trace-convert: text -> binary -> text round-trips exactly")
want = {o: sum(1 for x, _ in ops if x == o) for o in ("get", "insert", "remove", "update")}
res = []
for f in (txt, binf):
    p = run("-t", "clht-lb", "-n", "1", "-i", "1K", "--trace", f, "--json")
    r = records(p)
    res.append(r[0] if r else {})
r = res[0]
check(r and r["total_ops"] == len(ops) and r["get_suc"] + r["get_fail"] == want["get"] and
      r["ins_suc"] + r["ins_fail"] == want["insert"] and r["rem_suc"] + r["rem_fail"] == want["remove"] and
      r["upd_suc"] + r["upd_fail"] == want["update"] and r["verify_ok"] == 1 and r["workload"] == "trace" and
      r["range"] == 3000 and r["warmup_ops"] == 0,
      "a trace replays exactly: every op once, by kind; the run ends when it is consumed")
keys = ("get_suc", "get_fail", "ins_suc", "rem_suc", "upd_suc", "final_size")
check(res[1] and all(res[0][k] == res[1][k] for k in keys), "text and binary traces replay identically (1 thread)")
p = run("-t", "clht-lb", "-n", "2", "-i", "1K", "--trace", txt, "--json")
r = records(p)
check(p.returncode == 0 and r and r[0]["total_ops"] == len(ops) and r[0]["verify_ok"] == 1,
      "2 threads take their shares of the trace: all ops done once")
BAD = [("get 5\nfoo 7\n", "line 2"), ("get 5\ninsert\n", "line 2"), ("get 0\n", "line 1"),
       ("get 5\nget 2305843009213693953\n", "line 2"), ("# only a comment\n", "no operation"),
       ("get -3\n", "line 1"), ("get 5 6\n", "line 1")]
for i, (content, what) in enumerate(BAD):
    f = os.path.join(tmp, f"bad{i}.txt")
    with open(f, "w") as fh:
        fh.write(content)
    p = run("-t", "clht-lb", "--trace", f, "--csv", os.path.join(tmp, "bad.csv"))
    check(p.returncode == 2 and "--trace" in p.stderr and what in p.stderr and len(p.stderr.strip().splitlines()) == 1
          and not os.path.exists(os.path.join(tmp, "bad.csv")),
          f"malformed trace {content.strip()[:30]!r}: exit 2 naming {what!r}")
trunc = os.path.join(tmp, "trunc.bin")
with open(trunc, "wb") as fh:
    fh.write(open(binf, "rb").read()[:100])
p = run("-t", "clht-lb", "--trace", trunc)
check(p.returncode == 2 and "truncated" in p.stderr, "a truncated binary trace: exit 2")
p = run("-t", "clht-lb", "--trace", txt, "--ops", "10")
check(p.returncode == 2 and "--ops" in p.stderr and "--trace" in p.stderr, "--trace with --ops: exit 2")
p = run("-t", "null", "--trace", txt)
check(p.returncode == 2 and "update()" in p.stderr, "a trace with updates on a table without update(): exit 2")

# ---- --value-size: large values out of line, refused by tables that cannot store them ----
bad_csv = os.path.join(tmp, "vs-bad.csv")
for args, what in [(["-t", "clht-lb"], "clht-lb"), (["-t", "hotring", "-t", "dense"], "dense"),
                   (["-t", "hotring:update=inplace"], "update=inplace"), (["-t", "locked:impl=std"], "impl=std")]:
    p = run(*args, "--value-size", "100", "-i", "1K", "-d", "10", "--csv", bad_csv)
    check(p.returncode == 2 and "--value-size" in p.stderr and what in p.stderr and
          len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(bad_csv),
          f"--value-size 100 with {' '.join(args)}: exit 2, one line naming --value-size and {what}, no results file "
          f"(got {p.returncode}: {p.stderr.strip()[:120]})")
for v in ("7", "0", "2M", "abc", "-8"):
    p = run("-t", "hotring", "--value-size", v, "-i", "1K", "-d", "10", "--csv", bad_csv)
    check(p.returncode == 2 and "--value-size" in p.stderr and "8..1048576" in p.stderr and
          len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(bad_csv), f"--value-size {v}: exit 2")
p = run("--bench", "mutex", "--lock", "tas", "--value-size", "64", "-d", "10")
check(p.returncode == 2 and "--value-size" in p.stderr, "--value-size with --bench mutex: exit 2")
vs_csv = os.path.join(tmp, "vs.csv")
bpk = {}
for tb in ("hotring", "chain", "locked"):
    for v in ("8", "1024"):
        args = ["-t", tb, "-n", "2", "-i", "16K", "--ops", "20000", "--workload", "ycsb-a", "--csv", vs_csv]
        p = run(*args, *(["--value-size", v] if v != "8" else []))
        rows = [r for r in csv.DictReader(open(vs_csv))] if os.path.exists(vs_csv) else []
        r = rows[-1] if rows else {}
        check(p.returncode == 0 and r.get("schema") == SCHEMA and r.get("value_size") == v and r.get("table") == tb and
              r.get("verify_ok") == "1" and int(r.get("upd_suc") or 0) > 10000 and r.get("upd_fail") == "0",
              f"{tb} --value-size {v} (YCSB-A): the row records value_size {v}, every update finds its key, check ok")
        bpk[tb, v] = float(r.get("bytes_per_key") or 0)
    check(bpk[tb, "1024"] - bpk[tb, "8"] >= 1016, f"{tb}: the table's bytes per key grow by the value's 1016 extra bytes "
          f"at least ({bpk[tb, '8']:.0f} -> {bpk[tb, '1024']:.0f}): the memory check sees the values")

# ---- --keys sparse: every key mapped off the clock; the run's counts and checks are exact ----
# r = i and u = 0: every key drawn is present, so every get must find it - a loop reading
# unmapped keys (or a prefill that mapped differently) would miss them all
sp_csv = os.path.join(tmp, "sparse.csv")
for tb in ("clht-lb", "clht-lf", "cuckoo", "dense", "hopscotch", "chain", "chain-bounded", "hotring", "locked",
           "noop"):
    for dist in ("uniform", "zipf:0.99,scramble"):
        p = run("-t", tb, "-n", "2", "-i", "4K", "-r", "4K", "-u", "0", "--ops", "20000", "--keys", "sparse",
                "--dist", dist, "--json")
        r = records(p)
        r = r[0] if len(r) == 1 else {}
        want = 0 if tb == "noop" else 40000
        check(p.returncode == 0 and r.get("keys") == "sparse" and r.get("get_suc") == want and
              r.get("get_fail") == 40000 - want and r.get("keybuf", 0) >= 20000 and
              (tb == "noop" or r.get("verify_ok") == 1),
              f"{tb} --keys sparse --dist {dist}, r = i, u = 0: {want} of 40000 gets hit (got "
              f"{r.get('get_suc')}/{r.get('get_fail')}, exit {p.returncode}{' ' + p.stderr.strip()[-120:] if p.returncode else ''})")
# with updates, more threads than cores and a tiny range: the final check (size and a full get of every
# mapped key of [1, r]) still balances
for tb in ("clht-lb", "cuckoo", "hopscotch", "chain"):
    p = run("-t", tb, "-n", "6", "-i", "64", "-u", "50", "-d", "150", "--keys", "sparse", "--csv", sp_csv, "--json")
    rows = list(csv.DictReader(open(sp_csv))) if os.path.exists(sp_csv) else []
    r = rows[-1] if rows else {}
    # verify_found and warmup_ins_suc are in the --json record only (schema 8: docs/csv.md)
    j = ([json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")] or [{}])[-1]
    check(p.returncode == 0 and r.get("table") == tb and r.get("keys") == "sparse" and r.get("size_ok") == "1" and
          r.get("verify_ok") == "1" and str(j.get("verify_found")) == r.get("final_size") and
          int(r.get("ins_suc") or 0) > 100 and (j.get("warmup_ins_suc") or 0) > 0,
          f"{tb} --keys sparse, 6 threads, i=64, u=50: size and final check exact after warm-up and run "
          f"(found {j.get('verify_found')} of {r.get('final_size')})")
# YCSB C reads every loaded key through the buffer: all hits
p = run("-t", "clht-lb", "-i", "8K", "--ops", "20000", "--workload", "ycsb-c", "--keys", "sparse", "--json")
r = records(p)
check(p.returncode == 0 and len(r) == 1 and r[0]["get_suc"] == 20000 and r[0]["keys"] == "sparse",
      "ycsb-c --keys sparse: all 20000 reads hit")
# the same seed gives the same hits with either layout when both come from the key buffer (zipf)
hits = {}
for layout in ("dense", "sparse"):
    p = run("-t", "clht-lb", "-i", "4K", "-u", "0", "--ops", "30000", "--dist", "zipf:0.9", "--keys", layout,
            "--json")
    r = records(p)
    hits[layout] = r[0]["get_suc"] if p.returncode == 0 and len(r) == 1 else -1
check(hits["dense"] > 0 and hits["dense"] == hits["sparse"],
      f"zipf:0.9, same seed: dense and sparse keys give the same {hits['dense']} hits (a bijection of the same "
      f"stream; got {hits['sparse']})")
# refused: one line naming the flag, exit 2, nothing written
bad_csv = os.path.join(tmp, "keys-bad.csv")
open(os.path.join(tmp, "t.trace"), "w").write("get 1\n")
for args, flag in [(["-t", "clht-lb", "--keys", "random"], "--keys"),
                   (["-t", "clht-lb", "--keys", "sparse", "--dist", "hotspot:keys=10,ops=90"], "--keys"),
                   (["-t", "clht-lb", "--keys", "sparse", "--keybuf", "0"], "--keybuf"),
                   (["-t", "clht-lb", "--keys", "sparse", "--workload", "ycsb-d"], "--keys"),
                   (["-t", "cuckoo-filter", "--keys", "sparse"], "--keys"),
                   (["-t", "clht-lb", "--keys", "sparse", "-r", "2^62"], "--keys"),
                   (["--bench", "occupancy", "-t", "dense", "--keys", "sparse"], "--keys")]:
    p = run(*args, "--csv", bad_csv, *([] if "--bench" in args else ["-d", "10"]))
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and flag in p.stderr and
          not os.path.exists(bad_csv), f"{' '.join(args)}: exit 2, one line naming {flag}, no file (got "
          f"{p.returncode}: {p.stderr.strip()[:100]})")
p = run("-t", "clht-lb", "--keys", "sparse", "--trace", os.path.join(tmp, "t.trace"), "--csv", bad_csv)
check(p.returncode == 2 and "--keys" in p.stderr and not os.path.exists(bad_csv), "--keys sparse --trace: exit 2")

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
