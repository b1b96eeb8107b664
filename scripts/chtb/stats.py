"""Statistics of the performance-regression gate (docs/perfcheck.md "The statistics").

Per cell: the median ratio head/base of a higher-is-better metric (throughput), a
percentile-bootstrap confidence interval of that ratio, a two-sided Mann-Whitney U
test, and a verdict that needs BOTH a significant test and an effect at least as
large as the threshold. A cell whose interval reaches past the threshold on the
bad side without a significant, large change cannot be decided: "noisy".
"""

import numpy as np
from scipy.stats import mannwhitneyu

# Verdicts before the confirming re-run.
OK, NOISY, REGRESSED, IMPROVED = "ok", "noisy", "regression?", "improvement?"


def median(xs):
    return float(np.median(np.asarray(xs, dtype=float)))


def bootstrap_ratio_ci(base, head, resamples=2000, conf=0.95, seed=0):
    """Percentile bootstrap CI of median(head) / median(base), resampling each side
    independently (the samples are independent repetitions). Deterministic (seed)."""
    b = np.asarray(base, dtype=float)
    h = np.asarray(head, dtype=float)
    rng = np.random.default_rng(seed)
    mb = np.median(rng.choice(b, size=(resamples, b.size), replace=True), axis=1)
    mh = np.median(rng.choice(h, size=(resamples, h.size), replace=True), axis=1)
    r = mh / mb
    a = (1.0 - conf) / 2.0
    lo, hi = np.quantile(r, [a, 1.0 - a])
    return float(lo), float(hi)


def mwu_p(base, head):
    """Two-sided Mann-Whitney U p-value; 1.0 when every sample is equal (no evidence)."""
    b = np.asarray(base, dtype=float)
    h = np.asarray(head, dtype=float)
    if np.all(np.concatenate([b, h]) == b[0]):
        return 1.0
    return float(mannwhitneyu(h, b, alternative="two-sided").pvalue)


def min_p(n):
    """The smallest p the two-sided Mann-Whitney test (mwu_p) can give with n samples per side:
    that of two disjoint samples (exact 2/C(2n, n) for the small n scipy computes exactly)."""
    return mwu_p(list(range(n)), list(range(n, 2 * n)))


def min_reps(alpha, limit=1000):
    """The smallest n per side at which mwu_p can fall below alpha (None beyond limit)."""
    n = 2
    while n <= limit:
        if min_p(n) < alpha:
            return n
        n += 1
    return None


def compare(base, head, threshold, alpha, resamples=2000, seed=0):
    """threshold: minimum effect size as a fraction (0.05 = 5%). Returns a dict with
    base/head medians, ratio, ci (lo, hi), p and a preliminary verdict."""
    if len(base) < 2 or len(head) < 2:
        raise ValueError("need at least 2 samples per side")
    mb, mh = median(base), median(head)
    ratio = mh / mb if mb > 0 else float("nan")
    lo, hi = bootstrap_ratio_ci(base, head, resamples=resamples, seed=seed)
    p = mwu_p(base, head)
    if p < alpha and ratio <= 1.0 - threshold:
        verdict = REGRESSED
    elif p < alpha and ratio >= 1.0 + threshold:
        verdict = IMPROVED
    elif lo < 1.0 - threshold:
        # The data cannot exclude a regression at least as large as the threshold.
        verdict = NOISY
    else:
        verdict = OK
    return {"base_median": mb, "head_median": mh, "ratio": ratio, "ci_lo": lo, "ci_hi": hi,
            "p": p, "verdict": verdict, "n_base": len(base), "n_head": len(head)}


def pct_change(base, head):
    """(head - base) / base in percent; 0 when both are 0."""
    if base == 0:
        return 0.0 if head == 0 else float("inf")
    return (head - base) / base * 100.0
