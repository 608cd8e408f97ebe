#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The model's index of functions (userspace/model/model.c,
# model_fn_find()): each of 1000 functions in two objects found by its object
# and name, as the scan it replaced found them (names compared up to
# KLP_NAME_LEN - 1 and KLP_FUNC_LEN - 1 characters: a longer name finds
# the function of its first ones), and functions freed with their last
# func (a patch freed, model_patch_free()) no longer found while the others
# still are, through growth of the index and after it.  Under
# $KLP_SANITIZE a freed function left in the index is a use after free.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: the model's index of functions"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include "source_klp.h"

#define N	1000

static struct model m;
static struct model_fn *made[N];

static const char *obj(int i)
{
	return i % 2 ? "vmlinux" : "bench_s1000_tgt";
}

static const char *fname(int i, char *buf, size_t size)
{
	snprintf(buf, size, "bench_s1000_f%d", i);
	return buf;
}

int main(void)
{
	struct model_patch *a = model_patch_find(&m, "patch_a", true);
	struct model_patch *b = model_patch_find(&m, "patch_b", true);
	char n[KLP_FUNC_LEN + 16], longer[KLP_FUNC_LEN + 16];
	int i, bad = 0, gone = 0, kept = 0;
	struct model_fn *fn;

	/* every function gets a's func; every third b's too */
	for (i = 0; i < N; i++) {
		made[i] = model_fn_find(&m, obj(i), fname(i, n, sizeof(n)), true);
		model_func_bind(&m, a, made[i], 0);
		if (i % 3 == 0)
			model_func_bind(&m, b, made[i], 0);
	}
	for (i = 0; i < N; i++)
		if (model_fn_find(&m, obj(i), fname(i, n, sizeof(n)), false) != made[i] ||
		    model_fn_find(&m, obj(i), n, true) != made[i])
			bad++;
	printf("found %d of %d, %zu functions\n", N - bad, N, m.nr_fns);
	/* the same name in the other object is another function */
	printf("other object: %s\n",
	       model_fn_find(&m, "vmlinux", "bench_s1000_f0", false) ? "found" : "none");

	/* a name as long as the comparison, then one character more */
	memset(longer, 'x', KLP_FUNC_LEN - 1);
	longer[KLP_FUNC_LEN - 1] = '\0';
	fn = model_fn_find(&m, "vmlinux", longer, true);
	model_func_bind(&m, a, fn, 0);
	strcpy(longer + KLP_FUNC_LEN - 1, "yz");
	printf("longer name: %s\n",
	       model_fn_find(&m, "vmlinux", longer, false) == fn ? "same function" : "not found");

	/* a goes: the functions only it patched go with it */
	model_patch_free(&m, a);
	bad = 0;
	for (i = 0; i < N; i++) {
		fn = model_fn_find(&m, obj(i), fname(i, n, sizeof(n)), false);
		if (i % 3 == 0) {
			kept += fn != NULL;
			bad += fn != made[i];
		} else {
			gone += !fn;
		}
	}
	printf("after a: %d kept, %d gone, %d wrong, %zu functions\n", kept, gone, bad, m.nr_fns);

	/* made again: found as new functions */
	bad = 0;
	for (i = 1; i < N; i += 3) {
		fn = model_fn_find(&m, obj(i), fname(i, n, sizeof(n)), true);
		model_func_bind(&m, b, fn, 0);
		bad += model_fn_find(&m, obj(i), n, false) != fn;
	}
	printf("made again: %d wrong, %zu functions\n", bad, m.nr_fns);
	model_free(&m);
	printf("freed: %zu functions, %s\n", m.nr_fns,
	       model_fn_find(&m, obj(0), "bench_s1000_f0", false) ? "found" : "none");
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP
"$tmp/t" > "$tmp/out" 2> "$tmp/err"
rc=$?
assert_eq "the driver ran clean" 0 "$rc"
[ "$rc" = 0 ] || diag "$(head -n 20 "$tmp/err")"
assert_eq "1000 functions, each found by its object and name" \
	"found 1000 of 1000, 1000 functions" "$(sed -n 1p "$tmp/out")"
assert_eq "a name in another object is not found" "other object: none" "$(sed -n 2p "$tmp/out")"
assert_eq "a longer name finds the function of its first KLP_FUNC_LEN - 1 characters" \
	"longer name: same function" "$(sed -n 3p "$tmp/out")"
assert_eq "a freed patch's own functions are gone, the rest found" \
	"after a: 334 kept, 666 gone, 0 wrong, 334 functions" "$(sed -n 4p "$tmp/out")"
assert_eq "functions made again are found" "made again: 0 wrong, 667 functions" "$(sed -n 5p "$tmp/out")"
assert_eq "the model freed: nothing found" "freed: 0 functions, none" "$(sed -n 6p "$tmp/out")"
ktap_finish
