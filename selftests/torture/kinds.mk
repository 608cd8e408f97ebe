# SPDX-License-Identifier: GPL-2.0
# The torture's patch pool (ktt_patch.c's table) and its two sides: read
# by selftests/torture/Kbuild and by the top-level Makefile.
KTT_KINDS := p1a p1b p2a p2b pp vm rc rn cb sh st1 st2 st0
KTT_SIDES := k b
KTT_MODS := ktt_park $(foreach s,$(KTT_SIDES),ktt_tgt_$(s)) \
	$(foreach k,$(KTT_KINDS),$(foreach s,$(KTT_SIDES),ktt_$(k)_$(s)))
