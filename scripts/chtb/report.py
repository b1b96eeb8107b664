"""scripts/report [DIR] [--out FILE]   |   scripts/report --compare DIR_A DIR_B [--out FILE]

One static HTML page (inline CSS, no script, nothing fetched) showing every figure under DIR
(default results/figures; one folder per figure as scripts/figure writes it): the image, the claim
and the work it comes from, each verdict (holds / does not hold / not measurable here, with the
reason), the medians table, when, on which machine and from which build it ran (a warning badge
when a figure's rows come from several builds or hosts), links to the CSVs, and an index table of
every figure and its verdicts. --compare puts the same figures of two result folders (two machines
or two builds) side by side. The verdicts are those of each NAME.md, word for word.
"""
import argparse
import glob
import html
import json
import os
import re
import sys
import time
import tomllib

from . import REPO, machine, provenance, style

WORDS = {"holds": "holds", "does not hold": "does not hold", "not measurable here": "not measurable here",
         "unknown": "not measurable here"}
_VERDICT = re.compile(r"^- (.*): \*\*(holds|does not hold|not measurable here|unknown)\*\* \((.*)\)\s*$")


class UsageError(Exception):
    pass


# --- reading one figure's folder --------------------------------------------------------------

def parse_page(text):
    """NAME.md -> {title, source, claim, verdicts [(text, word, detail)], skipped, medians (header,
    rows), medians_title, build [lines], run, machine, notes}."""
    out = {"title": "", "source": "", "claim": "", "verdicts": [], "skipped": None, "medians": None,
           "medians_title": "", "build": [], "run": "", "machine": "", "notes": "", "caption": "",
           "medians_more": []}   # further tables of the Medians section (plot parts, chosen values,
    #                               reference curves): [(the line above it, header, rows)]
    section = None
    lines = text.splitlines()
    claim, notes = [], []
    for i, line in enumerate(lines):
        if line.startswith("# ") and not out["title"]:
            out["title"] = line[2:].strip()
        elif line.startswith("## "):
            section = line[3:].strip()
            if section.startswith("Medians"):
                out["medians_title"] = section
        elif line.startswith("Source:") and section is None:
            out["source"] = line[len("Source:"):].split("; cited lines:")[0].strip()
        elif line.startswith("**Figure.**"):
            out["caption"] = line[len("**Figure.**"):].strip()
        elif section == "Claim (source)":
            claim.append(line)
        elif section == "Notes":
            notes.append(line)
        elif section and section.startswith("Verdict"):
            m = _VERDICT.match(line)
            if m:
                out["verdicts"].append((m.group(1), WORDS[m.group(2)], m.group(3)))
        elif section == "Result" and line.startswith("**Skipped on this machine**:"):
            out["skipped"] = line.split(":", 1)[1].strip().rstrip(".")
        elif section and section.startswith("Medians") and line.startswith("|") and not lines[i - 1].startswith("|"):
            rows = []
            for row in lines[i:]:
                if not row.startswith("|"):
                    break
                if re.match(r"^\|(-+\|)+$", row.replace(" ", "")):
                    continue
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            above = next((x for x in reversed(lines[:i]) if x.strip()), "")
            if out["medians"] is None:
                out["medians"] = (rows[0], rows[1:]) if rows else None
                if above.startswith("### "):
                    out["medians_title"] += " — " + above[4:].strip()
            elif rows:
                out["medians_more"].append((above.lstrip("#").strip(), rows[0], rows[1:]))
        elif section == "Run":
            if line.startswith("Build:") or line.startswith("**Warning") or line.startswith("- "):
                out["build"].append(line)
            elif line.startswith("Machine:"):
                out["machine"] = line[len("Machine:"):].strip()
            elif line.startswith("Scale") or line.startswith("Error bars"):
                out["run"] += line + " "
    out["claim"] = "\n".join(claim).strip()
    out["notes"] = "\n".join(notes).strip()
    return out


def read_figure(d):
    """One figure folder -> a dict for the page, or None when it holds no NAME.md."""
    pages = sorted(glob.glob(os.path.join(d, "*.md")))
    if not pages:
        return None
    own = os.path.join(d, os.path.basename(os.path.normpath(d)) + ".md")   # scripts/figure's NAME/NAME.md
    page = own if own in pages else pages[0]
    name = os.path.splitext(os.path.basename(page))[0]
    with open(page, encoding="utf-8") as f:
        fig = parse_page(f.read())
    fig.update(name=name, dir=d, page=page, png=None, csvs=[], when="", warn=None, hosts=[], revs=[],
               machine_json=None, cite_short=fig["source"], cite_full=fig["source"], claim_title="")
    for ext in ("png",):
        p = os.path.join(d, f"{name}.{ext}")
        if os.path.exists(p):
            fig["png"] = p
    fig["others"] = [p for p in (os.path.join(d, f"{name}{v}.{e}") for v, e in
                                 (("", "pdf"), ("", "svg"), ("-1col", "pdf"), ("-1col", "svg"), ("-1col", "png")))
                     if os.path.exists(p)]
    fig["csvs"] = sorted(p for p in glob.glob(os.path.join(d, "*.csv")))
    toml = os.path.join(REPO, "scripts", "figures", name + ".toml")
    if os.path.exists(toml):
        try:
            with open(toml, "rb") as f:
                conf = tomllib.load(f)
            fig["source"] = conf.get("source", fig["source"])
        except (OSError, tomllib.TOMLDecodeError):
            pass
    fig["cite_short"], fig["cite_full"] = style.citation(fig["source"])
    mj = os.path.join(d, "machine.json")
    if os.path.exists(mj):
        try:
            with open(mj) as f:
                fig["machine_json"] = json.load(f)
        except (OSError, ValueError):
            pass
    data = [p for p in fig["csvs"] if re.match(r"(results|timeline)-[a-z]+\.csv$", os.path.basename(p))]
    if data:
        import pandas as pd
        frames = []
        for p in data:
            try:
                frames.append(pd.read_csv(p, dtype=str, keep_default_na=False))
            except (ValueError, OSError, UnicodeDecodeError):
                continue
        df = pd.concat(frames, ignore_index=True) if frames else None
        if df is not None and not df.empty:
            runs = provenance.read_runs(d)
            fig["warn"] = provenance.mixed_warning(df, runs)
            if "timestamp" in df.columns:
                ts = sorted(t for t in df["timestamp"] if t)
                if ts:
                    fig["when"] = ts[0][:16].replace("T", " ") + (
                        f" – {ts[-1][:16].replace('T', ' ')}" if ts[-1][:16] != ts[0][:16] else "") + " UTC"
            fig["hosts"] = sorted(set(df["host"])) if "host" in df.columns else []
            fig["revs"] = sorted(set(df["git_rev"])) if "git_rev" in df.columns else []
    return fig


def collect(root):
    if not os.path.isdir(root):
        raise UsageError(f"report: {root} is not a directory (scripts/figure NAME writes results/figures/NAME)")
    figs = [read_figure(d) for d in sorted(glob.glob(os.path.join(root, "*"))) if os.path.isdir(d)]
    figs = [f for f in figs if f]
    if not figs:
        raise UsageError(f"report: no figures under {root} (each figure is a folder with NAME.md; "
                         "scripts/figure NAME --scale quick makes one)")
    return figs


# --- HTML --------------------------------------------------------------------------------------

def inline(text):
    """The Markdown the pages use inline (`code`, **bold**, *italic*) as escaped HTML."""
    t = html.escape(text, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"\*([^*]+)\*", r"<em>\1</em>", t)
    return t


def _cls(word):
    return {"holds": "ok", "does not hold": "bad"}.get(word, "na")


def _href(path, out_dir):
    return html.escape(os.path.relpath(path, out_dir).replace(os.sep, "/"), quote=True)


CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1a1a1a;
 margin:0 auto;max-width:1180px;padding:1.2em 1.5em 4em;background:#fff}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:0 0 .3em}h3{font-size:1em;margin:1em 0 .3em}
a{color:#0b5cad}code{font-size:.9em;background:#f2f2f2;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;margin:.4em 0;font-size:.9em}
th,td{border:1px solid #d6d6d6;padding:.2em .55em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;border-radius:3px;padding:0 .45em;font-size:.85em;font-weight:600;white-space:nowrap}
.ok{background:#dcefe3;color:#0b5a2a}.bad{background:#f8dcdc;color:#8a1414}.na{background:#ececec;color:#444}
.warnb{background:#fff0c2;color:#6b4a00}
section.figure{border-top:2px solid #ddd;padding-top:1em;margin-top:2em}
.cite{color:#444;font-size:.92em}.meta{color:#555;font-size:.88em}
img.plot{max-width:100%;height:auto;border:1px solid #eee}figure{margin:.5em 0}
ul.verdicts{padding-left:1.2em}ul.verdicts li{margin:.25em 0}
.cmp{display:grid;grid-template-columns:1fr 1fr;gap:1.2em}.cmp>div{min-width:0}
.missing{color:#777;font-style:italic}
"""


def verdict_items(fig):
    """[(text, word, reason)] shown for a figure: its checks, or one line when it was skipped."""
    if fig["skipped"]:
        return [("the figure", "not measurable here", fig["skipped"])]
    return fig["verdicts"]


def verdicts_html(fig):
    items = verdict_items(fig)
    if not items:
        return '<p class="missing">No computed verdicts on this page.</p>'
    lis = []
    for text, word, reason in items:
        lis.append(f'<li class="verdict" data-figure="{html.escape(fig["name"])}"><span class="vtext">'
                   f'{inline(text)}</span>: <span class="badge vword {_cls(word)}">{word}</span> '
                   f'<span class="vreason">({inline(reason)})</span></li>')
    return '<ul class="verdicts">' + "".join(lis) + "</ul>"


def medians_html(fig):
    if not fig["medians"]:
        return ""
    title = inline(fig["medians_title"] or "Medians")
    out = f"<h3>{title}</h3>" + _table_html(*fig["medians"])
    for above, head, rows in fig.get("medians_more", []):
        out += f"<p>{inline(above)}</p>" + _table_html(head, rows)
    return out


def _table_html(head, rows):
    th = "".join(f"<th>{inline(h)}</th>" for h in head)
    body = []
    for r in rows:
        tds = []
        for i, c in enumerate(r):
            num = i > 0 and re.fullmatch(r"[-0-9.,e+]+|—", c)
            tds.append(f'<td class="num">{html.escape(c)}</td>' if num else f"<td>{inline(c)}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    return f"<table class=\"medians\"><tr>{th}</tr>{''.join(body)}</table>"


def provenance_html(fig, out_dir):
    parts = []
    if fig["when"]:
        parts.append(f"Ran {html.escape(fig['when'])}.")
    m = fig["machine_json"]
    if m:
        parts.append("Machine: " + html.escape(machine.summary(m)) + ".")
    elif fig["machine"]:
        parts.append("Machine: " + inline(fig["machine"]))
    builds = [inline(line) for line in fig["build"] if line.startswith("Build:")]
    if fig["revs"] and not builds:   # the page names no build (older pages): the CSV's revisions
        parts.append("git " + ", ".join(f"<code>{html.escape(r)}</code>" for r in fig["revs"]) + ".")
    parts += builds
    if fig["run"]:
        parts.append(inline(fig["run"].strip()))
    warn = ""
    if fig["warn"]:
        warn = (f'<p><span class="badge warnb">mixed builds/hosts</span> {html.escape(fig["warn"])}</p>')
    links = [f'<a href="{_href(p, out_dir)}">{html.escape(os.path.basename(p))}</a>'
             for p in fig["csvs"] + fig["others"] + [fig["page"]]]
    return (warn + f'<p class="meta">{" ".join(parts)}</p>'
            + (f'<p class="meta">Files: {" · ".join(links)}</p>' if links else ""))


def claim_html(fig):
    return f'<p><strong>Claim.</strong> {inline(fig["claim"])}</p>' if fig["claim"] else ""


def figure_body(fig, out_dir, with_claim=True):
    cap = f'<figcaption class="meta">{inline(fig["caption"])}</figcaption>' if fig["caption"] else ""
    img = (f'<figure><img class="plot" src="{_href(fig["png"], out_dir)}" alt="{html.escape(fig["title"])}">'
           f'{cap}</figure>' if fig["png"] else '<p class="missing">No image (the figure was not drawn on this machine).</p>')
    claim = claim_html(fig) if with_claim else ""
    notes = f'<p class="meta"><strong>Notes.</strong> {inline(fig["notes"])}</p>' if fig["notes"] else ""
    return (img + claim + "<h3>Verdict on this machine</h3>" + verdicts_html(fig) + medians_html(fig)
            + provenance_html(fig, out_dir) + notes)


def summary_badges(fig):
    items = verdict_items(fig)
    counts = {}
    for _, w, _ in items:
        counts[w] = counts.get(w, 0) + 1
    b = " ".join(f'<span class="badge {_cls(w)}">{n} {w}</span>' for w, n in counts.items())
    if fig["warn"]:
        b += ' <span class="badge warnb">mixed builds/hosts</span>'
    return b or '<span class="badge na">no checks</span>'


def page(title, head_html, index_rows, sections):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{head_html}"
            "<h2 id=\"index\">All figures</h2><table class=\"index\">"
            f"{index_rows}</table>{sections}</body></html>\n")


def machines_html(figs):
    seen = {}
    for f in figs:
        m = f["machine_json"]
        if m:
            seen.setdefault(machine.summary(m), []).append(f["name"])
    if not seen:
        return '<p class="meta">No machine.json in these results.</p>'
    return "<ul class=\"meta\">" + "".join(
        f"<li>{html.escape(s)} ({len(n)} figure{'s' if len(n) != 1 else ''})</li>" for s, n in seen.items()) + "</ul>"


def render(root, out):
    figs = collect(root)
    out_dir = os.path.dirname(os.path.abspath(out))
    rows = "<tr><th>figure</th><th>what it shows</th><th>after</th><th>verdicts</th></tr>" + "".join(
        f'<tr><td><a href="#fig-{html.escape(f["name"])}">{html.escape(f["name"])}</a></td>'
        f'<td>{inline(f["title"])}</td><td>{inline(f["cite_short"])}</td><td>{summary_badges(f)}</td></tr>'
        for f in figs)
    sections = "".join(
        f'<section class="figure" id="fig-{html.escape(f["name"])}" data-name="{html.escape(f["name"])}">'
        f'<h2>{inline(f["title"])}</h2><p class="cite">After {inline(f["cite_full"])}</p>'
        f"{figure_body(f, out_dir)}</section>" for f in figs)
    head = (f'<p class="meta">{len(figs)} figures from <code>{html.escape(os.path.abspath(root))}</code>; '
            f'page written {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())} by <code>scripts/report</code>.'
            "</p><h3>Machines</h3>" + machines_html(figs))
    return page("chtbench results", head, rows, sections)


def render_compare(root_a, root_b, out):
    a = {f["name"]: f for f in collect(root_a)}
    b = {f["name"]: f for f in collect(root_b)}
    out_dir = os.path.dirname(os.path.abspath(out))
    names = sorted(set(a) | set(b))
    lab_a, lab_b = html.escape(os.path.abspath(root_a)), html.escape(os.path.abspath(root_b))
    rows = "<tr><th>figure</th><th>after</th><th>A</th><th>B</th></tr>"
    sections = ""
    for n in names:
        fa, fb = a.get(n), b.get(n)
        any_f = fa or fb
        cell = (lambda f: summary_badges(f) if f else '<span class="badge na">absent</span>')
        rows += (f'<tr><td><a href="#fig-{html.escape(n)}">{html.escape(n)}</a></td>'
                 f'<td>{inline(any_f["cite_short"])}</td><td>{cell(fa)}</td><td>{cell(fb)}</td></tr>')
        side = (lambda f, lab: f"<div><h3>{lab}</h3>" + (figure_body(f, out_dir, with_claim=False) if f else
                                                         '<p class="missing">Not in these results.</p>') + "</div>")
        sections += (f'<section class="figure" id="fig-{html.escape(n)}" data-name="{html.escape(n)}">'
                     f'<h2>{inline(any_f["title"])}</h2><p class="cite">After {inline(any_f["cite_full"])}</p>'
                     f'{claim_html(any_f)}<div class="cmp">{side(fa, "A")}{side(fb, "B")}</div></section>')
    head = (f'<p class="meta">A: <code>{lab_a}</code><br>B: <code>{lab_b}</code><br>page written '
            f'{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())} by <code>scripts/report --compare</code>.</p>'
            "<h3>Machines of A</h3>" + machines_html(list(a.values()))
            + "<h3>Machines of B</h3>" + machines_html(list(b.values())))
    return page("chtbench results: A vs B", head, rows, sections)


def main(argv=None):
    p = argparse.ArgumentParser(prog="report", description="One static HTML page with every figure's result.")
    p.add_argument("dir", nargs="?", help="figures folder (default results/figures)")
    p.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"), help="two figures folders side by side")
    p.add_argument("--out", help="HTML file (default results/report/index.html, or compare.html with --compare)")
    a = p.parse_args(argv)
    if a.compare and a.dir:
        print("report: give either DIR or --compare DIR_A DIR_B, not both", file=sys.stderr)
        return 2
    default = "compare.html" if a.compare else "index.html"
    out = os.path.abspath(a.out or os.path.join(REPO, "results", "report", default))
    try:
        text = (render_compare(a.compare[0], a.compare[1], out) if a.compare
                else render(a.dir or os.path.join(REPO, "results", "figures"), out))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"report: {e.filename or out}: {e.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0
