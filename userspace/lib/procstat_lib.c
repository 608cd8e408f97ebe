// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * procstat_lib.c - a process's /proc/PID/stat: its CPU times, start time
 * and memory, for klp-exporter's process_* metrics and klp-trace's owner
 * of a tracefs instance
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procstat.h"

/**
 * proc_stat_parse() - the fields of a /proc/PID/stat line
 * @text: the file's text
 * @st:   filled: utime, stime, starttime in clock ticks, vsize in bytes,
 *        rss in pages
 *
 * The command name (field 2) may hold spaces and parentheses: the fields
 * are counted from the last ')'.
 *
 * Return: 0, or -1 if the text is not such a line (st unchanged).
 */
int proc_stat_parse(const char *text, struct proc_stat *st)
{
	unsigned long long v[22];
	const char *p = strrchr(text, ')');
	char *end;
	int i;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	p += 4;			/* past ") S ": field 4 on */
	for (i = 0; i < 21; i++) {
		if (*p < '0' || *p > '9') {
			if (*p != '-')
				return -1;
			p++;	/* tty_nr, priority, nice may be negative */
		}
		v[i] = strtoull(p, &end, 10);
		if (end == p || (*end != ' ' && *end != '\n' && *end))
			return -1;
		p = *end ? end + 1 : end;
	}
	/* v[0] is field 4: utime 14, stime 15, starttime 22, vsize 23, rss 24 */
	st->utime = v[10];
	st->stime = v[11];
	st->starttime = v[18];
	st->vsize = v[19];
	st->rss = v[20];
	return 0;
}

/**
 * proc_stat_read() - a process's /proc/PID/stat, parsed
 * @pid: the process; 0 for the caller (/proc/self/stat)
 * @st:  filled
 *
 * Return: 0; -ESRCH when there is no such process; another -errno when
 * the file cannot be read; -EINVAL when it is not such a line.
 */
int proc_stat_read(int pid, struct proc_stat *st)
{
	char path[64], buf[1024];
	size_t n;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return proc_stat_parse(buf, st) ? -EINVAL : 0;
}
