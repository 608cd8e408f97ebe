#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 74
# klp-min-results: 41
# Shadow variables (core/shadow.c) through klp_test_shadow's debugfs ctl,
# on the scenarios of upstream's test-shadow-vars.sh (written anew): new
# variables zeroed, a constructor's value and its failure, <obj, id>
# naming one variable, a second alloc refused with an error naming it,
# get_or_alloc returning what exists without constructing, free and
# free_all calling the destructor once per variable and leaving other ids
# alone; each add and free seen exactly in the klp:klp_shadow_add and
# klp:klp_shadow_del events and the live count in debugfs klp/allocated.
# Then what upstream does not test: a thread per CPU and a timer in hard
# interrupt context allocating, reading and freeing at once (never a
# second variable for one <obj, id>, never a wrong value read, the events
# counting every add and free exactly), and what is left when the core
# unloads.  Last, the sample (core/samples/livepatch-shadow-fix.c, written
# to upstream's API) fixes livepatch-shadow-mod's leak: one variable per
# dummy it allocates, each freed with its dummy.
. "$(dirname "$0")/../lib.sh"
ktap_start "shadow variables"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_shadow || bail "klp_test_shadow loads"
CTL=/sys/kernel/debug/klp_test_shadow/ctl
INST=$TRACEFS/instances/klp-shadow-test

# shadow CMD...: one command to the test module, its result
shadow() {
	echo "$*" > "$CTL" && cat "$CTL"
}

live() {
	awk '$1 == "shadow_vars" { print $2 }' /sys/kernel/debug/klp/allocated
}

# trace_on: the two events into a private instance, emptied
trace_on() {
	trace_no_comm && mkdir -p "$INST" && echo 8192 > "$INST/buffer_size_kb" &&
		echo > "$INST/trace" &&
		echo 1 > "$INST/events/klp/klp_shadow_add/enable" &&
		echo 1 > "$INST/events/klp/klp_shadow_del/enable"
}

# trace_events: what was recorded, one "add <id> <size> <ret>" or
# "del <id> <count> <obj is 0: all|one>" line per event
trace_events() {
	sed -n 's/.*klp_shadow_add: obj=[^ ]* id=\([0-9]*\) size=\([0-9]*\) ret=\(-*[0-9]*\).*/add \1 \2 \3/p
		s/.*klp_shadow_del: obj=0x0 id=\([0-9]*\) count=\([0-9]*\).*/del \1 \2 all/p
		s/.*klp_shadow_del: obj=0x[0-9a-f]* id=\([0-9]*\) count=\([0-9]*\).*/del \1 \2 one/p' "$INST/trace"
}

# overruns: events the instance's buffers dropped (nothing if no CPU's
# stats could be read)
overruns() {
	cat "$INST"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2; cpus++ } END { if (cpus) print n + 0 }'
}

check "tracing the shadow events" trace_on
assert_eq "no variable at first" "null|0" "$(shadow get 0 1)|$(live)"

dmesg_mark
assert_eq "alloc without a constructor: zeroed" zeroed "$(shadow alloc 0 1)"
assert_eq "get finds it" zeroed "$(shadow get 0 1)"
assert_eq "another id of that parent: none" null "$(shadow get 0 2)"
assert_eq "that id of another parent: none" null "$(shadow get 1 1)"
assert_eq "alloc with a constructor: its value" 100 "$(shadow alloc 0 2 100)"
assert_eq "the two ids of one parent are apart" "zeroed 100" \
	"$(shadow get 0 1) $(shadow get 0 2)"
assert_eq "get returns the variable's own storage" "7 7" \
	"$(shadow set 0 1 7) $(shadow get 0 1)"
assert_eq "a second alloc of <obj, id> is refused, the first kept" "null 7" \
	"$(shadow alloc 0 1 5) $(shadow get 0 1)"
check "the refusal names the variable" \
	dmesg_has "klp: shadow variable <[0-9a-fx]*, 1> exists already: not allocated again"
check "and is no WARN" eval '! dmesg_since | grep -q "WARNING:"'
assert_eq "get_or_alloc returns what exists, no constructor runs" "7|ctor 1 dtor 0" \
	"$(shadow get_or_alloc 0 1 9)|$(shadow counts)"
assert_eq "get_or_alloc of a missing one constructs it" "9|ctor 2 dtor 0" \
	"$(shadow get_or_alloc 1 1 9)|$(shadow counts)"
dmesg_mark
assert_eq "a failing constructor: nothing added" "null null" \
	"$(shadow alloc 2 1 -12) $(shadow get 2 1)"
check "its error is logged" dmesg_has "klp: shadow variable <[0-9a-fx]*, 1>: its constructor failed (-12)"
assert_eq "three variables live (debugfs klp/allocated)" 3 "$(live)"

assert_eq "free: gone, its destructor ran once" "null|ctor 2 dtor 1" \
	"$(shadow free 0 1 > /dev/null; shadow get 0 1)|$(shadow counts)"
assert_eq "the parent's other id is kept" 100 "$(shadow get 0 2)"
assert_eq "freeing a missing variable destroys nothing" "ctor 2 dtor 1" \
	"$(shadow free 0 1 > /dev/null; shadow counts)"
shadow alloc 3 2 > /dev/null
shadow alloc 4 2 51 > /dev/null
assert_eq "free_all: every parent's variable of that id, once each" "null null null|ctor 3 dtor 4" \
	"$(shadow free_all 2 > /dev/null; shadow get 0 2) $(shadow get 3 2) $(shadow get 4 2)|$(shadow counts)"
assert_eq "free_all leaves other ids" 9 "$(shadow get 1 1)"
assert_eq "free_all of the last id: none live" "null|0" \
	"$(shadow free_all 1 > /dev/null; shadow get 1 1)|$(live)"

assert_eq "every add and free in the events, in order, exactly" \
"add 1 64 0
add 2 64 0
add 1 64 -17
add 1 64 0
add 1 64 -12
del 1 1 one
del 1 0 one
add 2 64 0
add 2 64 0
del 2 3 all
del 1 1 all" "$(trace_events)"

# --- everything at once ------------------------------------------------------
# Millions of events: counted in the kernel by histogram triggers, by
# result (add) and by how many one call freed (del).
echo 0 > "$INST/events/enable"
echo 'hist:keys=ret' > "$INST/events/klp/klp_shadow_add/trigger"
echo 'hist:keys=count' > "$INST/events/klp/klp_shadow_del/trigger"
# hits EVENT FIELD VALUE: the events the histogram counted with FIELD == VALUE
hits() {
	awk -v k="$2:" -v v="$3" '$1 == "{" && $2 == k && $3 == v { print $6 }' \
		"$INST/events/klp/$1/hist" | grep . || echo 0
}
read -r _ c0 _ d0 <<< "$(shadow counts)"
res=$(shadow stress 6000)
diag "stress on $(nproc) CPUs and a hard-irq timer: $res"
read -r _ c _ d _ l _ bad <<< "$res"
assert_eq "no second variable for one <obj, id>, no wrong value read" 0 "$bad"
check "variables were constructed and destroyed (>100 each)" \
	test $((c - c0)) -gt 100 -a $((d - d0)) -gt 100
assert_same "live variables: the test's count is the core's" "$l" "$(live)"
assert_eq "klp_shadow_add ret=0 events: one per construction" "$(count_diff constructions "$c" "$c0")" \
	"$(hits klp_shadow_add ret 0)"
assert_eq "klp_shadow_del count=1 events: one per destruction" "$(count_diff destructions "$d" "$d0")" \
	"$(hits klp_shadow_del count 1)"
shadow free_all 1 > /dev/null
shadow free_all 2 > /dev/null
read -r _ c _ d <<< "$(shadow counts)"
assert_eq "after free_all: every variable constructed destroyed, none live" \
	"$(count_diff constructions "$c" "$c0")|0" "$(count_diff destructions "$d" "$d0")|$(live)"
echo '!hist:keys=ret' > "$INST/events/klp/klp_shadow_add/trigger"
echo '!hist:keys=count' > "$INST/events/klp/klp_shadow_del/trigger"
rmdir "$INST"

# --- what a module leaves behind when the core goes --------------------------
shadow alloc 5 1 > /dev/null
check "klp_test_shadow unloads with a variable left" rmmod klp_test_shadow
dmesg_mark
check "the core unloads" rmmod klp
check "it frees what was left and says so" \
	dmesg_has "klp: 1 shadow variables left by modules that are gone: freed"
check "the core loads again" klp_insmod klp
assert_eq "none live after the reload" 0 "$(live)"

# --- the sample ---------------------------------------------------------------
check "tracing the shadow events again" trace_on
check "the sample's target loads" klp_insmod livepatch-shadow-mod interval_ms=50 lifetime_ms=400
check "the sample fix loads and enables" klp_insmod livepatch-shadow-fix
check "dummies the fix allocated are freed with their variable" \
	wait_until 120 eval '[ "$(trace_events | grep -c "^del 1 1 one$")" -ge 5 ]'
check "the target unloads, freeing its dummies" rmmod livepatch_shadow_mod
adds=$(trace_events | grep -c '^add 1 8 0$')
diag "variables the fix allocated: $adds"
assert_eq "each freed once, none left, nothing else recorded" \
	"$adds|0|0|0" \
	"$(trace_events | grep -c '^del 1 1 one$')|$(live)|$(trace_events | grep -vc -e '^add 1 8 0$' -e '^del 1 [01] one$')|$(overruns)"
echo 0 > "$INST/events/enable"
rmdir "$INST"
ktap_finish
