// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_transitions.c - klptop's view of the transitions in progress: a
 * line per transition (core, patch, target, elapsed, switched / total)
 * with the tasks that hold it back below it, and the same in its JSON
 *
 * A task's comm is whatever the task chose (prctl(PR_SET_NAME)): on the
 * screen every byte that is not printable ASCII shows as '?', so no task
 * can send the terminal an escape sequence; the JSON escapes it.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "json.h"
#include "klptop.h"
#include "strbuf.h"

static double elapsed_s(const struct model_tr *tr, unsigned long long now_ns)
{
	if (!tr->started_ns || now_ns < tr->started_ns)
		return 0;
	return (double)(now_ns - tr->started_ns) / MODEL_NSEC_PER_SEC;
}

static bool matches(const struct model_tr *tr, const char *patch)
{
	return !patch || !fnmatch(patch, tr->patch, 0);
}

static void printable(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i] >= ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/**
 * kt_tr_add_lines() - the transitions in progress, in the screen's head
 * @s:         the transitions
 * @patch:     only those of patches that match it (NULL: all)
 * @now_ns:    CLOCK_REALTIME now
 * @max_tasks: the tasks shown under each; the rest are counted
 * @f:         the frame the lines go to (klptop_tty.c fits it)
 */
void kt_tr_add_lines(const struct model_trset *s, const char *patch,
		     unsigned long long now_ns, int max_tasks,
		     struct kt_frame *f)
{
	char line[MODEL_TEXT_LEN];
	char comm[KLP_COMM_LEN], func[KLP_FUNC_LEN];
	size_t i, j;

	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];

		if (!matches(tr, patch))
			continue;
		snprintf(line, sizeof(line), "TRANSITION %s %s %s  %.1fs%s  switched %u/%u",
			 tr->core, tr->patch,
			 tr->target ? "enabling" : "disabling",
			 elapsed_s(tr, now_ns), tr->start_seen ? " (seen)" : "",
			 tr->total - tr->pending, tr->total);
		if (!strcmp(tr->core, MODEL_TR_CORE_KLP))
			kt_frame_add(f, KT_HEAD, "%s  sweep %u", line, tr->sweep);
		else
			kt_frame_add(f, KT_HEAD, "%s", line);
		if (tr->nr_tasks)
			kt_frame_add(f, KT_HEAD, "  %7s %-16s %-10s %s", "PID",
				     "COMM", "REASON", "FUNCTION");
		for (j = 0; j < tr->nr_tasks && j < (size_t)max_tasks; j++) {
			const struct model_task *t = &tr->tasks[j];

			printable(comm, sizeof(comm), t->comm);
			printable(func, sizeof(func), t->func);
			kt_frame_add(f, KT_HEAD, "  %7d %-16s %-10s %s", t->pid,
				     comm, model_block_reason_name(t->reason),
				     func[0] ? func : "-");
		}
		if (tr->nr_tasks > (size_t)max_tasks)
			kt_frame_add(f, KT_HEAD, "  ... and %zu more",
				     tr->nr_tasks - (size_t)max_tasks);
	}
}

static void json_str(struct strbuf *b, const char *s)
{
	json_buf_str(b, s, strlen(s));
}

/**
 * kt_tr_json() - ,"transitions_in_progress":[...] of klptop --json
 * @b:      appended to
 * @s:      the transitions
 * @patch:  only those of patches that match it (NULL: all)
 * @now_ns: CLOCK_REALTIME now
 */
void kt_tr_json(struct strbuf *b, const struct model_trset *s, const char *patch,
		unsigned long long now_ns)
{
	bool first = true;
	size_t i, j;

	sb_puts(b, ",\"transitions_in_progress\":[");
	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];

		if (!matches(tr, patch))
			continue;
		sb_puts(b, first ? "{\"core\":" : ",{\"core\":");
		first = false;
		json_str(b, tr->core);
		sb_puts(b, ",\"patch\":");
		json_str(b, tr->patch);
		sb_printf(b, ",\"target\":%d,\"elapsed\":%.3f,\"elapsed_from\":\"%s\",\"sweep\":%u,\"switched\":%u,\"pending\":%u,\"total\":%u,\"blocked\":[",
			  tr->target, elapsed_s(tr, now_ns),
			  tr->start_seen ? "first_seen" : "start", tr->sweep,
			  tr->total - tr->pending, tr->pending, tr->total);
		for (j = 0; j < tr->nr_tasks; j++) {
			const struct model_task *t = &tr->tasks[j];

			sb_printf(b, "%s{\"pid\":%d,\"comm\":", j ? "," : "",
				  t->pid);
			json_str(b, t->comm);
			sb_puts(b, ",\"function\":");
			if (t->func[0])
				json_str(b, t->func);
			else
				sb_puts(b, "null");
			sb_printf(b, ",\"reason\":\"%s\"}",
				  model_block_reason_name(t->reason));
		}
		sb_puts(b, "]}");
	}
	sb_puts(b, "]");
}
