# SPDX-License-Identifier: GPL-2.0
# bench/report-tools.awk - bench/report.awk's part for klptop's and
# klp-exporter's own cost: their tables and the checks of the raw CPU
# readings their figures come from.  Loaded with bench/report.awk, whose
# helpers (has, cell, problem, accel_name) it uses.

# The tools' own cost, from a boot of its own when a full run made one
function print_tools_accel() {
	if (!("tools_accel" in info))
		return
	printf "Measured in a boot of their own, on QEMU %s", accel_name(info["tools_accel"])
	if (accel_name(info["tools_accel"]) ~ /multi-threaded/)
		printf " (a vCPU per host thread: the other vCPU's slices do not count into a tool's time)"
	print "."
}

# The raw CPU-time readings (ns, at the start and the end) that a tool's
# CPU figures come from, I|klptop_cpu_ns_<config> and
# I|exporter_cpu_ns_<config> "START END" (a full run's tools boot keeps
# its own): whole numbers, the end not before the start, and neither
# 2147483647, 2^31 - 1: what mawk's printf "%d" makes of anything larger,
# a clamp that froze every reading of a tool past 2.15 s of CPU, so that
# its CPU time "stood still" (bench/guest.sh, cpu_ns).
function check_cpu_readings(    i, k, r, n) {
	for (i = 1; i <= ninfo; i++) {
		k = ikeys[i]
		if (k !~ /^(klptop|exporter)_cpu_ns_/)
			continue
		n = split(info[k], r, " ")
		if (n != 2 || r[1] !~ /^[0-9]+$/ || r[2] !~ /^[0-9]+$/)
			problem(sprintf("not measured: %s is '%s', not two CPU times in ns", k, info[k]))
		else if (r[1] == 2147483647 || r[2] == 2147483647)
			problem(sprintf("not measured: %s is '%s': 2147483647 is 2^31 - 1, a clamped printf %%d (mawk), not a CPU time", k, info[k]))
		else if (r[2] + 0 < r[1] + 0)
			problem(sprintf("not measured: %s is '%s': the CPU time went back", k, info[k]))
	}
}

# klptop's and klp-exporter's tables of a run that measured them
function tools_tables(    nk, km, kname, i, em, ename) {
	if (has("klptop", "cpu_pct", "busy_screen") || has("klptop", "cpu_pct", "idle_screen")) {
		print ""
		printf "### klptop's own cost, %s patched functions, 1 s interval\n", info["klptop_functions"]
		print ""
		print "CPU time of the klptop process (all threads) from /proc/<pid>/task/*/schedstat, in ns, per 1 s"
		print "interval (% of one CPU); busy:"
		printf "every function called in a loop on the other CPU (%s calls/s); memory at the end.\n", info["klptop_busy_calls_per_s"]
		print_tools_accel()
		print ""
		print "| klptop | CPU per interval | CPU overall | VmHWM kB | VmRSS kB | output B/s |"
		print "|---|---|---|---|---|---|"
		nk = split("busy_screen busy_json idle_screen idle_json", km, " ")
		kname["busy_screen"] = "`klptop -C 1`, calls running"
		kname["busy_json"] = "`klptop --json 1`, calls running"
		kname["idle_screen"] = "`klptop -C 1`, idle"
		kname["idle_json"] = "`klptop --json 1`, idle"
		for (i = 1; i <= nk; i++)
			if (has("klptop", "cpu_pct", km[i]))
				printf "| %s | %s %% | %s %% | %s | %s | %s |\n", kname[km[i]], cell("klptop", "cpu_pct", km[i]), cell("klptop", "cpu_total_pct", km[i]), cell("klptop", "vm_hwm_kb", km[i]), cell("klptop", "vm_rss_kb", km[i]), cell("klptop", "output_bytes_per_s", km[i])
	}

	if (has("exporter", "cpu_ms_per_scrape", "busy") || has("exporter", "cpu_ms_per_scrape", "idle")) {
		print ""
		printf "### klp-exporter's cost, %s patched functions (%s winner samples a scrape)\n", info["klptop_functions"], info["exporter_winner_series"]
		print ""
		print "CPU time of the klp-exporter process per OpenMetrics scrape of GET /metrics (schedstat"
		print "over 30 scrapes one after the other, divided), the scrape's size, and its memory after"
		print "them; targets: under 20 ms a scrape, under 10 MB resident."
		print_tools_accel()
		print ""
		print "| klp-exporter | CPU per scrape | bytes per scrape | VmHWM kB | VmRSS kB |"
		print "|---|---|---|---|---|"
		split("busy idle", em, " ")
		ename["busy"] = "calls running"
		ename["idle"] = "idle"
		for (i = 1; i <= 2; i++)
			if (has("exporter", "cpu_ms_per_scrape", em[i]))
				printf "| %s | %s ms | %s | %s | %s |\n", ename[em[i]], cell("exporter", "cpu_ms_per_scrape", em[i]), cell("exporter", "bytes_per_scrape", em[i]), cell("exporter", "vm_hwm_kb", em[i]), cell("exporter", "vm_rss_kb", em[i])
	}
}
