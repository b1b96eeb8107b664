"""The one place that finds the chtbench binary the scripts run (issue 51.7).

An explicit choice (a --chtbench flag) wins; else $CHTBENCH, so that a build directory anywhere (an
out-of-tree `meson setup /tmp/b`, a sanitizer build) serves every script and test; else build/chtbench
of this tree; else, for an installed copy (PREFIX/share/chtbench, docs/plugins.md "The SDK"),
PREFIX/bin/chtbench.
"""
import os

from . import REPO

ENV = "CHTBENCH"


def default():
    """$CHTBENCH, else build/chtbench of this tree, else the installed PREFIX/bin/chtbench (as given,
    not made absolute)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    built = os.path.join(REPO, "build", "chtbench")
    installed = os.path.normpath(os.path.join(REPO, "..", "..", "bin", "chtbench"))
    return installed if not os.path.exists(built) and os.path.exists(installed) else built


def find(chosen=None):
    """The absolute path of `chosen` (a --chtbench value), else of default()."""
    return os.path.abspath(chosen or default())


def export(path):
    """Makes `path` (absolute) the binary default() finds from now on, in this process and in the
    scripts it starts ($CHTBENCH): a test hands the binary under test (its meson argument) to every
    chtb lookup this way. Returns the absolute path."""
    os.environ[ENV] = os.path.abspath(path)
    return os.environ[ENV]
