// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_target.c - functions for the selftests to patch
 *
 * klp_target_a/b/c return 100, 200, 300 and count how often their original
 * body runs.  Through /sys/kernel/debug/klp_target/:
 *   a, b, c    read: one call, prints the value it returned
 *   call       write "<a|b|c> <n>": n calls from a kernel loop (so syscalls
 *              don't drown the call cost); read: "<value> <ns>" of the last
 *              call loop (value of its last call, loop duration)
 *   entered    read: "a <n>\nb <n>\nc <n>" original-body entries
 *   values     read: "<value> <n>" per distinct value the call loops got
 *              since the last write to it (any write clears it)
 *   level      klp_target_level, a state for the system-state tests
 *
 * init_delay_ms=N keeps the module's init running N ms (state COMING, as a
 * driver probing hardware), for patches that arrive during it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include "klp_test_target.h"

static atomic64_t klp_target_entered[3];

static unsigned int init_delay_ms;
module_param(init_delay_ms, uint, 0400);
MODULE_PARM_DESC(init_delay_ms, "sleep this long in the module's init");

/*
 * A "system state" for the system-state tests (klp_test_state.c) to
 * change and hand over; debugfs "level", read-write.
 */
u32 klp_target_level = 1;
EXPORT_SYMBOL_GPL(klp_target_level);

/* A value the relocation test reads through a non-exported symbol. */
unsigned long klp_target_secret = 0x5ec7e7;

/* noipa: no inlining and no constant propagation, a real call every time */
#define KLP_TARGET_FN(n, idx, val)				\
__attribute__((__noipa__)) int klp_target_##n(void)		\
{								\
	atomic64_inc(&klp_target_entered[idx]);			\
	return val;						\
}

KLP_TARGET_FN(a, 0, 100)
KLP_TARGET_FN(b, 1, 200)
KLP_TARGET_FN(c, 2, 300)

static int (*const klp_target_fns[3])(void) = {
	klp_target_a, klp_target_b, klp_target_c,
};

static DEFINE_MUTEX(klp_target_last_lock);
static int klp_target_last_value;
static u64 klp_target_last_ns;

/* Which values the call loops saw, and how often (klp_target_last_lock). */
#define KLP_TARGET_VALUES 16
static struct { int value; u64 n; } klp_target_values[KLP_TARGET_VALUES];
static u64 klp_target_values_lost;

static void klp_target_count_value(int value, u64 n)
{
	int i;

	for (i = 0; i < KLP_TARGET_VALUES; i++) {
		if (!klp_target_values[i].n || klp_target_values[i].value == value) {
			klp_target_values[i].value = value;
			klp_target_values[i].n += n;
			return;
		}
	}
	klp_target_values_lost += n;
}

static ssize_t klp_target_fn_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	int (*fn)(void) = file->private_data;
	char buf[24];
	int len;

	if (*ppos)
		return 0;
	len = scnprintf(buf, sizeof(buf), "%d\n", fn());
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static int klp_target_fn_open(struct inode *inode, struct file *file)
{
	file->private_data = inode->i_private;
	return nonseekable_open(inode, file);
}

static const struct file_operations klp_target_fn_fops = {
	.owner = THIS_MODULE,
	.open = klp_target_fn_open,
	.read = klp_target_fn_read,
};

static ssize_t klp_target_call_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char buf[64], name;
	unsigned long n, i;
	int (*fn)(void);
	int value = 0;
	u64 run = 0;
	u64 t0, t1;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%c %lu", &name, &n) != 2 || name < 'a' || name > 'c')
		return -EINVAL;

	fn = klp_target_fns[name - 'a'];
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		int v = fn();

		/* runs of one value are counted locally, merged under the lock */
		if (i && v != value) {
			mutex_lock(&klp_target_last_lock);
			klp_target_count_value(value, run);
			mutex_unlock(&klp_target_last_lock);
			run = 0;
		}
		value = v;
		run++;
		if (!(i & 0xffff))
			cond_resched();
	}
	t1 = ktime_get_ns();

	mutex_lock(&klp_target_last_lock);
	if (run)
		klp_target_count_value(value, run);
	klp_target_last_value = value;
	klp_target_last_ns = t1 - t0;
	mutex_unlock(&klp_target_last_lock);
	return count;
}

static ssize_t klp_target_call_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char buf[48];
	int len;

	mutex_lock(&klp_target_last_lock);
	len = scnprintf(buf, sizeof(buf), "%d %llu\n", klp_target_last_value,
			klp_target_last_ns);
	mutex_unlock(&klp_target_last_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations klp_target_call_fops = {
	.owner = THIS_MODULE,
	.write = klp_target_call_write,
	.read = klp_target_call_read,
	.llseek = default_llseek,
};

static int klp_target_entered_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < 3; i++)
		seq_printf(m, "%c %lld\n", 'a' + i,
			   atomic64_read(&klp_target_entered[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(klp_target_entered);

static int klp_target_values_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&klp_target_last_lock);
	for (i = 0; i < KLP_TARGET_VALUES && klp_target_values[i].n; i++)
		seq_printf(m, "%d %llu\n", klp_target_values[i].value,
			   klp_target_values[i].n);
	if (klp_target_values_lost)
		seq_printf(m, "lost %llu\n", klp_target_values_lost);
	mutex_unlock(&klp_target_last_lock);
	return 0;
}

static int klp_target_values_open(struct inode *inode, struct file *file)
{
	return single_open(file, klp_target_values_show, NULL);
}

static ssize_t klp_target_values_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	mutex_lock(&klp_target_last_lock);
	memset(klp_target_values, 0, sizeof(klp_target_values));
	klp_target_values_lost = 0;
	mutex_unlock(&klp_target_last_lock);
	return count;
}

static const struct file_operations klp_target_values_fops = {
	.owner = THIS_MODULE,
	.open = klp_target_values_open,
	.read = seq_read,
	.write = klp_target_values_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static struct dentry *klp_target_dir;

static int __init klp_target_init(void)
{
	static const char *const names[3] = { "a", "b", "c" };
	int i;

	klp_target_dir = debugfs_create_dir("klp_target", NULL);
	for (i = 0; i < 3; i++)
		debugfs_create_file(names[i], 0400, klp_target_dir,
				    klp_target_fns[i], &klp_target_fn_fops);
	debugfs_create_u32("level", 0600, klp_target_dir, &klp_target_level);
	debugfs_create_file("call", 0600, klp_target_dir, NULL,
			    &klp_target_call_fops);
	debugfs_create_file("entered", 0400, klp_target_dir, NULL,
			    &klp_target_entered_fops);
	debugfs_create_file("values", 0600, klp_target_dir, NULL,
			    &klp_target_values_fops);
	msleep(init_delay_ms);
	return 0;
}

static void __exit klp_target_exit(void)
{
	debugfs_remove_recursive(klp_target_dir);
}

module_init(klp_target_init);
module_exit(klp_target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp selftests: functions to patch");
