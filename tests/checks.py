"""The tally the driver's Python tests share: check() prints one line a check ("ok   ..." or
"FAIL ...") and counts it; finish() prints "N passed, N failed" and exits 1 if any failed.
The tests run as scripts, so their folder is on sys.path and `from checks import ...` finds this.

SCALE is CHT_TEST_SCALE (percent, as tests/test_conformance.c and tests/test_locks.c read it):
scripts/test runs the sanitizer builds at 25 and 10, where every operation costs 5-20 times
more. There a test runs a spread of its repeated cases (spread()) and a smaller key buffer for
streams that draw theirs before the run (lean_keybuf()); the release build runs every case."""
import os
import sys

SCALE = max(1, min(100, int(os.environ.get("CHT_TEST_SCALE") or 100)))
REDUCED = SCALE < 100

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    return bool(cond)


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def spread(cases):
    """every case at full scale; every other one (the first kept) at a reduced scale: cases that
    differ by table or thread count run the same driver code, which the sanitizers watch"""
    return list(cases) if not REDUCED else list(cases)[::2]


# A Zipf or YCSB stream is drawn before the run into a buffer of 2^25 / threads ops a thread
# (--keybuf auto, docs/workloads.md), which under TSan takes 5-15 s for a 150 ms run.
LEAN_KEYBUF = "262144"


def lean_keybuf(args):
    """args plus a 2^18-op key buffer at a reduced scale, where the stream is drawn before the run
    and neither --keybuf nor --ops sizes it (the loop goes round the buffer: keybuf_wrapped)"""
    a = [str(x) for x in args]
    drawn = "--workload" in a or any(x.startswith("zipf") for x in a)
    if not REDUCED or not drawn or "--keybuf" in a or "--ops" in a or "--trace" in a:
        return list(args)
    return list(args) + ["--keybuf", LEAN_KEYBUF]
