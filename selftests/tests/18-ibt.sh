#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 38
# klp-accel: tcg,thread=single
# klp-min-results: 14
# Indirect Branch Tracking: on an IBT kernel (CONFIG_X86_KERNEL_IBT,
# Debian's 6.12) an indirect call must land on an ENDBR64, and once IBT is
# on the kernel seals the ENDBR of functions it never takes the address
# of.  QEMU TCG does not enforce IBT, so the core's own check is the only
# guard: every kernel function it calls through a pointer must start with
# ENDBR64 (read here from /proc/kcore), or be sealed and called through an
# ftrace trampoline (core/tramp.c); a function with neither is refused at
# load (the fault build's call_check= names one more function to call).
# Without IBT everything is called directly and nothing is refused.  With
# IBT, at least one of them must be sealed and go through its trampoline:
# a kernel where none does would leave the trampolines untested, a
# failure, not silence.
. "$(dirname "$0")/../lib.sh"
ktap_start "IBT: the core calls through pointers only what starts with ENDBR64"

kver=$(uname -r)
config=$KLP_TOP/build/kernel/$kver/root/boot/config-$kver
[ -f "$config" ] || bail "kernel config at $config"
ibt=n
grep -q '^CONFIG_X86_KERNEL_IBT=y' "$config" && ibt=y
diag "$kver: CONFIG_X86_KERNEL_IBT=$ibt"

# /proc/kcore's LOAD segments: file offset, virtual address, size
segs=$(readelf -lW /proc/kcore | awk '$1 == "LOAD" { print $2, $3, $5 }')
insn4() {	# insn4 ADDR-HEX: the 4 bytes at that kernel address, "f3 0f 1e fa"
	local a=$((16#$1)) off va sz
	while read -r off va sz; do
		off=$((off)) va=$((va)) sz=$((sz))
		if ((a >= va && a + 4 <= va + sz)); then
			dd if=/proc/kcore bs=4 count=1 skip=$((off + a - va)) iflag=skip_bytes 2> /dev/null |
				od -An -tx1 | xargs
			return
		fi
	done <<< "$segs"
	echo "unmapped"
}
ksym() { awk -v s="$1" 'NF == 3 && $3 == s { print $1; exit }' /proc/kallsyms; }
ENDBR="f3 0f 1e fa"
SEALED="66 0f 1f 00"

# --- the refusal path (the fault-injection build of the core) -------------
# A function neither starting with ENDBR64 nor one klp has a trampoline
# for: a local one, never called through a pointer.
noendbr=
for s in $(awk 'NF == 3 && $2 == "t" && $3 !~ /^__(pfx|cfi)_/ { print $3 }' /proc/kallsyms | head -n 300); do
	[ "$(grep -c " $s\$" /proc/kallsyms)" = 1 ] || continue
	b=$(insn4 "$(ksym "$s")")
	[ "$b" != "$ENDBR" ] && [ "$b" != unmapped ] && { noendbr=$s; break; }
done
[ -n "$noendbr" ] || bail "a function without ENDBR64 among the first local symbols"
diag "$noendbr starts with $(insn4 "$(ksym "$noendbr")")"
FAULT_KO=$KLP_TOP/build/core-fault/klp.ko
klp_events_load || bail "klp_events (the tracepoints) loads"
dmesg_mark
err=$(insmod "$FAULT_KO" call_check="$noendbr" 2>&1)
rc=$?
if [ $ibt = y ]; then
	check "a core that would call $noendbr through a pointer refuses to load (ENOEXEC, insmod: Invalid module format)" \
		eval '[ $rc != 0 ] && echo "$err" | grep -q "Invalid module format"'
	check "the log names the function and why" eval \
		"dmesg_since | grep -qF \"function '$noendbr' does not start with ENDBR64\""
	check "nothing of the refused core is left (module, trampoline hook)" eval \
		'! grep -q "^klp " /proc/modules && ! grep -q "klp_tramp" $TRACEFS/enabled_functions'
	check "with call_check=text_poke (ENDBR64) it loads" \
		insmod "$FAULT_KO" call_check=text_poke
else
	check "no IBT: the core loads even with call_check=$noendbr" test $rc = 0
fi
check "the fault build unloads" rmmod klp

# --- the release core ------------------------------------------------------
dmesg_mark
check "the core loads" klp_insmod klp
# What the core calls through a pointer (core/symbols.c, klp_resolve_call()).
tramps=0
for fn in kallsyms_lookup_name kallsyms_on_each_match_symbol \
	  module_kallsyms_on_each_symbol find_module __module_address text_poke \
	  ftrace_location; do
	bytes=$(insn4 "$(ksym $fn)")
	how=direct
	dmesg_since | grep -qF "function '$fn' has a sealed ENDBR64 (IBT): called through an ftrace trampoline" &&
		how=trampoline
	if [ $ibt = n ]; then
		assert_eq "$fn: no IBT, called directly" direct "$how"
	elif [ "$bytes" = "$SEALED" ]; then
		assert_eq "$fn: sealed ENDBR64, called through its trampoline" trampoline "$how"
		[ "$how" = trampoline ] && tramps=$((tramps + 1))
	else
		assert_eq "$fn: starts with ENDBR64, called directly" "$ENDBR direct" "$bytes $how"
	fi
done
# The trampolines work: names resolve through them, in vmlinux and modules.
check "the seed sample loads (vmlinux symbol)" klp_insmod livepatch-sample
assert_eq "and wins" "this has been live patched" "$(cat /proc/cmdline)"
check "the target and a patch for it load (module symbols)" \
	eval 'klp_insmod klp_test_target && klp_insmod klp_test_p1'
assert_eq "p1 wins" "1001 1002" "$(target a) $(target b)"
if [ $ibt = y ]; then
	check "IBT: at least one function the core calls is sealed and goes through its trampoline ($tramps)" \
		test "$tramps" -gt 0
	check "the trampolines are hooked (enabled_functions)" \
		grep -q klp_tramp "$TRACEFS/enabled_functions"
	dmesg_mark
	err=$({ echo 0 > /proc/sys/kernel/ftrace_enabled; } 2>&1)
	check "ftrace_enabled=0 refused while the trampolines are hooked" \
		eval 'echo "$err" | grep -q "Device or resource busy"'
fi
ktap_finish
