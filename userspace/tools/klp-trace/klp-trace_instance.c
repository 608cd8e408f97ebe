// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_instance.c - klp-trace's private tracefs instance
 *
 * The klp events are enabled in instances/klp-trace.<pid>.<start>, so the
 * top-level buffer and its event settings stay as they are and two
 * readers never steal each other's events.  Whatever ends klp-trace
 * (-c, -t, SIGINT, SIGTERM, SIGHUP when its terminal goes away, a closed
 * pipe or another output error) ends in ti_destroy(): the events are
 * disabled and the instance removed.  What a kill leaves, the next
 * klp-trace removes (klp-trace_owner.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "klp-trace.h"

/* Whether the core's events are in tracefs: they go with klp.ko. */
bool ti_klp_events_exist(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s", tracefs_tracing_dir(),
		 KLP_SYSTEM);
	return !access(path, F_OK);
}

/* 0 when root and tracefs mounted; else says why */
int ti_check_tracefs(void)
{
	const char *dir = NULL;

	if (geteuid()) {
		fprintf(stderr, "klp-trace: must be run as root (it creates a tracefs instance)\n");
		return -1;
	}
	if (tracefs_tracing_dir_is_mounted(false, &dir) != 1) {
		fprintf(stderr, "klp-trace: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return -1;
	}
	return 0;
}

/**
 * ti_create() - the instance, with the nr events of evs enabled in it
 * @ti:    filled in; ti_destroy() undoes whatever was done, even on failure
 * @owner: this klp-trace, whose name it gets
 * @evs:   the events (each marked enabled once it is)
 * @nr:    how many
 *
 * Return: 0, or -1 after saying why.
 */
int ti_create(struct trace_instance *ti, const struct kt_owner *owner,
	      struct ev_info *evs, int nr)
{
	char name[64];
	int i;

	kt_instance_name(name, sizeof(name), owner);
	ti->tfs = tracefs_instance_create(name);
	if (!ti->tfs) {
		fprintf(stderr, "klp-trace: cannot create tracefs instance %s: %s\n",
			name, strerror(errno));
		return -1;
	}
	if (!tracefs_instance_is_new(ti->tfs)) {
		fprintf(stderr, "klp-trace: tracefs instance %s already exists\n",
			name);
		tracefs_instance_free(ti->tfs);
		ti->tfs = NULL;
		return -1;
	}

	/* mono: ordered across CPUs and comparable with clock_gettime() */
	ti->mono_clock = tracefs_instance_file_write(ti->tfs, "trace_clock",
						  "mono") > 0;
	if (!ti->mono_clock)
		fprintf(stderr, "klp-trace: cannot set the mono trace clock; timestamps are the default clock's\n");

	for (i = 0; i < nr; i++) {
		if (tracefs_event_enable(ti->tfs, KLP_SYSTEM,
					 evs[i].event->name)) {
			fprintf(stderr, "klp-trace: cannot enable %s:%s\n",
				KLP_SYSTEM, evs[i].event->name);
			return -1;
		}
		evs[i].enabled = true;
	}
	return 0;
}

/* The events enabled in it disabled, the instance removed. */
void ti_destroy(struct trace_instance *ti, struct ev_info *evs, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (evs[i].enabled &&
		    tracefs_event_disable(ti->tfs, KLP_SYSTEM,
					  evs[i].event->name) &&
		    ti_klp_events_exist())
			fprintf(stderr, "klp-trace: cannot disable %s:%s\n",
				KLP_SYSTEM, evs[i].event->name);
		evs[i].enabled = false;
	}
	if (ti->tfs) {
		if (tracefs_instance_destroy(ti->tfs))
			fprintf(stderr, "klp-trace: cannot remove tracefs instance: %s\n",
				strerror(errno));
		tracefs_instance_free(ti->tfs);
		ti->tfs = NULL;
	}
}
