#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ktt_exec.py SIDE FN TRIGGER TIDFILE - a leader parked in FN, a thread that execs.

The leader (the main thread) parks itself in SIDE's FN (ktt_park's
"parkme") by reading SIDE's calls; a second thread writes its own tid to
TIDFILE, then waits, asleep in user space, until TRIGGER exists, and
execs /bin/true: de_thread() kills the leader and gives the thread the
leader's pid (26-edges).
"""

import os
import sys
import threading
import time

side, fn, trigger, tidfile = sys.argv[1:5]


def thread():
    with open(tidfile, "w") as f:
        f.write("%d\n" % threading.get_native_id())
    while not os.path.exists(trigger):
        time.sleep(0.05)
    os.execv("/bin/true", ["true"])


with open("/sys/kernel/debug/ktt/ctl", "w") as f:
    f.write("parkme %s %s %d" % (side, fn, os.getpid()))
threading.Thread(target=thread, daemon=True).start()
with open("/sys/kernel/debug/ktt/%s/calls" % side) as f:
    f.read()
