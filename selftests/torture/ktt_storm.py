#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ktt_storm.py SIDE [GENERATION] - callers of OUTER that fork and exec.

Three threads call SIDE's OUTER (it calls INNER) over and over through
/sys/kernel/debug/ktt/SIDE/pair; the leader forks children that call it
too; every few rounds a thread that is not the group's leader execs this
script again (the kernel gives it the leader's pid), so transitions meet
forks, and execs from leaders and from other threads.  ktt_park counts any
call that mixes versions.  Ends on SIGTERM, with its children: the
kernel's default action, which no exec escapes (a Python handler runs
only once the main thread holds the interpreter, and a thread that execs
first takes the signal's delivery with the old image: the storm then
called on forever).
"""

import os
import sys
import threading
import time

side = sys.argv[1]
gen = int(sys.argv[2]) if len(sys.argv) > 2 else 0
pair = "/sys/kernel/debug/ktt/%s/pair" % side


def call(n):
    for _ in range(n):
        try:
            with open(pair) as f:
                f.read()
        except OSError:
            time.sleep(0.01)


def caller(i):
    rounds = 0
    while True:
        call(20)
        rounds += 1
        # a thread that is not the leader execs: de_thread() swaps pids
        if i == 1 and rounds % 8 == 0 and gen < 1000:
            os.execv(sys.executable, [sys.executable, sys.argv[0], side, str(gen + 1)])


for i in range(3):
    threading.Thread(target=caller, args=(i,), daemon=True).start()
while True:
    pid = os.fork()
    if pid == 0:
        call(10)
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.05)
