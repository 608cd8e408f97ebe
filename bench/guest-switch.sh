# SPDX-License-Identifier: GPL-2.0
# bench/guest-switch.sh - bench/guest.sh's switch section, sourced by it
# (its helpers: out, err, parse_sl, ns_to_ms, bi_gone, rmmod_retry; its
# paths: KS, KL, MOD, BIN, CALLER).  See guest.sh's "Sections".
# shellcheck shell=bash

sl() {	# sl CONFIG OP ROUND EXPECT ARGS...: one switch, four figures
	local cfg=$1 op=$2 r=$3 want=$4 res
	shift 4
	res=$("$BIN/switchlat" -T 120 -f "$CALLER" -v "$want" "$@") ||
		err "switch $cfg $op round $r: $res"
	parse_sl "$res"
	out switch "${op}_returned_ms" "$cfg" "$r" "$(ns_to_ms "$sl_write")" ms
	out switch "${op}_live_same_ms" "$cfg" "$r" "$(ns_to_ms "$sl_same")" ms
	out switch "${op}_live_other_ms" "$cfg" "$r" "$(ns_to_ms "$sl_other")" ms
	out switch "${op}_complete_ms" "$cfg" "$r" "$(ns_to_ms "$sl_trans")" ms
}

switch_ours() {
	sl ours enable "$1" 4201 -t "$KS/bench_ours1/transition" \
		write "$KS/bench_ours1/enabled" 1
	sl ours stack "$1" 4202 -t "$KS/bench_ours2/transition" \
		write "$KS/bench_ours2/enabled" 1
	sl ours unstack "$1" 4201 -t "$KS/bench_ours2/transition" \
		write "$KS/bench_ours2/enabled" 0
	sl ours disable "$1" 100 -t "$KS/bench_ours1/transition" \
		write "$KS/bench_ours1/enabled" 0
}

switch_builtin() {
	sl builtin enable "$1" 4201 -t "$KL/bench_builtin1/transition" \
		insmod "$MOD/bench_builtin1.ko"
	sl builtin stack "$1" 4202 -t "$KL/bench_builtin2/transition" \
		insmod "$MOD/bench_builtin2.ko"
	sl builtin unstack "$1" 4201 -t "$KL/bench_builtin2/transition" \
		write "$KL/bench_builtin2/enabled" 0
	sl builtin disable "$1" 100 -t "$KL/bench_builtin1/transition" \
		write "$KL/bench_builtin1/enabled" 0
	bi_gone bench_builtin2 && rmmod_retry bench_builtin2
	bi_gone bench_builtin1 && rmmod_retry bench_builtin1
}

# what an insmod costs by itself (the builtin can only enable by insmod)
switch_null() {
	local res
	res=$("$BIN/switchlat" insmod "$MOD/bench_null.ko") || err "insmod bench_null: $res"
	parse_sl "$res"
	out switch insmod_returned_ms null "$1" "$(ns_to_ms "$sl_write")" ms
	rmmod_retry bench_null
}

switch_section() {
	local r
	for ((r = 1; r <= RS; r++)); do
		echo "# switch: round $r/$RS (t=$(cut -d. -f1 /proc/uptime)s)"
		switch_null "$r"
		if ((r % 2)); then
			switch_ours "$r"
			switch_builtin "$r"
		else
			switch_builtin "$r"
			switch_ours "$r"
		fi
	done
}

