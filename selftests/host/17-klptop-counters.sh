#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klptop's counter reader (userspace/sources/klp/source_klp_counters.c) on an array laid
# out as bpf/klptop.bpf.c's (one slice of KLP_MAX_HIT_KEYS counters per
# CPU): an id's calls on every CPU add up, each read adds only the growth
# since the last one, to its func and its function; an id the model cannot
# name with calls makes it read the state file again, once, and the calls
# that stay unnamed are counted apart; ids above the model's highest are
# read once it knows them, with every call made meanwhile.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: counter reader"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source_klp.h"

#define NCPUS 3

static struct model m;
static struct klp_counters c;
static unsigned long long map[NCPUS * KLP_MAX_HIT_KEYS];

/* "id:func_hits/fn_hits_total" for each func with hits, then unnamed */
static void show(void)
{
	size_t i, j;

	for (i = 0; i < m.nr_fns; i++)
		for (j = 0; j < m.fns[i]->nr_funcs; j++) {
			const struct model_func *f = m.fns[i]->funcs[j];

			if (f->hits_interval)
				printf("%u:%llu/%llu ", f->id, f->hits_interval,
				       m.fns[i]->hits_total);
		}
	printf("unnamed %llu\n", c.interval_unknown);
}

/*
 * one command per line: "state FILE" (read it now, as at attach), "file
 * FILE" (the state file from now on, read when the reader asks),
 * "add CPU ID N", "read"
 */
int main(void)
{
	char line[256], w[4][128];
	int n;

	klp_counters_init(&c, map, NCPUS);
	while (fgets(line, sizeof(line), stdin)) {
		n = sscanf(line, "%127s %127s %127s %127s", w[0], w[1], w[2], w[3]);
		if (n < 1)
			continue;
		if (!strcmp(w[0], "state")) {
			free((char *)m.state_path);
			m.state_path = strdup(w[1]);
			if (klp_model_resync(&m))
				printf("resync failed\n");
		} else if (!strcmp(w[0], "file")) {
			free((char *)m.state_path);
			m.state_path = strdup(w[1]);
		} else if (!strcmp(w[0], "add") && n == 4) {
			map[atoi(w[1]) * KLP_MAX_HIT_KEYS + atoi(w[2])] += atoll(w[3]);
		} else if (!strcmp(w[0], "read")) {
			if (klp_counters_update(&c, &m))
				printf("update failed\n");
			else
				show();
		}
	}
	klp_counters_free(&c);
	model_free(&m);
	free((char *)m.state_path);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP source_klp_counters

# p1 patches f (id 3) and g (id 4); p2 patches f too (id 7), below p1
cat > "$tmp/s1" <<'EOS'
seq 10
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 2 0xffffffff81000010 0xffffffffc0001000
func p1 vmlinux g 4 1 1 0xffffffff81000020 0xffffffffc0001100
patch p2 1
object p2 vmlinux 1
func p2 vmlinux f 7 2 2 0xffffffff81000010 0xffffffffc0002000
EOS
# p4 registered: its func on k has id 5
sed 's/^seq 10/seq 11/' "$tmp/s1" > "$tmp/s1b"
printf 'patch p4 1\nobject p4 vmlinux 1\nfunc p4 vmlinux k 5 1 1 0xffffffff81000040 0xffffffffc0004000\n' >> "$tmp/s1b"
# later: p3 registered, its func on h has id 9
sed 's/^seq 10/seq 12/' "$tmp/s1" > "$tmp/s2"
printf 'patch p3 1\nobject p3 vmlinux 1\nfunc p3 vmlinux h 9 1 1 0xffffffff81000030 0xffffffffc0003000\n' >> "$tmp/s2"

run() { "$tmp/t" 2>&1; }

assert_eq "every CPU's slice of an id adds up, by func and function" \
"3:6/6 4:5/5 unnamed 0" "$(run <<EOF
state $tmp/s1
add 0 3 1
add 1 3 2
add 2 3 3
add 2 4 5
read
EOF
)"

assert_eq "a read adds only the growth since the last" \
"3:6/6 unnamed 0
3:10/17 7:1/17 unnamed 0
unnamed 0" "$(run <<EOF
state $tmp/s1
add 1 3 6
read
add 0 3 4
add 2 3 6
add 1 7 1
read
read
EOF
)"

# id 5 is no func of s1 and below its highest id (7); id 9 is above it
assert_eq "an unnamed id with calls makes the reader read the state file" \
"unnamed 0
3:1/1 5:2/2 unnamed 0" "$(run <<EOF
state $tmp/s1
read
file $tmp/s1b
add 0 3 1
add 1 5 2
read
EOF
)"

assert_eq "once per id; calls that stay unnamed are counted apart" \
"unnamed 2
unnamed 3" "$(run <<EOF
state $tmp/s1
add 1 5 2
read
file $tmp/s1b
add 0 5 3
read
EOF
)"

assert_eq "an id above the model's: read once the model knows it, nothing missed" \
"3:1/1 unnamed 0
9:5/5 unnamed 0" "$(run <<EOF
state $tmp/s1
add 0 3 1
add 1 9 2
read
add 0 9 3
state $tmp/s2
read
EOF
)"
ktap_finish
