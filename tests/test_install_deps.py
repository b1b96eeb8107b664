#!/usr/bin/env python3
"""scripts/install-deps under a busy apt (issue 19.7): it waits for apt's locks instead of failing,
shows apt's own error lines when apt fails, and exits 1 saying what to do.

Drives the failure path with the test hook CHTBENCH_TEST_EXTRA_PACKAGES (a package that does not
exist), while this test holds apt's lists lock or dpkg's frontend lock the way apt does (fcntl).
Needs root (apt-get) and Debian's package lists; skips (exit 77) without root."""
import fcntl
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SCRIPT = os.path.join(ROOT, "scripts", "install-deps")
BOGUS = "chtbench-test-no-such-package"
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", msg)
    else:
        print("ok:", msg)


def hold(path, seconds, ready):
    with open(path, "w") as f:
        fcntl.lockf(f, fcntl.LOCK_EX)
        ready.set()
        time.sleep(seconds)


def run_held(lock, seconds, wait):
    ready = threading.Event()
    t = threading.Thread(target=hold, args=(lock, seconds, ready))
    t.start()
    ready.wait()
    env = dict(os.environ, CHTBENCH_TEST_EXTRA_PACKAGES=BOGUS, CHTBENCH_APT_LOCK_WAIT=str(wait))
    t0 = time.monotonic()
    r = subprocess.run([SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    el = time.monotonic() - t0
    t.join()
    return r, el


def main():
    if os.geteuid() != 0:
        print("SKIP: install-deps runs apt-get, which needs root")
        return 77

    # 1. the lists lock is held for 8 s: `apt-get update` is retried until it is free; then
    #    the install fails on the missing package and apt's own error line is shown.
    r, el = run_held("/var/lib/apt/lists/lock", 8, 120)
    print(r.stderr)
    check(r.returncode == 1, f"a missing package: exit 1 (got {r.returncode})")
    check("apt is busy" in r.stderr and "waiting up to 120s" in r.stderr, "says it waits for the lists lock")
    check(el >= 7, f"waited for the lock to be released ({el:.1f} s)")
    if "apt-get update failed" in r.stderr:
        # no package lists reachable: the failure is still reported with apt's lines and what to do
        check("install-deps: fix the apt problem above" in r.stderr, "update failure says what to do")
    else:
        check(f"E: Unable to locate package {BOGUS}" in r.stderr, "apt's own error line is shown")
        check("install-deps: apt-get install failed:" in r.stderr, "names the failed apt step")
        check("install-deps: fix the apt problem above" in r.stderr, "says what to do")
        check("Could not get lock" not in r.stderr, "no lock error after the wait")

    # 2. dpkg's frontend lock is held for 6 s: apt-get install waits for it (DPkg::Lock::Timeout)
    #    and then reports the real problem, not the lock.
    r, el = run_held("/var/lib/dpkg/lock-frontend", 6, 120)
    if "apt-get update failed" not in r.stderr:
        check(r.returncode == 1 and f"E: Unable to locate package {BOGUS}" in r.stderr,
              f"dpkg lock: waited, then apt's own error (exit {r.returncode})")
        check(el >= 5, f"waited for dpkg's lock ({el:.1f} s)")
        check("Could not get lock" not in r.stderr, "no dpkg lock error after the wait")

    # 3. a lock held longer than the wait: exit 1 with apt's lock line and what to do
    r, el = run_held("/var/lib/apt/lists/lock", 12, 5)
    check(r.returncode == 1, f"lock never freed: exit 1 (got {r.returncode})")
    check("Could not get lock /var/lib/apt/lists/lock" in r.stderr, "shows apt's lock line")
    check("wait for the other apt to finish" in r.stderr, "says what to do")
    check(el < 12, f"gave up after the wait, before the lock was released ({el:.1f} s)")

    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
