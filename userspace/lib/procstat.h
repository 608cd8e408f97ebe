/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * procstat.h - the fields of a process's /proc/PID/stat the tools use:
 * klp-exporter's process_* metrics, and klp-trace's owner of a tracefs
 * instance (a pid and its start time name one process for a boot)
 */
#ifndef __KLP_PROCSTAT_H
#define __KLP_PROCSTAT_H

struct proc_stat {
	unsigned long long utime, stime, starttime;	/* clock ticks */
	unsigned long long vsize;			/* bytes */
	unsigned long long rss;				/* pages */
};

int proc_stat_parse(const char *text, struct proc_stat *st);
int proc_stat_read(int pid, struct proc_stat *st);

#endif /* __KLP_PROCSTAT_H */
