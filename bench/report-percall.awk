# SPDX-License-Identifier: GPL-2.0
# bench/report-percall.awk - bench/report.awk's part for what the per-call
# figures' calls went through (S| records, bench/guest-site.sh) and for the
# per-call run over several boots (bench/run.sh -c, mode percall): its
# table, its ratios over the boots, and the check that every per-call
# sample comes with its state.  Loaded with bench/report.awk (awk -f
# bench/report.awk -f ... -f bench/report-percall.awk), whose helpers
# (key, has, stats, cell, num, scell, add_ratio, problem, require, jstr)
# it uses.
#
#   S|section|config|round|key|value     (round "B.R" in a percall run)

$1 == "S" && NF >= 6 {
	sv = $0
	sub(/^S\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|/, "", sv)
	sk = $2 SUBSEP $3 SUBSEP $4
	if (!((sk, $5) in state))
		skeys[sk] = skeys[sk] (skeys[sk] == "" ? "" : " ") $5
	state[sk, $5] = sv
	next
}
$1 == "S" { problem("malformed record: " $0); next }

# sget(SK, KEY): a state, "?" when there is none (without making one)
function sget(sk, k) { return (sk, k) in state ? state[sk, k] : "?" }

# state_json(FIGURE KEY): the figure's samples' states, in their order, as
# a JSON member (", \"state\": [...]"), or "" when it has none
function state_json(k,    p, i, r, sk, n, ks, j, s, out) {
	split(k, p, SUBSEP)
	out = ""
	for (i = 1; i <= nsamp[k]; i++) {
		r = rounds[k, i]
		sk = p[1] SUBSEP p[3] SUBSEP r
		if (!(sk in skeys))
			continue
		n = split(skeys[sk], ks, " ")
		s = "{\"round\": " jstr(r)
		for (j = 1; j <= n; j++)
			s = s ", " jstr(ks[j]) ": " jstr(state[sk, ks[j]])
		out = out (out == "" ? "" : ", ") s "}"
	}
	return out == "" ? "" : ", \"state\": [" out "]"
}

# A guest that records states (I|site_state) must have given one for each
# sample of every per-call figure (kernel loop and pread()s).
function check_states(    i, k, p, j, sk) {
	if (!("site_state" in info) && !("b1_site_state" in info))
		return
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		split(k, p, SUBSEP)
		if (p[2] != "kernel_ns" && p[2] != "user_ns")
			continue
		for (j = 1; j <= nsamp[k]; j++) {
			sk = p[1] SUBSEP p[3] SUBSEP rounds[k, j]
			if (!((sk, "calls") in state) || !((sk, "jc") in state)) {
				problem(sprintf("no state: %s/%s round %s has no S| records of what its calls went through", p[1], p[3], rounds[k, j]))
				break
			}
		}
	}
}

# per_boot(CA, CB, B, M): the median of boot B's per-round ratios CA / CB of
# metric M of the redirect section; sets S_* (S_n 0 if none)
function per_boot(ca, cb, b, m,    ka, kb, a, i, r, n) {
	ka = key("redirect", m, ca); kb = key("redirect", m, cb)
	n = 0
	delete a
	for (i = 1; i <= nsamp[ka]; i++) {
		r = rounds[ka, i]
		if (substr(r, 1, length(b) + 1) != b "." || !((kb, r) in val) || val[kb, r] <= 0)
			continue
		a[++n] = val[ka, r] / val[kb, r]
	}
	stats(a, n)
}

# core_state(CONFIG, B): what CONFIG's calls went through in boot B, in
# few words; "varies" when its rounds differ.  Sets CS_same to 1 when it is
# the same in every round: its own trampoline, one ops, no kprobe, no patch
# in a transition, no jump-cache collision.
function core_state(c, b,    k, i, r, sk, s, one, all) {
	k = key("redirect", "kernel_ns", c)
	all = ""
	CS_same = 1
	for (i = 1; i <= nsamp[k]; i++) {
		r = rounds[k, i]
		if (substr(r, 1, length(b) + 1) != b ".")
			continue
		sk = "redirect" SUBSEP c SUBSEP r
		s = sget(sk, "calls") ", " sget(sk, "ops") " ops" (sget(sk, "kprobes") > 0 ? ", " sget(sk, "kprobes") " kprobes" : "") \
			(sget(sk, "transition") != "none" ? ", in transition: " sget(sk, "transition") : "") "; jc " sget(sk, "jc")
		if (sget(sk, "calls") != "trampoline" || sget(sk, "ops") != 1 || sget(sk, "kprobes") > 0 ||
		    sget(sk, "transition") != "none" || sget(sk, "jc") != "none")
			CS_same = 0
		if (all == "")
			all = s
		else if (all != s)
			all = "varies"
	}
	return all == "" ? "-" : all
}

# over_boots(CA, CB, M, LABEL, ONLY_SAME): the boots' medians of CA / CB,
# their median and range, added to the ratios as LABEL; with ONLY_SAME
# only the boots where both cores were in the same state throughout
function over_boots(ca, cb, m, label, only_same,    b, n, a, v) {
	n = 0
	delete a
	for (b = 1; b <= info["boots"]; b++) {
		if (only_same && !same[b])
			continue
		per_boot(ca, cb, b, m)
		if (S_n)
			a[++n] = S_med
	}
	stats(a, n)
	add_ratio("percall", m, label)
	v = scell()
	return v
}

function percall_table(    b, r, bi, kl, nb, nsame) {
	nb = info["boots"]
	print "### Per redirected call of klp_target_a, over " nb " boots (ns)"
	print ""
	print "Each boot on its own (`bench/run.sh -c`): medians over its " info["redirect_rounds"] " rounds, kernel loop, and"
	print "klp / builtin per round; what each core's calls went through (bench/guest-site.sh): what"
	print "the call site calls (its ops' own trampoline or the list function) and how many ftrace_ops"
	print "are on it, and which code addresses on the path share a slot of QEMU's TB jump cache (jc)."
	print ""
	print "| boot | unpatched | builtin | klp | klp / builtin | builtin's calls | klp's calls |"
	print "|---|---|---|---|---|---|---|"
	nsame = 0
	for (b = 1; b <= nb; b++) {
		bi = core_state("builtin", b); same[b] = CS_same
		kl = core_state("ours", b); same[b] = same[b] && CS_same
		nsame += same[b]
		per_boot("ours", "builtin", b, "kernel_ns")
		add_ratio("percall", "kernel_ns", "klp/builtin boot " b)
		r = scell()
		printf "| %d | %s | %s | %s | %s | %s | %s |\n", b, boot_cell("unpatched", b), boot_cell("builtin", b),
			boot_cell("ours", b), r, bi, kl
	}
	print ""
	print "Over the boots: the median of the boots' medians (the range of the boots' medians)."
	print ""
	print "| ratio | kernel loop | userspace pread() |"
	print "|---|---|---|"
	printf "| klp / builtin | %s | %s |\n", over_boots("ours", "builtin", "kernel_ns", "klp/builtin over boots"),
		over_boots("ours", "builtin", "user_ns", "klp/builtin over boots")
	printf "| klp / unpatched | %s | %s |\n", over_boots("ours", "unpatched", "kernel_ns", "klp/unpatched over boots"),
		over_boots("ours", "unpatched", "user_ns", "klp/unpatched over boots")
	printf "| builtin / unpatched | %s | %s |\n", over_boots("builtin", "unpatched", "kernel_ns", "builtin/unpatched over boots"),
		over_boots("builtin", "unpatched", "user_ns", "builtin/unpatched over boots")
	printf "| klp / builtin, the %d boots where both cores called their own trampoline without a jc collision | %s | %s |\n", nsame,
		over_boots("ours", "builtin", "kernel_ns", "klp/builtin over boots, both cores collision-free", 1),
		over_boots("ours", "builtin", "user_ns", "klp/builtin over boots, both cores collision-free", 1)
}

# boot_cell(CONFIG, B): median (min-max) of CONFIG's kernel loop in boot B
function boot_cell(c, b,    k, a, i, r, n) {
	k = key("redirect", "kernel_ns", c)
	n = 0
	delete a
	for (i = 1; i <= nsamp[k]; i++) {
		r = rounds[k, i]
		if (substr(r, 1, length(b) + 1) == b ".")
			a[++n] = val[k, r]
	}
	stats(a, n)
	if (!n) return "-"
	return num(S_med) " (" num(S_min) "-" num(S_max) ")"
}

# The figures of a percall run: every boot's three configurations over
# all its rounds, and as many boots as it says
function require_percall(    c, cf, m, b) {
	if (!("boots" in info) || info["boots"] !~ /^[1-9][0-9]*$/) {
		problem("no boots record (I|boots|N): how many boots the run made is unknown")
		return
	}
	split("unpatched builtin ours", cf, " ")
	for (c = 1; c <= 3; c++)
		for (m = 0; m < 2; m++)
			require("redirect", m ? "user_ns" : "kernel_ns", cf[c], info["boots"] * info["redirect_rounds"])
	for (b = 1; b <= info["boots"]; b++)
		if (!(("b" b "_done") in info))
			problem(sprintf("boot %d of %d did not finish (no b%d_done record)", b, info["boots"], b))
}
