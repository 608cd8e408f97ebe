#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the kernel release klp builds for and tests on when KVER is not
# given: the distribution's default kernel, i.e. the release whose headers
# the linux-headers-amd64 metapackage depends on (Debian 12: the 6.1
# series), even when newer headers (6.12) are installed beside it.  Without
# the metapackage: the newest installed linux-headers-*-amd64 of Debian
# 12's 6.1 series, else the newest installed.
#
# Usage: scripts/kver.sh [SERIES]   with SERIES (e.g. 6.12): the newest
#                                   installed release of that series
set -euo pipefail
if [ $# = 1 ]; then
	v=$(cd /usr/src 2>/dev/null && ls -d "linux-headers-$1."*-amd64 2>/dev/null |
		sed 's/^linux-headers-//' | sort -V | tail -n 1)
	[ -n "$v" ] || { echo "kver: no linux-headers-$1.*-amd64 installed" >&2; exit 1; }
	echo "$v"
	exit 0
fi
meta=$(dpkg-query -W -f '${Status} ${Depends}\n' linux-headers-amd64 2>/dev/null |
	sed -n 's/^install ok installed linux-headers-\([^ ,]*-amd64\).*/\1/p')
if [ -n "$meta" ] && [ -d "/usr/src/linux-headers-$meta" ]; then
	echo "$meta"
	exit 0
fi
all=$(cd /usr/src 2>/dev/null && ls -d linux-headers-*-amd64 2>/dev/null |
	sed 's/^linux-headers-//' | sort -V)
v=$(echo "$all" | grep '^6\.1\.' | tail -n 1 || true)
[ -n "$v" ] || v=$(echo "$all" | tail -n 1)
if [ -z "$v" ]; then
	echo "kver: no linux-headers-<kver>-amd64 installed (apt-get install linux-headers-amd64)" >&2
	exit 1
fi
echo "$v"
