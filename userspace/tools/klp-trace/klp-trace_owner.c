// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_owner.c - whose a tracefs instance or a kprobe group of
 * klp-trace's is, and the ones of klp-traces that died removed
 *
 * A klp-trace killed (SIGKILL, the OOM killer, an exit on a failed
 * allocation) cannot remove its instance and kprobe group, and they keep
 * firing on every call they probe.  So each klp-trace names them after
 * itself, its pid and its start time since boot (field 22 of
 * /proc/PID/stat, in clock ticks): instances/klp-trace.<pid>.<start> and
 * group klp_trace_<pid>_<start>.  A pid alone names a process only while
 * it lives: once it is dead the kernel gives the pid to the next process,
 * klp-trace or not; the pair names one process for as long as the
 * machine is up.
 *
 * At its start, before it creates its own, klp-trace removes every
 * instance and kprobe group so named whose owner is not running: no
 * process of that pid, or one that started at another time.  A live
 * klp-trace's are never touched: a process whose /proc/PID/stat cannot
 * be read for another reason counts as alive, a group whose instance is
 * still there (a removal the kernel refused) stays with it, and names of
 * any other shape (another tool's, an older klp-trace's) are left alone.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "klp-trace.h"
#include "procstat.h"

#define INSTANCE_PREFIX	"klp-trace."
#define GROUP_PREFIX	"klp_trace_"

/**
 * kt_owner_of() - a process's pid and start time
 * @pid: the process
 * @o:   filled in
 *
 * Return: 0; -ESRCH when there is no such process; another -errno when
 * its /proc/PID/stat cannot be read or is not such a line.
 */
int kt_owner_of(int pid, struct kt_owner *o)
{
	struct proc_stat st;
	int err = proc_stat_read(pid, &st);

	if (err)
		return err;
	o->pid = pid;
	o->start = st.starttime;
	return 0;
}

/* The names of o's instance and kprobe group. */
void kt_instance_name(char *buf, size_t size, const struct kt_owner *o)
{
	snprintf(buf, size, INSTANCE_PREFIX "%d.%llu", o->pid, o->start);
}

void kt_group_name(char *buf, size_t size, const struct kt_owner *o)
{
	snprintf(buf, size, GROUP_PREFIX "%d_%llu", o->pid, o->start);
}

/**
 * kt_owner_parse() - the owner an instance's or a kprobe group's name says
 * @name:  the name
 * @group: a kprobe group's (klp_trace_<pid>_<start>), else an instance's
 *         (klp-trace.<pid>.<start>)
 * @o:     filled in
 *
 * Return: whether @name is exactly such a name, as kt_instance_name() or
 * kt_group_name() print it (no sign, no leading zero, nothing after).
 */
bool kt_owner_parse(const char *name, bool group, struct kt_owner *o)
{
	const char *prefix = group ? GROUP_PREFIX : INSTANCE_PREFIX;
	char sep = group ? '_' : '.', again[64], *end;
	size_t n = strlen(prefix);
	unsigned long long start;
	unsigned long pid;

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	errno = 0;
	pid = strtoul(name + n, &end, 10);
	if (errno || !pid || pid > INT_MAX || *end != sep ||
	    !isdigit((unsigned char)end[1]))
		return false;
	start = strtoull(end + 1, &end, 10);
	if (errno || *end)
		return false;
	snprintf(again, sizeof(again), "%s%lu%c%llu", prefix, pid, sep, start);
	if (strcmp(again, name))
		return false;
	o->pid = pid;
	o->start = start;
	return true;
}

/* Whether o's process may still run: not when it surely does not. */
static bool owner_alive(const struct kt_owner *o)
{
	struct kt_owner now;
	int err = kt_owner_of(o->pid, &now);

	if (err == -ESRCH)
		return false;
	return err || now.start == o->start;
}

static void reap_instances(void)
{
	/* a basic regex; the exact shape is kt_owner_parse()'s to check */
	char **names = tracefs_instances("^klp-trace\\.");
	struct tracefs_instance *inst;
	struct kt_owner o;
	int i;

	for (i = 0; names && names[i]; i++) {
		if (!kt_owner_parse(names[i], false, &o) || owner_alive(&o))
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst)
			continue;
		if (!tracefs_instance_destroy(inst))
			fprintf(stderr, "klp-trace: removed tracefs instance %s of a klp-trace that is gone (pid %d)\n",
				names[i], o.pid);
		else if (errno != ENOENT)	/* another start took it */
			fprintf(stderr, "klp-trace: cannot remove tracefs instance %s of a klp-trace that is gone (pid %d): %s\n",
				names[i], o.pid, strerror(errno));
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
}

/* Whether a kprobe event of group is a dead klp-trace's, to be removed. */
static bool orphan_event(const char *group)
{
	char name[64];
	struct kt_owner o;

	if (!kt_owner_parse(group, true, &o) || owner_alive(&o))
		return false;
	kt_instance_name(name, sizeof(name), &o);
	return !tracefs_instance_exists(name);
}

static void reap_groups(void)
{
	struct tracefs_dynevent **devs;
	char *group, *event, said[64] = "";
	int i;

	devs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
					TRACEFS_DYNEVENT_KRETPROBE, NULL);
	for (i = 0; devs && devs[i]; i++) {
		group = event = NULL;
		if (tracefs_dynevent_info(devs[i], &group, &event, NULL, NULL,
					  NULL) == TRACEFS_DYNEVENT_UNKNOWN ||
		    !group || !orphan_event(group))
			goto next;
		/* force: disabled wherever it still is on */
		if (tracefs_dynevent_destroy(devs[i], true))
			fprintf(stderr, "klp-trace: cannot remove kprobe event %s/%s of a klp-trace that is gone: %s\n",
				group, event, strerror(errno));
		else if (strcmp(said, group))	/* one line a group */
			fprintf(stderr, "klp-trace: removed kprobe group %s of a klp-trace that is gone\n",
				group);
		snprintf(said, sizeof(said), "%s", group);
next:
		free(group);
		free(event);
	}
	tracefs_dynevent_list_free(devs);
}

/**
 * kt_reap_orphans() - the instances and kprobe groups of klp-traces that
 * are gone, removed; each one removed said on stderr
 *
 * The instances first: removing one disables its events, so its group's
 * kprobe events can go.
 */
void kt_reap_orphans(void)
{
	reap_instances();
	reap_groups();
}
