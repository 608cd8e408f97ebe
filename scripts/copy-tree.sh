#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A copy of the working tree as it is (git's tracked files and the new
# ones it does not ignore; never build/) in DIR, made anew: the scratch
# trees of host tests (selftests/lib.sh, scratch_tree), make check's 6.12
# pass (selftests/run.sh) and the mutants (selftests/mutants/run.sh).
#
# Usage: scripts/copy-tree.sh DIR
set -eo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: $0 DIR}
rm -rf "$dir"
mkdir -p "$dir"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 cp --parents -t "$dir")
