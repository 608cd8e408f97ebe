#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/figures.py - the figures the docs quote, written from bench/*.json

Usage: bench/figures.py            print the README's table of figures
       bench/figures.py -w FILE... rewrite what the JSONs give in each FILE
       bench/figures.py -c FILE... check it: exit 1, naming each place where
                                   FILE differs from what -w writes, and
                                   each figure FILE quotes outside them
FILE#TITLE looks for figures typed by hand only in FILE's section "## TITLE"
(README.md#Performance).  The JSONs are read from bench/, or from the
directory BENCH_JSON_DIR names (a test's copies).

No figure in README.md or doc/performance.md is typed by hand.  Each comes
from a published JSON under bench/, in one of three forms that -w writes:

  <!-- figures: begin --> ... <!-- figures: end -->
      the README's table: each figure of TABLE below, with its JSON and
      that JSON's date
  <!-- table: JSON [HEADING] --> ... <!-- /table -->
      the bench report's tables of JSON (bench/report.awk, the same tables
      a run prints), or only its part under the heading HEADING
  <!-- fig: ID -->VALUE<!-- /fig -->
      one figure in a sentence: ID names it in FIGURES below

Anything else that looks like a figure (a number with a decimal point or a
unit: "0.95", "125 ms", "3.4x", "x0.15") is refused by -c, unless ALLOWED
below says why it is not a measurement.  bench/run.sh runs -w on README.md
and doc/performance.md after it publishes a JSON under bench/;
selftests/host/39-bench-figures.sh runs -c on both.
"""
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- what the JSONs hold -----------------------------------------------------

def ratio(s, m, r, field="median"):
    return ("ratios", {"section": s, "metric": m, "ratio": r}, field)


def fig(s, m, c, field="median"):
    return ("figures", {"section": s, "metric": m, "config": c}, field)


def rng(fmt, unit=""):
    """median (min-max) of one ratio or figure, as the report prints it"""
    return lambda med, lo, hi: (fmt % med) + unit + " (" + (fmt % lo) + "-" + (fmt % hi) + ")"


# ID: (JSON under bench/, [what], format).  A what is a ratio or a figure
# of the JSON; the format takes their values in order (define_range: one's
# median, min and max).
FIGURES = {}


def define(ident, jfile, whats, fmt):
    FIGURES[ident] = (jfile, whats, fmt)


def define_range(ident, jfile, kind, s, m, c, fmt, unit=""):
    make = ratio if kind == "r" else fig
    define(ident, jfile, [make(s, m, c, f) for f in ("median", "min", "max")], rng(fmt, unit))


def define_tool(ident, jfile, tool, prefix=""):
    """a tool's CPU with 1000 functions, calls running and idle: klptop's %
    of a CPU overall (--json 1) or the exporter's ms a scrape"""
    if tool == "klptop":
        whats = [fig("klptop", "cpu_total_pct", prefix + l + "_json") for l in ("busy", "idle")]
        define(ident, jfile, whats, lambda b, i: "%.2f%%, %.2f%%" % (b, i))
    else:
        whats = [fig("exporter", "cpu_ms_per_scrape", prefix + l) for l in ("busy", "idle")]
        define(ident, jfile, whats, lambda b, i: "%.2f ms, %.2f ms" % (b, i))


for ident, ratio_name in (("percall-klp-builtin", "klp/builtin over boots"),
                          ("percall-klp-builtin-same", "klp/builtin over boots, both cores collision-free"),
                          ("percall-klp-unpatched", "klp/unpatched over boots"),
                          ("percall-builtin-unpatched", "builtin/unpatched over boots")):
    define_range(ident, "percall.json", "r", "percall", "kernel_ns", ratio_name, "%.2f", "x")
for ident, metric, ratio_name in (("full-klp-builtin", "kernel_ns", "3/2"),
                                  ("klptop-per-call", "kernel_ns", "4/3"),
                                  ("perf-per-call", "kernel_ns", "5/3"),
                                  ("empty-per-call", "kernel_ns", "6/3")):
    define_range(ident, "results.json", "r", "redirect", metric, ratio_name, "%.2f", "x")
define_range("tr-outside", "transition.json", "r", "redirect", "kernel_ns", "3/2", "%.2f", "x")
for ident, metric, ratio_name in (("tr-enabling", "kernel_ns", "ours/builtin enabling"),
                                  ("tr-disabling", "kernel_ns", "ours/builtin disabling"),
                                  ("tr-unswitched-enabling", "unswitched_ns", "ours/builtin unswitched enabling"),
                                  ("tr-unswitched-disabling", "unswitched_ns", "ours/builtin unswitched disabling")):
    define_range(ident, "transition.json", "r", "transition", metric, ratio_name, "%.2f", "x")
# the 1000-function patch, until complete: under the consistency model
# (transition.json) and before it (results.json, the last full run)
for ident, jfile in (("scale", "transition.json"), ("scale-pre-model", "results.json")):
    define(ident + "-enable", jfile, [ratio("scale", "enable_ms", "ours/builtin N=1000")], lambda v: "%.3fx" % v)
    define(ident + "-disable", jfile, [ratio("scale", "disable_ms", "ours/builtin N=1000")], lambda v: "%.4fx" % v)
define("scale-insmod", "transition.json", [ratio("scale", "insmod_wait_ms", "ours/builtin N=1000")],
       lambda v: "%.2fx" % v)
define("scale-pre-model-insmod", "results.json", [ratio("scale", "insmod_wait_ms", "ours/builtin N=1000")],
       lambda v: "%.2fx" % v)
define("stack-ms", "results.json", [fig("switch", "stack_complete_ms", "ours")], lambda v: "%.2f ms" % v)
define("unstack-ms", "results.json", [fig("switch", "unstack_complete_ms", "ours")], lambda v: "%.2f ms" % v)
define_range("builtin-counting", "builtin.json", "r", "builtin", "kernel_ns", "R_builtin/R_klp", "%.2f")
define_range("builtin-floor", "builtin.json", "r", "builtin", "kernel_ns", "R_builtin0/R_klp", "%.2f")
define_tool("klptop-cpu", "results.json", "klptop")
define_tool("exporter-cpu", "results.json", "exporter")
define_tool("builtin-klptop-cpu", "builtin.json", "klptop", "builtin_")
define_tool("builtin-exporter-cpu", "builtin.json", "exporter", "builtin_")
define_tool("builtin-klp-klptop-cpu", "builtin.json", "klptop", "ours_")
define_tool("builtin-klp-exporter-cpu", "builtin.json", "exporter", "ours_")
define_tool("tools-multi-klptop", "tools-multi.json", "klptop")
define_tool("tools-single-klptop", "tools-single.json", "klptop")

# The README's table: (label, ID), in order
TABLE = [
    ("per redirected call outside a transition, klp / builtin: median and range of the boots' medians",
     "percall-klp-builtin"),
    ("the same, boots where neither core's path collides in QEMU's jump cache", "percall-klp-builtin-same"),
    ("per redirected call, klp / unpatched; builtin / unpatched", ("percall-klp-unpatched", "percall-builtin-unpatched")),
    ("per call during each core's own transition, klp / builtin: enabling; disabling", ("tr-enabling", "tr-disabling")),
    ("1000-function patch until its transition completes, klp / builtin: enable; disable", ("scale-enable", "scale-disable")),
    ("per klp-redirected call, klptop counting / not", "klptop-per-call"),
    ("per klp-redirected call, a BPF program that does nothing on the same event / none", "empty-per-call"),
    ("`klptop --json 1`, 1000 klp functions, % of a CPU (multi-threaded TCG): calls running, idle", "klptop-cpu"),
    ("counting a builtin-patched call / a klp-patched one: R_builtin / R_klp", "builtin-counting"),
    ("`klptop --json 1`, 1000 functions, % of a CPU (single-threaded TCG), calls running, idle: klp's; the builtin's",
     ("builtin-klp-klptop-cpu", "builtin-klptop-cpu")),
    ("klp-exporter, 1000 functions, CPU a scrape (single-threaded TCG), calls running, idle: klp's; the builtin's",
     ("builtin-klp-exporter-cpu", "builtin-exporter-cpu")),
]

# Not measurements, each with why: taken out of the text before -c looks
# for figures.  Keep it short: a figure belongs in a JSON.
ALLOWED = [
    (r"(?<![\w.])[56]\.(?:1[0-9]?|[0-9])(?![\w.]|\d| ?(?:ns|us|ms|s|%|x)\b)", "kernel versions (6.1, 6.12, 5.11, ...)"),
    (r"\bQEMU(?: TCG)? CPU version [0-9.]+\+?", "QEMU's CPU model"),
    (r"\b(?:QEMU|bpftrace|libbpf|prometheus) [0-9]+(?:\.[0-9]+)+", "tool versions"),
    (r"\b0\.05 s\b", "when the unrelated insmod starts into a disable (a setting)"),
    (r"\b1 s\b", "klptop's interval (a setting)"),
    (r"\b10 ms\b", "klp's first sweep delay (a setting)"),
    (r"(?:at most|under|<=|<) ?[0-9.]+(?: ?(?:ms|%|x))?", "targets"),
    (r"\b2\^31(?: - 1)?", "a power of two"),
]

FIGURE = re.compile(r"(?<![\w.^/#-])(?:x[0-9]+\.[0-9]+|[0-9]+(?:,[0-9]{3})*"
                    r"(?:\.[0-9]+(?: ?(?:ns|us|µs|ms|s|%|x|kB|KB|MB)\b|%)?"
                    r"| ?(?:ns|us|µs|ms|s|x|kB|KB|MB)\b|%))")


class Stale(Exception):
    pass


JSONS = {}


def load(jfile):
    if jfile not in JSONS:
        path = os.path.join(os.environ.get("BENCH_JSON_DIR") or os.path.join(TOP, "bench"), jfile)
        try:
            with open(path) as f:
                JSONS[jfile] = json.load(f)
        except (OSError, ValueError) as e:
            raise Stale("bench/%s: %s" % (jfile, e))
    return JSONS[jfile]


def value(jfile, what):
    kind, keys, field = what
    j = load(jfile)
    hits = [e for e in j.get(kind, []) if all(e.get(k) == v for k, v in keys.items())]
    if len(hits) != 1 or not isinstance(hits[0].get(field), (int, float)):
        raise Stale("bench/%s has %d %s matching %s with a number as %s" % (jfile, len(hits), kind, keys, field))
    return hits[0][field]


def render(ident):
    if ident not in FIGURES:
        raise Stale("no figure %s in bench/figures.py" % ident)
    jfile, whats, fmt = FIGURES[ident]
    return fmt(*[value(jfile, w) for w in whats])


def date(jfile):
    return str(load(jfile).get("generated", ""))[:10] or "?"


def table():
    lines = ["| figure | value | from | date |", "|---|---|---|---|"]
    for label, ids in TABLE:
        ids = ids if isinstance(ids, tuple) else (ids,)
        files = sorted({FIGURES[i][0] for i in ids})
        lines.append("| %s | %s | %s | %s |" % (label, "; ".join(render(i) for i in ids),
                                              ", ".join("`bench/%s`" % f for f in files),
                                              ", ".join(date(f) for f in files)))
    return "\n".join(lines)


# --- the report's tables of a JSON ---------------------------------------------

def records(j):
    """the guest records a published JSON was made from: each figure's
    samples in their rounds (1, 2, ... in a JSON from before the rounds
    were kept: a published run has every round), its samples' states"""
    out = ["I|%s|%s" % (k, v) for k, v in j.get("info", {}).items()]
    seen = set()
    for f in j.get("figures", []):
        rounds = f.get("rounds") or [str(i) for i in range(1, len(f["samples"]) + 1)]
        for r, v in zip(rounds, f["samples"]):
            out.append("B|%s|%s|%s|%s|%.6g|%s" % (f["section"], f["metric"], f["config"], r, v, f["unit"]))
        for st in f.get("state", []):
            for k, v in st.items():
                if k != "round" and (f["section"], f["config"], st["round"], k) not in seen:
                    seen.add((f["section"], f["config"], st["round"], k))
                    out.append("S|%s|%s|%s|%s|%s" % (f["section"], f["config"], st["round"], k, v))
    return "\n".join(out) + "\n"


def report(jfile, heading=None):
    awks = ["report.awk", "report-transition.awk", "report-builtin.awk", "report-percall.awk", "report-tools.awk"]
    cmd = ["awk"] + [a for f in awks if os.path.exists(os.path.join(TOP, "bench", f))
                     for a in ("-f", os.path.join(TOP, "bench", f))]
    p = subprocess.run(cmd, input=records(load(jfile)), capture_output=True, text=True)
    if p.returncode:
        raise Stale("bench/%s: the report fails on it: %s" % (jfile, p.stdout[-300:] + p.stderr[-300:]))
    text = p.stdout.rstrip("\n")
    if heading is None:
        return text
    m = re.search(r"(?m)^(#+) " + re.escape(heading) + r"$", text)
    if not m:
        raise Stale("bench/%s: its report has no heading '%s'" % (jfile, heading))
    rest = text[m.start():]
    n = re.search(r"(?m)^#{1,%d} " % len(m.group(1)), rest[m.end() - m.start():])
    return (rest[:m.end() - m.start() + n.start()] if n else rest).rstrip("\n")


# --- the files -------------------------------------------------------------------

BLOCK = re.compile(r"(<!-- figures: begin -->\n)(?s:.*?)(^<!-- figures: end -->)"
                   r"|(<!-- table: ([\w.-]+)(?: ([^>]*?))? -->\n)(?s:.*?)(^<!-- /table -->)"
                   r"|(<!-- fig: ([a-z0-9-]+) -->)[^\n]*?(<!-- /fig -->)", re.M)


def rewrite(text, problems):
    def sub(m):
        try:
            if m.group(1):
                return m.group(1) + table() + "\n" + m.group(2)
            if m.group(3):
                return m.group(3) + report(m.group(4), m.group(5)) + "\n" + m.group(6)
            return m.group(7) + render(m.group(8)) + m.group(9)
        except Stale as e:
            problems.append(str(e))
            return m.group(0)
    return BLOCK.sub(sub, text)


def unquoted(name, text, title):
    """figures quoted outside the generated parts (of section TITLE only)"""
    bad = []
    if title:
        m = re.search(r"(?m)^## " + re.escape(title) + r"\s*$", text)
        if not m:
            return ["%s: no section '## %s'" % (name, title)]
        n = re.search(r"(?m)^## ", text[m.end():])
        end = m.end() + n.start() if n else len(text)
        text = re.sub(r"[^\n]", "", text[:m.start()]) + text[m.start():end]
    text = BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = re.sub(r"(?ms)^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text)
    text = re.sub(r"(?s)<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text)
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("    "):
            continue                                            # code
        clean = re.sub(r"`[^`]*`", " ", line)
        clean = re.sub(r"\]\([^)]*\)", "]", clean)
        clean = re.sub(r"\b[0-9a-f]{7,40}\b", " ", clean)       # commits
        for pat, _ in ALLOWED:
            clean = re.sub(pat, " ", clean)
        for m in FIGURE.finditer(clean):
            bad.append("%s:%d: '%s' is typed by hand: take it from a JSON (bench/figures.py)" % (name, n, m.group(0)))
    return bad


def main(argv):
    if len(argv) == 1:
        try:
            print(table())
        except Stale as e:
            print("bench/figures.py: %s" % e, file=sys.stderr)
            return 1
        return 0
    if argv[1] not in ("-w", "-c") or len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    bad = 0
    for arg in argv[2:]:
        name, _, title = arg.partition("#")
        with open(name) as f:
            text = f.read()
        problems = []
        new = rewrite(text, problems)
        for p in problems:
            print("bench/figures.py: %s: %s" % (name, p), file=sys.stderr)
        bad += len(problems)
        if argv[1] == "-w":
            if new != text and not problems:
                tmp = name + ".figures-new"
                with open(tmp, "w") as f:
                    f.write(new)
                os.replace(tmp, name)
            continue
        if new != text:
            old_lines, new_lines = text.split("\n"), new.split("\n")
            for n, (a, b) in enumerate(zip(old_lines, new_lines), 1):
                if a != b:
                    print("%s:%d: stale: '%s', the JSONs give '%s'" % (name, n, a.strip()[:300], b.strip()[:300]))
                    break
            if len(old_lines) != len(new_lines):
                print("%s: a generated part has %d lines, the JSONs give %d" % (name, len(old_lines), len(new_lines)))
            bad += 1
        for b in unquoted(name, text, title):
            print(b)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
