# SPDX-License-Identifier: GPL-2.0
# bench/guest-exporter.sh - klp-exporter's cost, sourced by bench/guest.sh
# (its out, info, err, now_ns, cpu_ns helpers): with the N-function patch
# enabled, XS scrapes of GET /metrics, 0.6 s apart, the exporter on
# CPU 1; its CPU time (schedstat, all threads) over them, per scrape, the
# bytes and samples a scrape carries, and its memory after them.
#
# Records: B|exporter|cpu_ms_per_scrape|<config>|1|..|ms, bytes_per_scrape,
# vm_hwm_kb, vm_rss_kb; I|exporter_winner_series|<n>

EXPORTER=$top/build/bin/klp-exporter
XS=${XS:-30}

# ex_run CONFIG N: the exporter, XS scrapes, its figures (KT_START_TRIES,
# KT_ON_START, KT_ON_STOP as for guest.sh's kt_run)
ex_run() {
	local cfg=$1 n=$2 pid a b i url=http://127.0.0.1:9873/metrics got
	taskset -c 1 "$EXPORTER" -l 127.0.0.1:9873 2> "$T/ex.err" &
	pid=$!
	for i in $(seq "${KT_START_TRIES:-300}"); do
		curl -sf --max-time 30 -o "$T/ex.out" "$url" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! curl -sf --max-time 30 -o "$T/ex.out" "$url"; then
		err "klp-exporter did not serve: $(head -c 300 "$T/ex.err")"
		kill "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	# a real N-function scrape: one winner sample per patched function
	# (of the core EX_CORE, klp or livepatch, when it is set)
	got=$(grep -c "^klp_func_winner{.*core=\"${EX_CORE:-}" "$T/ex.out")
	info "exporter_winner_series${EX_CORE:+_$cfg}" "$got"
	[ "$got" -ge "$n" ] ||
		err "klp-exporter served $got winner samples${EX_CORE:+ of core $EX_CORE}, fewer than $n"
	"${KT_ON_START:-:}"
	# The exporter's CPU time over XS scrapes, divided: a reading right
	# after one scrape can miss the exporter's last instants of it (a
	# running task's time is brought up to date only when it stops or
	# at a tick), so single scrapes are not measured alone.
	# Each scrape 0.6 s after the last: requests within half a second of an
	# update share it, and each is to cost one.
	a=$(cpu_ns "$pid")
	for ((i = 1; i <= XS; i++)); do
		sleep 0.6
		curl -sf --max-time 30 -H 'Accept: application/openmetrics-text; version=1.0.0' \
			-o "$T/ex.out" "$url" || err "scrape $i failed"
	done
	sleep 1		# the last scrape's tail, then the exporter sleeps
	b=$(cpu_ns "$pid")
	kill -0 "$pid" 2>/dev/null ||
		err "klp-exporter died during the $cfg scrapes: $(head -c 300 "$T/ex.err")"
	out exporter cpu_ms_per_scrape "$cfg" 1 \
		"$(awk -v a="$a" -v b="$b" -v k="$XS" 'BEGIN { if (a < 0 || b < a) print -1; else printf "%.2f", (b - a) / k / 1e6 }')" ms
	info "exporter_cpu_ns_$cfg" "$a $b"
	out exporter bytes_per_scrape "$cfg" 1 "$(wc -c < "$T/ex.out")" B
	out exporter vm_hwm_kb "$cfg" 1 "$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")" kB
	out exporter vm_rss_kb "$cfg" 1 "$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")" kB
	"${KT_ON_STOP:-:}"
	kill "$pid"
	wait "$pid"
}
