#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/lib/seqorder_lib.c, which klp-trace uses to print the core's
# transitions in seq order: records fed out of order come out in order,
# held ones wait for the gap, records without seq or from before the start
# pass at once, a lost-events flush prints what waits, -c stops.
. "$(dirname "$0")/../lib.sh"
ktap_start "seq_order: transitions back in the core's order"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "seqorder.h"

static int limit;	/* stop after this many (0: never) */
static int n;

static int emit(const char *text, size_t len, void *ctx)
{
	fwrite(text, 1, len, stdout);
	return limit && ++n >= limit;
}

/* argv: "last" then records "seq" ("-" for none) or "!" (lost: flush) */
int main(int argc, char **argv)
{
	struct seq_order o;
	int i, ret = 0;
	char *t;

	limit = atoi(argv[1]);
	seq_order_init(&o, strcmp(argv[2], "off"), strtoull(argv[2], NULL, 0),
		       emit, NULL);
	for (i = 3; i < argc && !ret; i++) {
		if (!strcmp(argv[i], "!")) {
			ret = seq_order_flush(&o);
			continue;
		}
		if (asprintf(&t, "%s\n", argv[i]) < 0)
			return 2;
		ret = seq_order_put(&o, strcmp(argv[i], "-"),
				    strtoull(argv[i], NULL, 0), t, strlen(t));
	}
	if (!ret)
		seq_order_flush(&o);
	seq_order_free(&o);
	return 0;
}
EOC
unit_build "$tmp" seqorder
# run LIMIT LAST RECORDS...: what comes out, on one line
run() { "$tmp/t" "$@" | paste -sd' '; }

assert_eq "in order: printed as they come" "4 5 6" "$(run 0 3 4 5 6)"
assert_eq "a late record: those after it wait for it" "4 5 6 7" "$(run 0 3 5 7 4 6)"
assert_eq "a late record releases all that waited for it, at once" "4 5 6 -" \
	"$(run 0 3 6 5 4 -)"
assert_eq "the first one late too" "1 2 3" "$(run 0 0 3 2 1)"
assert_eq "records without seq pass at once" "- 4 5 -" "$(run 0 3 - 5 4 -)"
assert_eq "from before the start: printed at once" "2 4 5" "$(run 0 3 2 5 4)"
assert_eq "a gap never filled: the end prints the rest in order" "4 6 7" "$(run 0 3 4 7 6)"
assert_eq "lost events: the held print, the next one sets the count" "4 6 10 9 11" \
	"$(run 0 3 4 6 ! 10 9 11)"
assert_eq "off (events filtered): as they come" "5 4 6" "$(run 0 off 5 4 6)"
assert_eq "a stop from emit (-c 2) stops the release" "4 5" "$(run 2 3 5 6 4)"
ktap_finish
