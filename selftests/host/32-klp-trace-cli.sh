#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-trace's command line before it touches tracefs: -h is --help (the
# help on stdout, nothing on stderr, status 0), as for every tool; a bad
# option is a usage error on stderr, status 64.  Its tracefs instance
# going away on SIGHUP and on a terminal that hangs up needs the core's
# events: selftests/tests/30-tracing.sh checks it.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-trace: -h, --help and usage errors"

kt=$KLP_BIN/klp-trace
[ -x "$kt" ] || bail "build/bin/klp-trace built (make userspace)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$kt" --help > "$tmp/help.out" 2> "$tmp/help.err"
assert_eq "--help: status 0, nothing on stderr" "0 0" "$? $(wc -c < "$tmp/help.err")"
check "--help: the usage and the options on stdout" \
	grep -q -- '--no-redirect' "$tmp/help.out"
"$kt" -h > "$tmp/h.out" 2> "$tmp/h.err"
assert_eq "-h: status 0, nothing on stderr" "0 0" "$? $(wc -c < "$tmp/h.err")"
check "-h: the same help as --help, on stdout" cmp -s "$tmp/help.out" "$tmp/h.out"
"$kt" --bogus > "$tmp/bad.out" 2> "$tmp/bad.err"
assert_eq "an unknown option: status 64, nothing on stdout" "64 0" "$? $(wc -c < "$tmp/bad.out")"
check "... and stderr names it" grep -q "unrecognized option '--bogus'" "$tmp/bad.err"
ktap_finish
