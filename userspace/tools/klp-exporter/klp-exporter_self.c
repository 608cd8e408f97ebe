// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_self.c - the exporter's own metrics, as node_exporter's
 *
 * What any Prometheus exporter says of itself, under the names
 * client_golang's process collector gives them (node_exporter's too):
 * klp_exporter_build_info{version, revision} 1, and the process's CPU
 * time, resident and virtual memory, open and maximum file descriptors
 * and start time, read from /proc/self at each scrape over HTTP (not in
 * the textfile, nor --once's: node_exporter, which serves a textfile,
 * has its own series of those names and drops ours).  And, with -t,
 * when the textfile was last written and how often it should be, so an
 * alert can tell a textfile that went stale (the exporter stopped, or
 * cannot write) from one that is only old (KlpExporterTextfileStale).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "klp-exporter.h"
#include "procstat.h"

/*
 * The boot's time, Unix seconds: the process's start is counted from it.
 * From the clocks, not /proc/stat's btime: the systemd unit's
 * ProcSubset=pid hides /proc/stat.
 */
static double boot_time(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (real.tv_sec - boot.tv_sec) +
	       (real.tv_nsec - boot.tv_nsec) / 1e9;
}

/* Open file descriptors: /proc/self/fd's entries, but the one reading it. */
static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

static void gauge(struct strbuf *b, enum ex_format fmt, const char *name,
		  const char *help, double v)
{
	ex_header(b, fmt, name, "gauge", help);
	sb_printf(b, "%s %.15g\n", name, v);
}

static void render_process(struct strbuf *b, enum ex_format fmt)
{
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct proc_stat st;
	struct rlimit rl;
	long fds;

	if (!proc_stat_read(0, &st) && tick > 0) {
		ex_header(b, fmt, "process_cpu_seconds_total", "counter",
			  "Total user and system CPU time spent in seconds.");
		sb_printf(b, "process_cpu_seconds_total %.2f\n",
			  (double)(st.utime + st.stime) / tick);
		gauge(b, fmt, "process_resident_memory_bytes",
		      "Resident memory size in bytes.", (double)st.rss * page);
		gauge(b, fmt, "process_virtual_memory_bytes",
		      "Virtual memory size in bytes.", st.vsize);
		gauge(b, fmt, "process_start_time_seconds",
		      "Start time of the process since unix epoch in seconds.",
		      boot_time() + (double)st.starttime / tick);
	}
	fds = open_fds();
	if (fds >= 0)
		gauge(b, fmt, "process_open_fds", "Number of open file descriptors.",
		      fds);
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		gauge(b, fmt, "process_max_fds",
		      "Maximum number of open file descriptors.",
		      rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur);
}

/**
 * ex_render_self() - the exporter's own metrics
 * @b:   appended to
 * @fmt: the exposition format
 * @s:   the build, the textfile's state (its metrics only with -t)
 * @process: the process_* series too (over HTTP: a textfile carries
 *        klp's series only, node_exporter has process_* of its own)
 */
void ex_render_self(struct strbuf *b, enum ex_format fmt,
		    const struct ex_self *s, bool process)
{
	ex_header(b, fmt, "klp_exporter_build_info", "gauge",
		  "The version and git revision klp-exporter was built from, as a label each; value 1");
	sb_puts(b, "klp_exporter_build_info{");
	ex_put_labels(b, "version", s->version, "revision", s->revision, NULL);
	sb_puts(b, "} 1\n");
	if (process)
		render_process(b, fmt);
	if (!s->textfile)
		return;
	gauge(b, fmt, "klp_exporter_textfile_interval_seconds",
	      "Seconds between the textfile's writes (-i)", s->interval);
	if (s->written_ns)
		gauge(b, fmt, "klp_exporter_textfile_write_timestamp_seconds",
		      "When the textfile was last written, Unix time (in the textfile: that write)",
		      (double)s->written_ns / MODEL_NSEC_PER_SEC);
}
