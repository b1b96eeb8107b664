#!/usr/bin/python3
"""test_docs.py - reference docs are references (issue 20 point 8).

Usage: test_docs.py [REPO]

1. Outside tests/ (and build directories), no text cites the source documents by their file names,
   numbers or line numbers ("seed 00N", "seeds/", "seed00", "000_7a55....txt", "002 lines 838-1000",
   "thesis lines 657-663"): citations name the work (authors, title, venue, year, section), from
   docs/references.md.
2. Every figure's `source` and `cite` entries start with a key of docs/references.md.
3. docs/cli.md, its guides and docs/figures.md describe the tool: no dated measurement note (an ISO date, "load
   average"); dated measurements live in docs/measurements/, each file with its date in the title, and
   every link into docs/measurements/ resolves.
4. Docs link true (issue 51 point 9): every Markdown link of README.md and docs/ to a file of the tree
   resolves, and its #anchor is a heading of that file (GitHub's slugs); every citation of a doc section
   by name anywhere in the tree (`docs/csv.md "Side files"`, in C strings too) names a heading of that doc
   or a bold paragraph lead (`**Numbers and lists.**`), or, for docs/cli.md, a row of its "Sections by
   name" table, which says where each of the sections cli.md once held now is (the rows' links resolve too).
   README.md links every guide cli.md lists.
Each check is also run on a planted violation, so it can fail.
"""
import os
import re
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(HERE)
FAILS = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        FAILS.append(what)


SOURCE_REF = re.compile(r"seed 00|seeds/|seed00|\b00[0-4]_[0-9a-f]{16}\.txt|thesis 00[0-4]\b"
                        r"|thesis lines? \d|\b00[0-4] (?:lines?|chapter|ch\.|§|fig|uses|found|observed)\b"
                        r"|\b(?:of|as in) 00[0-4](?:'s)?\b")


def tree_files(root):
    """Tracked and untracked-but-not-ignored files, outside tests/ and build*/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build")) and x != "results"]
            files += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return [f for f in files if not f.startswith(("tests/", "build", ".git", "results/", ".deps"))
            and os.path.isfile(os.path.join(root, f))]


def source_refs(root, files):
    bad = []
    for f in files:
        try:
            text = open(os.path.join(root, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if SOURCE_REF.search(line):
                bad.append(f"{f}:{i}: {line.strip()[:100]}")
    return bad


def reference_keys(root):
    keys = set()
    for line in open(os.path.join(root, "docs", "references.md"), encoding="utf-8"):
        m = re.match(r"\|\s*([a-z0-9][a-z0-9-]*)\s*\|", line)
        if m and m.group(1) != "key":
            keys.add(m.group(1))
    return keys


def bad_citations(figs, keys):
    bad = []
    for name, fig in figs.items():
        for entry in [fig.get("source", "")] + list(fig.get("cite", [])):
            if entry.split(",")[0].strip() not in keys:
                bad.append(f"{name}: '{entry}'")
    return bad


DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b|load average|\bload \d+(\.\d+)?-\d+")


def dated_notes(text):
    return [line.strip()[:100] for line in text.splitlines() if DATED.search(line)]


def broken_links(root, doc):
    bad = []
    text = open(os.path.join(root, doc), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)#]*measurements/[^)#]+)\)", text):
        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(doc), target))):
            bad.append(f"{doc} -> {target}")
    return bad


GUIDES = ("docs/cli.md", "docs/flags.md", "docs/workloads.md", "docs/measurement.md", "docs/pipeline.md",
          "docs/checks.md")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, blanks to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")


def headings(text):
    """[(title, anchor)] of a Markdown text's headings (outside code fences), duplicates numbered."""
    out, seen, fence = [], {}, False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6} (.+?)\s*#*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.append((m.group(1).replace("`", ""), s if n == 0 else f"{s}-{n}"))
    return out


def section_index(text):
    """{name: link target} of the rows of cli.md's "Sections by name" table (a row may give aliases)."""
    m = re.search(r"^## Sections by name\n(.*?)(?=^## )", text, re.M | re.S)
    index = {}
    for line in (m.group(1).splitlines() if m else []):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("section", "---"):
            links = re.findall(r"\]\(([^)]*)\)", cells[1])
            for name in re.sub(r"\s*\(.*\)", "", cells[0]).split(", "):
                index[name.lower()] = links
    return index


def resolves(root, doc, name, texts):
    """Is `doc "name"` a heading or bold lead of doc, or for cli.md a row of its section index?"""
    text = texts.get(doc)
    if text is None:
        return False
    n = name.lower().rstrip(".")
    if any(h.lower().startswith(n) for h, _ in headings(text)):
        return True
    if re.search(r"\*\*" + re.escape(name.rstrip(".")) + r"[.*]", text, re.I):
        return True
    return doc == "docs/cli.md" and n in section_index(text)


CITE = re.compile(r'docs/([\w/.-]+?\.md)(?:\]\([^)\s]*\))?[ \t]+\\?"([^"\\\n]+)\\?"')


def bad_citations_by_name(root, files, texts):
    bad = []
    for f in files:
        if f.endswith((".png", ".svg", ".csv")):
            continue
        try:
            text = open(os.path.join(root, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(text.splitlines(), 1):
            for doc, name in CITE.findall(line):
                doc = "docs/" + doc
                if not resolves(root, doc, name, texts):
                    bad.append(f'{f}:{i}: {doc} "{name}"')
    return bad


def bad_links(root, doc, text, texts):
    """Links of one doc to files of the tree that do not resolve, or whose #anchor is no heading there."""
    bad = []
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(os.path.join(root, full)):
                bad.append(f"{doc} -> {target} (no such file)")
            elif anchor and full.endswith(".md"):
                if full not in texts:
                    texts[full] = open(os.path.join(root, full), encoding="utf-8").read()
                if anchor not in {a for _, a in headings(texts[full])}:
                    bad.append(f"{doc} -> {target} (no such heading)")
    return bad


def main():
    files = tree_files(ROOT)
    check(len(files) > 50 and "docs/cli.md" in files and not any(f.startswith("tests/") for f in files),
          f"the tree: {len(files)} files outside tests/ and build dirs")
    bad = source_refs(ROOT, files)
    check(not bad, "no text outside tests/ cites the source documents by file or seed number"
          + (": " + "; ".join(bad[:8]) if bad else ""))
    # the check can fail
    planted = ["/* HotRing (seed 001 fig. 14) */", "see ../shared/seeds/001_x.txt", "cite = ['000_7a5564d72d74d689.txt:1']",
               "thesis 000 §3.4", "(the ASCY patterns, thesis lines 657-663)", "spinlocks (000 chapter 5)",
               "waiter-count lock (002 lines 838-1000)", "default 64 as in 003", "the NUMA RW locks of 003 use",
               "as in 003's experiments", "002 found T = 0 best"]
    check(all(SOURCE_REF.search(p) for p in planted) and not SOURCE_REF.search("--seed 42; seeded from the seed"),
          "the pattern finds planted seed citations and spares --seed")

    keys = reference_keys(ROOT)
    figdir = os.path.join(ROOT, "scripts", "figures")
    figs = {}
    for f in sorted(os.listdir(figdir)):
        if f.endswith(".toml"):
            with open(os.path.join(figdir, f), "rb") as fh:
                figs[f] = tomllib.load(fh)
    check({"cht-thesis-2017", "hotring-fast20", "cui-thesis-2012", "numa-rw-ppopp13", "indexlib-cuckoo"} <= keys,
          f"docs/references.md keys: {sorted(keys)}")
    bad = bad_citations(figs, keys)
    check(not bad, f"every figure's source and cite entries name a work of docs/references.md ({len(figs)} figures)"
          + (": " + "; ".join(bad[:6]) if bad else ""))
    check(bad_citations({"x": {"source": "hotring-fast20, fig. 1", "cite": ["001_deeb.txt:293"]}}, keys) != [],
          "a cite naming a source file is caught")

    for doc in GUIDES + ("docs/figures.md",):
        notes = dated_notes(open(os.path.join(ROOT, doc), encoding="utf-8").read())
        check(not notes, f"{doc} holds no dated measurement note" + (": " + " | ".join(notes[:4]) if notes else ""))
    check(dated_notes("AMD EPYC VM (2026-11-23, load average 1-2; u=10)") != [], "a dated note is caught")
    mdir = os.path.join(ROOT, "docs", "measurements")
    meas = sorted(f for f in os.listdir(mdir) if f.endswith(".md")) if os.path.isdir(mdir) else []
    check(len(meas) >= 3, f"docs/measurements/ holds the measurement notes ({', '.join(meas)})")
    undated = [f for f in meas if not re.search(r"\b20\d\d-\d\d-\d\d\b", open(os.path.join(mdir, f)).read())]
    check(not undated, "every measurement note says when it was measured" + (f": not {undated}" if undated else ""))
    bad = [b for doc in GUIDES + ("docs/figures.md", "README.md") for b in broken_links(ROOT, doc)]
    check(not bad, "links into docs/measurements/ resolve" + (": " + "; ".join(bad) if bad else ""))

    docs = ["README.md"] + sorted(f for f in files if f.startswith("docs/") and f.endswith(".md"))
    texts = {d: open(os.path.join(ROOT, d), encoding="utf-8").read() for d in docs}
    bad = [b for d in docs for b in bad_links(ROOT, d, texts[d], texts)]
    check(len(docs) > 10 and not bad, f"the links of README.md and {len(docs) - 1} docs resolve, anchors too"
          + (": " + "; ".join(bad[:8]) if bad else ""))
    check(bad_links(ROOT, "docs/cli.md", "[x](flags.md#no-such-heading) [y](gone.md)", dict(texts)) != []
          and len(bad_links(ROOT, "docs/cli.md", "[x](flags.md#no-such-heading) [y](gone.md)", dict(texts))) == 2,
          "a link to a missing file and one to a missing heading are caught")
    index = section_index(texts["docs/cli.md"])
    bad = [f"{name} -> {link}" for name, links in index.items() for link in links
           if bad_links(ROOT, "docs/cli.md", f"[x]({link})", texts)]
    check(len(index) >= 20 and not bad, f"docs/cli.md's sections by name: {len(index)} names, each linked to its "
          "heading" + (": " + "; ".join(bad) if bad else ""))
    bad = bad_citations_by_name(ROOT, files, texts)
    check(not bad, "every citation of a doc section by name resolves" + (": " + "; ".join(bad[:10]) if bad else ""))
    check(not resolves(ROOT, "docs/cli.md", "No such section", texts) and resolves(ROOT, "docs/cli.md", "Memory ceiling", texts)
          and not resolves(ROOT, "docs/gone.md", "Flags", texts)
          and CITE.findall('(docs/cli.md \\"Workloads\\")') == [("cli.md", "Workloads")],
          "a citation of a missing section or doc is caught; a C string's citation is read")
    readme = texts["README.md"]
    guides = sorted(set(re.findall(r"^- \[([\w.-]+\.md)\]", texts["docs/cli.md"], re.M)))
    missing = [g for g in guides if f"(docs/{g})" not in readme]
    check(len(guides) >= 5 and not missing, f"README.md links every guide of docs/cli.md ({', '.join(guides)})"
          + (f": not {missing}" if missing else ""))
    if FAILS:
        print(f"{len(FAILS)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
