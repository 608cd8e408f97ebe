// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_reloc.c - a patch whose relocations the core must write
 *
 * Object klp_test_target, with one relocation of each supported type into
 * slots of this module (one slot in .rodata, written through text_poke):
 *   R_X86_64_64    klp_target_secret        (object symbol)  -> slot_64
 *   R_X86_64_32S   klp_target_a + 8         (object symbol)  -> slot_32s
 *   R_X86_64_PC32  klp_target_b - 4         (object symbol)  -> slot_pc32
 *   R_X86_64_PLT32 klp_target_c - 4         (object symbol)  -> slot_plt32
 *   R_X86_64_NONE  klp_target_c             (no write)       -> slot_none
 *   R_X86_64_64    jiffies                  (external: exported by vmlinux)
 *   R_X86_64_64    klp_reloc_helper         (external: this module)
 *   R_X86_64_64    klp_target_secret        -> ro_slot (read-only)
 * Its klp_target_a replacement dereferences slot_64 and returns the
 * secret's value (0x5ec7e7), so a wrong relocation shows at once.
 * The parameter "slots" (read-only) prints every slot and location.
 *
 * ext=1 adds R_X86_64_64 of klp_test_exported (external: exported by the
 * module klp_test_export) -> slot_mod; the core must pin that module.
 *
 * vmlinux_val=ADDR adds a vmlinux object whose R_X86_64_64 relocation of
 * "jiffies" carries ADDR as its val, which the core must verify.
 * bad=outside|type|overflow|missing breaks one relocation, bad=func names
 * a function the object lacks (after every relocation is written): the
 * registration must fail and the module with it.
 */
#include <linux/elf.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include "klp_test_module.h"

static unsigned long slot_64, slot_ext, slot_self, slot_vmlinux, slot_mod;
static u32 slot_32s, slot_pc32, slot_plt32, slot_none = 0x1234;
static const unsigned long ro_slot = 0xdead;

static char *bad;
module_param(bad, charp, 0400);
static unsigned long vmlinux_val;
module_param(vmlinux_val, ulong, 0400);
static bool ext;
module_param(ext, bool, 0400);

/* Found through this module's own symbols for an external relocation. */
static __used __attribute__((__noipa__)) int klp_reloc_helper(void)
{
	return 1;
}

static int klp_reloc_new_a(void)
{
	return *(unsigned long *)READ_ONCE(slot_64);
}

static int klp_reloc_cmdline_show(struct seq_file *m, void *v)
{
	seq_puts(m, "relocated\n");
	return 0;
}

static struct klp_reloc relocs[] = {
	{ .loc = (unsigned long)&slot_64, .type = R_X86_64_64,
	  .name = "klp_target_secret", },
	{ .loc = (unsigned long)&slot_32s, .type = R_X86_64_32S,
	  .name = "klp_target_a", .addend = 8, },
	{ .loc = (unsigned long)&slot_pc32, .type = R_X86_64_PC32,
	  .name = "klp_target_b", .addend = -4, },
	{ .loc = (unsigned long)&slot_plt32, .type = R_X86_64_PLT32,
	  .name = "klp_target_c", .addend = -4, },
	{ .loc = (unsigned long)&slot_none, .type = R_X86_64_NONE,
	  .name = "klp_target_c", },
	{ .loc = (unsigned long)&slot_ext, .type = R_X86_64_64,
	  .name = "jiffies", .external = 1, },
	{ .loc = (unsigned long)&slot_self, .type = R_X86_64_64,
	  .name = "klp_reloc_helper", .external = 1, },
	{ .loc = (unsigned long)&ro_slot, .type = R_X86_64_64,
	  .name = "klp_target_secret", },
	{ },	/* ext=1: klp_test_exported */
	{ }
};

static struct klp_reloc vmlinux_relocs[] = {
	{ .loc = (unsigned long)&slot_vmlinux, .type = R_X86_64_64,
	  .name = "jiffies", },
	{ }
};

static struct klp_func funcs[] = {
	{ .old_name = "klp_target_a", .new_func = klp_reloc_new_a, },
	{ }
};

static struct klp_func vmlinux_funcs[] = {
	{ .old_name = "cmdline_proc_show", .new_func = klp_reloc_cmdline_show, },
	{ }
};

static struct klp_object objs[3] = {
	{ .name = "klp_test_target", .relocs = relocs, .funcs = funcs, },
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int klp_reloc_slots_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
		"64 %lx 32s %x pc32 %x pc32_loc %lx none %x ext %lx self %lx ro %lx vmlinux %lx plt32 %x plt32_loc %lx mod %lx\n",
		slot_64, slot_32s, slot_pc32, (unsigned long)&slot_pc32,
		slot_none, slot_ext, slot_self,
		READ_ONCE(ro_slot), slot_vmlinux,
		slot_plt32, (unsigned long)&slot_plt32, slot_mod);
}

static const struct kernel_param_ops klp_reloc_slots_ops = {
	.get = klp_reloc_slots_get,
};
module_param_cb(slots, &klp_reloc_slots_ops, NULL, 0400);

/* Break one relocation the way bad= asks. */
static int klp_reloc_break(const char *how)
{
	if (!strcmp(how, "outside"))
		relocs[1].loc = (unsigned long)&jiffies;
	else if (!strcmp(how, "type"))
		relocs[1].type = R_X86_64_GOTPCREL;
	else if (!strcmp(how, "overflow"))
		relocs[1].type = R_X86_64_32;
	else if (!strcmp(how, "missing"))
		relocs[1].name = "klp_target_zz";
	else if (!strcmp(how, "func"))
		funcs[0].old_name = "klp_target_zz";
	else
		return -EINVAL;
	return 0;
}

static int __init klp_reloc_init(void)
{
	int ret;

	if (ext)
		relocs[ARRAY_SIZE(relocs) - 2] = (struct klp_reloc){
			.loc = (unsigned long)&slot_mod, .type = R_X86_64_64,
			.name = "klp_test_exported", .external = 1,
		};
	if (vmlinux_val) {
		vmlinux_relocs[0].val = vmlinux_val;
		objs[1].relocs = vmlinux_relocs;
		objs[1].funcs = vmlinux_funcs;
	}
	if (bad) {
		ret = klp_reloc_break(bad);
		if (ret)
			return ret;
	}

	return klp_test_register_enable(&patch, true);
}

static void __exit klp_reloc_exit(void)
{
}

module_init(klp_reloc_init);
module_exit(klp_reloc_exit);
MODULE_LICENSE("GPL");
