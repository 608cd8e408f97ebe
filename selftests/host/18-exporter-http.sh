#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter's HTTP endpoint on loopback: where it listens (the port it
# got for port 0, said on stderr; ":PORT" and "[::]:PORT" every address,
# IPv4 and IPv6); connections kept alive between requests, and pipelined
# requests each answered, in order.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: the HTTP endpoint"

x=$KLP_BIN/klp-exporter
[ -x "$x" ] || bail "build/bin/klp-exporter built (make userspace)"
[ -e /sys/kernel/klp ] && bail "no klp core on this host (the guest tests load it)"
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

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
	line=$(cat "$err")
	port=$(sed -n 's|.*http://.*:\([0-9]*\)/metrics.*|\1|p' "$err")
}
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
kill $pid
ktap_finish
