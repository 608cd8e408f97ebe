# SPDX-License-Identifier: GPL-2.0
"""
klptop_pty.py - run a program on a pseudo-terminal of a given size, send
it keys and resizes, and keep the screen it draws (selftests/host/23).

    python3 klptop_pty.py [--fill] [--told RxC] ROWSxCOLS SCRIPT -- PROGRAM ARGS...

--fill: the screen starts full of '#', as if something had been printed
before the program ran.  --told RxC: the size the terminal says it has
(TIOCGWINSZ) when it starts, if not its own: 0x0 is a terminal that does
not know its size (a serial console nobody told).

SCRIPT is one step a line:
    keys TEXT      write TEXT to the terminal (\\e, \\r, \\x.. escapes)
    resize RxC     what the program wrote so far read, then the
                   terminal's size set: the kernel sends SIGWINCH; then
                   until two frames (ESC [ H) began after it (5 s at
                   most) and the program settled.  The first may be one
                   the program was writing when the signal came, drawn
                   for the old size: what wrapped or scrolled is counted
                   from the second frame's start on
    wait TEXT      until the screen shows TEXT (5 s at most)
    frames N       until N frames (ESC [ H) began (5 s at most)
    deadline S     the steps that follow wait S seconds at most, not 5
                   (resize, wait, frames, and the program's exit)
    settle         until the program has drawn nothing for 0.3 s
    screen         print the screen, row by row, between "--- screen"
                   and "---" (each row's trailing blanks dropped)
    check          print "fits" or what broke: a line longer than the
                   terminal is wide (it wrapped) or a frame taller than
                   it is high (it scrolled)
At the end it waits (5 s at most) for the program to exit and prints
"exit N" (else kills its process group), then
"clears N": the clear-screen sequences (ESC [ 2 J) it wrote.

The screen is a small terminal of our own: printable characters, CR, LF,
BS, ESC [ H (cursor home or to a row;column), ESC [ K and ESC [ J (erase
to the end of the line, of the screen); any other sequence is skipped.
It wraps and scrolls as a VT100 does, and counts when it does.
"""
import errno
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time


# a resize counts from this frame after it on: the first may be the one
# the program was writing when SIGWINCH came, drawn for the old size
RESIZE_FRAMES = 2


class Screen:
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.grid = [[" "] * cols for _ in range(rows)]
        self.r = self.c = 0
        self.pending_wrap = False
        self.wraps = self.scrolls = 0
        self.homes = 0          # ESC [ H seen: the frames begun
        self.count_from = None  # at that many homes, wraps and scrolls zeroed
        self.esc = b""

    def resize(self, rows, cols):
        grid = [[" "] * cols for _ in range(rows)]
        for i in range(min(rows, self.rows)):
            for j in range(min(cols, self.cols)):
                grid[i][j] = self.grid[i][j]
        self.grid, self.rows, self.cols = grid, rows, cols
        self.r, self.c = min(self.r, rows - 1), min(self.c, cols - 1)
        self.pending_wrap = False

    def lf(self):
        if self.r == self.rows - 1:
            self.grid = self.grid[1:] + [[" "] * self.cols]
            self.scrolls += 1
        else:
            self.r += 1

    def put(self, ch):
        if self.pending_wrap:
            self.wraps += 1
            self.c = 0
            self.lf()
            self.pending_wrap = False
        self.grid[self.r][self.c] = ch
        if self.c == self.cols - 1:
            self.pending_wrap = True
        else:
            self.c += 1

    def csi(self, seq):
        m = re.fullmatch(rb"\[([0-9;?]*)([@-~])", seq)
        if not m:
            return
        params, final = m.group(1).decode(), m.group(2)
        if params.startswith("?"):
            return
        nums = [int(x) if x else 0 for x in params.split(";")] if params else []
        self.pending_wrap = False
        if final == b"H":
            if not nums:
                self.homes += 1
                if self.homes == self.count_from:
                    self.wraps = self.scrolls = 0
            r = (nums[0] if nums and nums[0] else 1) - 1
            c = (nums[1] if len(nums) > 1 and nums[1] else 1) - 1
            self.r, self.c = min(r, self.rows - 1), min(c, self.cols - 1)
        elif final == b"K":
            for j in range(self.c, self.cols):
                self.grid[self.r][j] = " "
        elif final == b"J":
            mode = nums[0] if nums else 0
            if mode == 2:
                self.grid = [[" "] * self.cols for _ in range(self.rows)]
            else:
                for j in range(self.c, self.cols):
                    self.grid[self.r][j] = " "
                for i in range(self.r + 1, self.rows):
                    self.grid[i] = [" "] * self.cols

    def feed(self, data):
        for b in data:
            ch = bytes([b])
            if self.esc:
                self.esc += ch
                if self.esc == b"\x1b[" or self.esc == b"\x1b[?":
                    continue
                if self.esc.startswith(b"\x1b["):
                    if 0x40 <= b <= 0x7e:
                        self.csi(self.esc[1:])
                        self.esc = b""
                    continue
                self.esc = b""  # ESC and one character: skipped
                continue
            if ch == b"\x1b":
                self.esc = ch
            elif ch == b"\r":
                self.c, self.pending_wrap = 0, False
            elif ch == b"\n":
                self.lf()
            elif ch == b"\b":
                self.c, self.pending_wrap = max(self.c - 1, 0), False
            elif 0x20 <= b < 0x7f:
                self.put(ch.decode())

    def text(self):
        return "\n".join("".join(row).rstrip() for row in self.grid)


def unescape(s):
    return s.encode().decode("unicode_escape").encode("latin-1")


def main():
    args = sys.argv[1:sys.argv.index("--")]
    argv = sys.argv[sys.argv.index("--") + 1:]
    fill, told = False, None
    while args[0].startswith("--"):
        if args[0] == "--fill":
            fill, args = True, args[1:]
        else:
            told, args = args[1], args[2:]
    size, script = args
    rows, cols = (int(x) for x in size.split("x"))
    trows, tcols = (int(x) for x in (told or size).split("x"))
    screen = Screen(rows, cols)
    if fill:
        screen.grid = [["#"] * cols for _ in range(rows)]
    raw = bytearray()
    wait_s = 5
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", trows, tcols, 0, 0))

    ended = []  # the program's side of the terminal closed: no more waits

    def pump(timeout):
        if ended:
            return False
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(fd, 65536)
        except OSError as e:
            if e.errno != errno.EIO:  # EIO: the program's side closed
                return False
            data = b""
        if not data:
            ended.append(True)
            return False
        raw.extend(data)
        screen.feed(data)
        return True

    def settle():
        end = time.time() + 5
        while time.time() < end and pump(0.3):
            pass

    settle()
    for line in open(script):
        word, _, arg = line.rstrip("\n").partition(" ")
        if word == "keys":
            os.write(fd, unescape(arg))
            settle()
        elif word == "resize":
            r, c = (int(x) for x in arg.split("x"))
            while pump(0):
                pass
            screen.resize(r, c)
            screen.count_from = screen.homes + RESIZE_FRAMES
            since = len(raw)
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
            end = time.time() + wait_s
            while raw.count(b"\x1b[H", since) < RESIZE_FRAMES and time.time() < end and not ended:
                pump(0.1)
            settle()
        elif word == "wait":
            end = time.time() + wait_s
            while arg not in screen.text() and time.time() < end and not ended:
                pump(0.1)
        elif word == "frames":
            since = len(raw)
            end = time.time() + wait_s
            while raw.count(b"\x1b[H", since) < int(arg) and time.time() < end and not ended:
                pump(0.1)
        elif word == "deadline":
            wait_s = float(arg)
        elif word == "settle":
            settle()
        elif word == "screen":
            print("--- screen")
            print(screen.text())
            print("---")
        elif word == "check":
            bad = []
            if screen.wraps:
                bad.append("wrapped %d" % screen.wraps)
            if screen.scrolls:
                bad.append("scrolled %d" % screen.scrolls)
            print(", ".join(bad) if bad else "fits")
            screen.wraps = screen.scrolls = 0
    end = time.time() + wait_s
    status = None
    while time.time() < end:
        if not pump(0.1):
            time.sleep(0.05)
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            status = os.waitstatus_to_exitcode(st)
            break
    if status is None:
        os.killpg(pid, signal.SIGKILL)  # and what it started
        os.waitpid(pid, 0)
        status = "none (killed)"
    while pump(0.1):
        pass
    print("exit %s" % status)
    print("clears %d" % raw.count(b"\x1b[2J"))
    sys.stdout.flush()


main()
