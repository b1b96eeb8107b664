"""Tally perfcheck --json reports (docs/perfcheck.md "Measured false-alarm and detection rates").

usage: PYTHONPATH=scripts /usr/bin/python3 -m chtb.perfcheck_tally [--out PREFIX] LABEL:GLOB [LABEL:GLOB ...]
Per group of reports: runs, exit codes, confirmed wall-time regressions and improvements, runs whose
instructions/op rose by more than the threshold (what --fail-on instr would fail), verdict counts,
the clht-lb cells' median ratio, and the runs' wall time. With --out, also writes PREFIX.md (the table)
and PREFIX.json (per report: its file, host, binaries, arguments, exit code, verdict counts and every
cell's first-pass ratio, p and verdict), small enough to commit (results/baselines/) so the claim can
be re-checked without the reports themselves.
"""

import glob
import json
import os
import statistics
import sys

HEADER = ("| runs | n (suite) | runs with a confirmed REGRESSION | runs with a confirmed improvement | "
          "runs with instr/op up > threshold | exit 0/1/2 | cell verdicts (all runs) | clht-lb median ratio "
          "(pass 1) | wall time per run |\n|---|---|---:|---:|---:|---|---|---:|---|")


def load(pattern):
    files = sorted(glob.glob(pattern), key=lambda f: (len(f), f))
    return files, [json.load(open(f)) for f in files]


def tally(label, files, reps):
    if not files:
        return f"| {label} | 0 runs | | | | | | | |"
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
            + (f" | {statistics.median(lb):.3f}" if lb else " | ")
            + f" | {min(wall):.0f}-{max(wall):.0f} s |")


def record(path, r):
    """What the committed summary keeps of one report."""
    return {"file": os.path.basename(path), "host": r["host"], "base": r["base"], "head": r["head"],
            "args": r["args"], "exit_code": r["exit_code"], "elapsed_s": round(r["elapsed_s"], 1),
            "counts": r["counts"], "summary": r["summary"],
            "cells": [{"id": c["id"], "verdict": c["verdict"], "ratio": c["first"]["ratio"],
                       "p": c["first"]["p"], "ci": [c["first"]["ci_lo"], c["first"]["ci_hi"]],
                       "first": c["first"]["verdict"],
                       "instr_delta_pct": (c["instr"]["delta_pct"]["instr_per_op"] if c.get("instr") else None)}
                      for c in r["cells"]]}


def main(argv):
    out = None
    if len(argv) >= 2 and argv[0] == "--out":
        out, argv = argv[1], argv[2:]
    if not argv or any(":" not in a for a in argv):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    lines, groups = [HEADER], {}
    for a in argv:
        label, pattern = a.split(":", 1)
        try:
            files, reps = load(pattern)
        except (OSError, ValueError, UnicodeDecodeError) as e:
            print(f"perfcheck_tally: {label}: {e}", file=sys.stderr)
            return 2
        lines.append(tally(label, files, reps))
        groups[label] = [record(f, r) for f, r in zip(files, reps)]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if out:
        with open(out + ".md", "w") as f:
            f.write(f"Written by `python3 -m chtb.perfcheck_tally --out {os.path.basename(out)} "
                    + " ".join(f"'{a}'" for a in argv) + "` (docs/perfcheck.md).\n\n" + text)
        with open(out + ".json", "w") as f:
            json.dump({"groups": groups}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
