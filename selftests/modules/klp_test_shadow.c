// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_shadow.c - drive the shadow variable calls from the selftests
 *
 * Parents are the entries of parents[] (0..KLP_SHADOW_PARENTS-1); each
 * variable holds a struct klp_test_shadow_data.  Writing a command to
 * /sys/kernel/debug/klp_test_shadow/ctl calls the API, reading ctl gives
 * the result of the last one:
 *   alloc P ID [V]         klp_shadow_alloc(); with V a constructor stores
 *   get_or_alloc P ID [V]  V (a negative V is the constructor's error)
 *   get P ID               the variable's value, "zeroed" for a new one
 *                          no constructor filled, or "null"
 *   set P ID V             store V in the variable
 *   free P ID              klp_shadow_free() with the destructor
 *   free_all ID            klp_shadow_free_all() with the destructor
 *   counts                 "ctor C dtor D": the calls so far
 *   stress MS              for MS ms a thread per CPU, and a timer in
 *                          hard interrupt context, get, get_or_alloc and
 *                          free variables of ids 1 and 2 on 64 parents at
 *                          random; then "ctor C dtor D live L bad B":
 *                          B counts every wrong value read and every
 *                          second variable of one <obj, id>
 * An unknown command fails the write with EINVAL.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <klp/livepatch.h>

#define KLP_SHADOW_PARENTS	64
#define KLP_SHADOW_MAGIC	0x5eadbeefL

struct klp_test_shadow_data {
	long value;
	long check;	/* value ^ KLP_SHADOW_MAGIC while filled */
	char rest[48];	/* zeroed by the core */
};

static struct klp_test_shadow {
	long parents[KLP_SHADOW_PARENTS];
	atomic_t live[KLP_SHADOW_PARENTS][3];	/* per <parent, id 0..2> */
	atomic_t ctor_calls, dtor_calls, bad;
	char last[96];
	struct dentry *dir;
	struct hrtimer timer;
	bool stop;
} t;

static bool klp_test_parent(void *obj, unsigned int *p)
{
	long *o = obj;

	if (o < t.parents || o >= t.parents + KLP_SHADOW_PARENTS)
		return false;
	*p = o - t.parents;
	return true;
}

static int klp_test_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	struct klp_test_shadow_data *d = shadow_data;
	long v = *(long *)ctor_data;
	unsigned int p;

	if (v < 0)
		return v;
	if (memchr_inv(d, 0, sizeof(*d)))
		atomic_inc(&t.bad);	/* the core zeroes new variables */
	d->value = v;
	d->check = v ^ KLP_SHADOW_MAGIC;
	atomic_inc(&t.ctor_calls);
	/* runs under the core's lock, before the variable is added */
	if (klp_test_parent(obj, &p) && v < 3 &&
	    atomic_inc_return(&t.live[p][v]) != 1)
		atomic_inc(&t.bad);	/* a second <obj, id> */
	return 0;
}

static void klp_test_dtor(void *obj, void *shadow_data)
{
	struct klp_test_shadow_data *d = shadow_data;
	unsigned int p;

	atomic_inc(&t.dtor_calls);
	if (d->check != (d->value ^ KLP_SHADOW_MAGIC))
		return;
	if (klp_test_parent(obj, &p) && d->value >= 0 && d->value < 3)
		atomic_dec(&t.live[p][d->value]);
}

/* A stress step: the variable's value is its id, else it is bad. */
static void klp_test_check(struct klp_test_shadow_data *d, unsigned long id)
{
	if (d && (d->value != id || d->check != (id ^ KLP_SHADOW_MAGIC)))
		atomic_inc(&t.bad);
}

static void klp_test_step(gfp_t gfp)
{
	struct klp_test_shadow_data *d;
	u32 r = get_random_u32();
	void *obj = &t.parents[r % KLP_SHADOW_PARENTS];
	long id = 1 + (r >> 8) % 2;

	switch ((r >> 16) % 4) {
	case 0:
	case 1:
		/* holds the variable against the grace period of a free */
		rcu_read_lock();
		klp_test_check(klp_shadow_get(obj, id), id);
		rcu_read_unlock();
		break;
	case 2:
		/* may sleep (GFP_KERNEL): outside the read-side section */
		d = klp_shadow_get_or_alloc(obj, id, sizeof(*d), gfp,
					    klp_test_ctor, &id);
		if (!d) {
			if (gfp == GFP_KERNEL)	/* an atomic one may fail */
				atomic_inc(&t.bad);
			break;
		}
		/* d is read only while it is still the variable */
		rcu_read_lock();
		if (klp_shadow_get(obj, id) == d)
			klp_test_check(d, id);
		rcu_read_unlock();
		break;
	default:
		klp_shadow_free(obj, id, klp_test_dtor);
		break;
	}
}

static enum hrtimer_restart klp_test_tick(struct hrtimer *timer)
{
	int i;

	for (i = 0; i < 8; i++)
		klp_test_step(GFP_ATOMIC);
	if (READ_ONCE(t.stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int klp_test_worker(void *data)
{
	unsigned long end = jiffies + msecs_to_jiffies((unsigned long)data);

	while (time_before(jiffies, end) && !kthread_should_stop()) {
		klp_test_step(GFP_KERNEL);
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void klp_test_stress(unsigned long ms)
{
	struct task_struct **tasks;
	int cpu, p, live = 0;

	tasks = kcalloc(nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	if (!tasks) {
		strscpy(t.last, "no memory", sizeof(t.last));
		return;
	}
	WRITE_ONCE(t.stop, false);
	hrtimer_start(&t.timer, ns_to_ktime(200 * NSEC_PER_USEC), HRTIMER_MODE_REL_HARD);
	for_each_online_cpu(cpu) {
		tasks[cpu] = kthread_run_on_cpu(klp_test_worker, (void *)ms, cpu,
						"klp_shadow/%u");
		if (IS_ERR(tasks[cpu])) {
			tasks[cpu] = NULL;
			atomic_inc(&t.bad);
		}
	}
	msleep(ms);
	for_each_online_cpu(cpu)
		if (tasks[cpu])
			kthread_stop(tasks[cpu]);
	WRITE_ONCE(t.stop, true);
	hrtimer_cancel(&t.timer);
	kfree(tasks);
	for (p = 0; p < KLP_SHADOW_PARENTS; p++)
		live += atomic_read(&t.live[p][1]) + atomic_read(&t.live[p][2]);
	snprintf(t.last, sizeof(t.last), "ctor %d dtor %d live %d bad %d",
		 atomic_read(&t.ctor_calls), atomic_read(&t.dtor_calls), live,
		 atomic_read(&t.bad));
}

static void klp_test_show(struct klp_test_shadow_data *d)
{
	if (!d)
		strscpy(t.last, "null", sizeof(t.last));
	else if (!memchr_inv(d, 0, sizeof(*d)))
		strscpy(t.last, "zeroed", sizeof(t.last));
	else
		snprintf(t.last, sizeof(t.last), "%ld", d->value);
}

static int klp_test_cmd(char *buf)
{
	unsigned int p;
	long id, v;
	void *obj;
	char cmd[16];
	int n;

	n = sscanf(buf, "%15s %u %ld %ld", cmd, &p, &id, &v);
	if (n >= 1 && !strcmp(cmd, "counts")) {
		snprintf(t.last, sizeof(t.last), "ctor %d dtor %d",
			 atomic_read(&t.ctor_calls), atomic_read(&t.dtor_calls));
		return 0;
	}
	if (n >= 2 && !strcmp(cmd, "stress")) {
		klp_test_stress(p);
		return 0;
	}
	if (n >= 2 && !strcmp(cmd, "free_all")) {
		klp_shadow_free_all(p, klp_test_dtor);
		strscpy(t.last, "done", sizeof(t.last));
		return 0;
	}
	if (n < 3 || p >= KLP_SHADOW_PARENTS)
		return -EINVAL;
	obj = &t.parents[p];
	if (!strcmp(cmd, "alloc") || !strcmp(cmd, "get_or_alloc")) {
		bool excl = !strcmp(cmd, "alloc");
		klp_shadow_ctor_t ctor = n == 4 ? klp_test_ctor : NULL;

		klp_test_show(excl ?
			      klp_shadow_alloc(obj, id, sizeof(struct klp_test_shadow_data),
					       GFP_KERNEL, ctor, &v) :
			      klp_shadow_get_or_alloc(obj, id, sizeof(struct klp_test_shadow_data),
						      GFP_KERNEL, ctor, &v));
	} else if (!strcmp(cmd, "get")) {
		klp_test_show(klp_shadow_get(obj, id));
	} else if (!strcmp(cmd, "set") && n == 4) {
		struct klp_test_shadow_data *d = klp_shadow_get(obj, id);

		if (d) {
			d->value = v;
			d->check = v ^ KLP_SHADOW_MAGIC;
		}
		klp_test_show(d);
	} else if (!strcmp(cmd, "free")) {
		klp_shadow_free(obj, id, klp_test_dtor);
		strscpy(t.last, "done", sizeof(t.last));
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t klp_test_ctl_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[64];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = klp_test_cmd(buf);
	return ret ? ret : count;
}

static ssize_t klp_test_ctl_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[sizeof(t.last) + 1];
	int len = scnprintf(buf, sizeof(buf), "%s\n", t.last);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations klp_test_ctl_fops = {
	.owner = THIS_MODULE,
	.write = klp_test_ctl_write,
	.read = klp_test_ctl_read,
};

static int __init klp_test_shadow_init(void)
{
	strscpy(t.last, "none", sizeof(t.last));
	hrtimer_init(&t.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t.timer.function = klp_test_tick;
	t.dir = debugfs_create_dir("klp_test_shadow", NULL);
	debugfs_create_file("ctl", 0600, t.dir, NULL, &klp_test_ctl_fops);
	return 0;
}

static void __exit klp_test_shadow_exit(void)
{
	debugfs_remove_recursive(t.dir);
}

module_init(klp_test_shadow_init);
module_exit(klp_test_shadow_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp selftests: the shadow variable calls");
