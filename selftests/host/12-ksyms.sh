#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/lib/ksyms_lib.c, klp-trace's symbolizer, on this machine's own
# /proc/kallsyms: an exact address names its function, an address inside
# it the function at or below, a data symbol or an address below the
# text is not named after a function.
. "$(dirname "$0")/../lib.sh"
ktap_start "ksyms_lib: kernel text symbols by address"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include "ksyms.h"

/* each argument, a hex address: "<name> <offset>" or "-" */
int main(int argc, char **argv)
{
	struct klp_ksyms ks = {};
	int i;

	for (i = 1; i < argc; i++) {
		unsigned long long a = strtoull(argv[i], NULL, 16);
		const struct klp_ksym *s = klp_ksyms_resolve(&ks, a);

		if (s)
			printf("%s %llu\n", s->name, a - s->addr);
		else
			puts("-");
	}
	klp_ksyms_free(&ks);
	return 0;
}
EOC
unit_build "$tmp" ksyms hindex_lib
# a user who reads every address as 0 gets no symbol at all (an empty
# table, which must not be sorted as a null array: undefined behaviour)
chmod 755 "$tmp"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
assert_eq "no address readable: no name, nothing undefined" "-" \
	"$("${as_user[@]}" "$tmp/t" ffffffff81000000 2>&1)"
addr() { awk -v s="$1" '$3 == s && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms; }
a=$(addr schedule)
if [ -z "$a" ] || [ "$((16#$a))" = 0 ]; then
	skip "symbols by address" "no addresses in /proc/kallsyms (not root, or kptr_restrict)"
	ktap_finish
fi
assert_eq "the address of schedule: schedule +0" "schedule 0" "$("$tmp/t" "$a")"
assert_eq "schedule + 5: schedule +5" "schedule 5" "$("$tmp/t" "$(printf '%x' $((16#$a + 5)))")"
first=$(awk '$2 ~ /^[tT]$/ && $1 !~ /^0+$/ { print $1 }' /proc/kallsyms | sort | head -n 1)
assert_eq "below the lowest text symbol: no name" "-" "$("$tmp/t" "$(printf '%x' $((16#$first - 1)))")"
ktap_finish
