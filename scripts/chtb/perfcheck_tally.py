"""Tally perfcheck --json reports (docs/perfcheck.md "Measured false-alarm and detection rates").

usage: PYTHONPATH=scripts /usr/bin/python3 -m chtb.perfcheck_tally LABEL:GLOB [LABEL:GLOB ...]
Per group of reports: runs, exit codes, confirmed wall-time regressions and improvements, runs whose
instructions/op rose by more than the threshold (what --fail-on instr would fail), verdict counts,
the clht-lb cells' median ratio, and the runs' wall time.
"""

import glob
import json
import statistics
import sys


def tally(label, pattern):
    files = sorted(glob.glob(pattern))
    if not files:
        return f"| {label} | 0 runs | | | | | | |"
    reps = [json.load(open(f)) for f in files]
    exits = [r["exit_code"] for r in reps]
    regr = sum(1 for r in reps if r["counts"].get("REGRESSION"))
    impr = sum(1 for r in reps if r["counts"].get("improved"))
    instr_up = sum(1 for r in reps if any(c.get("instr") and c["instr"]["delta_pct"]["instr_per_op"]
                                          > r["args"]["instr_threshold"] for c in r["cells"]))
    counts = {}
    for r in reps:
        for k, v in r["counts"].items():
            counts[k] = counts.get(k, 0) + v
    lb = [c["first"]["ratio"] for r in reps for c in r["cells"] if c["name"] == "clht-lb"]
    wall = [r["elapsed_s"] for r in reps]
    return (f"| {label} | {len(reps)} ({reps[0]['args']['suite']}) | {regr} | {impr} | {instr_up} | "
            f"{exits.count(0)}/{exits.count(1)}/{exits.count(2)} | "
            + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
            + f" | {statistics.median(lb):.3f} | {min(wall):.0f}-{max(wall):.0f} s |")


def main(argv):
    if not argv or any(":" not in a for a in argv):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    print("| runs | n (suite) | runs with a confirmed REGRESSION | runs with a confirmed improvement | "
          "runs with instr/op up > threshold | exit 0/1/2 | cell verdicts (all runs) | clht-lb median ratio "
          "(pass 1) | wall time per run |")
    print("|---|---|---:|---:|---:|---|---|---:|---|")
    for a in argv:
        label, pattern = a.split(":", 1)
        print(tally(label, pattern))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
