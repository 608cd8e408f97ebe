#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-trace's record printer (userspace/tools/klp-trace/klp-trace_format.c) on the
# consistency model's two events, klp:klp_transition and
# klp:klp_task_blocked, from format files written as the kernel writes
# them for the prototypes in include/klp/uapi.h (TRACE_EVENT with
# __string() names and __print_symbolic() of the action and the reason,
# TRACE_DEFINE_ENUM'd to numbers), so it runs without the core: every
# field by name, the action and the reason by their symbol, a comm with
# spaces quoted, in text and in JSON.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-trace: the klp_transition and klp_task_blocked records"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <klp/uapi.h>
#include "klp-trace.h"

static const char transition_fmt[] =
"name: klp_transition\n"
"ID: 1500\n"
"format:\n"
"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
"\n"
"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
"\tfield:__data_loc char[] patch;\toffset:16;\tsize:4;\tsigned:0;\n"
"\tfield:int target;\toffset:20;\tsize:4;\tsigned:1;\n"
"\tfield:int action;\toffset:24;\tsize:4;\tsigned:1;\n"
"\tfield:unsigned int sweep;\toffset:28;\tsize:4;\tsigned:0;\n"
"\tfield:unsigned int pending;\toffset:32;\tsize:4;\tsigned:0;\n"
"\tfield:unsigned int total;\toffset:36;\tsize:4;\tsigned:0;\n"
"\n"
"print fmt: \"seq=%llu patch=%s target=%d action=%s sweep=%u pending=%u total=%u\", "
"REC->seq, __get_str(patch), REC->target, __print_symbolic(REC->action, "
"{ 1, \"start\" }, { 2, \"sweep\" }, { 3, \"complete\" }, { 4, \"reversed\" }, "
"{ 5, \"forced\" }), REC->sweep, REC->pending, REC->total\n";

static const char blocked_fmt[] =
"name: klp_task_blocked\n"
"ID: 1501\n"
"format:\n"
"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
"\n"
"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
"\tfield:__data_loc char[] patch;\toffset:16;\tsize:4;\tsigned:0;\n"
"\tfield:unsigned int sweep;\toffset:20;\tsize:4;\tsigned:0;\n"
"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
"\tfield:char comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
"\tfield:__data_loc char[] func;\toffset:44;\tsize:4;\tsigned:0;\n"
"\tfield:int reason;\toffset:48;\tsize:4;\tsigned:1;\n"
"\n"
"print fmt: \"seq=%llu patch=%s sweep=%u pid=%d comm=%s func=%s reason=%s\", "
"REC->seq, __get_str(patch), REC->sweep, REC->pid, REC->comm, __get_str(func), "
"__print_symbolic(REC->reason, { 1, \"running\" }, { 2, \"unreliable\" }, "
"{ 3, \"on_stack\" })\n";

static void put32(unsigned char *b, int off, unsigned int v)
{
	memcpy(b + off, &v, 4);
}

/* a __data_loc string at off, its text at *end */
static void put_str(unsigned char *b, int off, int *end, const char *s)
{
	int len = strlen(s) + 1;

	put32(b, off, (unsigned int)len << 16 | *end);
	memcpy(b + *end, s, len);
	*end += len;
}

static void print(struct tep_handle *tep, const char *name,
		  unsigned char *b, int size)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "klp", name);
	struct tep_record rec = { .data = b, .size = size };
	struct ev_format fmt = { .tep = tep };
	struct ev_info ei;

	if (!ev || ev_info_init(&ei, ev)) {
		printf("%s: no event\n", name);
		return;
	}
	for (fmt.json = false; ; fmt.json = true) {
		printf("%s", fmt.json ? "{\"event\":\"" : "");
		printf("%s%s", name, fmt.json ? "\"" : ":");
		ev_print_fields(stdout, &fmt, &ei, &rec);
		printf("%s\n", fmt.json ? "}" : "");
		if (fmt.json)
			break;
	}
	ev_info_free(&ei);
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	unsigned long long seq = 42;
	unsigned char b[256] = { 0 };
	int end;

	tep_set_long_size(tep, 8);
	if (tep_parse_event(tep, transition_fmt, sizeof(transition_fmt) - 1, "klp") ||
	    tep_parse_event(tep, blocked_fmt, sizeof(blocked_fmt) - 1, "klp")) {
		printf("formats do not parse\n");
		return 1;
	}
	memcpy(b + 8, &seq, 8);
	end = 40;
	put_str(b, 16, &end, "p1");
	put32(b, 20, 1);
	put32(b, 24, KLP_TR_SWEEP);
	put32(b, 28, 7);
	put32(b, 32, 2);
	put32(b, 36, 143);
	print(tep, "klp_transition", b, end);

	memset(b, 0, sizeof(b));
	seq = 43;
	memcpy(b + 8, &seq, 8);
	end = 52;
	put_str(b, 16, &end, "p1");
	put32(b, 20, 7);
	put32(b, 24, 187);
	memcpy(b + 28, "kworker/0:1 H", 14);
	put_str(b, 44, &end, "klp_sleeper_wait");
	put32(b, 48, KLP_BLOCK_ON_STACK);
	print(tep, "klp_task_blocked", b, end);
	tep_free(tep);
	return 0;
}
EOC
srcs=()
for r in klp-trace_format json_lib strbuf_lib ksyms_lib hindex_lib; do
	srcs+=("$(unit_src "$r")")
done
# shellcheck disable=SC2086 # KLP_SANITIZE and pkg-config give lists of flags
if ! gcc -Wall -Werror -g -D_GNU_SOURCE $KLP_SANITIZE "${UNIT_INCLUDES[@]}" \
	-I"$KLP_TOP/include" $(pkg-config --cflags libtraceevent) -o "$tmp/t" \
	"$tmp/t.c" "${srcs[@]}" $(pkg-config --libs libtraceevent) 2> "$tmp/err"; then
	diag "$(cat "$tmp/err")"
	bail "the klp-trace format test program builds"
fi
out=$("$tmp/t" 2>&1)
assert_eq "klp_transition and klp_task_blocked: every field by name, the action and the reason by symbol, a comm with a space quoted" \
'klp_transition: seq=42 patch=p1 target=1 action=sweep sweep=7 pending=2 total=143
{"event":"klp_transition","seq":42,"patch":"p1","target":1,"action":2,"action_sym":"sweep","sweep":7,"pending":2,"total":143}
klp_task_blocked: seq=43 patch=p1 sweep=7 pid=187 comm="kworker/0:1 H" func=klp_sleeper_wait reason=on_stack
{"event":"klp_task_blocked","seq":43,"patch":"p1","sweep":7,"pid":187,"comm":"kworker/0:1 H","func":"klp_sleeper_wait","reason":3,"reason_sym":"on_stack"}' "$out"
ktap_finish
