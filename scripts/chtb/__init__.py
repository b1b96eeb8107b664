"""chtb: sweeps, figures, plots and Slurm job arrays around chtbench.

Modules: config (TOML sweep configs, cartesian product), sweep (running cells,
progress, resume), machine (machine.json), plot (medians + error bars),
figure (scripts/figures/NAME.toml -> PNG/PDF/SVG + NAME.md), style (palette, labels,
citations), report (one HTML page of every figure), slurm (job arrays),
perfcheck + stats (the CI performance-regression gate), trace (--trace files).
Run with /usr/bin/python3 (Debian's pandas and matplotlib).
"""
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_chtbench():
    """build/chtbench of this tree, or $CHTBENCH."""
    return os.environ.get("CHTBENCH") or os.path.join(REPO, "build", "chtbench")
