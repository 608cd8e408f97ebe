# SPDX-License-Identifier: GPL-2.0
# bench/report-transition.awk - the transition section of bench/report.awk
# (loaded after it: its helpers cell, rcell, scell, kstats, stats, key,
# has, require): the figures it requires and its table.

# the transition section's figures, each over its rounds
function require_transition(rt,    i, j, c) {
	if (!(rt > 0)) {
		problem("no transition_rounds record: the transition section's rounds are unknown")
		return
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			c = (i ? "disabling_" : "enabling_") (j ? "builtin" : "ours")
			require("transition", "kernel_ns", c, rt)
			require("transition", "user_ns", c, rt)
			require("transition", "release_complete_ms", c, rt)
			require("transition", "unswitched_ns", c, rt)
			require("transition", "unswitched_before_ns", c, rt)
		}
	require("transition", "sweeps_at_complete", "enable_ours", rt)
	require("transition", "sweeps_at_complete", "disable_ours", rt)
}

# per-round ratio ka / kb of two figures: sets S_*
function kratio(ka, kb,    a, i, r, n) {
	n = 0
	delete a
	for (i = 1; i <= nsamp[ka]; i++) {
		r = rounds[ka, i]
		if (!((kb, r) in val) || val[kb, r] <= 0) continue
		a[++n] = val[ka, r] / val[kb, r]
	}
	stats(a, n)
}

# The transition section: per call while each core's transition is held
# open, the release of the holder until completion, klp's sweeps
function transition_table(    i, j, d, c, dn, sw) {
	print ""
	print "### During a transition"
	print ""
	print "Per call of klp_target_a (ns, as in the redirect section) while the patch's transition is held"
	print "open by a kthread asleep in another function of the same patch (klp_cm_hold()), timed by a task"
	print "that has switched: enabling (it gets the new function), disabling (it gets the original).  Outside"
	print "a transition: the redirect section's builtin and klp rows."
	print ""
	print "| transition | core | kernel loop | userspace pread() |"
	print "|---|---|---|---|"
	split("enabling disabling", dn, " ")
	for (d = 1; d <= 2; d++) {
		for (j = 0; j < 2; j++) {
			c = dn[d] "_" (j ? "builtin" : "ours")
			printf "| %s | %s | %s | %s |\n", j ? "" : dn[d], j ? "builtin" : "klp", cell("transition", "kernel_ns", c), cell("transition", "user_ns", c)
		}
		printf "| | klp / builtin | %s | %s |\n", rcell("transition", "kernel_ns", dn[d] "_ours", dn[d] "_builtin", "", "ours/builtin " dn[d]), rcell("transition", "user_ns", dn[d] "_ours", dn[d] "_builtin", "", "ours/builtin " dn[d])
	}
	if (has("transition", "unswitched_ns", "enabling_ours")) {
		print ""
		print "Per call (ns) from a task that has not switched: a kernel loop on the other CPU inside"
		print "bench_caller_hold(), which the patch changes too, started before the switch (so neither core"
		print "can switch it); the fastest chunk of 20,000 calls before the switch and during the transition"
		print "(it gets the version from before the switch: the original while enabling, the patch while"
		print "disabling), and the ratio during / before for the same task in the same round."
		print ""
		print "| transition | core | before the switch | during, unswitched | during / before |"
		print "|---|---|---|---|---|"
		for (d = 1; d <= 2; d++) {
			for (j = 0; j < 2; j++) {
				c = dn[d] "_" (j ? "builtin" : "ours")
				kratio(key("transition", "unswitched_ns", c), key("transition", "unswitched_before_ns", c))
				sw = scell()
				printf "| %s | %s | %s | %s | %s |\n", j ? "" : dn[d], j ? "builtin" : "klp", cell("transition", "unswitched_before_ns", c), cell("transition", "unswitched_ns", c), sw
			}
			printf "| | klp / builtin | %s | %s | |\n", rcell("transition", "unswitched_before_ns", dn[d] "_ours", dn[d] "_builtin", "", "ours/builtin unswitched before " dn[d]), rcell("transition", "unswitched_ns", dn[d] "_ours", dn[d] "_builtin", "", "ours/builtin unswitched " dn[d])
		}
	}
	print ""
	print "From the holder's release (the write that wakes it) until `transition` reads 0 (or the builtin"
	print "patch is gone), ms; and the sweeps klp's transitions with no task blocked took (the `sweep` field"
	print "of their klp:klp_transition complete event, the most in any round; the target is at most 2)."
	print ""
	print "| transition | klp | builtin | klp / builtin | klp sweeps, no task blocked | at most 2 |"
	print "|---|---|---|---|---|---|"
	for (d = 1; d <= 2; d++) {
		c = dn[d] == "enabling" ? "enable_ours" : "disable_ours"
		kstats(key("transition", "sweeps_at_complete", c))
		sw = S_max
		printf "| %s | %s | %s | %s | %s | %s |\n", dn[d], cell("transition", "release_complete_ms", dn[d] "_ours"), cell("transition", "release_complete_ms", dn[d] "_builtin"), rcell("transition", "release_complete_ms", dn[d] "_ours", dn[d] "_builtin", "", "ours/builtin " dn[d]), sw == "" ? "-" : sw, sw == "" ? "-" : (sw <= 2 ? "yes" : "**no**")
	}
}
