#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-min-results: 7
# make run shows klptop at the size of the terminal it runs in, and
# follows it: what make run boots (selftests/guest/boot.sh -i with
# selftests/demo.sh, after make all) on a pseudo-terminal of 30x120
# (klptop_pty.py, a small terminal of its own), then resized to 10x100.
# The guest's console knows nothing of the host's terminal by itself (a
# serial port): boot.sh tells it the size at start and after each
# SIGWINCH, on a virtio serial port, and guest-init.sh sets the console's
# size from it, which signals klptop.  At 120 columns klptop's rows show
# every column up to TOTAL, nothing left at their ends; at 10x100 the
# frame fits (nothing wraps, nothing scrolls) and its lines are those of
# 120 columns cut at 100; q ends klptop, the demo and the guest.
# One guest, about 90 s: one slot of the guest lock, single-threaded
# TCG, like host/04's.
. "$(dirname "$0")/../lib.sh"
ktap_start "make run: klptop at the size of the host's terminal"

command -v python3 > /dev/null || bail "python3 present"
export KLP_GUEST_WEIGHT=1 KLP_ACCEL=tcg,thread=single
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scale=${KLP_TIMEOUT_SCALE:-1}

# the guest may wait its turn for a slot: a long first deadline, then
# short ones (a klptop that does not draw at 120 columns never shows
# TOTAL); the resize waits for the frames the guest drew before it
# learned the new size, then looks at two more; a screen is looked at
# once the frame drawn on it is whole (the serial console is slow)
cat > "$tmp/steps" <<EOF
deadline $((1800 * scale))
wait CORE
deadline $((15 * scale))
wait TOTAL
frames 2
check
frames 2
check
settle
screen
resize 10x100
frames 3
check
frames 2
check
settle
screen
keys q
deadline $((180 * scale))
EOF
timeout $((2400 * scale)) python3 "$KLP_TOP/selftests/host/klptop_pty.py" 30x120 "$tmp/steps" \
	-- "$KLP_TOP/selftests/guest/boot.sh" -i -t $((600 * scale)) "$KLP_TOP/selftests/demo.sh" \
	> "$tmp/out" 2>&1
cat "$tmp/out"

# screen N: the Nth screen printed (1 first)
screen() { awk -v n="$1" '/^--- screen$/ { s++; in_ = 1; next } /^---$/ { in_ = 0 } in_ && s == n' "$tmp/out"; }
title() { screen "$1" | grep -m1 '^CORE '; }
# the rows of the demo's functions: klp_target_a, _b, cmdline_proc_show
fn_rows() { screen "$1" | grep -E '^(klp|livepatch) +[a-z_]+ +(klp_target_[ab]|cmdline_proc_show) '; }
checks() { grep -E '^(fits|wrapped|scrolled)' "$tmp/out" | sed -n "$1p"; }

assert_eq "30x120: klptop's title has every column, up to TOTAL" \
	"CORE OBJECT FUNCTION WINNER DEPTH STACK BELOW HITS HITS/s TOTAL" \
	"$(title 1 | tr -s ' ')"
assert_eq "... its frames fit (nothing wrapped, nothing scrolled)" fits "$(checks 2)"
assert_eq "... the three functions' rows, each ending in its TOTAL, nothing left after it" \
	"3 3" "$(fn_rows 1 | wc -l) $(fn_rows 1 | grep -cE ' [0-9]+$')"
assert_eq "resized to 10x100 (SIGWINCH on the host): klptop's frames fit again" fits "$(checks 4)"
assert_eq "... its title is the 120 columns' cut at 100" \
	"$(title 1 | cut -c1-100 | sed 's/ *$//')" "$(title 2)"
assert_eq "... the summary still on its first line, the status line below it" "1 1" \
	"$(screen 2 | sed -n 1p | grep -cE '^[0-9:]{8} patches: ') $(screen 2 | grep -c '^rows 1-3 of 3  h: help')"
assert_eq "q: klptop, the demo and the guest end, all well (boot.sh exits 0)" "exit 0" \
	"$(grep '^exit ' "$tmp/out")"
ktap_finish
