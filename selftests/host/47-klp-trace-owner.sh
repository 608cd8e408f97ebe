#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Whose a tracefs instance or kprobe group of klp-trace's is
# (userspace/tools/klp-trace/klp-trace_owner.c), without tracefs, under
# ASan and UBSan: a process's pid and start time read from
# /proc/PID/stat as the kernel's own field 22, also for a command name
# made of ") " and digits (counted from the last ')'); no such process is
# -ESRCH (a dead owner), never a start time.  The names klp-trace gives
# its instance and group read back as their owner, and nothing else does:
# no sign, leading zero, pid 0, overflow, trailing text or the other
# kind's separator.  Then a bounded fuzz run of random names: each one
# read is exactly the name its owner prints.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-trace: the owner in its instances' and kprobe groups' names"

tmp=$(mktemp -d)
trap 'kill "$odd" 2> /dev/null; rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-trace.h"

/* random names, mostly near the real shape; "bad" lines on stderr */
static int fuzz(long n, unsigned int seed)
{
	static const char pieces[] = "klp-trace._0123456789+- x";
	struct kt_owner o;
	char name[48], again[64];
	long i, found = 0;
	int len, j, group;

	srand(seed);
	for (i = 0; i < n; i++) {
		group = rand() % 2;
		j = snprintf(name, sizeof(name), "%s",
			     rand() % 4 ? (group ? "klp_trace_" : "klp-trace.") : "");
		len = j + rand() % (int)(sizeof(name) - j);
		for (; j < len; j++)
			name[j] = rand() % 3 ? pieces[10 + rand() % 10] :
				  rand() % 2 ? pieces[rand() % (sizeof(pieces) - 1)] :
				  1 + rand() % 255;
		name[len] = '\0';
		if (!kt_owner_parse(name, group, &o))
			continue;
		found++;
		(group ? kt_group_name : kt_instance_name)(again, sizeof(again), &o);
		if (strcmp(again, name) || o.pid <= 0) {
			fprintf(stderr, "bad: %s read as %d %llu\n", name, o.pid,
				o.start);
			return 1;
		}
	}
	printf("%ld names read\n", found);
	return 0;
}

int main(int argc, char **argv)
{
	struct kt_owner o;
	int err;

	if (argc == 3 && !strcmp(argv[1], "owner")) {
		err = kt_owner_of(atoi(argv[2]), &o);
		if (err)
			printf("error %d\n", err);
		else
			printf("%d %llu\n", o.pid, o.start);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "parse")) {
		if (kt_owner_parse(argv[3], !strcmp(argv[2], "group"), &o))
			printf("%d %llu\n", o.pid, o.start);
		else
			printf("no\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(atol(argv[2]), atoi(argv[3]));
	return 2;
}
EOC
# shellcheck disable=SC2086,SC2046 # flag lists, split on purpose
gcc -Wall -Werror -g -D_GNU_SOURCE $KLP_SANITIZE "${UNIT_INCLUDES[@]}" \
	-I"$KLP_TOP/include" $(pkg-config --cflags libtracefs libtraceevent) \
	-o "$tmp/t" "$tmp/t.c" "$(unit_src klp-trace_owner)" "$(unit_src procstat_lib)" \
	$(pkg-config --libs libtracefs libtraceevent) 2> "$tmp/err" ||
	{ diag "$(cat "$tmp/err")"; bail "the owner test program builds"; }

# field 22 of /proc/PID/stat, counted from the last ')'
start_of() { python3 -c 'import sys; print(open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split()[19])' "$1"; }

sleep 60 &
plain=$!
assert_eq "a process: its pid and start time" "$plain $(start_of $plain)" "$("$tmp/t" owner $plain)"
# a command name of ") " and digits, as any user may give a process
cp "$(command -v sleep)" "$tmp/) 1 2 3 4 5 6 7"
"$tmp/) 1 2 3 4 5 6 7" 60 &
odd=$!
assert_eq "a command name of ') 1 2 3 4 5 6 7': the start time still field 22" \
	"$odd $(start_of $odd)" "$("$tmp/t" owner $odd)"
kill "$plain" "$odd"
wait "$plain" "$odd" 2> /dev/null
assert_eq "a process gone: -ESRCH" "error -3" "$("$tmp/t" owner $plain)"

# parse KIND NAME EXPECTED
parse() { assert_eq "$1 name '$2': $3" "$3" "$("$tmp/t" parse "$1" "$2")"; }
parse instance "klp-trace.412.81723" "412 81723"
parse group "klp_trace_412_81723" "412 81723"
parse instance "klp-trace.2147483647.18446744073709551615" "2147483647 18446744073709551615"
parse instance "klp-trace.412" no
parse instance "klp-trace.412." no
parse instance "klp-trace.0.5" no
parse instance "klp-trace.0412.5" no
parse instance "klp-trace.412.05" no
parse instance "klp-trace.+412.5" no
parse instance "klp-trace. 412.5" no
parse instance "klp-trace.412.-5" no
parse instance "klp-trace.412.5x" no
parse instance "klp-trace.412.5.6" no
parse instance "klp-trace.2147483648.5" no
parse instance "klp-trace.412.18446744073709551616" no
parse instance "klp-trace.412_5" no
parse group "klp_trace_412.5" no
parse group "klp-trace.412.5" no
parse instance "klp-trace-412.5" no
parse instance "xklp-trace.412.5" no

check "a fuzz run: 300000 random names, each read exactly as its owner prints it" \
	eval '"$tmp/t" fuzz 300000 7 > "$tmp/fuzz.out" 2> "$tmp/fuzz.err" && grep -qE "^[1-9][0-9]* names read$" "$tmp/fuzz.out"'
[ -s "$tmp/fuzz.err" ] && diag "$(head -n 3 "$tmp/fuzz.err")"
ktap_finish
