// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktt_debugfs.c - ktt_park's files in /sys/kernel/debug/ktt: ctl (the
 * driver's commands), sleepers, and each side's calls, pair, mixed,
 * counts, spawned and log (ktt_sleepers.c has what they show)
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ktt_park.h"

static int ktt_index(const char *name, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static ssize_t ktt_ctl_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[64], cmd[16], side[4], what[16];
	int core, fn, slot, n, ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%15s %3s %15s %d", cmd, side, what, &slot);
	core = n >= 2 ? ktt_index(side, ktt_core_names, KTT_NR_CORES) : -1;
	if (core < 0)
		return -EINVAL;
	if (n == 4 && !strcmp(cmd, "park")) {
		/* park <side> <fn> <slot> */
		fn = ktt_index(what, ktt_fn_names, KTT_NR_FNS);
		if (fn >= 0 && slot >= 0 && slot < KTT_SLEEPERS)
			ret = ktt_park_cmd(core, slot, fn);
	} else if (n == 3 && !strcmp(cmd, "release")) {
		/* release <side> <slot> */
		if (!kstrtoint(what, 10, &slot) && slot >= 0 &&
		    slot < KTT_SLEEPERS) {
			ktt_release(&ktt.side[core].sleepers[slot]);
			ret = 0;
		}
	} else if (n == 4 && !strcmp(cmd, "parkme")) {
		/* parkme <side> <fn> <pid> */
		fn = ktt_index(what, ktt_fn_names, KTT_NR_FNS);
		if (fn >= 0 && slot > 0)
			ret = ktt_parkme_cmd(core, fn, slot);
	} else if (n == 3 && !strcmp(cmd, "spawn")) {
		/* spawn <side> <fn> */
		fn = ktt_index(what, ktt_fn_names, KTT_NR_FNS);
		if (fn >= 0)
			ret = ktt_spawn_cmd(core, fn);
	} else if (n == 3 && !strcmp(cmd, "unpark")) {
		/* unpark <side> <pid> */
		if (!kstrtoint(what, 10, &slot))
			ret = ktt_unpark_cmd(slot);
	}
	return ret ?: len;
}

static const struct file_operations ktt_ctl_fops = {
	.owner = THIS_MODULE,
	.write = ktt_ctl_write,
};

/* Each sleeper: "<side> <slot or pid> <state> <fn> <module> <version> <pid> <ret>". */
static void ktt_show_sleeper(struct seq_file *m, struct ktt_sleeper *s,
			     const char *what, int id)
{
	seq_printf(m, "%s %s%d %s %s %s %d %d %d\n", ktt_core_names[s->core],
		   what, id, ktt_state_names[s->state],
		   s->fn >= 0 ? ktt_fn_names[s->fn] : "-",
		   s->mod[0] ? s->mod : "-", s->version,
		   s->task ? s->task->pid : s->pid, s->ret);
}

static int ktt_sleepers_show(struct seq_file *m, void *v)
{
	int core, i;

	spin_lock(&ktt.lock);
	for (core = 0; core < KTT_NR_CORES; core++)
		for (i = 0; i < KTT_SLEEPERS; i++)
			ktt_show_sleeper(m, &ktt.side[core].sleepers[i], "s", i);
	for (i = 0; i < KTT_PARKERS; i++)
		if (ktt.parkers[i].pid)
			ktt_show_sleeper(m, &ktt.parkers[i], "p", i);
	spin_unlock(&ktt.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_sleepers);

static int ktt_calls_show(struct seq_file *m, void *v)
{
	int core = (long)m->private;
	int fn;

	for (fn = 0; fn < KTT_VM; fn++)
		seq_printf(m, "%s%s=%d", fn ? " " : "", ktt_fn_names[fn],
			   ktt_call(core, fn));
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_calls);

static int ktt_pair_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", ktt_call((long)m->private, KTT_OUTER));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_pair);

/* "<fn> <version> <calls>" for each code of each function that ran */
static int ktt_counts_show(struct seq_file *m, void *v)
{
	struct ktt_side *side = &ktt.side[(long)m->private];
	int fn, ver, n;

	for (fn = 0; fn < KTT_NR_FNS; fn++) {
		for (ver = 0; ver < KTT_MAX_VER; ver++) {
			n = atomic_read(&side->calls[fn][ver]);
			if (n)
				seq_printf(m, "%s %d %d\n", ktt_fn_names[fn], ver, n);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_counts);

static int ktt_spawned_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", atomic_read(&ktt.side[(long)m->private].spawned));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_spawned);

static int ktt_mixed_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", atomic_read(&ktt.side[(long)m->private].mixed));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_mixed);

static ssize_t ktt_log_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct ktt_side *side = file->private_data;
	char *buf;
	size_t n;

	if (*ppos)
		return 0;
	buf = kmalloc(KTT_LOG_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock(&ktt.lock);
	n = min(side->log_len, len);
	memcpy(buf, side->log, n);
	memmove(side->log, side->log + n, side->log_len - n);
	side->log_len -= n;
	side->log[side->log_len] = '\0';
	spin_unlock(&ktt.lock);
	if (copy_to_user(ubuf, buf, n))
		n = -EFAULT;
	kfree(buf);
	*ppos += n;
	return n;
}

static const struct file_operations ktt_log_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ktt_log_read,
};

/* the directory and its files; each side's come with ktt_debugfs_side() */
void ktt_debugfs_init(void)
{
	ktt.dir = debugfs_create_dir("ktt", NULL);
	debugfs_create_file("ctl", 0200, ktt.dir, NULL, &ktt_ctl_fops);
	debugfs_create_file("sleepers", 0400, ktt.dir, NULL, &ktt_sleepers_fops);
}

void ktt_debugfs_side(int core)
{
	struct ktt_side *side = &ktt.side[core];

	side->dir = debugfs_create_dir(ktt_core_names[core], ktt.dir);
	debugfs_create_file("calls", 0400, side->dir, (void *)(long)core,
			    &ktt_calls_fops);
	debugfs_create_file("pair", 0444, side->dir, (void *)(long)core,
			    &ktt_pair_fops);
	debugfs_create_file("mixed", 0400, side->dir, (void *)(long)core,
			    &ktt_mixed_fops);
	debugfs_create_file("counts", 0400, side->dir, (void *)(long)core,
			    &ktt_counts_fops);
	debugfs_create_file("spawned", 0400, side->dir, (void *)(long)core,
			    &ktt_spawned_fops);
	debugfs_create_file("log", 0400, side->dir, side, &ktt_log_fops);
}
