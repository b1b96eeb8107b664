#!/usr/bin/python3
"""scripts/perfcheck (docs/perfcheck.md): the decision rule on synthetic data (false-alarm
and detection rates), usage errors, build failures, stored baselines, and short A/A and
injected-regression runs of the smoke suite against a build of its own configured with
-Dinject_get_delay=4 (clht-lb's get does 4 extra rounds of a dependent multiply-add; the
test hook CHTBENCH_TEST_INJECT_GET_DELAY overrides the rounds at run time).

usage: test_perfcheck.py CHTBENCH SOURCE_ROOT INJECT_BUILD_DIR
       test_perfcheck.py --usage CHTBENCH SOURCE_ROOT   (seconds: statistics and usage errors only,
                                                         nothing built or run)
Exit 77 (skipped) when CHTBENCH is a sanitizer build (the perf gate needs release builds;
the release configuration of the suite runs it) or Debian's scipy is missing.
"""

import csv
import json
import re
import os
import subprocess
import sys
import tempfile
import time

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def usage_only(chtbench, src):
    """The checks that build and run nothing (meson test perfcheck-usage)."""
    sys.path.insert(0, os.path.join(src, "scripts"))
    try:
        from chtb import perfcheck as pcmod
        from chtb import stats
    except ImportError as e:
        print(f"skip: {e} (needs Debian's python3-scipy, python3-numpy)")
        return 77
    perfcheck = os.path.join(src, "scripts", "perfcheck")
    # the minimum --reps: Mann-Whitney two-sided, no ties: the smallest p is 2/C(2n, n)
    check(abs(stats.min_p(3) - 0.1) < 1e-12 and abs(stats.min_p(4) - 2 / 70) < 1e-12,
          f"smallest two-sided p: n=3 {stats.min_p(3):.4f} (2/20), n=4 {stats.min_p(4):.4f} (2/70)")
    check(stats.min_reps(0.05) == 4 and stats.min_reps(0.1) == 4 and stats.min_reps(0.01) == 5
          and stats.min_reps(0.001) == 7, "minimum reps: alpha 0.05 -> 4, 0.1 -> 4 (p < alpha), 0.01 -> 5, 0.001 -> 7")

    def pc(*args):
        r = subprocess.run([perfcheck] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return r.returncode, r.stdout, r.stderr

    for args, want in (
            (["--base-bin", chtbench, "--head-bin", chtbench, "--reps", "3"],
             "perfcheck: --reps: 3 repetitions cannot reach --alpha 0.05 (the smallest two-sided Mann-Whitney p "
             "with 3 samples per side is 0.1); use --reps 4 or more"),
            (["--base-bin", chtbench, "--head-bin", chtbench, "--reps", "4", "--alpha", "0.01"],
             "perfcheck: --reps: 4 repetitions cannot reach --alpha 0.01 (the smallest two-sided Mann-Whitney p "
             "with 4 samples per side is 0.0286); use --reps 5 or more"),
            (["--record", os.path.join(tempfile.gettempdir(), "x.csv"), "--head-bin", chtbench, "--reps", "3"],
             "perfcheck: --reps: 3 repetitions cannot reach --alpha 0.05")):
        t0 = time.time()
        rc, out, err = pc(*args)
        check(rc == 2 and err.count("\n") == 1 and err.startswith(want) and out == "" and time.time() - t0 < 20,
              f"{' '.join(a for a in args if a != chtbench)}: exit {rc}, {err.strip()}")
    with tempfile.TemporaryDirectory(prefix="test-perfcheck-u-") as tmp:
        binf = os.path.join(tmp, "bin.csv")
        with open(binf, "wb") as f:
            f.write(bytes(range(256)) * 8)
        rc, out, err = pc("--against", binf, "--head-bin", chtbench)
        check(rc == 2 and err == f"perfcheck: --against: {binf} is not a perfcheck baseline (not a CSV text file)\n",
              f"--against a binary file: exit {rc}, one line ({err.strip()})")
        rc, out, err = pc("--config", binf, "--base-bin", chtbench, "--head-bin", chtbench)
        check(rc == 2 and err.count("\n") == 1 and "not a TOML file" in err and "Traceback" not in err,
              f"--config a binary file: exit {rc} ({err.strip()})")
        # a stored baseline with 3 samples per cell cannot be compared at alpha 0.05
        few = os.path.join(tmp, "few.csv")
        ident = pcmod.host_identity()
        with open(few, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(pcmod.BASELINE_COLS)
            for cell in ("clht-lb t1 i1K uniform", "locked t1 i1K uniform"):
                for i in range(3):
                    w.writerow([ident["host"], ident["cpu_model"], "abc", "smoke", cell, "throughput", i, "1.0"])
        rc, out, err = pc("--against", few, "--head-bin", chtbench, "--suite", "smoke")
        check(rc == 2 and err == f"perfcheck: --against: {few} holds 3 samples per cell; a comparison at --alpha "
              "0.05 needs 4 (record it with --reps 4 or more)\n", f"--against 3 stored samples: exit {rc} ({err.strip()})")
    # the tally's committed summary: PREFIX.md (the table) and PREFIX.json (per report)
    with tempfile.TemporaryDirectory(prefix="test-perfcheck-t-") as tmp:
        def cell(name, verdict, ratio):
            first = {"ratio": ratio, "p": 0.5, "ci_lo": ratio - 0.1, "ci_hi": ratio + 0.1, "verdict": verdict}
            return {"id": f"{name} t1 i1K uniform", "name": name, "verdict": verdict, "first": first,
                    "instr": {"delta_pct": {"instr_per_op": 0.01}}}
        for i, (counts, code, cells, wall) in enumerate(
                (({"noisy": 1, "ok": 1}, 0, [cell("clht-lb", "noisy", 0.9), cell("locked", "ok", 1.0)], 10.2),
                 ({"REGRESSION": 1, "ok": 1}, 1, [cell("clht-lb", "REGRESSION", 1.0), cell("locked", "ok", 1.0)], 19.7))):
            with open(os.path.join(tmp, f"aa-{i + 1}.json"), "w") as f:
                json.dump({"host": {"host": "h"}, "base": {"git": "a"}, "head": {"git": "a"}, "counts": counts,
                           "args": {"suite": "smoke", "instr_threshold": 2.0}, "exit_code": code, "elapsed_s": wall,
                           "summary": "s", "cells": cells}, f)
        prefix = os.path.join(tmp, "tally")
        r = subprocess.run([sys.executable, "-m", "chtb.perfcheck_tally", "--out", prefix,
                            "A/A:" + os.path.join(tmp, "aa-*.json")], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.join(src, "scripts")))
        row = "| A/A | 2 (smoke) | 1 | 0 | 0 | 1/1/0 | 1 REGRESSION, 1 noisy, 2 ok | 0.950 | 10-20 s |"
        md = open(prefix + ".md").read() if os.path.exists(prefix + ".md") else ""
        js = json.load(open(prefix + ".json")) if os.path.exists(prefix + ".json") else {"groups": {}}
        recs = js["groups"].get("A/A", [])
        check(r.returncode == 0 and row in r.stdout and row in md and [x["file"] for x in recs] == ["aa-1.json", "aa-2.json"]
              and [c["verdict"] for c in recs[1]["cells"]] == ["REGRESSION", "ok"] and recs[0]["cells"][0]["ratio"] == 0.9,
              f"perfcheck_tally --out: the table row and a per-report JSON summary ({r.stderr.strip() or row})")
    # a re-run against reused base samples never confirms
    r, i = {"verdict": stats.REGRESSED}, {"verdict": stats.IMPROVED}
    check(pcmod.final_verdict(r, r, fresh_base=False) == "unconfirmed"
          and pcmod.final_verdict(i, i, fresh_base=False) == "unconfirmed"
          and pcmod.final_verdict(r, r) == "REGRESSION" and pcmod.final_verdict(i, i) == "improved",
          "stored-baseline mode: a flagged cell is 'unconfirmed', never REGRESSION/improved from reused samples")
    print(f"test_perfcheck --usage: {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


def main():
    if sys.argv[1] == "--usage":
        return usage_only(*sys.argv[2:4])
    chtbench, src, inject_dir = sys.argv[1:4]
    ver = subprocess.run([chtbench, "--version"], stdout=subprocess.PIPE, text=True).stdout
    if "sanitizer: none" not in ver:
        print("skip: chtbench is a sanitizer build; perfcheck runs in the release configuration")
        return 77
    try:
        import numpy as np
        sys.path.insert(0, os.path.join(src, "scripts"))
        from chtb import stats
    except ImportError as e:
        print(f"skip: {e} (needs Debian's python3-scipy, python3-numpy)")
        return 77
    t_all = time.time()
    perfcheck = os.path.join(src, "scripts", "perfcheck")

    # ---- 1. the decision rule on synthetic samples (deterministic seeds)
    rng = np.random.default_rng(12345)
    trials = 300

    def verdicts(shift, cv, confirm):
        out = {}
        for _ in range(trials):
            def once():
                b = 10.0 * np.exp(rng.normal(0, cv, 9))
                h = 10.0 * shift * np.exp(rng.normal(0, cv, 9))
                return stats.compare(b, h, 0.05, 0.05, resamples=400)["verdict"]
            v = once()
            if confirm and v in (stats.REGRESSED, stats.IMPROVED):
                v2 = once()
                v = v if v2 == v else "unconfirmed"
            out[v] = out.get(v, 0) + 1
        return out

    aa = verdicts(1.0, 0.03, True)
    check(aa.get(stats.REGRESSED, 0) == 0 and aa.get(stats.IMPROVED, 0) == 0,
          f"synthetic A/A, CV 3%, {trials} trials with confirmation: no regression/improvement verdict ({aa})")
    aa_wide = verdicts(1.0, 0.20, True)
    check(aa_wide.get(stats.REGRESSED, 0) == 0 and aa_wide.get(stats.NOISY, 0) > trials * 0.9,
          f"synthetic A/A, CV 20%: no regression, >90% noisy ({aa_wide})")
    det = verdicts(0.90, 0.03, True)
    check(det.get(stats.REGRESSED, 0) >= trials * 0.9,
          f"synthetic 10% slowdown, CV 3%: detected (confirmed) in >= 90% ({det})")
    small = verdicts(0.97, 0.03, True)
    check(small.get(stats.IMPROVED, 0) == 0 and small.get(stats.REGRESSED, 0) <= trials * 0.05,
          f"synthetic 3% slowdown (below the 5% effect size): never improved, rarely regressed ({small})")
    imp = verdicts(1.15, 0.03, False)
    check(imp.get(stats.IMPROVED, 0) >= trials * 0.9, f"synthetic 15% speed-up: improvement? ({imp})")
    lo, hi = stats.bootstrap_ratio_ci([10.0] * 4 + [10.2] * 5, [9.0] * 4 + [9.18] * 5)
    check(lo <= 0.9 <= hi + 1e-9 and hi - lo < 0.05, f"bootstrap CI of an exact 0.9 ratio: [{lo:.4f}, {hi:.4f}]")
    check(stats.mwu_p([5.0] * 9, [5.0] * 9) == 1.0, "Mann-Whitney p of identical constant samples is 1")
    p = stats.mwu_p(list(range(9)), list(range(100, 109)))
    check(p < 0.001, f"Mann-Whitney p of disjoint samples of 9: {p:.2e} (exact: 2/C(18,9) = 4.1e-05)")

    # ---- 2. usage errors: one line, exit 2, nothing built
    def pc(*args, env=None):
        r = subprocess.run([perfcheck] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env)
        return r.returncode, r.stdout, r.stderr

    for args, needle in (([], "--base REV"), (["--base", "HEAD", "--reps", "2"], "--reps"),
                         (["--base", "HEAD", "--suite", "nope"], "--suite"),
                         (["--base", "HEAD", "--fail-on", "wolf"], "--fail-on"),
                         (["--base", "HEAD", "--threshold", "0"], "--threshold"),
                         (["--base", "no-such-rev-xyz"], "--base: 'no-such-rev-xyz'"),
                         (["--base", "HEAD", "--head", "HEAD", "--head-dir", "."], "at most one"),
                         (["--record", "/nonexistent-dir/x.csv"], "--record"),
                         (["--base-bin", "/etc/passwd"], "--base-bin")):
        t0 = time.time()
        rc, out, err = pc(*args)
        lines = err.strip().splitlines()
        check(rc == 2 and len(lines) == 1 and needle in lines[0] and out == "" and time.time() - t0 < 10,
              f"usage error {args}: exit 2, one line naming {needle!r} ({lines[:1]})")

    with tempfile.TemporaryDirectory(prefix="test-perfcheck-") as tmp:
        # ---- 3. a build that fails: exit 2 with meson's message
        bad = os.path.join(tmp, "bad-src")
        os.makedirs(bad)
        with open(os.path.join(bad, "meson.build"), "w") as f:
            f.write("project('broken', 'c')\nerror('deliberately broken tree')\n")
        rc, out, err = pc("--base-bin", chtbench, "--head-dir", bad, "--suite", "smoke",
                          "--workdir", os.path.join(tmp, "w-bad"))
        check(rc == 2 and "meson setup failed" in err and "deliberately broken" in err and out == "",
              f"--head-dir of a tree whose meson setup fails: exit 2 ({err.strip().splitlines()[:1]})")

        # ---- 4. the injected build (a build dir of its own, reused between test runs)
        t0 = time.time()
        if not os.path.exists(os.path.join(inject_dir, "build.ninja")):
            r = subprocess.run(["meson", "setup", inject_dir, src, "-Dinject_get_delay=4"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                print(r.stdout)
                check(False, "meson setup of the injected build")
                return 1
        r = subprocess.run(["ninja", "-C", inject_dir, "chtbench"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        check(r.returncode == 0, f"injected build ({time.time() - t0:.0f} s)")
        if r.returncode != 0:
            print(r.stdout[-3000:])
            return 1
        inj = os.path.join(inject_dir, "chtbench")
        iv = subprocess.run([inj, "--version"], stdout=subprocess.PIPE, text=True).stdout
        check("inject_get_delay=4" in iv, "chtbench --version of the injected build names inject_get_delay=4")

        def gate(name, head_env, *extra):
            js = os.path.join(tmp, f"{name}.json")
            md = os.path.join(tmp, f"{name}.md")
            t0 = time.time()
            args = ["--base-bin", inj, "--head-bin", inj, "--base-env", "CHTBENCH_TEST_INJECT_GET_DELAY=0",
                    "--suite", "smoke", "--json", js, "--markdown", md] + list(extra)
            if head_env is not None:
                args += ["--head-env", f"CHTBENCH_TEST_INJECT_GET_DELAY={head_env}"]
            rc, out, err = pc(*args)
            if rc == 2:
                print(err)
            rep = json.load(open(js)) if os.path.exists(js) else {"cells": []}
            cells = {c["id"]: c for c in rep["cells"]}
            print(f"---- {name}: exit {rc}, {time.time() - t0:.0f} s\n{out}", flush=True)
            check(os.path.exists(md) and open(md).read() == out, f"{name}: --markdown file = stdout")
            return rc, rep, cells

        lb, lk = "clht-lb t1 i1K uniform", "locked t1 i1K uniform"
        # A/A: the same binary and environment on both sides.
        rc, rep, cells = gate("aa", "0", "--fail-on", "instr")
        check(rc == 0 and rep.get("exit_code") == 0, "A/A: exit 0 (even with --fail-on instr)")
        check(set(cells) == {lb, lk} and all(c["verdict"] != "REGRESSION" for c in cells.values()),
              f"A/A: no confirmed regression ({[c['verdict'] for c in cells.values()]})")
        check(all(len(c["samples"]["base"]) == 9 and len(c["samples"]["head"]) >= 9 for c in cells.values()),
              "A/A: 9 repetitions per side and cell")
        check(all(c.get("instr") and abs(c["instr"]["delta_pct"]["instr_per_op"]) < 0.5 for c in cells.values()),
              "A/A: instructions/op equal within 0.5% in both cells")
        if lb in cells and cells[lb].get("instr"):
            ipo = cells[lb]["instr"]["base"]["instr_per_op"]
            check(50 < ipo < 1000, f"A/A: clht-lb instructions/op plausible ({ipo:.1f})")

        # ~10%: the compile-time 4 rounds in the head.
        rc, rep, cells = gate("inj4", None)
        d = cells.get(lb, {}).get("instr", {}).get("delta_pct", {}).get("instr_per_op", 0)
        check(d > 5.0, f"10% injection: clht-lb instructions/op up by more than 5% ({d:+.2f}%)")
        dl = cells.get(lk, {}).get("instr", {}).get("delta_pct", {}).get("instr_per_op", 99)
        check(abs(dl) < 0.5, f"10% injection: locked's instructions/op unchanged ({dl:+.2f}%)")
        check(all(c["verdict"] != "improved" for c in cells.values()) and rc in (0, 1),
              f"10% injection: never 'improved' (clht-lb: {cells.get(lb, {}).get('verdict')}, exit {rc})")
        check(lb in rep.get("instr_changed", []), "10% injection: reported as an instructions/op change")

        # ~3%: one round, set at run time; --fail-on instr turns the instructions/op change into exit 1.
        rc, rep, cells = gate("inj1", "1", "--fail-on", "instr")
        check(rc == 1 and "--fail-on instr" in rep.get("summary", ""), "3% injection with --fail-on instr: exit 1")
        d1 = cells.get(lb, {}).get("instr", {}).get("delta_pct", {}).get("instr_per_op", 0)
        check(2.0 < d1 < d, f"3% injection: instructions/op up by more than 2%, less than the 10% one ({d1:+.2f}%)")
        check(all(c["verdict"] != "improved" for c in cells.values()),
              f"3% injection: never 'improved' (clht-lb: {cells.get(lb, {}).get('verdict')})")

        # ---- 5. stored baselines
        bl = os.path.join(tmp, "vm.csv")
        rc, out, err = pc("--record", bl, "--head-bin", inj, "--suite", "smoke", "--reps", "4")
        rows = list(csv.DictReader(open(bl))) if os.path.exists(bl) else []
        check(rc == 0 and len([r for r in rows if r["metric"] == "throughput"]) == 8
              and {r["metric"] for r in rows} == {"throughput", "instr_per_op", "d1_miss_per_op", "ll_miss_per_op"},
              f"--record: exit {rc}, 2 cells x 4 reps of throughput + 3 per-op metrics per cell ({len(rows)} rows)")
        rc, out, err = pc("--against", bl, "--head-bin", inj, "--suite", "smoke", "--reps", "4",
                          "--fail-on", "instr")
        check(rc in (0, 1) and "stored baseline" in out and lb in out and "REGRESSION" not in out
              and "no fresh base samples" in out,
              f"--against the same host's baseline: a report (exit {rc})")
        deltas = [float(x) for x in re.findall(r"instr[^|\n]*?\(([+-]\d+\.\d+)%\)", out)] + \
            [float(x) for x in re.findall(r"\| ([+-]\d+\.\d+)% \|", out)]
        check(deltas and all(abs(x) < 0.5 for x in deltas),
              f"--against: instructions/op compared with the stored ones, equal within 0.5% ({deltas})")
        rc, out, err = pc("--against", bl, "--head-bin", inj, "--suite", "tables-1k")
        check(rc == 2 and "holds suite 'smoke'" in err, f"--against with another suite: exit 2 ({err.strip()[:80]})")
        for col, val, needle in (("host", "other-host", "recorded on host 'other-host'"),
                                 ("cpu_model", "Imaginary CPU 9000", "Imaginary CPU 9000")):
            forged = os.path.join(tmp, f"forged-{col}.csv")
            with open(forged, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
                w.writeheader()
                for r in rows:
                    w.writerow(dict(r, **{col: val}))
            t0 = time.time()
            rc, out, err = pc("--against", forged, "--head-bin", inj, "--suite", "smoke")
            check(rc == 2 and needle in err and len(err.strip().splitlines()) == 1 and time.time() - t0 < 10,
                  f"--against a baseline with another {col}: refused, exit 2 ({err.strip()[:100]})")
        with open(os.path.join(tmp, "foreign.csv"), "w") as f:
            f.write("a,b\n1,2\n")
        rc, out, err = pc("--against", os.path.join(tmp, "foreign.csv"), "--head-bin", inj)
        check(rc == 2 and "not a perfcheck baseline" in err, "--against a foreign CSV: exit 2")

    print(f"test_perfcheck: {time.time() - t_all:.0f} s, {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
