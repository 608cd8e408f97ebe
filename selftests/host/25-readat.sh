#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/lib/readat_lib.c, how the builtin livepatch's source reads
# its sysfs and /proc files: the first line without its newline, cut to
# the buffer; never through a symlink; an int only when the whole line is
# one decimal int that fits; and a bounded run of random lines under ASan
# and UBSan, each parsed exactly as strtol reads a whole line.
. "$(dirname "$0")/../lib.sh"
ktap_start "readat: a line or an int from a file of a kernel directory"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "readat.h"

/* line DIR NAME SIZE | int DIR NAME | fuzz DIR RUNS */
int main(int argc, char **argv)
{
	int dir = open(argv[2], O_RDONLY | O_DIRECTORY);
	char buf[64];
	int v, ret;

	if (!strcmp(argv[1], "line")) {
		ret = readat_line(dir, argv[3], buf, atoi(argv[4]));
		printf("%d [%s]\n", ret, ret ? "" : buf);
	} else if (!strcmp(argv[1], "int")) {
		v = -7;
		ret = readat_int(dir, argv[3], &v);
		printf("%d %d\n", ret, v);
	} else {
		/* each run: a random line, its int against a checker's */
		static const char alphabet[] = "0123456789+- \nx\t";
		unsigned int runs = atoi(argv[3]), i, j, len, bad = 0;
		char line[40], *end;
		long want;
		FILE *f;

		srand(1);
		for (i = 0; i < runs; i++) {
			len = rand() % 24;
			for (j = 0; j < len; j++)
				line[j] = alphabet[rand() % (sizeof(alphabet) - 1)];
			line[len] = '\0';
			f = fopen("f", "w");
			fputs(line, f);
			fclose(f);
			v = -7;
			ret = readat_int(dir, "f", &v);
			line[strcspn(line, "\n")] = '\0';
			errno = 0;
			want = strtol(line, &end, 10);
			if (errno || end == line || *end || want < INT_MIN ||
			    want > INT_MAX) {
				bad += ret != -EINVAL || v != -7;
			} else {
				bad += ret != 0 || v != want;
			}
		}
		printf("%u bad of %u\n", bad, runs);
	}
	return 0;
}
EOC
unit_build "$tmp" readat
d=$tmp/dir
mkdir "$d"
printf '1\n' > "$d/enabled"
printf 'no newline' > "$d/plain"
printf 'first\nsecond\n' > "$d/two"
printf '%s\n' 2147483647 > "$d/max"
printf '%s\n' 2147483648 > "$d/over"
printf '%s\n' -1 > "$d/minus"
printf '12x\n' > "$d/junk"
: > "$d/empty"
ln -s enabled "$d/link"
r() { (cd "$tmp" && ./t "$@"); }
errno_of() { python3 -c 'import errno, sys; print(getattr(errno, sys.argv[1]))' "$1"; }
assert_eq "a line without its newline" "0 [1]" "$(r line "$d" enabled 64)"
assert_eq "a line with none" "0 [no newline]" "$(r line "$d" plain 64)"
assert_eq "the first line only" "0 [first]" "$(r line "$d" two 64)"
assert_eq "cut to the buffer (size 4: 3 bytes)" "0 [no ]" "$(r line "$d" plain 4)"
assert_eq "a symlink is refused (ELOOP)" "-$(errno_of ELOOP) []" "$(r line "$d" link 64)"
assert_eq "a missing file: -ENOENT" "-$(errno_of ENOENT) []" "$(r line "$d" nothing 64)"
assert_eq "int: 1" "0 1" "$(r int "$d" enabled)"
assert_eq "int: INT_MAX" "0 2147483647" "$(r int "$d" max)"
assert_eq "int: -1 (patch_state outside a transition)" "0 -1" "$(r int "$d" minus)"
assert_eq "int: INT_MAX + 1 refused, value untouched" "-$(errno_of EINVAL) -7" "$(r int "$d" over)"
assert_eq "int: trailing junk refused" "-$(errno_of EINVAL) -7" "$(r int "$d" junk)"
assert_eq "int: an empty file refused" "-$(errno_of EINVAL) -7" "$(r int "$d" empty)"
assert_eq "int: through a symlink refused" "-$(errno_of ELOOP) -7" "$(r int "$d" link)"
runs=${KLP_FUZZ_RUNS:-20000}
assert_eq "$runs random lines: each int as strtol reads the whole line" \
	"0 bad of $runs" "$(cd "$d" && "$tmp/t" fuzz . "$runs")"
ktap_finish
