"""machine.json: which machine, kernel, build and tree made a CSV.

Counts come from hwloc (hwloc-calc), the full topology is saved as `hwloc-ls --of xml`. Where hwloc's
tools are not installed (chtbench links the library, not the tools), the counts come from the kernel's
/sys topology files and `*_source` says so. A value this machine does not expose is null with a
`*_note` saying why.
"""
import datetime
import json
import os
import platform
import socket
import subprocess

from . import REPO


def _run(cmd, cwd=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, (r.stderr.strip() or f"exit {r.returncode}").splitlines()[0]
    return r.stdout, None


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _cpu_model():
    txt = _read("/proc/cpuinfo") or ""
    for line in txt.splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def _range_list(text):
    """'0-3,8' -> [0, 1, 2, 3, 8] (the kernel's CPU and node lists)."""
    out = []
    for part in (text or "").split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        elif part.strip():
            out.append(int(part))
    return out


def sysfs_counts(root="/sys/devices/system"):
    """{sockets, cores, pus, numa_nodes} of the online CPUs from the kernel's topology files, or None
    where they are not readable."""
    cpus = _range_list(_read(os.path.join(root, "cpu", "online")))
    if not cpus:
        return None
    pkgs, cores = set(), set()
    for c in cpus:
        topo = os.path.join(root, "cpu", f"cpu{c}", "topology")
        pkg, core = _read(os.path.join(topo, "physical_package_id")), _read(os.path.join(topo, "core_id"))
        if pkg is None or core is None:
            return None
        pkgs.add(pkg)
        cores.add((pkg, _read(os.path.join(topo, "die_id")), core))
    nodes = _range_list(_read(os.path.join(root, "node", "online")))
    return {"sockets": len(pkgs), "cores": len(cores), "pus": len(cpus), "numa_nodes": len(nodes) or 1}


def collect(chtbench, topology_path=None):
    """The machine record; writes the hwloc XML to topology_path when given."""
    m = {"written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
         "hostname": socket.gethostname(), "cpu_model": _cpu_model(),
         "usable_cpus": len(os.sched_getaffinity(0)), "online_cpus": os.cpu_count()}
    sysfs = None
    for key, obj in (("sockets", "package"), ("cores", "core"), ("pus", "pu"), ("numa_nodes", "numanode")):
        out, err = _run(["hwloc-calc", "--number-of", obj, "all"])
        m[key] = int(out.strip()) if out and out.strip().isdigit() else None
        if m[key] is None:
            sysfs = sysfs or sysfs_counts()
            if sysfs:
                m[key] = sysfs[key]
                m[key + "_source"] = f"/sys/devices/system (hwloc-calc: {err or 'no count'})"
            else:
                m[key + "_note"] = f"hwloc-calc: {err or 'no count'}; /sys/devices/system not readable"
    if topology_path:
        out, err = _run(["hwloc-ls", "--of", "xml"])
        if out is not None:
            with open(topology_path, "w") as f:
                f.write(out)
            m["hwloc_xml"] = os.path.basename(topology_path)
        else:
            m["hwloc_xml"] = None
            m["hwloc_xml_note"] = f"hwloc-ls: {err}"
    u = platform.uname()
    m["kernel"] = f"{u.system} {u.release} {u.version}"
    m["arch"] = u.machine
    mem = _read("/proc/meminfo") or ""
    for line in mem.splitlines():
        if line.startswith("MemTotal:"):
            m["mem_total_bytes"] = int(line.split()[1]) * 1024
    out, err = _run([chtbench, "--version"])
    m["chtbench"] = chtbench
    m["chtbench_version"] = out.strip() if out else None
    if err:
        m["chtbench_version_note"] = err
    info = os.path.join(os.path.dirname(os.path.abspath(chtbench)), "meson-info", "intro-buildoptions.json")
    try:
        with open(info) as f:
            opts = json.load(f)
        keep = {"buildtype", "optimization", "debug", "b_sanitize", "b_lto", "b_ndebug", "c_args"}
        m["build_options"] = {o["name"]: o["value"] for o in opts
                              if o["name"] in keep or o.get("section") == "user"}
    except (OSError, ValueError, KeyError):
        m["build_options"] = None
        m["build_options_note"] = f"{info} not readable (not a meson build directory)"
    rev, err = _run(["git", "rev-parse", "HEAD"], cwd=REPO)
    m["git_revision"] = rev.strip() if rev else None
    if rev:
        st, _ = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO)
        m["git_dirty"] = bool(st and st.strip())
    else:
        m["git_revision_note"] = f"git: {err}"
    thp = _read("/sys/kernel/mm/transparent_hugepage/enabled")
    m["thp"] = thp[thp.index("[") + 1:thp.index("]")] if thp and "[" in thp else thp
    if thp is None:
        m["thp_note"] = "/sys/kernel/mm/transparent_hugepage/enabled not readable"
    gov = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    m["cpu_governor"] = gov
    if gov is None:
        m["cpu_governor_note"] = "no cpufreq in /sys (virtual machine or cpufreq driver absent)"
    m["python"] = platform.python_version()
    return m


def write(out_dir, chtbench, name="machine.json", topo="topology.xml"):
    """Writes out_dir/name and out_dir/topo; returns the record."""
    os.makedirs(out_dir, exist_ok=True)
    m = collect(chtbench, os.path.join(out_dir, topo))
    tmp = os.path.join(out_dir, "." + name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(m, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, name))
    return m


def summary(m):
    """One line for figure pages."""
    return (f"{m.get('hostname')}: {m.get('cpu_model')}, {m.get('sockets')} socket(s), "
            f"{m.get('cores')} cores, {m.get('pus')} PUs, {m.get('numa_nodes')} NUMA node(s); "
            f"kernel {m.get('kernel', '').split()[1] if m.get('kernel') else '?'}; THP {m.get('thp')}; "
            f"governor {m.get('cpu_governor') or 'n/a'}; git {str(m.get('git_revision'))[:12]}"
            f"{' (dirty)' if m.get('git_dirty') else ''}")
