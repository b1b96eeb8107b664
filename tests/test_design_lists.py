#!/usr/bin/env python3
"""test_design_lists.py - docs/design.md names what the build lists (issue 51 point 9).

Usage: test_design_lists.py CHTBENCH REPO

docs/design.md's "### Tables" and "### Locks" tables name entries in their first column, in backticks:
an exact name (`clht-lb`) or a plugin family (`rs-*`). Against `chtbench --list` and `--list=locks`:
1. every name the build lists is named there, exactly or by a family pattern;
2. every exact name there is listed, unless its entry in tables/meson.build or locks/meson.build is
   optional ('feature': a library this build may lack, or 'plugin') and this build does not list it;
   a name that is neither listed nor an entry is an error;
3. a family pattern is a prefix ending in `-*`, it matches at least one entry of the meson lists or one
   listed name, and only plugin entries (a pattern must not hide a built-in table from rule 2).
So the rule holds whether the optional libraries and the plugins are built or not: what is built must be
named, what is named must exist, and what is missing must be allowed to be missing.
Each rule is also run on planted mistakes, so that it can fail.
"""
import fnmatch
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, ROOT = sys.argv[1], sys.argv[2]


def listed(*args):
    """Names of `chtbench --list...`: the first word of each line that does not start with a blank."""
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"chtbench {' '.join(args)}: exit 0 ({p.returncode}, {p.stderr.strip()[:120]})")
    names = {line.split()[0] for line in p.stdout.splitlines() if line and not line[0].isspace()}
    plugins = {line.split()[0] for line in p.stdout.splitlines() if line and not line[0].isspace()
               and "(plugin " in line}
    return names, plugins


def meson_entries(path):
    """{name: 'plugin' | 'feature' | 'built-in'} of a tables/ or locks/meson.build list."""
    text = open(path, encoding="utf-8").read()
    chunks = re.split(r"(?=\{'name':)", text)
    entries = {}
    for chunk in chunks[1:]:
        m = re.match(r"\{'name':\s*'([^']+)'", chunk)
        body = chunk.split("\n  {", 1)[0].split("\n]", 1)[0]
        kind = "plugin" if "'plugin':" in body else "feature" if "'feature':" in body else "built-in"
        entries[m.group(1)] = kind
    return entries


def doc_names(text, heading):
    """The backticked names of the first column of the table under `### heading`."""
    m = re.search(r"^### " + re.escape(heading) + r"\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    if not m:
        return None
    names = []
    for line in m.group(1).splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2 and not re.fullmatch(r"-+", cells[1].strip()):
            names += re.findall(r"`([^`]+)`", cells[1])
    return names


def problems(names, have, plugin_names, entries):
    """What is wrong with a doc naming `names` for a build listing `have` (rules 1-3 above)."""
    bad = []
    exact = [n for n in names if "*" not in n]
    patterns = [n for n in names if "*" in n]
    for n in sorted(have):
        if n not in exact and not any(fnmatch.fnmatchcase(n, p) for p in patterns):
            bad.append(f"listed but not named: {n}")
    for n in exact:
        if n not in have and entries.get(n) not in ("feature", "plugin"):
            bad.append(f"named but " + ("not listed (a built-in entry)" if n in entries
                                        else "neither listed nor an entry") + f": {n}")
    for p in patterns:
        covered = {e for e in entries if fnmatch.fnmatchcase(e, p)} | {n for n in have if fnmatch.fnmatchcase(n, p)}
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-\*", p):
            bad.append(f"pattern not of the form PREFIX-*: {p}")
        elif not covered:
            bad.append(f"pattern matches nothing: {p}")
        else:
            hidden = sorted(e for e in covered if entries.get(e, "plugin" if e in plugin_names else "built-in") != "plugin")
            if hidden:
                bad.append(f"pattern {p} covers entries that are not a plugin's: {', '.join(hidden)}")
    return bad


doc = open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8").read()
for heading, args, meson in (("Tables", ["--list"], "tables/meson.build"),
                             ("Locks", ["--list=locks"], "locks/meson.build")):
    names = doc_names(doc, heading)
    check(names is not None and len(names) >= 10, f"docs/design.md has a '### {heading}' table naming entries "
          f"({len(names or [])})")
    have, plugin_names = listed(*args)
    entries = meson_entries(os.path.join(ROOT, meson))
    check(len(have) >= 10 and len(entries) >= len(have) - len(plugin_names),
          f"chtbench {args[0]}: {len(have)} names, {meson}: {len(entries)} entries")
    bad = problems(names or [], have, plugin_names, entries)
    check(not bad, f"docs/design.md's {heading.lower()} are the build's " + (": " + "; ".join(bad) if bad else
          f"({len(have)} listed, {sum(n in have for n in names)} of {len(names)} names listed here)"))
    dupes = sorted({n for n in names if names.count(n) > 1})
    check(not dupes, f"each {heading.lower()[:-1]} named once" + (f": {dupes}" if dupes else ""))

# the rules can fail: one planted mistake each, on a made-up build
entries = {"a-x": "built-in", "b-y": "feature", "rs-m": "plugin", "c-z": "built-in"}
have = {"a-x", "rs-m", "c-z"}
check(problems(["a-x", "b-y", "c-z", "rs-*"], have, {"rs-m"}, entries) == [],
      "a doc naming the built-ins, an optional entry not built and a plugin family passes")
check(problems(["a-x", "rs-*"], have, {"rs-m"}, entries) == ["listed but not named: c-z"],
      "a listed name the doc lacks is caught")
check(problems(["a-x", "c-z", "rs-*", "gone"], have, {"rs-m"}, entries) == ["named but neither listed nor an entry: gone"],
      "a name that is neither listed nor an entry is caught")
check(problems(["a-x", "c-z", "rs-*", "d-w"], have, {"rs-m"}, {**entries, "d-w": "built-in"})
      == ["named but not listed (a built-in entry): d-w"], "a built-in entry the build does not list is caught")
check(problems(["a-*", "c-z", "rs-*"], have, {"rs-m"}, entries) == ["pattern a-* covers entries that are not a plugin's: a-x"],
      "a pattern over a built-in entry is caught")
check(problems(["a-x", "c-z", "rs-*", "go-*"], have, {"rs-m"}, entries) == ["pattern matches nothing: go-*"],
      "a pattern matching nothing is caught")
check(doc_names("### Tables\n| t | w |\n|---|---|\n| `p`, `q` | `not-a-name` |\n", "Tables") == ["p", "q"],
      "only the first column's backticked names are read")
finish()
