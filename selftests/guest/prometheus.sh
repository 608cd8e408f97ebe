#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Prometheus server on the host for a guest group (run.sh starts one for
# a group with a "# klp-host-prometheus: GUEST_PORT" line): loopback only,
# bounded in time, scraping the guest's port GUEST_PORT every second
# through QEMU's user network (a host loopback port forwarded to it), with
# klp's rules (prometheus/klp.rules.yml) evaluated every second.
#
# Usage: prometheus.sh start DIR GUEST_PORT SECONDS
#          prints the shell assignments the guest's boot needs:
#          KLP_HOSTFWD (boot.sh's -nic hostfwd) and KLP_PROM_ARGS (kernel
#          command line words: the guest reaches the server at
#          10.0.2.2:<port>, QEMU's alias for the host's loopback)
#        prometheus.sh stop DIR
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)

free_port() {
	local p
	for ((p = 20000 + RANDOM % 20000; ; p++)); do
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

case ${1:-} in
start)
	dir=$2 gport=$3 secs=$4
	fwd=$(free_port)
	port=$(free_port)
	[ "$port" = "$fwd" ] && port=$((port + 1))
	cat > "$dir/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $top/prometheus/klp.rules.yml
scrape_configs:
  - job_name: klp
    static_configs:
      - targets: ['127.0.0.1:$fwd']
EOC
	timeout -s KILL "$secs" prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$port" \
		--log.level=warn > "$dir/log" 2>&1 &
	echo $! > "$dir/pid"
	for ((i = 0; i < 300; i++)); do
		curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && break
		kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
		sleep 0.1
	done
	if ! curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null; then
		echo "prometheus.sh: Prometheus did not come up on 127.0.0.1:$port:" >&2
		tail -n 20 "$dir/log" >&2
		exit 1
	fi
	echo "KLP_HOSTFWD=tcp:127.0.0.1:$fwd-:$gport"
	echo "KLP_PROM_ARGS=KLP_PROM=10.0.2.2:$port"
	;;
stop)
	dir=$2
	[ -f "$dir/pid" ] && kill "$(cat "$dir/pid")" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start DIR GUEST_PORT SECONDS | stop DIR" >&2
	exit 2
	;;
esac
