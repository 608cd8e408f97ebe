# SPDX-License-Identifier: GPL-2.0
# klp's core lines in upstream's wording, applied to the transcript of a
# scenario run against klp before it is compared with upstream's
# (doc/testing.md, "Upstream's livepatch selftests").  A klp line no rule
# matches stays as it is, and so differs.
s/^klp: enabling patch '\([^']*\)'$/livepatch: enabling patch '\1'/
s/^klp: disabling patch '\([^']*\)'$/livepatch: '\1': initializing unpatching transition/
# the steps of a transition (core/transition.c), in upstream's words
s/^klp: '\([^']*\)': \(initializing\|starting\|completing\) \(patching\|unpatching\) transition$/livepatch: '\1': \2 \3 transition/
s/^klp: '\([^']*\)': \(patching\|unpatching\) complete$/livepatch: '\1': \2 complete/
s/^klp: '\([^']*\)': canceling patching transition, going to unpatch$/livepatch: '\1': canceling patching transition, going to unpatch/
s/^klp: '\([^']*\)': reversing transition from \(patching to unpatching\|unpatching to patching\)$/livepatch: '\1': reversing transition from \2/
s/^klp: applying patch '\([^']*\)' to loading module '\([^']*\)'$/livepatch: applying patch '\1' to loading module '\2'/
s/^klp: reverting patch '\([^']*\)' on unloading module '\([^']*\)'$/livepatch: reverting patch '\1' on unloading module '\2'/
s/^klp: pre-patch callback of patch '[^']*' failed for object '\([^']*\)' (-\{0,1\}[0-9]*)$/livepatch: pre-patch callback failed for object '\1'/
s/^klp: failed to apply patch '\([^']*\)' to module '\([^']*\)' (-\{0,1\}[0-9]*): refusing the module$/livepatch: patch '\1' failed for module '\2', refusing to load module '\2'/
s/^klp: function '\([^']*\)' cannot be patched: ftrace is disabled (sysctl kernel\.ftrace_enabled = 0)$/livepatch: failed to register ftrace handler for function '\1' (-16)/
s/^klp: failed to patch function '[^']*' of object '\([^']*\)' for patch '[^']*' (-\{0,1\}[0-9]*)$/livepatch: failed to patch object '\1'/
s/^klp: patch '\([^']*\)' carries system state .*, older than version .* of enabled patch '[^']*'$/livepatch: Livepatch patch (\1) is not compatible with the already installed livepatches./
s/^klp: patch '\([^']*\)' would replace patch '[^']*' but does not carry its system state .*$/livepatch: Livepatch patch (\1) is not compatible with the already installed livepatches./
# upstream frees a replaced patch and says nothing; klp names it
/^klp: patch '[^']*' replaced by '[^']*'$/d
