#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the newest kernel version whose linux-headers package is installed.
set -euo pipefail
v=$(cd /usr/src 2>/dev/null && ls -d linux-headers-*-amd64 2>/dev/null |
	sed 's/^linux-headers-//' | sort -V | tail -n 1)
if [ -z "$v" ]; then
	echo "kver: no linux-headers-<kver>-amd64 installed (apt-get install linux-headers-amd64)" >&2
	exit 1
fi
echo "$v"
