#!/usr/bin/python3
"""scripts/report in a real browser (issue 24), on figures drawn from synthetic rows.

test_report.py BUILD_DIR: draws three figures with the real figure code (chtb.figure.finish) from
made-up CSV rows (one of them mixing two builds, one skipped), writes the report, loads it in headless
Chromium over the DevTools protocol (--remote-debugging-pipe, standard library only) and checks that
every image loads (natural size > 0), that there are no console errors, and that each figure's verdicts
on the page equal its NAME.md word for word. It saves a screenshot as BUILD_DIR/report-screenshot.png.
Then it breaks a copy of the page (a missing image, a console.error, one verdict word changed) and
checks that each of the three is caught. Also: the page's content without a browser, --compare, and
one-line usage errors. Exit 77 (skip) with the reason only when there is no Chromium.
"""
import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(HERE), "scripts")
sys.path.insert(0, SCRIPTS)
PY = "/usr/bin/python3"

import pandas as pd  # noqa: E402

from chtb import figure, plot, style  # noqa: E402

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


# --- figures from synthetic rows -------------------------------------------------------------

def rows(tables, threads, value, key="table", git_revs=("abc1234",), metric="mops", reps=3):
    out = []
    for t in tables:
        for n in threads:
            for r in range(reps):
                rev = git_revs[r % len(git_revs)]
                out.append({key: t, "options": "-", "threads": str(n), "rep": str(r), metric: str(value(t, n, r)),
                            "git_rev": rev, "host": "testhost", "build_type": "release", "compiler": "gcc",
                            "sanitizer": "none", "allocator": "libc", "version": "1",
                            "run_id": f"run-{rev}", "timestamp": f"2026-11-24T10:0{r}:00.000Z"})
    return pd.DataFrame(rows_fix(out, key))


def rows_fix(out, key):
    if key == "lock":   # lock-bench rows have no table/options columns
        for o in out:
            o.pop("options")
    return out


def make_figures(root):
    """Three figure folders under root; returns {name: figure config}."""
    figs = {}
    # fig3.6: CLHT-LB fastest everywhere, URCU slow: both checks hold
    name = "fig3.6-threads"
    fig = figure.load(figure.figure_path(name))
    speed = {"clht-lb": 20, "clht-lf": 18, "cuckoo": 9, "hopscotch": 10, "urcu": 1.2, "tbb": 3}
    df = rows(list(speed), [1, 2, 4], lambda t, n, r: speed[t] * n * (1 + 0.01 * r))
    out = os.path.join(root, name)
    os.makedirs(out)
    df.to_csv(os.path.join(out, "results-quick.csv"), index=False)
    json.dump({"hostname": "testhost", "cpu_model": "Test CPU 3000", "sockets": 1, "cores": 4, "pus": 8,
               "numa_nodes": 1, "kernel": "Linux 6.1.0-test", "thp": "madvise", "cpu_governor": None,
               "git_revision": "abc1234", "git_dirty": False}, open(os.path.join(out, "machine.json"), "w"))
    rc = figure.finish(name, fig, plot.add_columns(df), out, "quick", os.path.join(out, "results-quick.csv"),
                       stream=open(os.devnull, "w"))
    check(rc == 0, f"figure.finish draws {name} from synthetic rows")
    figs[name] = fig
    # lock-thrashing: rows from two builds (the warning badge); ticket collapses, waiter does not
    name = "lock-thrashing"
    fig = figure.load(figure.figure_path(name))
    peak = {"ticket": 30, "mcs": 25, "clh": 24, "tas": 8, "ttas": 12, "pthread-mutex": 6, "waiter": 20}

    def acq(t, n, r):
        v = peak[t] * 1e6 * (n if n <= 2 else 2) / 2
        if t in ("ticket", "mcs", "clh") and n >= 8:
            v /= 50
        return v
    df = rows(list(peak), [1, 2, 4, 8], acq, key="lock", git_revs=("abc1234", "def5678"), metric="acq_per_s")
    df = pd.concat([df.assign(ncs="32"), df.assign(ncs="4096")], ignore_index=True)   # its two contention levels
    out = os.path.join(root, name)
    os.makedirs(out)
    df.to_csv(os.path.join(out, "results-quick.csv"), index=False)
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = figure.finish(name, fig, plot.add_columns(df), out, "quick", os.path.join(out, "results-quick.csv"),
                           stream=open(os.devnull, "w"))
    check(rc == 0 and "warning: the data mixes 2 builds/hosts" in err.getvalue(),
          f"figure.finish draws {name} from synthetic rows of two builds, warning about them")
    figs[name] = fig
    # a figure this machine cannot run
    name = "fig4.4-rtm-vs-fine"
    fig = figure.load(figure.figure_path(name))
    out = os.path.join(root, name)
    os.makedirs(out)
    figure.write_page(os.path.join(out, name + ".md"), name, fig, "quick",
                      skipped="RTM locks are unavailable: this CPU has no RTM")
    figs[name] = fig
    return figs


def md_verdicts(path):
    """(text, word, reason) per verdict of NAME.md, read independently of chtb.report."""
    text = open(path, encoding="utf-8").read()
    out = []
    for m in re.finditer(r"^- (.*): \*\*(holds|does not hold|not measurable here)\*\* \((.*)\)$", text, re.M):
        out.append((m.group(1), m.group(2), "(" + m.group(3) + ")"))
    m = re.search(r"^\*\*Skipped on this machine\*\*: (.*)\.$", text, re.M)
    if m:
        out.append(("the figure", "not measurable here", "(" + m.group(1) + ")"))
    return out


# --- headless Chromium over the DevTools protocol (a pipe: fd 3 in, fd 4 out) ------------------

def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(c)
        if p:
            return p
    return None


class Browser:
    def __init__(self, exe, tmp):
        to_chrome_r, self.w = os.pipe()
        self.r, from_chrome_w = os.pipe()
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                f"--user-data-dir={tmp}", "about:blank"]
        cmd = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
        self.proc = subprocess.Popen(["sh", "-c", f"exec {cmd} 3<&{to_chrome_r} 4>&{from_chrome_w}"],
                                     pass_fds=(to_chrome_r, from_chrome_w), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read(deadline))
        except TimeoutError:
            pass

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (TimeoutError, EOFError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.r)
        os.close(self.w)


PROBE = """JSON.stringify({
  images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), complete: i.complete,
                                                 w: i.naturalWidth, h: i.naturalHeight})),
  figures: Array.from(document.querySelectorAll('section.figure')).map(s => ({
    name: s.dataset.name,
    verdicts: Array.from(s.querySelectorAll('li.verdict')).map(li => [
      li.querySelector('.vtext').textContent, li.querySelector('.vword').textContent,
      li.querySelector('.vreason').textContent])})),
  index: Array.from(document.querySelectorAll('table.index tr')).length - 1,
  height: document.documentElement.scrollHeight})"""


def inspect(exe, url, tmp, screenshot=None):
    """Loads url; returns (probe result, console errors)."""
    b = Browser(exe, tmp)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        sess = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for dom in ("Page.enable", "Runtime.enable", "Log.enable"):
            b.send(dom, session=sess)
        b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1,
                                                      "mobile": False}, session=sess)
        b.send("Page.navigate", {"url": url}, session=sess)
        b.wait_event("Page.loadEventFired")
        b.drain(0.5)   # late console messages
        res = json.loads(b.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                session=sess)["result"]["value"])
        if screenshot:
            b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": min(res["height"], 6000),
                                                          "deviceScaleFactor": 1, "mobile": False}, session=sess)
            shot = b.send("Page.captureScreenshot", {"format": "png"}, session=sess, timeout=60)
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        errors = []
        for e in b.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif e.get("method") == "Runtime.exceptionThrown":
                errors.append(p.get("exceptionDetails", {}).get("text", "exception"))
            elif e.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append(p["entry"].get("text", ""))
        return res, errors
    finally:
        b.close()


def problems(res, errors, figs_dir):
    """Every problem a reader would see: broken images, console errors, verdicts unlike NAME.md."""
    out = []
    for i in res["images"]:
        if not i["complete"] or i["w"] <= 0 or i["h"] <= 0:
            out.append(f"broken image {i['src']}")
    out += [f"console error: {e}" for e in errors]
    for f in res["figures"]:
        want = md_verdicts(os.path.join(figs_dir, f["name"], f["name"] + ".md"))
        got = [tuple(v) for v in f["verdicts"]]
        if got != want:
            out.append(f"verdicts of {f['name']} differ from its NAME.md: page {got} vs {want}")
    return out


def style_checks():
    """Presentation rules on synthetic aggregates, in process (no browser)."""
    import collections
    import matplotlib
    import matplotlib.text
    pairs = collections.Counter(style.PALETTE.values())
    check(max(pairs.values()) == 1, "no two tables or locks share both colour and marker")
    groups = [["clht-lb", "clht-lf", "cuckoo", "hopscotch", "urcu", "tbb"], ["hotring", "chain", "clht-lb", "dense"],
              ["ticket", "mcs", "clh", "tas", "ttas", "pthread-mutex", "waiter"],
              ["mcs", "htm-retry", "slr-mcs", "scm-ttas", "slr-scm-mcs"],
              ["c-rw-np", "c-rw-rp", "c-rw-rp-opt", "c-rw-wp", "pthread-rwlock", "mcs"]]
    for g in groups:
        check(len({style.PALETTE[n][0] for n in g}) == len(g), f"distinct colours within {g[:3]}...")
    check(style.styles(["clht-rtm:lock=mcs"])["clht-rtm:lock=mcs"][:2] == style.PALETTE["mcs"]
          and style.styles(["mcs"])["mcs"][:2] == style.PALETTE["mcs"], "a table under a lock wears the lock's style")
    lab = style.series_labels(["hotring:strategy=sample,rehash=0", "hotring:strategy=random,rehash=0", "clht-lb"])
    check(list(lab.values()) == ["HotRing (strategy=sample)", "HotRing (strategy=random)", "CLHT-LB"],
          f"series labels: display name + only the options that vary: {list(lab.values())}")
    lab = style.series_labels(["hotring:strategy=sample,rehash=0", "chain"],
                              {"hotring:strategy=sample,rehash=0": "HotRing-s"})
    check(list(lab.values()) == ["HotRing-s", "chaining"], f"a figure's labels map wins: {list(lab.values())}")
    t = style.panel_titles(["lat_get_suc_p99_ns 1", "lat_get_suc_p999_ns 2"], ["metric", "threads"],
                           ["lat_get_suc_p99_ns", "lat_get_suc_p999_ns"])
    check(list(t.values()) == ["p99, 1 thread", "p99.9, 2 threads"], f"panel titles in words: {list(t.values())}")
    check(style.panel_titles(["initial=1048576"], "initial", ["mops"]) == {"initial=1048576": "i = 2^20"},
          "a size facet in words")
    # a log axis over three decades: 1-2-5 labels, plain numbers; every text >= 7 pt; paper widths
    agg = pd.DataFrame({"facet": [""] * 8, "series": ["ticket"] * 4 + ["waiter"] * 4, "x": ["1", "2", "4", "8"] * 2,
                        "median": [30.0, 2.0, 0.5, 0.18, 20.0, 22.0, 21.0, 19.0]})
    agg["min"], agg["max"], agg["q1"], agg["q3"], agg["n"] = agg["median"] * 0.9, agg["median"] * 1.1, 0, 0, 3
    agg.attrs.update(x="threads", y=["macq_per_s"], series="lock", facet=None)
    with matplotlib.rc_context(plot.RC):
        for width in (3.5, 7.0):
            f = plot.draw_one(agg, width, "line", None, None, False, True, "A title\nafter someone", "minmax",
                               True, None)
            f.canvas.draw()
            ax = f.axes[0]
            texts = [o for o in f.findobj(matplotlib.text.Text) if o.get_visible() and o.get_text().strip()]
            small = [(o.get_text(), o.get_fontsize()) for o in texts if o.get_fontsize() < 7]
            check(f.get_size_inches()[0] == width and not small and len(texts) > 10,
                  f"{width} in wide, {len(texts)} texts, none under 7 pt {small[:3]}")
            ylabels = [t.get_text() for t in ax.get_yticklabels()
                       if t.get_text() and ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]]
            check(ylabels == ["0.2", "0.5", "1", "2", "5", "10", "20"],
                  f"log axis 0.18..33: labels 1-2-5 per decade as plain numbers: {ylabels}")
            r = f.canvas.get_renderer()
            leg = f.legends[0].get_window_extent(r)
            axb = ax.get_tightbbox(r)
            check(leg.y0 >= 0 and leg.y1 <= axb.y0 + 1,
                  f"the legend lies inside the figure, below the axes' labels ({leg.y0:.0f}..{leg.y1:.0f} px, "
                  f"axes from {axb.y0:.0f} px)")
            legend = [t.get_text() for t in f.legends[0].get_texts()]
            check(legend == ["ticket", "waiter-count"], f"legend in words: {legend}")
            import matplotlib.pyplot as plt
            plt.close(f)


def main():
    style_checks()
    build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="chtb-report-")
    try:
        figs_dir = os.path.join(tmp, "figures")
        figs = make_figures(figs_dir)
        out = os.path.join(tmp, "report", "index.html")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "report"), figs_dir, "--out", out],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0 and r.stdout.strip() == out, f"scripts/report DIR --out: exit {r.returncode} "
              f"({r.stderr.strip()[-200:]})")
        page = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
        # the page without a browser: no script, nothing fetched, everything it should show
        check("<script" not in page and not re.search(r"(src|href)=\"(https?:)?//", page),
              "no script and no remote resource on the page")
        fig36 = os.path.join(figs_dir, "fig3.6-threads")
        for want, what in [
            ('src="../figures/fig3.6-threads/fig3.6-threads.png"', "the image, by a relative path"),
            ('href="../figures/fig3.6-threads/results-quick.csv"', "a link to the CSV"),
            ("HotRing" not in page and "Concurrent Hashing on Multi-core Systems" in page and
             "PhD thesis, Hunan University, 2017; fig. 3.6", "the citation of the work, not a file"),
            ("Test CPU 3000", "the machine (machine.json)"),
            ("Marks are medians over 3 repetitions of each cell; error bars run from the smallest to the largest "
             "value.</figcaption>", "the caption explaining the error bars"),
            ("Build: abc1234 (release, gcc, sanitizer none", "the build and its git revision"),
            ("2026-11-24 10:00 – 2026-11-24 10:02 UTC", "when it ran"),
            ('<span class="badge warnb">mixed builds/hosts</span> the data mixes 2 builds/hosts', "the warning "
             "badge for the figure whose rows come from two builds"),
            ("RTM locks are unavailable: this CPU has no RTM", "the reason a figure was not measurable"),
            ("<th>CLHT-LB</th>", "human series names in the medians table"),
        ]:
            check((want in page) if isinstance(want, str) else want, f"page shows {what}")
        nwarn = page.count('class="badge warnb"')
        check(nwarn == 2, f"exactly one figure (two badges: index + section) is marked as mixing builds ({nwarn})")
        med = pd.read_csv(os.path.join(fig36, "results-quick.csv"))
        v = med[(med.table == "clht-lb") & (med.threads == 4)]["mops"].median()
        check(f'<td class="num">{style.fmt_num(v)}</td>' in page and "e+" not in page.split("<h2")[-1],
              f"medians as plain numbers ({style.fmt_num(v)}), no scientific notation")
        check([style.fmt_num(x) for x in (1712.4, 0.1834, 12.345, 1e7, 99.96, 0)]
              == ["1,712", "0.183", "12.3", "10,000,000", "100.0", "0"],
              "fmt_num: 3 significant figures, thousands separators, no e-notation")
        # the browser
        exe = chromium()
        if not exe:
            print("SKIP: no chromium on PATH (scripts/install-deps installs Debian's chromium); the browser "
                  "checks did not run")
            return 1 if FAILS else 77
        shot = os.path.join(build, "report-screenshot.png")
        t0 = time.monotonic()
        res, errors = inspect(exe, "file://" + out, os.path.join(tmp, "profile"), screenshot=shot)
        found = problems(res, errors, figs_dir)
        check(not found, f"Chromium: {len(res['images'])} images load, no console errors, verdicts equal "
              f"NAME.md ({time.monotonic() - t0:.1f} s){'; ' + '; '.join(found) if found else ''}")
        check(len(res["images"]) == 2 and all(i["w"] > 1000 for i in res["images"]),
              f"two figure images, drawn at print resolution: {[(i['src'], i['w']) for i in res['images']]}")
        check([f["name"] for f in res["figures"]] == sorted(figs) and res["index"] == 3,
              f"three figure sections and three index rows: {[f['name'] for f in res['figures']]}")
        nver = sum(len(f["verdicts"]) for f in res["figures"])
        check(nver == len(figs["fig3.6-threads"]["check"]) + len(figs["lock-thrashing"]["check"]) + 1,
              f"every check of every figure is on the page ({nver})")
        check(os.path.exists(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
              and os.path.getsize(shot) > 50000, f"screenshot {shot}")
        print(f"screenshot: {shot}")
        # the checker must catch what a reader would: break a copy of the page three ways
        broken = os.path.join(os.path.dirname(out), "broken.html")
        bad = page.replace('<h2 id="index">', '<img src="no-such-figure.png" alt="x"><h2 id="index">', 1)
        bad = bad.replace("</body>", "<script>console.error('deliberate console error')</script></body>")
        first = res["figures"][1]["verdicts"][0]
        flip = "does not hold" if first[1] == "holds" else "holds"
        bad = bad.replace(f'">{first[1]}</span> <span class="vreason">{first[2]}',
                          f'">{flip}</span> <span class="vreason">{first[2]}', 1)
        check(bad.count("no-such-figure.png") == 1 and "deliberate" in bad and bad.count(f'">{flip}</span>')
              == page.count(f'">{flip}</span>') + 1, "the broken copy has the three faults")
        open(broken, "w", encoding="utf-8").write(bad)
        res2, errors2 = inspect(exe, "file://" + broken, os.path.join(tmp, "profile2"))
        found2 = problems(res2, errors2, figs_dir)
        check(any(p == "broken image no-such-figure.png" for p in found2), "a broken image is caught")
        check(any("deliberate console error" in p for p in found2), "a console error is caught")
        check(any(p.startswith(f"verdicts of {res['figures'][1]['name']} differ") for p in found2),
              "a verdict unlike NAME.md is caught")
        # --compare: the same figures of two folders side by side
        other = os.path.join(tmp, "figures-b")
        shutil.copytree(figs_dir, other)
        shutil.rmtree(os.path.join(other, "lock-thrashing"))
        cmp_out = os.path.join(tmp, "report", "compare.html")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "report"), "--compare", figs_dir, other, "--out", cmp_out],
                           capture_output=True, text=True, timeout=120)
        cmp_page = open(cmp_out, encoding="utf-8").read() if r.returncode == 0 else ""
        check(r.returncode == 0 and cmp_page.count('<div class="cmp">') == 3
              and cmp_page.count("Not in these results.") == 1 and cmp_page.count("<strong>Claim.</strong>") == 3
              and 'src="../figures-b/fig3.6-threads/fig3.6-threads.png"' in cmp_page,
              f"--compare: three figures side by side (the claim once each), one absent in B (exit {r.returncode})")
        res3, errors3 = inspect(exe, "file://" + cmp_out, os.path.join(tmp, "profile3"))
        check(len(res3["images"]) == 3 and not [p for p in problems(res3, errors3, figs_dir)
                                                if not p.startswith("verdicts")],
              f"--compare page loads in Chromium: {len(res3['images'])} images, no errors")
        # usage errors: one line, exit 2
        for args, want in [([os.path.join(tmp, "nowhere")], "is not a directory"),
                           ([os.path.join(tmp, "report")], "no figures under"),
                           ([figs_dir, "--compare", figs_dir, other], "not both")]:
            r = subprocess.run([PY, os.path.join(SCRIPTS, "report")] + args + ["--out", os.path.join(tmp, "x.html")],
                               capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and want in r.stderr
                  and "Traceback" not in r.stderr, f"usage error '{want}': exit {r.returncode}, {r.stderr.strip()!r}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    with open(os.path.join(os.path.dirname(HERE), "scripts", "figures", "fig3.6-threads.toml"), "rb") as f:
        tomllib.load(f)   # the figure configs the test draws must parse
    sys.exit(main())
