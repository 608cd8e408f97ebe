# SPDX-License-Identifier: GPL-2.0
# bench/report-builtin.awk - the builtin mode of bench/report.awk (loaded
# after it: its helpers cell, rcell, scell, kstats, stats, key, has,
# require, problem, num, jstr, jnum, accel_name): the figures it requires,
# its tables, and the targets those tables hold the figures to.
#
# A target is met or missed by the run's figures; a missed target does not
# stop a run from being published (it is what was measured), but the table
# says **no** beside it and lists it under "Targets missed", the JSON's
# "targets" has "met": false, and bench/run.sh names it.

# target(LABEL, VALUE, OP, LIMIT): VALUE OP LIMIT (OP "<=" or "<") is the
# target LABEL; records it, returns "yes" or "**no**" ("-" without VALUE)
function target(label, v, op, limit,    met) {
	if (v == "")
		return "-"
	met = op == "<" ? v < limit : v <= limit
	nt++
	T_l[nt] = label; T_v[nt] = v; T_op[nt] = op; T_lim[nt] = limit; T_met[nt] = met
	return met ? "yes" : "**no**"
}

# the targets missed, at the end of the table (bench/run.sh prints them)
function targets_missed(    i, n) {
	for (i = 1; i <= nt; i++)
		if (!T_met[i]) {
			if (!n++) {
				print ""
				print "Targets missed:"
			}
			printf "- target missed: %s: %s, not %s %s\n", T_l[i], num(T_v[i]), T_op[i], num(T_lim[i])
		}
}

# the JSON's "targets" (nothing when the run's mode has none)
function targets_json(json,    i) {
	if (!nt)
		return
	printf "  \"targets\": [" > json
	for (i = 1; i <= nt; i++)
		printf "%s\n    {\"target\": %s, \"value\": %s, \"op\": %s, \"limit\": %s, \"met\": %s}", (i > 1 ? "," : ""), jstr(T_l[i]), jnum(T_v[i]), jstr(T_op[i]), jnum(T_lim[i]), T_met[i] ? "true" : "false" > json
	printf "\n  ],\n" > json
}

# the builtin mode's figures: every per-call configuration over its
# rounds, klptop's counting program's own cost, and the tools' rows of
# both cores
function require_builtin(rb,    i, j, cf, core, load) {
	if (!(rb > 0)) {
		problem("no builtin_rounds record: the builtin section's rounds are unknown")
		return
	}
	split("builtin builtin_klptop ours ours_klptop", cf, " ")
	for (i = 1; i <= 4; i++) {
		require("builtin", "kernel_ns", cf[i], rb)
		require("builtin", "user_ns", cf[i], rb)
	}
	require("builtin", "bpf_ns_per_run", "builtin_klptop", rb)
	require("builtin", "bpf_ns_per_run", "ours_klptop", rb)
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			core = i ? "builtin" : "ours"
			load = j ? "idle" : "busy"
			require("klptop", "cpu_pct", core "_" load "_json", 1)
			require("klptop", "cpu_total_pct", core "_" load "_json", 1)
			require("exporter", "cpu_ms_per_scrape", core "_" load, 1)
			cpu_moved(core "_" load "_json")
			ex_cpu_moved(core "_" load)
			require_info("klptop_cpu_ns_" core "_" load "_json")
			require_info("exporter_cpu_ns_" core "_" load)
		}
}

# require_info KEY: the guest's I|KEY record
function require_info(k) {
	if (!(k in info))
		problem(sprintf("missing record: I|%s (required in a %s run)", k, info["mode"]))
}

# An exporter that served its scrapes used CPU time for them: none is a
# clock (or a reading) that did not count it, as for klptop below.
function ex_cpu_moved(c) {
	if (!has("exporter", "cpu_ms_per_scrape", c) || !has("exporter", "bytes_per_scrape", c))
		return
	kstats(key("exporter", "cpu_ms_per_scrape", c))
	if (S_max > 0)
		return
	kstats(key("exporter", "bytes_per_scrape", c))
	if (S_max > 0)
		problem(sprintf("not measured: exporter/cpu_ms_per_scrape/%s is 0 while each scrape served %s bytes (its CPU time did not advance)", c, S_max))
}

# A klptop that wrote its lines used CPU time: none over all its
# intervals is a clock that did not count it (seen on TCG), not a cost
# of 0, and would meet any target.
function cpu_moved(c,    k) {
	k = key("klptop", "cpu_total_pct", c)
	if (!(k in nsamp) || !has("klptop", "output_bytes_per_s", c))
		return
	kstats(k)
	if (S_max > 0)
		return
	kstats(key("klptop", "output_bytes_per_s", c))
	if (S_max > 0)
		problem(sprintf("not measured: klptop/cpu_total_pct/%s is 0 while klptop wrote %s B/s (its CPU time did not advance)", c, S_max))
}

# per-round ratio of two per-round ratios, (a/b) / (c/d): sets S_*
function rratio(ka, kb, kc, kd,    a, i, r, n) {
	n = 0
	delete a
	for (i = 1; i <= nsamp[ka]; i++) {
		r = rounds[ka, i]
		if (!((kb, r) in val) || !((kc, r) in val) || !((kd, r) in val))
			continue
		if (val[kb, r] <= 0 || val[kc, r] <= 0 || val[kd, r] <= 0)
			continue
		a[++n] = (val[ka, r] / val[kb, r]) / (val[kc, r] / val[kd, r])
	}
	stats(a, n)
}

# per loop (m[1], m[2]), the cells of (CFG / builtin) / R_klp per round,
# recorded as ratio LABEL: v[1], v[2]
function rr_cells(cfg, label, m, v,    i) {
	for (i = 1; i <= 2; i++) {
		rratio(key("builtin", m[i], cfg), key("builtin", m[i], "builtin"), key("builtin", m[i], "ours_klptop"), key("builtin", m[i], "ours"))
		add_ratio("builtin", m[i], label)
		v[i] = scell()
	}
}

# the per-call table: R_builtin and R_klp per loop, and the verdict
function builtin_percall(    cf, cn, i, m, rb, rk, v, lname) {
	print "### klptop counting the calls of a builtin-patched function (per call, ns)"
	print ""
	print "Per call of klp_target_a as in the redirect section (median (min-max) over the rounds; kernel loop:"
	print "`a N` > klp_target/call; userspace: one pread() of a debugfs file per call), patched by the builtin"
	print "livepatch (bench_builtin1) or by klp (bench_ours1), alone and with `klptop --json 1` counting its"
	print "calls (the builtin's: a kprobe on the patch's new function; klp's: its program on klp:klp_redirect);"
	print "the four side by side in every round, their order rotating."
	print ""
	print "| configuration | kernel loop | userspace pread() |"
	print "|---|---|---|"
	split("builtin builtin_klptop builtin_bpf0 ours ours_klptop", cf, " ")
	cn["builtin"] = "builtin livepatch alone"
	cn["builtin_klptop"] = "builtin livepatch + klptop counting"
	cn["builtin_bpf0"] = "builtin livepatch + a kprobe program that does nothing"
	cn["ours"] = "klp alone"
	cn["ours_klptop"] = "klp + klptop counting"
	for (i = 1; i <= 5; i++)
		if (has("builtin", "kernel_ns", cf[i]))
			printf "| %s | %s | %s |\n", cn[cf[i]], cell("builtin", "kernel_ns", cf[i]), cell("builtin", "user_ns", cf[i])
	print ""
	print "R_builtin = (builtin + klptop) / builtin and R_klp = (klp + klptop) / klp, per round; the target:"
	print "R_builtin <= R_klp (medians), in each loop."
	print ""
	print "| ratio (per round) | kernel loop | userspace pread() |"
	print "|---|---|---|"
	split("kernel_ns user_ns", m, " ")
	lname["kernel_ns"] = "kernel loop"
	lname["user_ns"] = "userspace pread()"
	printf "| R_builtin | %s | %s |\n", rcell("builtin", "kernel_ns", "builtin_klptop", "builtin", "", "R_builtin"), rcell("builtin", "user_ns", "builtin_klptop", "builtin", "", "R_builtin")
	printf "| R_klp | %s | %s |\n", rcell("builtin", "kernel_ns", "ours_klptop", "ours", "", "R_klp"), rcell("builtin", "user_ns", "ours_klptop", "ours", "", "R_klp")
	rr_cells("builtin_klptop", "R_builtin/R_klp", m, v)
	printf "| R_builtin / R_klp | %s | %s |\n", v[1], v[2]
	for (i = 1; i <= 2; i++) {
		ratio("builtin", m[i], "builtin_klptop", "builtin", "")
		rb = S_med
		ratio("builtin", m[i], "ours_klptop", "ours", "")
		rk = S_med
		v[i] = target("per call, " lname[m[i]] ": R_builtin <= R_klp (R_builtin / R_klp of the medians)", (rb == "" || rk == "" ? "" : rb / rk), "<=", 1)
	}
	printf "| R_builtin <= R_klp | %s | %s |\n", v[1], v[2]
	builtin_floor(m)
	if (has("builtin", "bpf_ns_per_run", "builtin_klptop")) {
		print ""
		print "klptop's counting program by itself: run_time_ns / run_cnt from `bpftool prog show` over one more"
		print "kernel loop after the timed ones, with kernel.bpf_stats_enabled=1 (as in the redirect section)."
		print ""
		print "| program | ns per run | runs in the loop |"
		print "|---|---|---|"
		printf "| builtin: `lp_count` (kprobe) | %s | %s |\n", cell("builtin", "bpf_ns_per_run", "builtin_klptop"), cell("builtin", "bpf_run_cnt", "builtin_klptop")
		printf "| klp: `klptop_redirect` (raw tracepoint) | %s | %s |\n", cell("builtin", "bpf_ns_per_run", "ours_klptop"), cell("builtin", "bpf_run_cnt", "ours_klptop")
		if (has("builtin", "bpf_ns_per_run", "builtin_bpf0"))
			printf "| builtin: `emptykprobe` (kprobe, does nothing) | %s | %s |\n", cell("builtin", "bpf_ns_per_run", "builtin_bpf0"), cell("builtin", "bpf_run_cnt", "builtin_bpf0")
	}
}

# The floor of any kprobe counter: R_builtin0 = (builtin + a kprobe
# program that does nothing, where klptop's counter is) / builtin, and
# its ratio to R_klp; at or above 1, no program on that kprobe meets the
# per-call target
function builtin_floor(m,    v) {
	if (!has("builtin", "kernel_ns", "builtin_bpf0"))
		return
	printf "| R_builtin0 (a program that does nothing on the kprobe) | %s | %s |\n", rcell("builtin", "kernel_ns", "builtin_bpf0", "builtin", "", "R_builtin0"), rcell("builtin", "user_ns", "builtin_bpf0", "builtin", "", "R_builtin0")
	rr_cells("builtin_bpf0", "R_builtin0/R_klp", m, v)
	printf "| R_builtin0 / R_klp | %s | %s |\n", v[1], v[2]
}

# "value of the median" with a target on the median, for a tools' row
function tcell(s, m, c, label, op, limit) {
	if (!has(s, m, c))
		return "- | -"
	kstats(key(s, m, c))
	return cell(s, m, c) " | " target(label, S_med, op, limit)
}

# the tools' table: klptop --json 1 and klp-exporter, both cores
function builtin_tools(    i, j, core, cname, load, lname, c) {
	print ""
	printf "### klptop and klp-exporter, %s patched functions, klp and builtin\n", info["klptop_functions"]
	print ""
	print "With one patch of the same 1000 functions enabled under each core in turn (klp's first, then the"
	print "builtin's), as the klptop and klp-exporter rows of a full run measure them: `klptop --json 1`'s CPU"
	print "time (schedstat, all threads) per 1 s interval and over all of them (% of one CPU; the target on"
	print "the latter: at most 1%), klp-exporter's CPU time per OpenMetrics scrape (30 in a row, divided;"
	print "the target: under 20 ms), and their memory; busy: every function called in a loop on the other"
	print "CPU.  The tool starts before the loop and stops after it."
	print ""
	print "| tool | load | core | CPU per interval | CPU overall (%) | at most 1% | VmHWM kB | VmRSS kB |"
	print "|---|---|---|---|---|---|---|---|"
	cname["ours"] = "klp"
	cname["builtin"] = "builtin"
	lname["busy"] = "calls running"
	lname["idle"] = "idle"
	for (j = 0; j < 2; j++) {
		load = j ? "idle" : "busy"
		for (i = 0; i < 2; i++) {
			core = i ? "builtin" : "ours"
			c = core "_" load "_json"
			printf "| %s | %s | %s | %s %% | %s | %s | %s |\n", (i ? "" : "`klptop --json 1`"), (i ? "" : lname[load]), cname[core], cell("klptop", "cpu_pct", c), tcell("klptop", "cpu_total_pct", c, "klptop --json 1, " cname[core] ", " lname[load] ": CPU overall (% of one CPU)", "<=", 1), cell("klptop", "vm_hwm_kb", c), cell("klptop", "vm_rss_kb", c)
		}
	}
	print ""
	print "| tool | load | core | CPU per scrape (ms) | under 20 ms | bytes per scrape | winner samples | VmHWM kB | VmRSS kB |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (j = 0; j < 2; j++) {
		load = j ? "idle" : "busy"
		for (i = 0; i < 2; i++) {
			core = i ? "builtin" : "ours"
			c = core "_" load
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", (i ? "" : "klp-exporter"), (i ? "" : lname[load]), cname[core], tcell("exporter", "cpu_ms_per_scrape", c, "klp-exporter, " cname[core] ", " lname[load] ": CPU per scrape (ms)", "<", 20), cell("exporter", "bytes_per_scrape", c), ("exporter_winner_series_" c in info ? info["exporter_winner_series_" c] : "-"), cell("exporter", "vm_hwm_kb", c), cell("exporter", "vm_rss_kb", c)
		}
	}
	printf "\nCalls per second of the busy loop: klptop %s (klp), %s (builtin); klp-exporter %s (klp), %s (builtin).\n", bval("ours_busy_json"), bval("builtin_busy_json"), bval("ours_busy"), bval("builtin_busy")
	print "Measured on QEMU " accel_name(info["accel"]) "."
}

function bval(c) {
	return ("builtin_busy_calls_per_s_" c in info) ? info["builtin_busy_calls_per_s_" c] : "-"
}

function builtin_table() {
	builtin_percall()
	builtin_tools()
}
