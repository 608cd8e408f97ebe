# SPDX-License-Identifier: GPL-2.0
"""The two sides of the torture: klp ("k") and the builtin livepatch ("b").

Each side is the same operations on its own modules and sysfs tree, and
the same observations of what they did, canonical: a module, a patch or
an error reads the same on both sides, so that klp's observations can be
compared with the kernel's own livepatch's.  Every difference between the
two that is meant is listed in MEANT, and nowhere else.
"""

import errno
import os
import re
import subprocess
import time

SIDES = ("k", "b")
SYSFS = {"k": "/sys/kernel/klp", "b": "/sys/kernel/livepatch"}
DEBUG = "/sys/kernel/debug/ktt"
VM_FILE = {"k": "/proc/cmdline", "b": "/proc/version"}
FNS = ("f1", "f2", "f3", "outer", "inner", "vm")

# The differences between the sides that are meant: each is left out of
# the comparison, and only these.
MEANT = {
    "sysfs files": "klp's patch directories have more files (replace, "
                   "replaced_by, cve, ...): only enabled and transition "
                   "are compared",
    "transition timing": "klp sweeps three times in the write that starts "
                         "a transition, the builtin once and then every "
                         "second: the sides are compared once quiet "
                         "(Torture.settle)",
    "blocked tasks": "klp names the tasks that hold a transition in "
                     "klp/state; the builtin has /proc/PID/patch_state: "
                     "each side is checked against the sleepers on its own",
    "reversal below another patch": "reversing the disable of a patch one "
                     "of whose funcs is below another patch's: the builtin "
                     "(6.1's klp_check_stack_func()) checks the tasks "
                     "against the entry after that func, which for the "
                     "bottom func is the func_stack's list head read as a "
                     "klp_func (garbage), and may hold the transition for "
                     "good; klp checks the func below or the original.  "
                     "The torture does not reverse such a disable "
                     "(Torture.choices); 25-consistency does, on klp",
}


class Kind:
    """A patch of the pool, as its module's modinfo describes it."""

    def __init__(self, name, info):
        fields = dict(f.split("=", 1) for f in info.split())
        self.name = name
        self.ver = int(fields["ver"])
        self.funcs = frozenset(f for f in fields["funcs"].split(",") if f)
        self.replace = fields["replace"] == "1"
        self.callbacks = fields["callbacks"] == "1"
        self.state = int(fields["state"])

    def __repr__(self):
        return self.name


def load_kinds(moddir):
    """Every kind of the pool, from its klp module's modinfo."""
    kinds = {}
    for f in sorted(os.listdir(moddir)):
        m = re.fullmatch(r"ktt_(\w+)_k\.ko", f)
        if not m or m.group(1) in ("tgt",):
            continue
        info = subprocess.run(["modinfo", "-F", "ktt", os.path.join(moddir, f)],
                              capture_output=True, text=True).stdout.strip()
        if info:
            kinds[m.group(1)] = Kind(m.group(1), info)
    return kinds


def canon(text, side):
    """A text of one side as the other side's would read: no side suffix."""
    return re.sub(r"\b(ktt_\w+?)_%s\b" % side, r"\1", text)


def run(argv):
    """A command's result, canonical: "ok" or its error's last words."""
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode == 0:
        return "ok"
    err = (p.stderr or p.stdout).strip().splitlines()
    last = err[-1] if err else "exit %d" % p.returncode
    # "insmod: ERROR: could not insert module X: Invalid argument"
    # "rmmod: ERROR: Module X is in use" / "... is not currently loaded"
    for pat, what in ((r"is in use", "in use"),
                      (r"is not currently loaded", "not loaded"),
                      (r"File exists", "File exists")):
        if re.search(pat, last):
            return what
    return last.rsplit(": ", 1)[-1]


def write(path, value):
    """A sysfs write's result: "ok" or the errno's name."""
    try:
        with open(path, "w") as f:
            f.write(value)
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


class Side:
    """One side's operations and observations."""

    def __init__(self, name, moddir):
        self.name = name
        self.moddir = moddir
        self.root = SYSFS[name]

    def mod(self, kind):
        return "ktt_%s_%s" % (kind, self.name)

    def ko(self, kind):
        return os.path.join(self.moddir, self.mod(kind) + ".ko")

    # --- operations ---------------------------------------------------------

    def insmod(self, kind):
        return run(["insmod", self.ko(kind)])

    def rmmod(self, kind):
        return run(["rmmod", self.mod(kind)])

    def sysfs(self, kind, attr, value):
        return write(os.path.join(self.root, self.mod(kind), attr), value)

    def ctl(self, cmd):
        return write(os.path.join(DEBUG, "ctl"), cmd)

    # --- observations -------------------------------------------------------

    def patches(self):
        """{kind: (enabled, transition)} of the patches in sysfs."""
        out = {}
        try:
            names = os.listdir(self.root)
        except OSError:
            return out
        for d in names:
            m = re.fullmatch(r"ktt_(\w+)_%s" % self.name, d)
            if not m:
                continue
            e = read(os.path.join(self.root, d, "enabled"), "?").strip()
            t = read(os.path.join(self.root, d, "transition"), "?").strip()
            out[m.group(1)] = (e, t)
        return out

    def in_transition(self):
        return [k for k, (e, t) in self.patches().items() if t == "1"]

    def loaded(self):
        """The kinds whose patch module is loaded, and the target's."""
        out = set()
        for d in os.listdir("/sys/module"):
            m = re.fullmatch(r"ktt_(\w+)_%s" % self.name, d)
            if m:
                out.add(m.group(1))
        return out

    def calls(self):
        """{fn: version} each function's winner returns (-1: no target)."""
        text = read(os.path.join(DEBUG, self.name, "calls"), "")
        out = {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", text)}
        vm = read(VM_FILE[self.name], "")
        m = re.match(r"ktt (\d+)\n$", vm)
        out["vm"] = int(m.group(1)) if m else 0
        return out

    def log(self):
        text = read(os.path.join(DEBUG, self.name, "log"), "")
        return [line for line in text.splitlines() if line]

    def mixed(self):
        return int(read(os.path.join(DEBUG, self.name, "mixed"), "-1"))

    def sleepers(self):
        """{slot: (state, fn, module, version, pid)}: "s0".."s2" kthreads,
        "p0".. user parkers."""
        out = {}
        parkers = 0
        for line in (read(os.path.join(DEBUG, "sleepers"), "") or "").splitlines():
            side, slot, state, fn, mod, ver, pid, ret = line.split()
            if side != self.name:
                continue
            if slot[0] == "p":
                # the user parkers share one table: number them per side
                slot = "p%d" % parkers
                parkers += 1
            out[slot] = (state, fn, canon(mod, self.name), int(ver), int(pid))
        return out

    def blocked_pids(self):
        """Tasks the side names as holding its transition back."""
        if self.name == "k":
            text = read("/sys/kernel/debug/klp/state", "") or ""
            return {int(m) for m in re.findall(r"^blocked (\d+) ", text, re.M)}
        return None

    def patch_state(self, pid):
        """The builtin's state of a task (/proc/PID/patch_state)."""
        v = read("/proc/%d/patch_state" % pid)
        return int(v) if v is not None else None

    def observe(self):
        """What the comparison looks at, canonical."""
        return {
            "patches": self.patches(),
            "loaded": sorted(self.loaded()),
            "calls": self.calls(),
            "log": self.log(),
            "mixed": self.mixed(),
            "sleepers": {s: v[:4] for s, v in self.sleepers().items()},
        }


def wait_for(pred, timeout, step=0.05):
    """Poll pred() until true or timeout; returns its last value."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)
