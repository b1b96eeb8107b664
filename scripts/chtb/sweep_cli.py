"""scripts/sweep's command line: a sweep run here, dry-run, or submitted as a Slurm job array.

Above both sweep (which runs cells) and slurm (which submits them, reading sweep's CSV), so neither
needs the other's caller.
"""
import argparse
import os
import sys

from . import REPO, binary, config, schema, slurm, sweep


def parser():
    p = argparse.ArgumentParser(prog="sweep", description="Run a chtbench sweep (TOML config).")
    p.add_argument("config", help="sweep config (TOML), see docs/figures.md")
    p.add_argument("--out", help="output directory (default results/sweeps/NAME)")
    p.add_argument("--resume", action="store_true", help="skip cells already complete in the CSV (rows of "
                   "this build and host)")
    p.add_argument("--reuse-any", action="store_true", help="with --resume: also reuse cells written by "
                   "another build or host (warns, naming them)")
    p.add_argument("--dry-run", action="store_true", help="print the cells and the estimated time")
    p.add_argument("--scale", choices=["quick", "full"], help="use the config's [scale.S] values (full without a [scale.full]: the config as written)")
    p.add_argument("--chtbench", default=None, help="chtbench binary (default build/chtbench)")
    p.add_argument("--slurm", action="store_true", help="submit as a Slurm job array (docs/cluster.md)")
    p.add_argument("--partition", help="Slurm partition (with --slurm)")
    p.add_argument("--time", help="Slurm time limit per cell, e.g. 00:10:00 (with --slurm)")
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    if a.reuse_any and not a.resume:
        print("sweep: --reuse-any needs --resume", file=sys.stderr)
        return 2
    if (a.partition or a.time) and not a.slurm:
        print("sweep: --partition and --time need --slurm", file=sys.stderr)
        return 2
    try:
        sw, _ = config.load(a.config, scale=a.scale)
    except config.ConfigError as e:
        print(f"sweep: {e}", file=sys.stderr)
        return 2
    chtbench = binary.find(a.chtbench)
    schema.use(chtbench)   # cells are matched to rows by the columns this binary declares
    out = os.path.abspath(a.out or os.path.join(REPO, "results", "sweeps", sw.name))
    if a.slurm:
        err = sweep.check_sweep(sw, chtbench) if os.access(chtbench, os.X_OK) else None
        if err:
            print(f"sweep: {err}", file=sys.stderr)
            return 2
        return slurm.submit(sw, out, chtbench, config_path=os.path.abspath(a.config), scale=a.scale,
                            partition=a.partition, time_limit=a.time, dry=a.dry_run,
                            resume=a.resume)
    if not os.access(chtbench, os.X_OK):
        print(f"sweep: --chtbench: {chtbench} is not an executable (build it: meson setup build && "
              "ninja -C build)", file=sys.stderr)
        return 2
    if a.dry_run:
        return sweep.dry_run(sw, chtbench, out, resume=a.resume, reuse_any=a.reuse_any)
    return sweep.run(sw, out, chtbench, resume=a.resume, reuse_any=a.reuse_any)
