#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ktt_exec.py TRIGGER TIDFILE - a leader, and a thread that execs.

The leader (the main thread) sleeps; a second thread writes its own tid
to TIDFILE, then waits, asleep in user space, until TRIGGER exists, and
execs /bin/true: de_thread() kills the leader and gives the thread the
leader's pid (26-edges).
"""

import os
import sys
import threading
import time

trigger, tidfile = sys.argv[1:3]


def thread():
    with open(tidfile, "w") as f:
        f.write("%d\n" % threading.get_native_id())
    while not os.path.exists(trigger):
        time.sleep(0.05)
    os.execv("/bin/true", ["true"])


threading.Thread(target=thread, daemon=True).start()
while True:
    time.sleep(3600)
