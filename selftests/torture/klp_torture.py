#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""klp_torture.py - a seeded, differential torture of klp's live patching.

Each step is one operation a user can do, drawn at random (a seed makes
the run replayable): load a patch of the pool, disable it, reverse a
transition midway, force one, remove a patch module, remove and load the
target module again, send a sleeper into a function (it parks inside the
code its call reached) or release one, park a user task in vmlinux's
patched function, start or stop a storm of callers that fork and exec
from threads that are not their group's leader, take a CPU off and on.

Every operation is done twice: on klp (side "k", its patches built
against <klp/livepatch.h>, its target ktt_tgt_k) and on the kernel's own
livepatch (side "b", the same sources against <linux/livepatch.h>,
ktt_tgt_b), which is the oracle.  Once both are quiet, what a user can
observe must be the same on both (the result of every write and
insmod/rmmod, enabled and transition, the version each function returns,
the callbacks' order with the states and shadow variable they saw, the
sleepers) but for the differences ktt_sides.MEANT lists, and it must hold:
no call ran a mix of one patch's versions (OUTER with another INNER) unless
a transition was forced; no module is gone while a sleeper is parked in
its code; a transition that no sleeper holds completes, one that a
sleeper holds does not, and klp names the task holding it.

A failure prints the seed, the step and the operations so far: replay
with `make torture SEED=<seed> STEPS=<step>`.
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktt_sides  # noqa: E402
from ktt_sides import DEBUG, FNS, SIDES, Side, wait_for  # noqa: E402

SLOTS = 3
STORM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ktt_storm.py")
QUIET_TIMEOUT = 30	# s for a transition that nothing holds to complete
HELD_WAIT = 1.2		# s a held transition is watched before comparing
STEP_TIMEOUT = 120	# s a step may take before the run is declared hung


class Failure(Exception):
    pass


def kill_group(p, sig):
    """sig to the process group p leads (a storm), unless it is all gone."""
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def hung(signum, frame):
    """A step that never ends: what every task blocked in the kernel waits in."""
    lines = []
    for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
        stat = ktt_sides.read("/proc/%d/stat" % pid, "") or ""
        if ") D " not in stat and "ktt" not in stat and "insmod" not in stat \
                and "rmmod" not in stat:
            continue
        stack = ktt_sides.read("/proc/%d/stack" % pid, "") or ""
        lines.append("%s\n%s" % (stat.split(")")[0] + ")", stack.strip()))
    raise Failure("a step took over %d s; tasks of interest:\n%s\nsleepers:\n%s\nklp/state:\n%s"
                  % (STEP_TIMEOUT, "\n".join(lines),
                     ktt_sides.read(os.path.join(DEBUG, "sleepers"), ""),
                     ktt_sides.read("/sys/kernel/debug/klp/state", "")))


class Torture:
    def __init__(self, seed, moddir, verbose):
        self.seed = seed
        self.rng = random.Random(seed)
        self.moddir = moddir
        self.verbose = verbose
        self.kinds = ktt_sides.load_kinds(moddir)
        self.sides = {s: Side(s, moddir) for s in SIDES}
        self.ops = []
        self.forced = False
        self.storm = {}
        self.parkers = {}	# side -> Popen of a user task parked in vm
        self.cpu_off = False
        self.obs = None		# the last observation of side b
        self.quiet_calls = {}	# what the functions returned, last quiet
        self.quiet_enabled = {}	# each patch's enabled, last quiet
        self.step = 0

    # --- the model: what each side must show -------------------------------

    def winners(self):
        """What each function returned when no transition ran last."""
        return self.quiet_calls

    def kind_of_ver(self, ver):
        for k in self.kinds.values():
            if k.ver == ver:
                return k
        return None

    def changed(self, kind, target):
        """The functions a transition of kind to target changes, and the
        code a task leaves in each: {fn: module}."""
        wins = self.winners()
        out = {}
        for fn in FNS:
            w = self.kind_of_ver(wins.get(fn, 0))
            winner = "ktt_" + w.name if w else "ktt_tgt" if fn != "vm" else "vmlinux"
            if target == "1" and (fn in kind.funcs or (kind.replace and w)):
                out[fn] = winner
            elif target == "0" and fn in kind.funcs:
                out[fn] = "ktt_" + kind.name
        return out

    def held(self, side, kind, target):
        """The sleepers of side that hold kind's transition to target.

        A sleeper parks only while no transition runs, so, as every task,
        it is in the state kind had then; it holds the transition if that
        is not the target and the code it sleeps in is code the
        transition leaves."""
        if self.quiet_enabled.get(kind.name, "0") == target:
            return []
        left = self.changed(kind, target)
        return [slot for slot, (state, fn, mod, ver, pid)
                in self.sides[side].sleepers().items()
                if state == "parked" and left.get(fn) == mod]

    # --- helpers -------------------------------------------------------------

    def log(self, msg):
        if self.verbose:
            print("# [%d] %s" % (self.step, msg), flush=True)

    def fail(self, why):
        raise Failure(why)

    def both(self, fn):
        """fn(side) on both sides, klp first; the canonical results."""
        return {s: ktt_sides.canon(fn(self.sides[s]), s) for s in SIDES}

    def agree(self, what, res):
        if res["k"] != res["b"]:
            self.fail("%s: klp %r, builtin %r" % (what, res["k"], res["b"]))
        return res["k"]

    def quiet(self):
        """No transition on either side, and no disabled patch still being
        freed (both free a disabled patch, and its directory, in a work)."""
        return not any(t != "0" or e != "1"
                       for s in SIDES
                       for e, t in self.sides[s].patches().values())

    def settle(self, op):
        """Wait until both sides are quiet, or held as the model says."""
        pend = {s: self.sides[s].in_transition() for s in SIDES}
        if not pend["k"] and not pend["b"]:
            if not wait_for(self.quiet, QUIET_TIMEOUT, 0.1):
                self.fail("%s: a disabled patch is not freed" % op)
            return
        if op.startswith("force "):
            # a forced transition holds for no sleeper: each side completes
            # it, the builtin in its next transition work (up to a second
            # after klp, which completes in the write)
            if not wait_for(self.quiet, QUIET_TIMEOUT, 0.1):
                self.fail("%s: a forced transition did not complete (klp: %s; builtin: %s)"
                          % (op, self.sides["k"].in_transition(),
                             self.sides["b"].in_transition()))
            return
        kind = self.kinds[(pend["b"] or pend["k"])[0]]
        target = self.sides["b"].patches().get(kind.name, ("?",))[0]
        held = {s: self.held(s, kind, target) for s in SIDES}
        if held["b"]:
            time.sleep(HELD_WAIT)
            for s in SIDES:
                if not self.sides[s].in_transition():
                    self.fail("%s: %s's transition to %s completed on side %s while sleeper %s sleeps in code it leaves"
                              % (op, kind.name, target, s, held[s]))
            self.check_named(kind, target, held)
            return
        if not wait_for(self.quiet, QUIET_TIMEOUT, 0.1):
            state = ktt_sides.read("/sys/kernel/debug/klp/state", "")
            self.fail("%s: %s's transition to %s held %d s though no sleeper holds it (klp: %s; builtin: %s)\n%s"
                      % (op, kind.name, target, QUIET_TIMEOUT,
                         self.sides["k"].in_transition(),
                         self.sides["b"].in_transition(), state))

    def check_named(self, kind, target, held):
        """Each side says which task holds the transition."""
        k = self.sides["k"]
        named = k.blocked_pids()
        pids = {k.sleepers()[s][4] for s in held["k"]}
        if not named & pids:
            self.fail("klp holds %s's transition but names none of the sleepers %s holding it (names %s)"
                      % (kind.name, sorted(pids), sorted(named)))
        b = self.sides["b"]
        want = 0 if target == "1" else 1
        for s in held["b"]:
            pid = b.sleepers()[s][4]
            if b.patch_state(pid) != want:
                self.fail("builtin: sleeper %s (pid %d) holds %s's transition but /proc says patch_state %s"
                          % (s, pid, kind.name, b.patch_state(pid)))

    def observe(self, op):
        obs = {s: self.sides[s].observe() for s in SIDES}
        for key in obs["b"]:
            self.agree("%s: %s" % (op, key), {s: obs[s][key] for s in SIDES})
        if obs["b"]["mixed"] and not self.forced:
            self.fail("%s: %d calls ran OUTER and INNER of different versions with no forced transition"
                      % (op, obs["b"]["mixed"]))
        for s in SIDES:
            for slot, (state, fn, mod, ver, pid) in self.sides[s].sleepers().items():
                if state != "parked" or mod == "vmlinux":
                    continue
                if not os.path.isdir("/sys/module/%s_%s" % (mod, s)):
                    self.fail("%s: side %s's sleeper %s sleeps in %s_%s, which is gone"
                              % (op, s, slot, mod, s))
        self.obs = obs["b"]
        if not any(t == "1" for e, t in self.obs["patches"].values()):
            self.quiet_calls = self.obs["calls"]
            self.quiet_enabled = {k: e for k, (e, t) in self.obs["patches"].items()}

    # --- operations ----------------------------------------------------------

    def loaded_kinds(self):
        return sorted(k for k in self.obs["loaded"] if k in self.kinds)

    def patches(self):
        return self.obs["patches"]

    def parked(self):
        return {slot: v for slot, v in self.obs["sleepers"].items()
                if v[0] == "parked" and slot.startswith("s")}

    def on_top(self, kind):
        """kind wins every function it patches (ktt_sides.MEANT: the
        reversal of a disable below another patch is not compared)."""
        k = self.kinds[kind]
        return all(self.quiet_calls.get(fn) == k.ver for fn in k.funcs)

    def choices(self):
        """(weight, name, args) of every operation that makes sense now."""
        out = []
        pat = self.patches()
        tr = [k for k, (e, t) in pat.items() if t == "1"]
        loaded = set(self.loaded_kinds())
        tgt = "tgt" in self.obs["loaded"]
        # the functions the sleepers are in, and their modules: a
        # transition they hold is where force, reversal and a disable
        # below meet a task inside (issue 31's defects), so the operations
        # that start one, a patch of their function loaded or the patch
        # they sleep in disabled, are three times as likely as others of
        # their kind
        fns_in = {v[1] for v in self.parked().values()}
        mods_in = {v[2] for v in self.parked().values()}
        for k in self.kinds:
            if tr and k not in loaded:
                # refused (EBUSY) while a transition runs: now and then,
                # not most of the steps a held transition lasts
                out.append((1, "insmod", k))
            elif k not in loaded:
                hold = fns_in & set(self.kinds[k].funcs)
                out.append((18 if hold else 6, "insmod", k))
            else:
                out.append((2, "rmmod", k))
        for k, (e, t) in pat.items():
            if t == "0" and e == "1":
                out.append((18 if "ktt_" + k in mods_in else 6, "disable", k))
            # (a transition still running after settle() is one a
            # sleeper holds: what a user does then is reverse or force it)
            if t == "1" and (e == "1" or self.on_top(k)):
                out.append((8, "reverse", k))
                if not self.storm:
                    out.append((8, "force", k))
        if not tr:
            free = [i for i in range(SLOTS) if "s%d" % i not in self.parked()]
            if free and tgt:
                for fn in FNS[:-1]:
                    out.append((4, "park", (free[0], fn)))
            if self.winners().get("vm") and not self.parkers:
                out.append((2, "parkvm", None))
        for slot in self.parked():
            out.append((5, "release", int(slot[1:])))
        if self.parkers:
            out.append((4, "releasevm", None))
        out.append((2 if tgt else 6, "tgt_out" if tgt else "tgt_in", None))
        out.append((1, "storm_off" if self.storm else "storm_on", None))
        out.append((1, "cpu_on" if self.cpu_off else "cpu_off", None))
        out.append((1, "garbage", self.rng.choice(sorted(loaded) or ["p1a"])))
        return out

    def pick(self):
        ch = self.choices()
        total = sum(w for w, _, _ in ch)
        x = self.rng.uniform(0, total)
        for w, name, arg in ch:
            x -= w
            if x <= 0:
                return name, arg
        return ch[-1][1], ch[-1][2]

    def do(self, name, arg):
        op = "%s %s" % (name, arg) if arg is not None else name
        self.ops.append(op)
        self.log(op)
        signal.alarm(STEP_TIMEOUT)
        getattr(self, "op_" + name)(op, arg)
        self.settle(op)
        self.observe(op)
        signal.alarm(0)

    def op_insmod(self, op, kind):
        self.agree(op, self.both(lambda s: s.insmod(kind)))

    def op_rmmod(self, op, kind):
        inside = [slot for slot, v in self.obs["sleepers"].items()
                  if v[0] == "parked" and v[2] == "ktt_" + kind]
        res = self.agree(op, self.both(lambda s: s.rmmod(kind)))
        if res == "ok" and inside:
            self.fail("%s succeeded while %s sleep in its code" % (op, inside))

    def op_disable(self, op, kind):
        self.agree(op, self.both(lambda s: s.sysfs(kind, "enabled", "0")))

    def op_reverse(self, op, kind):
        e = self.patches()[kind][0]
        self.agree(op, self.both(lambda s: s.sysfs(kind, "enabled",
                                                   "0" if e == "1" else "1")))

    def op_force(self, op, kind):
        self.forced = True
        self.agree(op, self.both(lambda s: s.sysfs(kind, "force", "1")))

    GARBAGE = (("enabled", "x"), ("enabled", "2"), ("enabled", ""),
               ("force", "0"), ("force", "x"), ("transition", "1"))

    def op_garbage(self, op, kind):
        """Writes a user may get wrong: both sides answer alike."""
        attr, value = self.rng.choice(self.GARBAGE)
        self.ops[-1] += " %s=%r" % (attr, value)
        self.agree(self.ops[-1], self.both(lambda s: s.sysfs(kind, attr, value)))

    def op_park(self, op, arg):
        slot, fn = arg
        self.agree(op, self.both(lambda s: s.ctl("park %s %s %d" % (s.name, fn, slot))))
        key = "s%d" % slot
        if not wait_for(lambda: all(self.sides[s].sleepers()[key][0] in ("parked", "returned")
                                    for s in SIDES), 10):
            self.fail("%s: the sleepers did not reach %s" % (op, fn))

    def op_release(self, op, slot):
        self.agree(op, self.both(lambda s: s.ctl("release %s %d" % (s.name, slot))))
        key = "s%d" % slot
        if not wait_for(lambda: all(self.sides[s].sleepers()[key][0] == "returned"
                                    for s in SIDES), 10):
            self.fail("%s: the sleepers did not return" % op)

    def op_parkvm(self, op, arg):
        for s in SIDES:
            self.parkers[s] = subprocess.Popen(
                ["sh", "-c", 'echo "parkme %s vm $$" > %s/ctl && exec cat %s'
                 % (s, DEBUG, ktt_sides.VM_FILE[s])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(lambda: all(any(v[0] == "parked" for slot, v in
                                        self.sides[s].sleepers().items() if slot[0] == "p")
                                    for s in SIDES), 10):
            self.fail("%s: the user tasks did not park in vm" % op)

    def op_releasevm(self, op, arg):
        for s, p in self.parkers.items():
            self.sides[s].ctl("unpark %s %d" % (s, p.pid))
            p.wait(10)
        self.parkers = {}

    def op_tgt_out(self, op, arg):
        res = self.both(lambda s: s.rmmod("tgt"))
        # a storm's call holds a reference on its side's target while it
        # runs (ktt_call()): a side whose rmmod met one ("in use" when
        # rmmod saw it, EAGAIN when the kernel did) tries again, as a user
        # would, so that the sides are compared, not the storms' timing
        for _ in range(40 if self.storm else 0):
            if res["k"] == res["b"]:
                break
            for s in SIDES:
                if res[s] in ("in use", "Resource temporarily unavailable"):
                    time.sleep(0.05)
                    res[s] = ktt_sides.canon(self.sides[s].rmmod("tgt"), s)
        self.agree(op, res)

    def op_tgt_in(self, op, arg):
        self.agree(op, self.both(lambda s: s.insmod("tgt")))

    def op_storm_on(self, op, arg):
        for s in SIDES:
            # (not on our output: a storm left behind would hold the
            # test's pipe open, and the test would never end)
            self.storm[s] = subprocess.Popen([sys.executable, STORM, s],
                                             start_new_session=True,
                                             stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)

    def op_storm_off(self, op, arg):
        storms, self.storm = self.storm, {}
        for p in storms.values():
            kill_group(p, signal.SIGTERM)
        for s, p in storms.items():
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                for q in storms.values():
                    kill_group(q, signal.SIGKILL)
                self.fail("%s: side %s's storm lived 30 s past SIGTERM" % (op, s))

    def op_cpu_off(self, op, arg):
        self.cpu_off = True
        ktt_sides.write("/sys/devices/system/cpu/cpu1/online", "0")

    def op_cpu_on(self, op, arg):
        self.cpu_off = False
        ktt_sides.write("/sys/devices/system/cpu/cpu1/online", "1")

    # --- a run ---------------------------------------------------------------

    def setup(self):
        for m in ("ktt_park", "ktt_tgt_k", "ktt_tgt_b"):
            if ktt_sides.run(["insmod", os.path.join(self.moddir, m + ".ko")]) != "ok":
                self.fail("%s does not load" % m)
        self.observe("setup")

    def finish(self):
        """Everything released, disabled and unloaded, on both sides."""
        if self.storm:
            self.do("storm_off", None)
        if self.cpu_off:
            self.do("cpu_on", None)
        if self.parkers:
            self.do("releasevm", None)
        for slot in sorted(self.parked()):
            self.do("release", int(slot[1:]))
        for k, (e, t) in sorted(self.patches().items()):
            if t == "1":
                self.do("force", k)
        for k, (e, t) in sorted(self.patches().items()):
            if e == "1":
                self.do("disable", k)
        for k in self.loaded_kinds():
            self.do("rmmod", k)
        left = self.loaded_kinds()
        if left and not self.forced:
            self.fail("patch modules left after every disable, with no forced transition: %s" % left)
        if "tgt" not in self.obs["loaded"]:
            self.do("tgt_in", None)
        self.do("tgt_out", None)
        # (the patch modules a force pinned use ktt_park's symbols: it
        # stays with them)
        if ktt_sides.run(["rmmod", "ktt_park"]) != "ok" and not left:
            self.fail("ktt_park does not unload")
        # what klp holds: nothing, but the modules a force pinned and the
        # shadow variable a replace took over from sh (its post_unpatch,
        # which frees it, does not run then: the replacing patch owns it)
        alloc = dict(line.split() for line in
                     (ktt_sides.read("/sys/kernel/debug/klp/allocated", "") or "").splitlines())
        held = {k: v for k, v in alloc.items()
                if v != "0" and not (k == "alive_modules" and left) and
                not (k == "shadow_vars" and v == "1")}
        if held:
            self.fail("klp/allocated after everything went: %s" % held)

    def run(self, steps, seconds):
        self.setup()
        end = time.monotonic() + seconds if seconds else None
        while (end and time.monotonic() < end) or (not end and self.step < steps):
            self.step += 1
            self.do(*self.pick())
        self.step += 1
        self.finish()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--time", type=int, default=0, help="soak: run this many seconds")
    ap.add_argument("--moddir", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    signal.signal(signal.SIGALRM, hung)
    t = Torture(args.seed, args.moddir, args.verbose)
    t0 = time.monotonic()
    try:
        t.run(args.steps, args.time)
    except Failure as e:
        # the storms stop; sleepers and patches stay as they failed
        for p in t.storm.values():
            kill_group(p, signal.SIGTERM)
        print("# FAIL seed %d step %d: %s" % (args.seed, t.step, e))
        print("# operations: %s" % "; ".join(t.ops))
        print("# replay: make torture SEED=%d STEPS=%d" % (args.seed, t.step))
        print("ktt-result: not ok seed %d: %d steps, both sides agree and every invariant holds"
              % (args.seed, t.step))
        return 1
    print("# seed %d: %d steps in %.0f s, forced: %s"
          % (args.seed, t.step, time.monotonic() - t0, t.forced))
    # (a forced transition pins its patch modules until a reboot: no
    # later seed sets up in this boot)
    print("ktt-forced: %d" % t.forced)
    print("ktt-result: ok seed %d: %d steps, both sides agree and every invariant holds"
          % (args.seed, t.step))
    return 0


if __name__ == "__main__":
    sys.exit(main())
