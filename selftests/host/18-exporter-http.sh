#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter's HTTP endpoint on loopback: where it listens (the port it
# got for port 0, said on stderr; ":PORT" and "[::]:PORT" every address,
# IPv4 and IPv6); connections kept alive between requests, and pipelined
# requests each answered, in order; slow clients (every local user is
# 127.0.0.1): a request has 10 s in all however slowly its bytes come,
# a kept-alive connection may wait longer than that between requests,
# the oldest connection is closed to make room for a newcomer (8 of one
# address, 32 in all), so 80 clients trickling header bytes never keep
# a scrape out.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: the HTTP endpoint"

exporter_prereqs
cat > "$tmp/slow.c" <<'EOC'
/*
 * slow PORT N SECONDS PERIOD_MS [ADDRESSES]: N connections to
 * 127.0.0.1:PORT (client i from 127.0.0.(1 + i % ADDRESSES)), each
 * sending one byte of a request that never ends every PERIOD_MS (their
 * first bytes spread over the period), for SECONDS; a connection the
 * server closes is opened again at its next turn.  Prints the connections
 * the server closed, and the shortest and longest time one lived (ms, from
 * its connect to the close seen; one still open at the end counts as
 * living the whole time it had).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	int port = atoi(argv[1]), n = atoi(argv[2]), i;
	int addresses = argc > 5 ? atoi(argv[5]) : 1;
	long long end = now_ms() + atoll(argv[3]) * 1000, period = atoll(argv[4]);
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in from = { .sin_family = AF_INET };
	int fd[256], sent[256];
	long long born[256], next[256];
	long long closed = 0, min = -1, max = 0, t;

	signal(SIGPIPE, SIG_IGN);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	for (i = 0; i < n; i++) {
		fd[i] = -1;
		next[i] = now_ms() + period * i / n;
	}
	while ((t = now_ms()) < end) {
		for (i = 0; i < n; i++) {
			char c, buf[256];

			if (fd[i] >= 0) {	/* closed by the server? */
				struct pollfd p = { fd[i], POLLIN, 0 };

				if (poll(&p, 1, 0) > 0 &&
				    recv(fd[i], buf, sizeof(buf), MSG_DONTWAIT) <= 0) {
					long long life = t - born[i];

					closed++;
					if (min < 0 || life < min)
						min = life;
					if (life > max)
						max = life;
					close(fd[i]);
					fd[i] = -1;
				}
			}
			if (t < next[i])
				continue;
			next[i] += period;
			if (fd[i] < 0) {
				fd[i] = socket(AF_INET, SOCK_STREAM, 0);
				from.sin_addr.s_addr = htonl(0x7f000001 + i % addresses);
				if (bind(fd[i], (struct sockaddr *)&from, sizeof(from)) ||
				    connect(fd[i], (struct sockaddr *)&sa, sizeof(sa))) {
					close(fd[i]);
					fd[i] = -1;
					continue;
				}
				born[i] = t;
				sent[i] = 0;
			}
			c = sent[i] < (int)sizeof(req) - 1 ? req[sent[i]] : 'a';
			if (send(fd[i], &c, 1, MSG_NOSIGNAL) == 1)
				sent[i]++;
		}
		usleep(10000);
	}
	for (i = 0; i < n; i++)
		if (fd[i] >= 0 && t - born[i] > max)
			max = t - born[i];
	printf("closed=%lld min_ms=%lld max_ms=%lld\n", closed, min, max);
	return 0;
}
EOC
gcc -Wall -Werror -O2 -o "$tmp/slow" "$tmp/slow.c" 2> "$tmp/gcc.err" ||
	bail "the slow client builds: $(cat "$tmp/gcc.err")"

# status URL: curl's status code for a GET, within 5 s
status() { curl -s -g -m 5 -o /dev/null -w '%{http_code}' "$1"; }
# start ADDRESS:PORT: an exporter there, its pid in $pid and the port it
# says it got in $port (the group ends if it says none)
start() {
	local err=$tmp/start.$((${#pids[@]}))
	"$x" -l "$1" 2> "$err" &
	pid=$!
	pids+=($pid)
	wait_until 10 grep -q 'listening on' "$err" || bail "klp-exporter -l $1 says where it listens ($(cat "$err"))"
	line=$(sed "s|^$ver: \(.*\); cores found: none\$|klp-exporter: \1|" "$err")
	port=$(sed -n 's|.*http://.*:\([0-9]*\)/metrics.*|\1|p' "$err")
}
# the startup line's start; start() keeps "klp-exporter: " and where it listens
ver=$("$x" --version)
# listens PID: the ADDRESS:PORT the process listens on, one a line
listens() { ss -Htlnp | awk -v p="pid=$1," 'index($0, p) { print $4 }'; }

start 127.0.0.1:0
assert_eq "-l 127.0.0.1:0: says the port it got, on stderr" \
	"klp-exporter: listening on http://127.0.0.1:$port/metrics" "$line"
assert_eq "... listens there and only there" "127.0.0.1:$port" "$(listens $pid)"
assert_eq "... and serves there" 200 "$(status "http://127.0.0.1:$port/metrics")"
kill $pid

# every address: IPv6's any with IPv4 too (a host without IPv6 says so)
for l in :0 '[::]:0'; do
	start "$l"
	if [ -e /proc/net/if_inet6 ]; then
		assert_eq "-l $l: every address, IPv4 and IPv6, said" \
			"klp-exporter: listening on http://[::]:$port/metrics (every address, IPv4 and IPv6)" "$line"
		assert_eq "... served on 127.0.0.1 and on [::1]" "200 200" \
			"$(status "http://127.0.0.1:$port/metrics") $(status "http://[::1]:$port/metrics")"
	else
		assert_eq "-l $l on a host without IPv6: IPv4's any, said" \
			"klp-exporter: listening on http://0.0.0.0:$port/metrics (every address: IPv4 only, this host has no IPv6)" "$line"
		assert_eq "... served on 127.0.0.1" 200 "$(status "http://127.0.0.1:$port/metrics")"
	fi
	kill $pid
done
if [ -e /proc/net/if_inet6 ]; then
	start '[::1]:0'
	assert_eq "-l [::1]:0: that address only" "klp-exporter: listening on http://[::1]:$port/metrics|[::1]:$port" \
		"$line|$(listens $pid)"
	kill $pid
fi

# keep-alive and pipelining, on one exporter
start 127.0.0.1:0
url=http://127.0.0.1:$port/metrics
assert_eq "two GETs by one curl: one connection (kept alive)" "1 0 " \
	"$(curl -s -m 5 -o /dev/null -o /dev/null -w '%{num_connects} ' "$url" "$url")"
req() {	# req METHOD PATH [HEADER]: one request, as Prometheus sends it
	printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n%b\r\n' \
		"$1" "$2" "${3:+$3\r\n}"
}
# four requests in one write, the last asking to close: every answer,
# in order, the bodies framed (each OpenMetrics body ends "# EOF")
exec {fd}<> "/dev/tcp/127.0.0.1/$port"
{ req GET /metrics; req HEAD /metrics; req GET /nope; req GET /metrics "Connection: close"; } >&$fd
timeout 5 cat <&$fd > "$tmp/pipelined"
rc=$?
exec {fd}>&-
assert_eq "four pipelined requests on one connection: four answers in order, then closed" \
	"0: 200 200 404 200" "$rc:$(grep -a '^HTTP/1.1 ' "$tmp/pipelined" | awk '{ printf " %s", $2 }')"
assert_eq "... two bodies of metrics (GET, not HEAD), each whole" 2 "$(grep -ac '^# EOF' "$tmp/pipelined")"

# ok_until_eof FD: the lines of one answer, up to "# EOF", within 5 s
ok_until_eof() {
	local l first=
	while IFS= read -r -t 5 l <&$1; do
		[ -n "$first" ] || first=${l%$'\r'}
		[ "$l" = "# EOF" ] && { echo "$first"; return 0; }
	done
	echo "${first:-nothing}"
	return 1
}
# A request's time in all: 4 slow clients (under the 8 of one address,
# so none is closed to make room) for 13 s, a byte every 0.5 s each; and
# beside them a kept-alive connection that waits 12 s between requests.
"$tmp/slow" "$port" 4 13 500 > "$tmp/deadline" &
slow=$!
exec {fd}<> "/dev/tcp/127.0.0.1/$port"
req GET /metrics >&$fd
first=$(ok_until_eof $fd)
sleep 12
# a write to a connection the exporter closed fails (EPIPE), no more
(trap '' PIPE; req GET /metrics >&$fd) 2>/dev/null
second=$(ok_until_eof $fd)
exec {fd}>&-
assert_eq "a kept-alive connection idle 12 s between requests: both answered" \
	"HTTP/1.1 200 OK|HTTP/1.1 200 OK" "$first|$second"
wait $slow
read -r closed min max <<< "$(sed 's/[a-z_]*=//g' "$tmp/deadline")"
assert_eq "4 clients trickling a byte every 0.5 s: each closed" 4 "$closed"
check "... 10 s (to 12 s) after its connect, however slowly its bytes came (took $min to $max ms)" \
	eval '[ "$min" -ge 9900 ] && [ "$max" -le 12000 ]'

# The limits close the oldest for a newcomer: 8 of one address, 32 in
# all (the clients come from 127.0.0.1 to 127.0.0.K), for 2 s each
slow_closed() { "$tmp/slow" "$port" "$@" | sed -n 's/^closed=\([0-9]*\) .*/\1/p'; }
assert_eq "8 slow clients from one address: none closed" 0 "$(slow_closed 8 2 500 1)"
check "a 9th from that address: the oldest closed to make room" \
	test "$(slow_closed 9 2 500 1)" -gt 0
assert_eq "32 from 4 addresses, 8 each: none closed" 0 "$(slow_closed 32 2 500 4)"
check "33 from 5 addresses, 6 or 7 each: the oldest closed to make room" \
	test "$(slow_closed 33 2 500 5)" -gt 0

# 80 slow clients, more than libmicrohttpd itself would take (64): a
# scrape every second still answered at once
"$tmp/slow" "$port" 80 8 500 > "$tmp/slow80" &
slow=$!
sleep 2
got=
for i in 1 2 3 4 5; do
	got+=" $(curl -s -m 3 -o /dev/null -w '%{http_code}' "$url")"
	sleep 1
done
wait $slow
assert_eq "80 slow clients on loopback: 5 scrapes, a second apart, each answered (200) within 3 s" \
	" 200 200 200 200 200" "$got"
diag "the slow clients: $(cat "$tmp/slow80")"
check "... and the exporter is alive" kill -0 $pid
kill $pid
ktap_finish
