#!/usr/bin/python3
"""The environment is read in one place (docs/cli.md "Test hooks", include/cht_env.h).

- getenv / secure_getenv is called only in src/env.c among chtbench's own sources (src/, tables/,
  locks/, workloads/, include/); comments do not count.
- Every CHTBENCH_TEST_* name that src/env.c reads, or that the code, scripts/ or tests/ mention, is in
  the table of docs/cli.md's "Test hooks" section, and every name in that table is read by src/env.c
  or by a script in scripts/.
- The old names of the hooks appear nowhere in the code, tests or scripts.

usage: test_env.py SOURCE_ROOT
"""
import os
import re
import sys

ROOT = sys.argv[1]
CODE_DIRS = ("src", "tables", "locks", "workloads", "include")
CODE_EXT = (".c", ".h", ".cpp", ".hpp", ".cc", ".in")
ONE_PLACE = os.path.join("src", "env.c")
# renamed or replaced hooks (docs/cli.md "Test hooks": "Old names, gone")
OLD = ("CHT_RTM_DISABLE", "CHT_EBR_FENCE", "CHTBENCH_LOCKBENCH_NO_LOCK", "CHTBENCH_FAULT_DROP_INSERT",
       "CHTBENCH_HUGEPAGES\"", "\"CHTBENCH_INJECT_GET_DELAY", "CHTBENCH_INJECT_GET_DELAY=")
HOOK = re.compile(r"\bCHTBENCH_TEST_[A-Z0-9][A-Z0-9_]*")
GETENV = re.compile(r"\b(?:secure_)?getenv\s*\(")

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


def strip_comments(src):
    """C/C++ source without its comments (string literals kept: a '//' inside one survives)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def files_under(dirs, exts=None):
    for d in dirs:
        for base, _, names in os.walk(os.path.join(ROOT, d)):
            if "__pycache__" in base:
                continue
            for name in sorted(names):
                if exts is None or name.endswith(exts):
                    path = os.path.join(base, name)
                    yield os.path.relpath(path, ROOT), path


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# the scanner itself must see a call and ignore a comment, or the checks below prove nothing
check(len(GETENV.findall(strip_comments('x = getenv("A"); /* getenv("B") */ // getenv(\n'))) == 1,
      "scanner: finds a getenv call, skips comments")

callers = {}
code_names = {}
for rel, path in files_under(CODE_DIRS, CODE_EXT):
    text = read(path)
    n = len(GETENV.findall(strip_comments(text)))
    if n:
        callers[rel] = n
    for name in HOOK.findall(text):
        code_names.setdefault(name, rel)
check(ONE_PLACE in callers, f"{ONE_PLACE} calls getenv (found in: {sorted(callers)})")
check(set(callers) <= {ONE_PLACE}, f"getenv only in {ONE_PLACE}: also in {sorted(set(callers) - {ONE_PLACE})}")

env_c = strip_comments(read(os.path.join(ROOT, ONE_PLACE)))
read_by_env = set(re.findall(r'"(CHTBENCH_TEST_[A-Z0-9_]+)"', env_c))
check(len(read_by_env) >= 10, f"{ONE_PLACE} reads the hooks ({len(read_by_env)} names)")

script_names = {}
for rel, path in files_under(("scripts",)):
    for name in HOOK.findall(read(path)):
        script_names.setdefault(name, rel)
test_names = {}
for rel, path in files_under(("tests",), (".py", ".c", ".h", ".build", ".sh")):
    if rel == os.path.join("tests", "test_env.py"):
        continue
    for name in HOOK.findall(read(path)):
        test_names.setdefault(name, rel)

doc = read(os.path.join(ROOT, "docs", "cli.md"))
m = re.search(r"^## Test hooks\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
check(m is not None, 'docs/cli.md has a "## Test hooks" section')
section = m.group(1) if m else ""
doc_names = set(re.findall(r"^\| `(CHTBENCH_TEST_[A-Z0-9_]+)", section, re.M))
check(len(doc_names) >= 10, f"the section's table lists the hooks ({len(doc_names)} rows)")
for name in sorted(doc_names):
    row = re.search(r"^\| `" + name + r"[=`].*$", section, re.M).group(0)
    check(row.count("|") >= 4 and row.rstrip(" |").split("|")[-1].strip() != "",
          f"{name}: its row says what it does and which test uses it")

for what, names in (("read by src/env.c", {n: ONE_PLACE for n in read_by_env}),
                    ("named in the code", code_names), ("named in scripts/", script_names),
                    ("named in tests/", test_names)):
    extra = {n: f for n, f in names.items() if n not in doc_names}
    check(not extra, f"every CHTBENCH_TEST_* {what} is documented (missing: {extra})")
unread = doc_names - read_by_env - set(script_names)
check(not unread, f"every documented hook is read by src/env.c or scripts/ (not read: {sorted(unread)})")

stale = []
for rel, path in list(files_under(CODE_DIRS, CODE_EXT)) + list(files_under(("scripts",))) + \
        list(files_under(("tests",), (".py", ".c", ".h", ".build", ".sh"))):
    if rel == os.path.join("tests", "test_env.py"):
        continue
    text = read(path)
    stale += [f"{rel}: {o}" for o in OLD if o in text]
check(not stale, f"no old hook names left (found: {stale})")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
