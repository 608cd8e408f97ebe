// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_api.c - drive the klp API from the selftests
 *
 * Its patch replaces klp_target_c (returning 8003).  Writing a command to
 * /sys/kernel/debug/klp_test_api/ctl calls the API; reading ctl gives
 * "<command> <return value>" of the last one:
 *   register | enable | disable | unregister     on the good patch
 *   bad <kind>   klp_register_patch() on a malformed patch, kinds:
 *                null_patch null_mod null_objs empty_objs null_funcs
 *                empty_funcs null_new_func long_name dup_func
 *                name_256 (a 256-byte function name in a module object
 *                that is not loaded) long_obj (a 56-byte object name)
 *                no_symbol (a function the object lacks) cve_empty
 *                cve_space cve_long (a 256-character cve); and name_255,
 *                which is well formed: it registers, and
 *   unregister_bad  unregisters it again.
 * An unknown command or kind fails the write with EINVAL.
 * As with every patch module, registering pins it for good.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <klp/livepatch.h>

static int klp_api_new_c(void)
{
	return 8003;
}

static struct klp_func funcs[] = {
	{ .old_name = "klp_target_c", .new_func = klp_api_new_c, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_target", .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static char klp_api_last[64] = "none 0";
static char klp_api_long_name[KSYM_NAME_LEN + 8];
static struct klp_func bad_funcs[3];
static struct klp_object bad_objs[2];
static struct klp_patch bad_patch;
static bool bad_registered;	/* name_255 registered it */

/* a name of len bytes (len < sizeof(klp_api_long_name)) */
static const char *klp_api_name(size_t len)
{
	memset(klp_api_long_name, 0, sizeof(klp_api_long_name));
	memset(klp_api_long_name, 'x', len);
	return klp_api_long_name;
}

/*
 * A malformed patch for each kind; the core must refuse all of them.
 * *ret is klp_register_patch()'s result; an unknown kind returns -EINVAL.
 */
static int klp_api_bad(const char *kind, int *ret)
{
	if (bad_registered)
		return -EBUSY;
	memset(bad_funcs, 0, sizeof(bad_funcs));
	memset(bad_objs, 0, sizeof(bad_objs));
	memset(&bad_patch, 0, sizeof(bad_patch));
	bad_funcs[0].old_name = "klp_target_c";
	bad_funcs[0].new_func = klp_api_new_c;
	bad_objs[0].name = "klp_test_target";
	bad_objs[0].funcs = bad_funcs;
	bad_patch.mod = THIS_MODULE;
	bad_patch.objs = bad_objs;

	if (!strcmp(kind, "null_patch")) {
		*ret = klp_register_patch(NULL);
		return 0;
	}
	if (!strcmp(kind, "null_mod")) {
		bad_patch.mod = NULL;
	} else if (!strcmp(kind, "null_objs")) {
		bad_patch.objs = NULL;
	} else if (!strcmp(kind, "empty_objs")) {
		bad_objs[0] = (struct klp_object){ };
	} else if (!strcmp(kind, "null_funcs")) {
		bad_objs[0].funcs = NULL;
	} else if (!strcmp(kind, "empty_funcs")) {
		bad_funcs[0] = (struct klp_func){ };
	} else if (!strcmp(kind, "null_new_func")) {
		bad_funcs[0].new_func = NULL;
	} else if (!strcmp(kind, "long_name")) {
		bad_funcs[0].old_name = klp_api_name(KSYM_NAME_LEN + 7);
	} else if (!strcmp(kind, "name_256") || !strcmp(kind, "name_255")) {
		bad_funcs[0].old_name = klp_api_name(strcmp(kind, "name_256") ? 255 : 256);
		bad_objs[0].name = "klp_test_absent";
	} else if (!strcmp(kind, "long_obj")) {
		bad_objs[0].name = klp_api_name(MODULE_NAME_LEN);
	} else if (!strcmp(kind, "no_symbol")) {
		bad_funcs[0].old_name = "klp_target_zz";
	} else if (!strcmp(kind, "dup_func")) {
		bad_funcs[1] = bad_funcs[0];
	} else if (!strcmp(kind, "cve_empty")) {
		bad_patch.cve = "";
	} else if (!strcmp(kind, "cve_space")) {
		bad_patch.cve = "CVE-2099-0001 CVE-2099-0002";
	} else if (!strcmp(kind, "cve_long")) {
		bad_patch.cve = klp_api_name(KLP_CVE_MAX_LEN + 1);
	} else {
		return -EINVAL;
	}

	*ret = klp_register_patch(&bad_patch);
	bad_registered = !*ret;
	return 0;
}

static ssize_t klp_api_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[48], kind[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	if (!strcmp(buf, "register"))
		ret = klp_register_patch(&patch);
	else if (!strcmp(buf, "enable"))
		ret = klp_enable_patch(&patch);
	else if (!strcmp(buf, "disable"))
		ret = klp_disable_patch(&patch);
	else if (!strcmp(buf, "unregister"))
		ret = klp_unregister_patch(&patch);
	else if (!strcmp(buf, "unregister_bad"))
		ret = klp_unregister_patch(&bad_patch);
	else if (sscanf(buf, "bad %31s", kind) != 1)
		return -EINVAL;
	else if (klp_api_bad(kind, &ret))
		return bad_registered ? -EBUSY : -EINVAL;

	if (!strcmp(buf, "unregister_bad") && !ret)
		bad_registered = false;

	snprintf(klp_api_last, sizeof(klp_api_last), "%s %d", buf, ret);
	return count;
}

static ssize_t klp_api_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[72];
	int len = scnprintf(buf, sizeof(buf), "%s\n", klp_api_last);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations klp_api_fops = {
	.owner = THIS_MODULE,
	.write = klp_api_write,
	.read = klp_api_read,
	.llseek = default_llseek,
};

static struct dentry *klp_api_dir;

static int __init klp_api_init(void)
{
	klp_api_dir = debugfs_create_dir("klp_test_api", NULL);
	debugfs_create_file("ctl", 0600, klp_api_dir, NULL, &klp_api_fops);
	return 0;
}

static void __exit klp_api_exit(void)
{
	debugfs_remove_recursive(klp_api_dir);
}

module_init(klp_api_init);
module_exit(klp_api_exit);
MODULE_LICENSE("GPL");
