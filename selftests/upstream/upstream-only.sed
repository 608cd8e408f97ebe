# SPDX-License-Identifier: GPL-2.0
# The lines of upstream's expected transcripts that klp's core has no
# counterpart of, deleted before the comparison (doc/testing.md,
# "Upstream's livepatch selftests", says why for each).
#
# A failed enable: klp says why in the line of the cause (translated) and
# in a klp:klp_enable_failed event, not in a second line.
/^livepatch: failed to enable patch '[^']*'$/d
