#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/lib/hindex_lib.c, the index klp-trace finds a builtin func's
# record by (its event, its key, its function's top): FNV-1a's published
# values; 1000 rows keyed by addresses 4 KiB apart each found exactly once
# and in a short probe (the slot is picked by a mix of the key: keys that
# differ only in their high bits do not pile up in one run of slots);
# rows sharing one key all found, each once; keys 0 and ~0 and row 0;
# never more than half full through its growth; cleared, nothing found and
# the rows added again found; then a bounded run of random adds, lookups
# and clears (KLP_FUZZ_RUNS) checked against a plain list, under ASan and
# UBSan.  A driver that hangs (a full index probes forever) fails after
# 120 s.
. "$(dirname "$0")/../lib.sh"
ktap_start "hindex: rows by a 64-bit key"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hindex.h"

#define N	1000
#define SHARED	100
#define FUZZ_KEYS	64

/* The rows a lookup gives for key: how many, how many are want, others. */
static void lookup(const struct hindex *h, unsigned long long key,
		   size_t want, int *nr, int *hits)
{
	struct hindex_iter it;
	size_t row;

	*nr = 0;
	*hits = 0;
	hindex_find(h, key, &it);
	while (hindex_next(&it, &row)) {
		(*nr)++;
		*hits += row == want;
	}
}

/* The longest run of occupied slots: the longest probe a lookup makes. */
static size_t longest_run(const struct hindex *h)
{
	size_t i, run = 0, max = 0;

	for (i = 0; i < 2 * h->size; i++) {	/* twice: runs wrap around */
		run = h->slots[i & (h->size - 1)].row ? run + 1 : 0;
		if (run > max)
			max = run;
	}
	return max;
}

static void fnv(void)
{
	unsigned long long h = hindex_fnv1a(HINDEX_FNV1A_INIT, "foo", 3);

	printf("fnv %016llx %016llx %016llx %s\n",
	       hindex_fnv1a(HINDEX_FNV1A_INIT, "", 0),
	       hindex_fnv1a(HINDEX_FNV1A_INIT, "a", 1),
	       hindex_fnv1a(HINDEX_FNV1A_INIT, "foobar", 6),
	       hindex_fnv1a(h, "bar", 3) ==
	       hindex_fnv1a(HINDEX_FNV1A_INIT, "foobar", 6) ? "chained" : "broken");
}

static unsigned long long addr(int i)
{
	return 0xffffffffc0a00000ULL + (unsigned long long)i * 4096;
}

static void rows(void)
{
	struct hindex h = { 0 };
	int i, nr, hits, bad = 0, half = 1, missing = 0;

	for (i = 0; i < N; i++) {
		if (hindex_add(&h, addr(i), i))
			bad++;
		if (h.nr * 2 > h.size)
			half = 0;
	}
	for (i = 0; i < N; i++) {
		lookup(&h, addr(i), i, &nr, &hits);
		bad += nr != 1 || hits != 1;
	}
	lookup(&h, addr(N), 0, &nr, &hits);
	missing += nr;
	lookup(&h, addr(0) + 8, 0, &nr, &hits);
	missing += nr;
	printf("rows %zu found %d wrong, %d for keys not added, half full %s, longest probe %s\n",
	       h.nr, bad, missing, half ? "never passed" : "passed",
	       longest_run(&h) <= 32 ? "short" : "long");
	if (longest_run(&h) > 32)
		fprintf(stderr, "longest run of slots: %zu of %zu\n",
			longest_run(&h), h.size);

	/* SHARED rows under one key: each given once */
	bad = 0;
	for (i = 0; i < SHARED; i++)
		bad += hindex_add(&h, 7, N + i) != 0;
	{
		char seen[SHARED] = { 0 };
		struct hindex_iter it;
		size_t row;

		hindex_find(&h, 7, &it);
		while (hindex_next(&it, &row))
			if (row < N || row >= N + SHARED || seen[row - N]++)
				bad++;
		for (i = 0; i < SHARED; i++)
			bad += !seen[i];
	}
	for (i = 0; i < N; i++) {
		lookup(&h, addr(i), i, &nr, &hits);
		bad += nr != 1 || hits != 1;
	}
	printf("shared key: %d wrong\n", bad);

	hindex_clear(&h);
	lookup(&h, addr(5), 5, &nr, &hits);
	missing = nr;
	lookup(&h, 7, 0, &nr, &hits);
	missing += nr;
	bad = hindex_add(&h, 0, 0) || hindex_add(&h, ~0ULL, 1);
	lookup(&h, 0, 0, &nr, &hits);
	bad += nr != 1 || hits != 1;
	lookup(&h, ~0ULL, 1, &nr, &hits);
	bad += nr != 1 || hits != 1;
	printf("cleared: %d found, then keys 0 and ~0: %d wrong, %zu rows\n",
	       missing, bad, h.nr);
	hindex_free(&h);
	lookup(&h, 0, 0, &nr, &hits);
	printf("freed: %d found\n", nr);
}

/* Random adds, lookups and clears against a plain list of (key, row). */
static void fuzz(long runs)
{
	static unsigned long long keys[1 << 14];
	struct hindex h = { 0 };
	size_t n = 0, row, i;
	int bad = 0, nr, want;
	unsigned long long key;
	struct hindex_iter it;
	long r;

	srandom(1);
	for (r = 0; r < runs; r++) {
		key = random() % FUZZ_KEYS * 0x1000000000ULL + random() % 3;
		switch (random() % 16) {
		case 0:
			if (random() % 64 == 0) {
				hindex_clear(&h);
				n = 0;
			}
			break;
		case 1 ... 7:
			if (n == sizeof(keys) / sizeof(keys[0]))
				break;
			if (hindex_add(&h, key, n)) {
				bad++;
				break;
			}
			keys[n++] = key;
			break;
		default:
			want = 0;
			for (i = 0; i < n; i++)
				want += keys[i] == key;
			nr = 0;
			hindex_find(&h, key, &it);
			while (hindex_next(&it, &row)) {
				nr++;
				bad += row >= n || keys[row] != key;
			}
			bad += nr != want;
		}
		bad += h.nr != n || h.nr * 2 > h.size;
	}
	hindex_free(&h);
	printf("fuzz %ld: %d wrong\n", runs, bad);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fnv"))
		fnv();
	else if (argc > 1 && !strcmp(argv[1], "rows"))
		rows();
	else if (argc > 2 && !strcmp(argv[1], "fuzz"))
		fuzz(atol(argv[2]));
	else
		return 2;
	return 0;
}
EOC
unit_build "$tmp" hindex

run() {
	timeout 120 "$tmp/t" "$@" 2> "$tmp/err"
	local rc=$?
	[ "$rc" = 0 ] || { echo "exit $rc"; diag "$(head -n 20 "$tmp/err")"; }
}

assert_eq "FNV-1a 64: the published values of '', 'a', 'foobar'; chained as one" \
	"fnv cbf29ce484222325 af63dc4c8601ec8c 85944171f73967e8 chained" "$(run fnv)"
out=$(run rows)
assert_eq "1000 rows 4 KiB apart each found once, none for keys not added, in short probes" \
	"rows 1000 found 0 wrong, 0 for keys not added, half full never passed, longest probe short" \
	"$(sed -n 1p <<< "$out")"
[ -s "$tmp/err" ] && diag "$(cat "$tmp/err")"
assert_eq "100 rows under one key each given once, the others still found" \
	"shared key: 0 wrong" "$(sed -n 2p <<< "$out")"
assert_eq "cleared: nothing found; keys 0 and ~0, row 0 found" \
	"cleared: 0 found, then keys 0 and ~0: 0 wrong, 2 rows" "$(sed -n 3p <<< "$out")"
assert_eq "freed: nothing found" "freed: 0 found" "$(sed -n 4p <<< "$out")"
runs=${KLP_FUZZ_RUNS:-200000}
assert_eq "$runs random adds, lookups and clears as a plain list has them" \
	"fuzz $runs: 0 wrong" "$(run fuzz "$runs")"
ktap_finish
