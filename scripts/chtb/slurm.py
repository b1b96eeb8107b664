"""Sweeps as Slurm job arrays (docs/cluster.md).

`scripts/sweep CONFIG --slurm` (and `scripts/figure NAME --slurm`) write two batch scripts under
OUT/slurm/ and submit them with sbatch:

- cells.sbatch: one array task per cell (`--array=0-N` or the indexes still to run), each with its
  node to itself (`--exclusive --mem=0`). Task i runs cell i with chtbench --csv into
  OUT/parts/cell-i.csv (renamed into place only when chtbench finished) and writes
  OUT/parts/machine-i.json + topology-i.xml: nodes may differ, rows carry their host.
- merge.sbatch, submitted with `--dependency=afterok:ARRAY_JOB`: appends the parts, in cell order,
  to OUT/results.csv (or the figure's results-SCALE.csv) and draws the plot (or the figure).

The tasks and the merge run `python3 -m chtb.slurm_job task|merge ...` (chtb/slurm_job.py) from this
tree, so the tree and chtbench must be on a filesystem every node sees.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys

from . import REPO, provenance, sweep

SCRIPTS = os.path.join(REPO, "scripts")


def _py(args):
    return (f"PYTHONPATH={shlex.quote(SCRIPTS)} exec {shlex.quote(sys.executable)} -m chtb.slurm_job "
            + " ".join(shlex.quote(a) for a in args))


def _header(name, out, log, partition, time_limit, extra):
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={log}",
             "#SBATCH --nodes=1", "#SBATCH --ntasks=1"] + [f"#SBATCH {e}" for e in extra]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if time_limit:
        lines.append(f"#SBATCH --time={time_limit}")
    return lines


def array_spec(indexes):
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8'"""
    out, start = [], None
    for k, i in enumerate(indexes):
        if start is None:
            start = i
        if k + 1 == len(indexes) or indexes[k + 1] != i + 1:
            out.append(str(start) if start == i else f"{start}-{i}")
            start = None
    return ",".join(out)


def scripts(sw, out, chtbench, config_path, scale, partition, time_limit, todo, figure=None):
    """(cells script, merge script) text; the merge gets --dependency on the sbatch command line."""
    sdir = os.path.join(out, "slurm")
    common = ["--out", out, "--config", config_path, "--chtbench", chtbench]
    if scale:
        common += ["--scale", scale]
    if figure:
        common += ["--figure", figure]
    array = array_spec(todo)
    cells = _header(f"chtb-{sw.name}", out, os.path.join(sdir, "cell-%a.out"), partition, time_limit,
                    [f"--array={array}", "--exclusive", "--mem=0"])
    cells += ["# one cell per array task; the task index is the cell index of the sweep",
              _py(["task"] + common + ["--index", "${SLURM_ARRAY_TASK_ID}"]).replace(
                  "'${SLURM_ARRAY_TASK_ID}'", '"${SLURM_ARRAY_TASK_ID}"')]
    merge = _header(f"chtb-{sw.name}-merge", out, os.path.join(sdir, "merge.out"), partition,
                    time_limit, [])
    merge += ["# runs after every array task succeeded (sbatch --dependency=afterok:ARRAY_JOB)",
              _py(["merge"] + common)]
    return "\n".join(cells) + "\n", "\n".join(merge) + "\n"


def csv_name(scale, figure):
    return f"results-{scale or 'quick'}.csv" if figure else sweep.CSV_NAME


def submit(sw, out, chtbench, config_path, scale=None, partition=None, time_limit=None, dry=False,
           figure=None, resume=True, stream=sys.stdout):
    """Writes and submits (or, dry, prints) the two scripts; returns an exit code. Cells already
    complete in the CSV are left out of the array (a figure always reuses them, a sweep with resume)."""
    dest = os.path.join(out, csv_name(scale, figure))
    df = sweep.read_csv(dest)
    if df is not None and not resume:
        print(f"sweep: {dest} already has rows; use --resume to complete it or another --out", file=sys.stderr)
        return 2
    # rows of another build are not reused (any node's host is fine: the array spans nodes)
    if dry or df is None:
        done = sweep.plan(sw, df, provenance.current(chtbench), {}, check_host=False)[0] if df is not None else set()
    else:
        try:
            done, _ = sweep.apply_provenance(sw, out, dest, chtbench, check_host=False)
        except ValueError as e:
            print(f"sweep: {e}", file=sys.stderr)
            return 2
    todo = [i for i in range(len(sw.cells)) if i not in done]
    cells, merge = scripts(sw, out, chtbench, config_path, scale, partition, time_limit, todo or [0],
                           figure)
    if dry:
        stream.write(f"# {len(sw.cells)} cells, {len(todo)} to run; cells.sbatch:\n{cells}\n"
                     f"# merge.sbatch (sbatch --dependency=afterok:<ARRAY_JOB_ID>):\n{merge}")
        return 0
    if shutil.which("sbatch") is None:
        print("sweep: --slurm: sbatch not found (install slurm-wlm's client, see docs/cluster.md)",
              file=sys.stderr)
        return 2
    sdir = os.path.join(out, "slurm")
    os.makedirs(sdir, exist_ok=True)
    os.makedirs(os.path.join(out, "parts"), exist_ok=True)
    paths = {}
    for name, text in (("cells.sbatch", cells), ("merge.sbatch", merge)):
        paths[name] = os.path.join(sdir, name)
        with open(paths[name], "w") as f:
            f.write(text)
    dep = []
    if todo:
        r = subprocess.run(["sbatch", "--parsable", paths["cells.sbatch"]], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"sweep: sbatch failed: {r.stderr.strip()}", file=sys.stderr)
            return 1
        array_id = r.stdout.strip().split(";")[0]
        dep = [f"--dependency=afterok:{array_id}"]
        stream.write(f"submitted job array {array_id}: {len(todo)} cells ({paths['cells.sbatch']})\n")
    r = subprocess.run(["sbatch", "--parsable"] + dep + [paths["merge.sbatch"]], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"sweep: sbatch (merge) failed: {r.stderr.strip()}", file=sys.stderr)
        return 1
    merge_id = r.stdout.strip().split(";")[0]
    with open(os.path.join(sdir, "jobs.json"), "w") as f:
        json.dump({"array": dep[0].split(":")[1] if dep else None, "merge": merge_id, "cells": todo}, f)
    stream.write(f"submitted merge job {merge_id} ({' '.join(dep) or 'no cells left to run'}); "
                 f"rows will be in {dest}\n")
    return 0
