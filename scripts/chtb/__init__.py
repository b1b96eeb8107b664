"""chtb: sweeps, figures, plots and Slurm job arrays around chtbench.

Modules in layers: a module imports only modules of lower layers (also inside functions), and a
helper two modules share is a public name of the lower one (tests/test_py_layers.py checks both).
  base:    binary (finds chtbench: the one place), provenance (which build wrote rows), style
           (palette, labels, citations, numbers), stats, trace (--trace files), perfcheck_tally
  inputs:  schema (the columns, from chtbench --schema), machine (machine.json), config (TOML sweep
           configs, cartesian product, the rows a cell matches)
  running: speedup (T(n)/T(1)), sweep (running cells, progress, resume), plot (medians + error bars)
  jobs:    slurm (writing and submitting the job array's batch scripts)
  tools:   sweep_cli (scripts/sweep), figure (scripts/figures/NAME.toml -> PNG/PDF/SVG + NAME.md),
           report (one HTML page of every figure), perfcheck (the CI performance-regression gate)
  top:     slurm_job (what the batch scripts run: a cell, then the merge and its plot or figure)
Run with /usr/bin/python3 (Debian's pandas and matplotlib).
"""
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

