"""What a Slurm job array's batch scripts run (chtb/slurm.py writes and submits them; docs/cluster.md):

    python3 -m chtb.slurm_job task --index I ...   one cell into OUT/parts/cell-I.csv (+ machine-I.json)
    python3 -m chtb.slurm_job merge ...            the parts appended to the CSV, then the plot or figure

The top of chtb's layers: the merge draws a figure, and scripts/figure submits through chtb.slurm.
"""
import argparse
import os
import shutil
import sys

from . import config, figure, machine, plot, provenance, slurm, sweep


def load_sweep(a):
    """The job's sweep: the figure's [sweep] (with --figure) or the sweep config, at its scale."""
    if a.figure:
        fig = figure.load(a.config)
        return config.from_dict({"sweep": fig["sweep"]}, source=a.config, scale=a.scale, name=a.figure)
    sw, _ = config.load(a.config, scale=a.scale)
    return sw


def task(a):
    """Array task: run cell a.index into parts/cell-INDEX.csv; machine-INDEX.json beside it."""
    sw = load_sweep(a)
    if not 0 <= a.index < len(sw.cells):
        print(f"chtb task: index {a.index} out of 0..{len(sw.cells) - 1}", file=sys.stderr)
        return 2
    parts = os.path.join(a.out, "parts")
    os.makedirs(parts, exist_ok=True)
    machine.write(parts, a.chtbench, name=f"machine-{a.index}.json", topo=f"topology-{a.index}.xml")
    tmp = os.path.join(parts, f".cell-{a.index}.csv.tmp")
    cell = sw.cells[a.index]
    print(f"cell {a.index}: {sw.command(a.chtbench, cell)}", flush=True)
    rc, err = sweep.run_cell(sw, cell, a.chtbench, tmp)
    sys.stderr.write(err or "")
    if rc in (0, 1) and os.path.exists(tmp):
        os.replace(tmp, os.path.join(parts, f"cell-{a.index}.csv"))
        if rc == 1:
            print(f"cell {a.index}: a run failed its check (rows kept; their outcome column says which check)")
        return 0
    print(f"cell {a.index}: chtbench exit {rc}, no part written", file=sys.stderr)
    return 1


def merge(a):
    """Appends every cell's part to the sweep CSV (cells already complete there are skipped),
    then plots. Exit 1 when a cell has no part."""
    sw = load_sweep(a)
    dest = os.path.join(a.out, slurm.csv_name(a.scale, a.figure))
    parts = os.path.join(a.out, "parts")
    df = sweep.read_csv(dest)
    done = sweep.plan(sw, df, provenance.current(a.chtbench), {}, check_host=False)[0] if df is not None else set()
    missing = []
    for i in range(len(sw.cells)):
        if i in done:
            continue
        p = os.path.join(parts, f"cell-{i}.csv")
        if not os.path.exists(p):
            missing.append(i)
            continue
        sweep.append_rows(dest, p)
    if not os.path.exists(os.path.join(a.out, "machine.json")):
        for i in range(len(sw.cells)):
            src = os.path.join(parts, f"machine-{i}.json")
            if os.path.exists(src):
                shutil.copy(src, os.path.join(a.out, "machine.json"))
                break
    print(f"merged {len(sw.cells) - len(done) - len(missing)} parts into {dest}")
    if missing:
        print(f"chtb merge: no part for cells {missing} (see {a.out}/slurm/cell-N.out)", file=sys.stderr)
        return 1
    if a.figure:
        return figure.make(a.figure_path or a.config, a.scale or "quick", a.out, a.chtbench, check_host=False)
    df = plot.load([dest])
    bench = sw.bench is not None
    spec = {"x": "threads", "y": "macq_per_s" if bench else "mops",
            "series": "lock" if bench else "table_spec"}
    _, paths = plot.plot_spec(df, spec, os.path.join(a.out, "results"), title=sw.name)
    print("plotted " + ", ".join(paths))
    print(f"per-cell medians and speedup in {sweep.write_summary(sw, a.out, dest)}")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m chtb.slurm_job")
    p.add_argument("what", choices=["task", "merge"])
    p.add_argument("--out", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--chtbench", required=True)
    p.add_argument("--scale")
    p.add_argument("--figure")
    p.add_argument("--index", type=int)
    a = p.parse_args(argv)
    a.figure_path = a.config if a.figure else None
    return task(a) if a.what == "task" else merge(a)


if __name__ == "__main__":
    sys.exit(main())
