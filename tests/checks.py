"""The tally the driver's Python tests share: check() prints one line a check ("ok   ..." or
"FAIL ...") and counts it; finish() prints "N passed, N failed" and exits 1 if any failed.
The tests run as scripts, so their folder is on sys.path and `from checks import ...` finds this."""
import sys

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
