"""chtb: sweeps, figures, plots and Slurm job arrays around chtbench.

Modules in layers, lowest first: a module imports only modules of lower layers (imports inside
functions too), and a helper two modules share is a public name of the lower one
(tests/test_py_layers.py checks both; every module may read REPO below).
  1 binary (finds chtbench: the one place), provenance (which build wrote rows), machine
    (machine.json), style (palette, labels, citations, numbers), stats, trace (--trace files),
    perfcheck_tally
  2 schema (the columns, from chtbench --schema)
  3 config (TOML sweep configs, cartesian product, the rows a cell matches)
  4 speedup (T(n)/T(1) per cell), plot (medians + error bars)
  5 sweep (running cells, progress, resume)
  6 slurm (writing and submitting a job array's batch scripts)
  7 sweep_cli (scripts/sweep), figure (scripts/figures/NAME.toml -> PNG/PDF/SVG + NAME.md), report
    (one HTML page of every figure), perfcheck (the CI performance-regression gate)
  8 slurm_job (what the batch scripts run: a cell, then the merge and its plot or figure)
Run with /usr/bin/python3 (Debian's pandas and matplotlib).
"""
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

