#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/host/10-static-key.sh - the klp:klp_redirect tracepoint costs a
# NOP in klp_ftrace_handler while nobody listens.
#
# trace_klp_redirect() sits behind a static key: the compiler emits a jump
# to the tracing code, objtool turns it into a 2- or 5-byte NOP and records
# it in __jump_table; enabling the event patches the NOP into a jmp.  This
# test reads core/klp.ko (objdump -dr, readelf -r): on an IBT kernel (6.12)
# objtool runs on the linked module, not on core/patch.o, whose site is
# still the compiler's jmp.  It checks that
#  - klp_ftrace_handler has exactly one jump-label site keyed on
#    __tracepoint_klp_redirect, and its instruction is a NOP (branch off);
#  - the call into the tracepoint (__SCT__tp_func_klp_redirect) is reachable
#    only through that site's target: no fall-through, no other branch in;
#  - the handler, and any local function it calls, calls no lock or
#    allocation function, and has no __fentry__ call (it is notrace).
# The same scan run on klp_patch_objects, which allocates, must flag it, so the
# pattern is known to catch what it looks for.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

obj=$top/core/klp.ko
src=$top/core/patch.c
fn=klp_ftrace_handler
tp=klp_redirect
bad_calls='mutex|spin_lock|spin_unlock|_raw_spin|_raw_read|_raw_write|rwsem|down_read|down_write|kmalloc|kzalloc|kmem_cache_alloc|kvmalloc|vmalloc|alloc_pages|__get_free_pages|krealloc'

ktap_start "static-key: klp_redirect is a static-key branch in $fn"

if [ ! -f "$obj" ]; then
	bail "core/klp.ko exists (build it: make modules)"
fi
if [ "$src" -nt "$obj" ]; then
	bail "core/klp.ko is not older than core/patch.c (rebuild: make modules)"
fi
ok "core/klp.ko is built from the current core/patch.c"

dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
objdump -dr "$obj" > "$dis" || bail "objdump -dr core/klp.ko"

# mawk has no strtonum(): hex("a8") = 168
awk_hex='
function hex(s,   i, c, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c) break
		v = v * 16 + c - 1
	}
	return v
}'

# insns FUNC: one line per instruction of FUNC:
#   addr(dec) len mnemonic target(dec, or -) reloc-symbol(or -) operands
# target is a local branch/call target; reloc-symbol the symbol a relocation
# inside the instruction points at (then the displayed target is bogus).
insns() {
	awk -v fn="$1" "$awk_hex"'
	function flush() {
		if (have) {
			print a, n, m, (rs != "-" ? "-" : t), rs, ops
		}
		have = 0
	}
	$0 ~ "^[0-9a-f]+ <" fn ">:$" { infn = 1; next }
	infn && /^$/ { flush(); exit }
	!infn { next }
	/^\t\t\t[0-9a-f]+: R_/ {
		split($0, r, "\t")
		sym = r[5]
		sub(/[-+]0x[0-9a-f]+$/, "", sym)
		rs = sym
		next
	}
	/^ *[0-9a-f]+:\t/ {
		k = split($0, f, "\t")
		addr = f[1]; gsub(/[ :]/, "", addr); addr = hex(addr)
		nb = split(f[2], bytes, " ")
		if (k < 3) { n += nb; next }	# continuation of the bytes
		flush()
		have = 1; a = addr; n = nb; rs = "-"; t = "-"
		ins = f[3]
		m = ins; sub(/ .*/, "", m)
		ops = ins; sub(/^[^ ]+ */, "", ops)
		if (m ~ /^(j|call|loop)/ && match(ops, /^[0-9a-f]+ </))
			t = hex(substr(ops, 1, RLENGTH - 2))
		if (ops == "") ops = "-"
	}
	END { flush() }
	' "$dis"
}

mapfile -t handler < <(insns "$fn")
if [ ${#handler[@]} = 0 ]; then
	bail "$fn found in core/klp.ko"
fi
read -r sec start size < <(objdump -t "$obj" |
	awk -v fn="$fn" "$awk_hex"'$NF == fn { print $(NF-2), hex($1), hex($(NF-1)) }')
ok "$fn found: section $sec, $size bytes, ${#handler[@]} instructions"

# --- the jump-label site ------------------------------------------------
# __jump_table entries are {s32 code, s32 target, long key}: three
# relocations at entry offsets 0, 4, 8; the key's addend carries the branch
# bit (bit 0: 1 = enabled by default) and a flag in bit 1.
mapfile -t sites < <(readelf -rW "$obj" | awk -v sec="$sec" -v lo="$start" -v hi="$((start + size))" "$awk_hex"'
	/^Relocation section/ { on = ($3 == "'"'"'.rela__jump_table'"'"'"); next }
	!on || NF < 5 { next }
	{
		off = hex($1); e = int(off / 16); slot = off % 16
		add = ($(NF-1) == "-" ? -1 : 1) * hex($NF)
		if (slot == 0) { csym[e] = $(NF-2); code[e] = add }
		else if (slot == 4) target[e] = add
		else { ksym[e] = $(NF-2); kadd[e] = add }
		if (e > max) max = e
	}
	END {
		for (e = 0; e <= max; e++)
			if (csym[e] == sec && code[e] >= lo && code[e] < hi)
				print code[e], target[e], ksym[e], kadd[e]
	}')

tp_sites=()
for l in "${sites[@]}"; do
	read -r site target key kadd <<< "$l"
	diag "jump-label site: $fn+0x$(printf %x $((site - start))) -> +0x$(printf %x $((target - start))), key $key+0x$(printf %x "$kadd")"
	[ "$key" = "__tracepoint_$tp" ] && tp_sites+=("$l")
done
# Two: the first picks the path through the winner's func (the one the
# event names) while the event is on, the second is the event's own.  The
# block checked below starts at the first one's target.
assert_eq "$fn has two jump-label sites keyed on __tracepoint_$tp" 2 "${#tp_sites[@]}"
first=$(printf '%s\n' "${tp_sites[@]}" | sort -n -k1,1 | head -n 1)
read -r site target key kadd <<< "${first:-0 0 - 0}"
assert_eq "the site's branch is off by default (static_branch_unlikely)" 0 $((kadd & 1))

# The instruction at the site: a NOP until someone enables the event.
site_line=
for l in "${handler[@]}"; do
	read -r a n m t rs ops <<< "$l"
	[ "$a" = "$site" ] && site_line="$n $m $ops"
done
read -r site_len site_mnem site_ops <<< "${site_line:-0 - -}"
diag "site instruction: $site_mnem $site_ops ($site_len bytes)"
# objtool writes 66 90 ("xchg %ax,%ax") or 0f 1f 44 00 00 ("nopl 0x0(...)")
if [[ "$site_mnem $site_ops" =~ ^(nop|nopl|nopw|xchg\ %ax,%ax) ]] &&
   { [ "$site_len" = 2 ] || [ "$site_len" = 5 ]; }; then
	ok "the site is a ${site_len}-byte NOP: no listener costs one NOP"
else
	not_ok "the site is a 2- or 5-byte NOP (found: '$site_mnem', $site_len bytes)"
fi

# --- the tracepoint call is reachable only through the site -------------
tp_call=
tp_refs=()
prev_of_target=
prev=
for l in "${handler[@]}"; do
	read -r a n m t rs ops <<< "$l"
	[ "$a" = "$target" ] && prev_of_target=$prev
	if [[ $rs =~ ^(__SCT__tp_func_|__traceiter_|__tracepoint_)$tp$ ]]; then
		tp_refs+=("$a")
		[[ $m == call* ]] && [ -z "$tp_call" ] && tp_call=$a
	fi
	prev=$l
done
if [ -n "$tp_call" ]; then
	ok "$fn calls the tracepoint at +0x$(printf %x $((tp_call - start)))"
else
	not_ok "$fn calls __SCT__tp_func_$tp or __traceiter_$tp"
	tp_call=$target
fi

# No fall-through into the block [target, tp_call]: the instruction before
# the target transfers control unconditionally.
read -r _ _ pm _ prs pops <<< "${prev_of_target:-0 0 - - - -}"
diag "instruction before the target: $pm ${prs/#-/$pops}"
if [[ $pm =~ ^(jmp|ret|ud2|int3)$ ]]; then
	ok "no fall-through into the tracepoint block"
else
	not_ok "no fall-through into the tracepoint block (before it: '$pm')"
fi

# No branch from outside the block lands inside it.
in_block() { [ "$1" -ge "$target" ] && [ "$1" -le "$tp_call" ]; }
entries=()
for l in "${handler[@]}"; do
	read -r a n m t rs ops <<< "$l"
	[ "$t" = - ] && continue
	in_block "$a" && continue
	in_block "$t" && entries+=("+0x$(printf %x $((a - start))) $m")
done
stray=()
for r in "${tp_refs[@]}"; do in_block "$r" || stray+=("+0x$(printf %x $((r - start)))"); done
# A KASAN build (make check-debug) puts each check's report call out of
# line, at the function's end, jumping back into the block it guards.
if [ "$(nm -u "$obj" | grep -c '__asan_report')" -gt 0 ]; then
	skip "no branch but the jump-label site enters the tracepoint block" \
		"a KASAN build: its report paths do (${entries[*]:-none})"
	skip "every reference to the $tp tracepoint lies in that block" \
		"a KASAN build: its report paths (${stray[*]:-none})"
else
	assert_eq "no branch but the jump-label site enters the tracepoint block" "" "${entries[*]}"
	assert_eq "every reference to the $tp tracepoint lies in that block" "" "${stray[*]}"
fi

if [ $((site + site_len)) -lt "$target" ] || [ $((site + site_len)) -gt "$tp_call" ]; then
	ok "with the branch off, execution continues at +0x$(printf %x $((site + site_len - start))), outside the block"
else
	not_ok "with the branch off, execution skips the tracepoint block"
fi

diag "the tracepoint block:"
for l in "${handler[@]}"; do
	read -r a n m t rs ops <<< "$l"
	in_block "$a" && diag "  +0x$(printf %x $((a - start))): $m ${rs/#-/$ops}"
done

# --- nothing that sleeps, spins or allocates -------------------------------
# calls FUNC: the external symbols FUNC calls or jumps to, and (recursively)
# those of the local functions it calls.
declare -A seen
calls() {
	local a n m t rs ops
	seen[$1]=1
	while read -r a n m t rs ops; do
		[[ $m =~ ^(call|jmp) ]] || continue
		if [ "$rs" != - ]; then
			echo "$rs"
		elif [[ $ops =~ \<([A-Za-z0-9_.]+)\> ]] &&
		     [ -z "${seen[${BASH_REMATCH[1]}]:-}" ]; then
			calls "${BASH_REMATCH[1]}"
		fi
	done < <(insns "$1")
}

mapfile -t hcalls < <(calls "$fn" | sort -u)
diag "$fn calls or jumps to: ${hcalls[*]}"
bad=$(printf '%s\n' "${hcalls[@]}" | grep -E "$bad_calls" | paste -sd' ' -)
assert_eq "$fn calls no lock or allocation function" "" "$bad"
fentry=$(printf '%s\n' "${hcalls[@]}" | grep -x '__fentry__')
assert_eq "$fn has no __fentry__ call (notrace)" "" "$fentry"

# The control: the same scan flags the allocation in klp_patch_objects.
unset seen
declare -A seen
ctrl=$(calls klp_patch_objects | sort -u | grep -E "$bad_calls" | paste -sd' ' -)
diag "klp_patch_objects (control) calls: ${ctrl:-nothing matching}"
if [ -n "$ctrl" ]; then
	ok "the scan flags the allocation in klp_patch_objects (control)"
else
	not_ok "the scan flags the allocation in klp_patch_objects (control)"
fi

ktap_finish
