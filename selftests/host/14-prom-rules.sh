#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Prometheus rules shipped in prometheus/: promtool accepts them, and
# their unit tests (prometheus/klp.rules.test.yml: which series make which
# alert fire, when, with which labels; the recorded rates) pass.
. "$(dirname "$0")/../lib.sh"
ktap_start "prometheus: the klp rules and their unit tests"

command -v promtool > /dev/null || bail "promtool present (scripts/deps.sh installs prometheus)"
cd "$KLP_TOP/prometheus" || bail "prometheus/ in the tree"
for cmd in "check rules klp.rules.yml" "test rules klp.rules.test.yml"; do
	# shellcheck disable=SC2086
	out=$(promtool $cmd 2>&1)
	rc=$?
	[ $rc = 0 ] || diag "$out"
	assert_eq "promtool $cmd" 0 "$rc"
done
ktap_finish
