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
    """$CHTBENCH, else build/chtbench of this tree, else, for an installed copy (PREFIX/share/chtbench,
    docs/plugins.md "The SDK"), PREFIX/bin/chtbench."""
    if os.environ.get("CHTBENCH"):
        return os.environ["CHTBENCH"]
    built = os.path.join(REPO, "build", "chtbench")
    installed = os.path.normpath(os.path.join(REPO, "..", "..", "bin", "chtbench"))
    return installed if not os.path.exists(built) and os.path.exists(installed) else built
