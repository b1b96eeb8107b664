"""chtbench helper scripts: sweeps, figures, plots, the performance-regression gate (perfcheck)."""
