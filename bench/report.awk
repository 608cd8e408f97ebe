# SPDX-License-Identifier: GPL-2.0
# bench/report.awk - turn bench/guest.sh's records into the table (stdout,
# markdown) and results.json (the file named by -v json=FILE).  The
# transition section's table and figures are bench/report-transition.awk's,
# the builtin mode's and the targets bench/report-builtin.awk's, the
# per-call figures' states and the percall mode's
# bench/report-percall.awk's, the tools' tables and the checks of their CPU
# readings bench/report-tools.awk's (awk -f bench/report.awk -f
# bench/report-transition.awk -f bench/report-builtin.awk -f
# bench/report-percall.awk -f bench/report-tools.awk).
#
#   B|section|metric|config|round|value|unit   samples
#   I|key|value                                context
#   E|message                                  errors
#
# Every figure is min / median / max over its rounds; a ratio is taken
# within each round (both configurations measured side by side in it) and
# then summarized the same way.
#
# A run is only published whole: this exits 1, after writing the table
# and the JSON with the problems listed under "Errors" (and in the JSON's
# "errors"), when the guest reported an error (E| record), when a sample
# is not a number (a sentinel: not measured), when a required figure of
# the run's mode is missing or has fewer samples than the rounds it was
# measured over, or when the guest run did not finish.  bench/run.sh then
# keeps the published results as they were.

BEGIN { FS = "|" }

# A sample is a non-negative number; anything else (-1, the sentinel for
# "not measured", an empty field where a reading failed, whatever a
# formatting made of it) is a problem named with its figure, never a
# figure quietly left with fewer rounds.
$1 == "B" && NF == 7 && $6 !~ /^[0-9]+(\.[0-9]+)?$/ {
	problem(sprintf("not measured: %s/%s/%s round %s has '%s' (a sentinel), not a sample", $2, $3, $4, $5, $6))
	next
}
$1 == "B" && NF != 7 { problem("malformed record: " $0); next }
$1 == "B" && NF == 7 {
	k = $2 SUBSEP $3 SUBSEP $4
	if (!(k in nsamp)) {
		keys[++nkeys] = k
		unit[k] = $7
	}
	nsamp[k]++
	val[k, $5] = $6 + 0
	rounds[k, nsamp[k]] = $5
	next
}
$1 == "I" { if (!($2 in info)) ikeys[++ninfo] = $2; info[$2] = $3; next }
$1 == "E" { problem("the guest reported: " substr($0, 3)); next }

function problem(msg) { errs[++nerr] = msg }

function sort(a, m,    i, j, t) {
	for (i = 2; i <= m; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

# stats over the array a[1..m]: sets S_n, S_min, S_med, S_max
function stats(a, m) {
	S_n = m
	if (!m) { S_min = S_med = S_max = ""; return }
	sort(a, m)
	S_min = a[1]
	S_max = a[m]
	S_med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}

function kstats(k,    a, i) {
	delete a
	for (i = 1; i <= nsamp[k]; i++)
		a[i] = val[k, rounds[k, i]]
	stats(a, nsamp[k])
}

function key(s, m, c) { return s SUBSEP m SUBSEP c }

# accel_name(ACCEL): how QEMU ran the guest, from the KLP_ACCEL it was given
function accel_name(a) {
	if (a == "")
		return "TCG"
	if (a ~ /^tcg/)
		return a ~ /thread=single/ ? "TCG, single-threaded" : "TCG, multi-threaded"
	return a
}

function has(s, m, c) { return key(s, m, c) in nsamp }

function num(v) {
	if (v == "") return "-"
	if (v < 0) return sprintf("%.3g", v)
	if (v >= 1000) return sprintf("%.0f", v)
	if (v >= 100) return sprintf("%.1f", v)
	if (v >= 10) return sprintf("%.2f", v)
	return sprintf("%.3f", v)
}

# "median (min-max)" of one figure
function cell(s, m, c) {
	if (!has(s, m, c)) return "-"
	kstats(key(s, m, c))
	if (S_n == 1) return num(S_med)
	return num(S_med) " (" num(S_min) "-" num(S_max) ")"
}

# per-round ratio a/b, or (a-base)/(b-base) with base: sets S_*
function ratio(s, m, ca, cb, base,    ka, kb, kc, a, i, r, n, d) {
	ka = key(s, m, ca); kb = key(s, m, cb); kc = key(s, m, base)
	n = 0
	delete a
	for (i = 1; i <= nsamp[ka]; i++) {
		r = rounds[ka, i]
		if (!((kb, r) in val)) continue
		if (base != "") {
			if (!((kc, r) in val)) continue
			d = val[kb, r] - val[kc, r]
			if (d <= 0) continue
			a[++n] = (val[ka, r] - val[kc, r]) / d
		} else {
			if (val[kb, r] <= 0) continue
			a[++n] = val[ka, r] / val[kb, r]
		}
	}
	stats(a, n)
}

# per-round share a / (b - c) of figures ka of one metric and kb, kc of
# another (a part of the difference between two configurations): sets S_*
function dratio(ka, kb, kc,    a, i, r, n, d) {
	n = 0
	delete a
	for (i = 1; i <= nsamp[ka]; i++) {
		r = rounds[ka, i]
		if (!((kb, r) in val) || !((kc, r) in val)) continue
		d = val[kb, r] - val[kc, r]
		if (d <= 0) continue
		a[++n] = val[ka, r] / d
	}
	stats(a, n)
}

# "median (min-max)" of the ratio in S_*, "-" if there is none
function scell() {
	if (!S_n) return "-"
	if (S_n == 1) return sprintf("%.2f", S_med)
	return sprintf("%.2f (%.2f-%.2f)", S_med, S_min, S_max)
}

function rcell(s, m, ca, cb, base, label) {
	ratio(s, m, ca, cb, base)
	if (label != "")
		add_ratio(s, m, label)
	return scell()
}

function add_ratio(s, m, label) {
	if (!S_n) return
	nratios++
	R_s[nratios] = s; R_m[nratios] = m; R_l[nratios] = label
	R_n[nratios] = S_n; R_min[nratios] = S_min
	R_med[nratios] = S_med; R_max[nratios] = S_max
}

# per-function interval inside an operation: median, [lowest-highest] seen
function fcell(c, op,    lo, hi) {
	if (!has("scale", op "_per_func_median_ms", c)) return "-"
	kstats(key("scale", op "_per_func_min_ms", c)); lo = S_min
	kstats(key("scale", op "_per_func_max_ms", c)); hi = S_max
	kstats(key("scale", op "_per_func_median_ms", c))
	return num(S_med) (lo == "" ? "" : " [" num(lo) "-" num(hi) "]")
}

# require(S, M, C, WANT): figure S/M/C must be there with WANT samples
# (its rounds), else a problem naming it
function require(s, m, c, want,    k) {
	k = key(s, m, c)
	# (nsamp[k] may have been created empty by a lookup above)
	if (!(k in nsamp) || nsamp[k] + 0 == 0)
		problem(sprintf("missing figure: %s/%s/%s (required in a %s run)", s, m, c, info["mode"]))
	else if (nsamp[k] < want + 0)
		problem(sprintf("figure %s/%s/%s has %d of its %d samples", s, m, c, nsamp[k], want))
}

# The figures a run of each mode must have, as many samples as rounds:
#   full   every redirect configuration (both loops, the BPF programs'
#          own cost), every switch of both cores and the insmod alone,
#          scale register/enable/disable of both cores at every N (and
#          the insmod behind the largest N's disable), and the tools'
#          section from their own boot (klptop, klp-exporter)
#   quick  the same, fewer rounds and N (the tools in the same boot)
#   tools  klp's scale at its N and the tools' section
#   transition  the redirect section's unpatched, builtin and ours, the
#          transition section, and scale at its N for both cores
#   builtin  the builtin section's four configurations and the tools' rows
#          of both cores (bench/report-builtin.awk)
# A guest.sh that has the transition section says so (transition_rounds):
# its full and quick runs need that section's figures too, and klp's
# "returned" figures of the scale section.
# The rounds come from the guest's own records (redirect_rounds,
# switch_rounds, scale_rounds "N:rounds ..."); an older output without
# scale_rounds needs one sample per N.
function check_required(    mode, i, j, n, nc, nn, ns, nr, sr, sp, cf, ops, kinds, ins_n) {
	mode = info["mode"]
	if (!("done" in info))
		problem("the guest run did not finish (no done record)")
	if (mode != "full" && mode != "quick" && mode != "tools" && mode != "transition" && mode != "builtin" && mode != "percall") {
		problem("no mode record (I|mode|full, quick, tools, transition, builtin or percall): which figures it needs is unknown")
		return
	}
	if (mode == "builtin") {
		require_builtin(info["builtin_rounds"])
		return
	}
	if (mode == "percall") {
		require_percall()
		return
	}
	nn = split(info["scale_n"], ns, " ")
	if (!nn)
		problem("no scale_n record: the scale section's N are unknown")
	split(info["scale_rounds"], sr, " ")
	for (i in sr) {
		split(sr[i], sp, ":")
		nr[sp[1]] = sp[2]
	}
	for (i = 1; i <= nn; i++) {
		n = ns[i]
		if (!(n in nr))
			nr[n] = 1
		require("scale", "enable_ms", "ours_" n, nr[n])
		require("scale", "disable_ms", "ours_" n, nr[n])
		require("scale", "register_ms", "ours_" n, 1)
		if ("transition_rounds" in info) {
			require("scale", "enable_returned_ms", "ours_" n, nr[n])
			require("scale", "disable_returned_ms", "ours_" n, nr[n])
		}
		if (mode == "tools")
			continue
		require("scale", "enable_ms", "builtin_" n, nr[n])
		require("scale", "disable_ms", "builtin_" n, nr[n])
		ins_n = n
	}
	if (mode != "tools") {
		require("scale", "insmod_wait_ms", "ours_" ins_n, nr[ins_n])
		require("scale", "insmod_wait_ms", "builtin_" ins_n, nr[ins_n])
		nc = split(mode == "transition" ? "unpatched builtin ours" : "unpatched builtin ours ours_klptop ours_perf ours_bpf0", cf, " ")
		for (i = 1; i <= nc; i++) {
			require("redirect", "kernel_ns", cf[i], info["redirect_rounds"])
			require("redirect", "user_ns", cf[i], info["redirect_rounds"])
		}
		if (mode == "transition" || (("transition_rounds" in info) && info["transition_rounds"] > 0))
			require_transition(info["transition_rounds"])
		if (mode == "transition")
			return
		require("redirect", "bpf_ns_per_run", "ours_klptop", info["redirect_rounds"])
		require("redirect", "bpf_ns_per_run", "ours_bpf0", info["redirect_rounds"])
		split("enable stack unstack disable", ops, " ")
		split("returned live_same live_other complete", kinds, " ")
		for (i = 1; i <= 4; i++)
			for (j = 1; j <= 4; j++) {
				require("switch", ops[i] "_" kinds[j] "_ms", "ours", info["switch_rounds"])
				require("switch", ops[i] "_" kinds[j] "_ms", "builtin", info["switch_rounds"])
			}
		require("switch", "insmod_returned_ms", "null", info["switch_rounds"])
	}
	if (mode == "full" && !("tools_done" in info))
		problem("the tools' boot did not finish (no tools_done record)")
	split("busy_screen busy_json idle_screen idle_json", cf, " ")
	for (i = 1; i <= 4; i++) {
		require("klptop", "cpu_pct", cf[i], 1)
		require("klptop", "cpu_total_pct", cf[i], 1)
	}
	require("exporter", "cpu_ms_per_scrape", "busy", 1)
	require("exporter", "cpu_ms_per_scrape", "idle", 1)
}

function jstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	gsub(/\t/, " ", s)
	return "\"" s "\""
}

function jnum(v) { return v == "" ? "null" : sprintf("%.6g", v) }

# The tables of every mode but builtin (bench/report-builtin.awk's)
function main_tables() {
	print "### Redirection cost per call of klp_target_a (ns)"
	print ""
	print "median (min-max) over the rounds; kernel loop: `a N` > klp_target/call;"
	print "userspace: one pread() of a debugfs file per call."
	print ""
	print "| configuration | kernel loop | userspace pread() |"
	print "|---|---|---|"
	ncf = split("unpatched builtin ours ours_klptop ours_perf ours_bpf0", cf, " ")
	cname["unpatched"] = "(1) unpatched"
	cname["builtin"] = "(2) builtin livepatch"
	cname["ours"] = "(3) klp, tracepoints off"
	cname["ours_klptop"] = "(4) klp + klptop (BPF counters)"
	cname["ours_perf"] = "(5) klp + `perf stat -e 'klp:*'`"
	cname["ours_bpf0"] = "(6) klp + a BPF program that does nothing"
	for (i = 1; i <= ncf; i++)
		if ((i <= 5 && info["mode"] != "transition") || has("redirect", "kernel_ns", cf[i]))
			printf "| %s | %s | %s |\n", cname[cf[i]], cell("redirect", "kernel_ns", cf[i]), cell("redirect", "user_ns", cf[i])
	print ""
	print "| ratio (per round) | kernel loop | userspace pread() |"
	print "|---|---|---|"
	printf "| 3/2 klp / builtin | %s | %s |\n", rcell("redirect", "kernel_ns", "ours", "builtin", "", "3/2"), rcell("redirect", "user_ns", "ours", "builtin", "", "3/2")
	printf "| 4/3 klp+klptop / klp | %s | %s |\n", rcell("redirect", "kernel_ns", "ours_klptop", "ours", "", "4/3"), rcell("redirect", "user_ns", "ours_klptop", "ours", "", "4/3")
	printf "| 5/3 klp+perf / klp | %s | %s |\n", rcell("redirect", "kernel_ns", "ours_perf", "ours", "", "5/3"), rcell("redirect", "user_ns", "ours_perf", "ours", "", "5/3")
	if (has("redirect", "kernel_ns", "ours_bpf0"))
		printf "| 6/3 klp+empty BPF program / klp: the floor of 4/3 | %s | %s |\n", rcell("redirect", "kernel_ns", "ours_bpf0", "ours", "", "6/3"), rcell("redirect", "user_ns", "ours_bpf0", "ours", "", "6/3")
	printf "| (3-1)/(2-1) added cost, klp / builtin | %s | %s |\n", rcell("redirect", "kernel_ns", "ours", "builtin", "unpatched", "(3-1)/(2-1)"), rcell("redirect", "user_ns", "ours", "builtin", "unpatched", "(3-1)/(2-1)")
	printf "| (4-1)/(3-1) added cost, klp+klptop / klp | %s | %s |\n", rcell("redirect", "kernel_ns", "ours_klptop", "ours", "unpatched", "(4-1)/(3-1)"), rcell("redirect", "user_ns", "ours_klptop", "ours", "unpatched", "(4-1)/(3-1)")
	printf "| (5-1)/(3-1) added cost, klp+perf / klp | %s | %s |\n", rcell("redirect", "kernel_ns", "ours_perf", "ours", "unpatched", "(5-1)/(3-1)"), rcell("redirect", "user_ns", "ours_perf", "ours", "unpatched", "(5-1)/(3-1)")

	if (has("redirect", "bpf_ns_per_run", "ours_klptop")) {
		print ""
		print "klptop's BPF program on klp:klp_redirect (`klptop_redirect`) by itself: run_time_ns / run_cnt from"
		print "`bpftool prog show`, over one more kernel loop after the timed ones of (4) with"
		print "kernel.bpf_stats_enabled=1 (on only for that loop: (4) above is timed without the stats), and its"
		print "share of what klptop adds to a call in the kernel loop, (4-3), in the same round; the same for"
		print "the program that does nothing of (6) and what it adds, (6-3)."
		print ""
		print "| BPF program on klp_redirect | ns per run | runs in the loop | share of what it adds |"
		print "|---|---|---|---|"
		dratio(key("redirect", "bpf_ns_per_run", "ours_klptop"), key("redirect", "kernel_ns", "ours_klptop"), key("redirect", "kernel_ns", "ours"))
		add_ratio("redirect", "bpf_ns_per_run", "bpf/(4-3) kernel loop")
		share = scell()
		printf "| (4) klptop_redirect | %s | %s | %s |\n", cell("redirect", "bpf_ns_per_run", "ours_klptop"), cell("redirect", "bpf_run_cnt", "ours_klptop"), share
		if (has("redirect", "bpf_ns_per_run", "ours_bpf0")) {
			dratio(key("redirect", "bpf_ns_per_run", "ours_bpf0"), key("redirect", "kernel_ns", "ours_bpf0"), key("redirect", "kernel_ns", "ours"))
			add_ratio("redirect", "bpf_ns_per_run", "bpf0/(6-3) kernel loop")
			share = scell()
			printf "| (6) emptyprog | %s | %s | %s |\n", cell("redirect", "bpf_ns_per_run", "ours_bpf0"), cell("redirect", "bpf_run_cnt", "ours_bpf0"), share
		}
	}

	print ""
	print "### Winner switch latency, one function (ms)"
	print ""
	print "From just before the `enabled` write (builtin enable and stack: its insmod) until it returned,"
	print "until the same task / a task spinning on the other CPU first got the new winner's value, and until"
	print "the switch is complete (`transition` reads 0, or the builtin patch is gone)."
	print ""
	print "| switch | core | returned | live, same task | live, other CPU | complete |"
	print "|---|---|---|---|---|---|"
	split("enable stack unstack disable", ops, " ")
	oname["enable"] = "enable (original -> P1)"
	oname["stack"] = "stack (P1 -> P2 on top)"
	oname["unstack"] = "unstack (P2 off -> P1)"
	oname["disable"] = "disable (P1 -> original)"
	for (i = 1; i <= 4; i++) {
		o = ops[i]
		for (j = 0; j < 2; j++) {
			c = j ? "builtin" : "ours"
			printf "| %s | %s | %s | %s | %s | %s |\n", j ? "" : oname[o], j ? "builtin" : "klp", cell("switch", o "_returned_ms", c), cell("switch", o "_live_same_ms", c), cell("switch", o "_live_other_ms", c), cell("switch", o "_complete_ms", c)
		}
		printf "| | klp / builtin | %s | %s | %s | %s |\n", rcell("switch", o "_returned_ms", "ours", "builtin", "", "ours/builtin"), rcell("switch", o "_live_same_ms", "ours", "builtin", "", "ours/builtin"), rcell("switch", o "_live_other_ms", "ours", "builtin", "", "ours/builtin"), rcell("switch", o "_complete_ms", "ours", "builtin", "", "ours/builtin")
	}

	if (has("switch", "insmod_returned_ms", "null"))
		printf "| insmod of an empty module | | %s | | | |\n", cell("switch", "insmod_returned_ms", "null")
	if (has("transition", "kernel_ns", "enabling_ours"))
		transition_table()
	print ""
	print "### One patch of N functions (ms)"
	print ""
	print "klp: register = insmod of the patch module (once: a klp patch module never unloads); enable and"
	print "disable = the `enabled` write, complete when `transition` reads 0 (every task switched).  builtin:"
	print "enable = its insmod (which registers as well), complete when `transition` reads 0; disable = the"
	print "`enabled` write, complete when the patch is gone.  Per function = complete / N."
	print ""
	print "| N | core | register | enable returned | enable complete | disable returned | disable complete | enable / fn | disable / fn |"
	print "|---|---|---|---|---|---|---|---|---|"
	nn = split(info["scale_n"], ns, " ")
	for (i = 1; i <= nn; i++) {
		n = ns[i]
		c = "ours_" n
		kstats(key("scale", "enable_ms", c)); pe = S_med == "" ? "" : S_med / n
		kstats(key("scale", "disable_ms", c)); pd = S_med == "" ? "" : S_med / n
		# (an output from before the consistency model: klp complete when the write returned)
		er = has("scale", "enable_returned_ms", c) ? "enable_returned_ms" : "enable_ms"
		dr = has("scale", "disable_returned_ms", c) ? "disable_returned_ms" : "disable_ms"
		printf "| %s | klp | %s | %s | %s | %s | %s | %s | %s |\n", n, cell("scale", "register_ms", c), cell("scale", er, c), cell("scale", "enable_ms", c), cell("scale", dr, c), cell("scale", "disable_ms", c), num(pe), num(pd)
		c = "builtin_" n
		kstats(key("scale", "enable_ms", c)); pe = S_med == "" ? "" : S_med / n
		kstats(key("scale", "disable_ms", c)); pd = S_med == "" ? "" : S_med / n
		printf "| | builtin | (in enable) | %s | %s | %s | %s | %s | %s |\n", cell("scale", "enable_returned_ms", c), cell("scale", "enable_ms", c), cell("scale", "disable_returned_ms", c), cell("scale", "disable_ms", c), num(pe), num(pd)
		printf "| | klp / builtin | | | %s | | %s | | |\n", rcell("scale", "enable_ms", "ours_" n, "builtin_" n, "", "ours/builtin N=" n), rcell("scale", "disable_ms", "ours_" n, "builtin_" n, "", "ours/builtin N=" n)
	}
	print ""
	print "Per function (median ms / N) and growth (per-function cost at N over that at the previous N):"
	print ""
	print "| N | klp register | klp enable | builtin enable | klp disable | builtin disable |"
	print "|---|---|---|---|---|---|"
	split("register_ms:ours enable_ms:ours enable_ms:builtin disable_ms:ours disable_ms:builtin", cols, " ")
	delete prev
	for (i = 1; i <= nn; i++) {
		n = ns[i]
		line = "| " n
		for (j = 1; j <= 5; j++) {
			split(cols[j], mc, ":")
			k = key("scale", mc[1], mc[2] "_" n)
			if (!(k in nsamp)) { line = line " | -"; continue }
			kstats(k)
			pf = S_med / n
			line = line " | " num(pf)
			if (j in prev && prev[j] > 0)
				line = line sprintf(" (x%.2f)", pf / prev[j])
			prev[j] = pf
			perfunc[mc[1], mc[2], n] = pf
		}
		print line " |"
	}

	for (i = 1; i <= nn; i++)
		if (has("scale", "insmod_wait_ms", "ours_" ns[i]) || has("scale", "insmod_wait_ms", "builtin_" ns[i]))
			iw[++niw] = ns[i]
	if (niw) {
		print ""
		print "An unrelated insmod (an empty module) started 0.05 s into the disable of N functions, until it"
		print "returned: how long a module load waits behind a large disable.  At this N the disable's"
		print "figures above have it running alongside.  Alone, the same insmod takes the switch section's"
		print "\"insmod of an empty module\" (last column)."
		print ""
		print "| N | klp | builtin | klp / builtin | insmod alone |"
		print "|---|---|---|---|---|"
		for (i = 1; i <= niw; i++) {
			n = iw[i]
			printf "| %s | %s | %s | %s | %s |\n", n, cell("scale", "insmod_wait_ms", "ours_" n), cell("scale", "insmod_wait_ms", "builtin_" n), rcell("scale", "insmod_wait_ms", "ours_" n, "builtin_" n, "", "ours/builtin N=" n), cell("switch", "insmod_returned_ms", "null")
		}
	}

	if (has("scale", "enable_per_func_median_ms", "ours_" ns[nn]) || has("scale", "disable_per_func_median_ms", "ours_" ns[nn])) {
		print ""
		print "Inside one operation, from kprobe events (ftrace is notrace, so each function is marked by the"
		print "module_alloc() (execmem_alloc() since 6.10) of its ftrace_ops trampoline when enabled, by the synchronize_rcu_tasks_rude() of"
		print "its ftrace_shutdown() when disabled): the interval between consecutive functions, median and"
		print "[lowest-highest] over the patch, and the median over its first and last 10% (a cost growing with"
		print "the number already done shows as last > first); the time spent in synchronize_rcu_tasks() +"
		print "synchronize_rcu_tasks_rude(), and in module_alloc() (enable) or module_memfree() (disable; execmem_* since 6.10), with"
		print "their share of the operation."
		print ""
		print "| N | core | op | per function [min-max] | first 10% | last 10% | RCU-tasks waits (share) | module_alloc / _memfree (share) |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nn; i++) {
			n = ns[i]
			for (o = 0; o < 2; o++) {
				op = o ? "disable" : "enable"
				for (j = 0; j < 2; j++) {
					c = (j ? "builtin_" : "ours_") n
					if (!has("scale", op "_marks", c)) continue
					kstats(key("scale", op "_rcu_tasks_wait_ms", c)); w = S_med
					kstats(key("scale", op "_rcu_tasks_rude_wait_ms", c)); w += S_med
					kstats(key("scale", op "_module_" (o ? "memfree" : "alloc") "_ms", c)); ma = S_med
					tot = 0
					if (has("scale", op "_ms", c)) {
						kstats(key("scale", op "_ms", c))
						tot = S_med
					}
					printf "| %s | %s | %s | %s | %s | %s | %s%s | %s%s |\n", n, j ? "builtin" : "klp", op, fcell(c, op), cell("scale", op "_per_func_first10pct_ms", c), cell("scale", op "_per_func_last10pct_ms", c), num(w), (tot > 0 ? sprintf(" (%.0f%%)", 100 * w / tot) : ""), num(ma), (tot > 0 ? sprintf(" (%.0f%%)", 100 * ma / tot) : "")
				}
			}
		}
	}

	if (has("scale", "enable_per_func_decile1_ms", "ours_" ns[nn])) {
		print ""
		print "The same intervals by tenth of the patch, in the order the functions are done (median ms of each"
		print "tenth): a flat row is a per-function cost that does not grow with the number already done."
		print ""
		print "| N | core | op | 1st | 2nd | 3rd | 4th | 5th | 6th | 7th | 8th | 9th | 10th | last / first |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nn; i++) {
			n = ns[i]
			for (o = 0; o < 2; o++) {
				op = o ? "disable" : "enable"
				for (j = 0; j < 2; j++) {
					c = (j ? "builtin_" : "ours_") n
					if (!has("scale", op "_per_func_decile1_ms", c)) continue
					line = sprintf("| %s | %s | %s", n, j ? "builtin" : "klp", op)
					for (d = 1; d <= 10; d++) {
						kstats(key("scale", op "_per_func_decile" d "_ms", c))
						dv[d] = S_med
						line = line " | " num(S_med)
					}
					print line sprintf(" | %.2f |", dv[1] > 0 ? dv[10] / dv[1] : 0)
				}
			}
		}
	}

	tools_tables()

}

END {
	check_states()		# before the tables look states up
	if (info["mode"] == "builtin")
		builtin_table()
	else if (info["mode"] == "percall")
		percall_table()
	else
		main_tables()
	print ""
	printf "Guest: %s, %s vCPUs (QEMU %s), kernel %s; ", info["cpu"], info["cpus"], accel_name(info["accel"]), info["kernel"]
	if (info["mode"] == "builtin")
		printf "%s rounds per call", info["builtin_rounds"]
	else if (info["mode"] == "percall")
		printf "%s boots of %s rounds", info["boots"], info["redirect_rounds"]
	else
		printf "%s rounds redirect, %s switch, %s transition", info["redirect_rounds"], info["switch_rounds"], ("transition_rounds" in info ? info["transition_rounds"] : 0)
	printf "; loops of %s kernel calls and %s preads.\n", info["kernel_loop_calls"], info["user_preads"]
	check_required()
	check_cpu_readings()
	targets_missed()
	if (nerr) {
		print ""
		print "Errors (the run is not published):"
		for (i = 1; i <= nerr; i++)
			print "- " errs[i]
	}

	if (json == "")
		exit nerr > 0
	printf "{\n" > json
	printf "  \"note\": %s,\n", jstr("Measured in a QEMU TCG guest (emulated CPU): absolute figures are not those of real hardware; only ratios between configurations measured side by side carry over.") > json
	printf "  \"generated\": %s,\n", jstr(generated) > json
	printf "  \"info\": {" > json
	for (i = 1; i <= ninfo; i++)
		printf "%s\n    %s: %s", (i > 1 ? "," : ""), jstr(ikeys[i]), jstr(info[ikeys[i]]) > json
	printf "\n  },\n  \"figures\": [" > json
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		split(k, p, SUBSEP)
		kstats(k)
		printf "%s\n    {\"section\": %s, \"metric\": %s, \"config\": %s, \"unit\": %s, \"n\": %d, \"min\": %s, \"median\": %s, \"max\": %s, \"samples\": [", (i > 1 ? "," : ""), jstr(p[1]), jstr(p[2]), jstr(p[3]), jstr(unit[k]), S_n, jnum(S_min), jnum(S_med), jnum(S_max) > json
		for (j = 1; j <= nsamp[k]; j++)
			printf "%s%s", (j > 1 ? ", " : ""), jnum(val[k, rounds[k, j]]) > json
		printf "], \"rounds\": [" > json
		for (j = 1; j <= nsamp[k]; j++)
			printf "%s%s", (j > 1 ? ", " : ""), jstr(rounds[k, j]) > json
		printf "]%s}", state_json(k) > json
	}
	printf "\n  ],\n  \"ratios\": [" > json
	for (i = 1; i <= nratios; i++)
		printf "%s\n    {\"section\": %s, \"metric\": %s, \"ratio\": %s, \"n\": %d, \"min\": %s, \"median\": %s, \"max\": %s}", (i > 1 ? "," : ""), jstr(R_s[i]), jstr(R_m[i]), jstr(R_l[i]), R_n[i], jnum(R_min[i]), jnum(R_med[i]), jnum(R_max[i]) > json
	printf "\n  ],\n" > json
	targets_json(json)
	printf "  \"errors\": [" > json
	for (i = 1; i <= nerr; i++)
		printf "%s\n    %s", (i > 1 ? "," : ""), jstr(errs[i]) > json
	printf "\n  ]\n}\n" > json
	close(json)
	exit nerr > 0
}
