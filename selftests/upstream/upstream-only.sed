# SPDX-License-Identifier: GPL-2.0
# The lines of upstream's expected transcripts that klp's core has no
# counterpart of, deleted before the comparison (doc/testing.md,
# "Upstream's livepatch selftests", says why for each).
#
# The steps of a transition: klp has no transition yet (issue 24); the
# patch's start of enabling and of disabling are translated instead
# (translate.sed: "enabling patch", "initializing unpatching transition").
/^livepatch: '[^']*': \(initializing\|starting\|completing\) patching transition$/d
/^livepatch: '[^']*': \(starting\|completing\) unpatching transition$/d
/^livepatch: '[^']*': \(un\)\{0,1\}patching complete$/d
# A failed enable undone: upstream cancels the transition, klp disables
# the patch ("disabling patch", translated as the start of unpatching).
s/^livepatch: '\([^']*\)': canceling patching transition, going to unpatch$/livepatch: '\1': initializing unpatching transition/
/^livepatch: '[^']*': reversing transition from patching to unpatching$/d
# A failed enable: klp says why in the line of the cause (translated) and
# in a klp:klp_enable_failed event, not in a second line.
/^livepatch: failed to enable patch '[^']*'$/d
