#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter on a host without the klp core: it serves klp_up 0 and its
# counters rather than failing; its HTTP endpoint listens on loopback by
# default, serves GET and HEAD /metrics in the format asked for (the
# 0.0.4 text promtool checks, or OpenMetrics ending "# EOF"), refuses any
# other path (404), method (405), a body (413) or oversized headers (431)
# and keeps serving; the textfile is replaced by rename, never rewritten
# in place, and leaves no temporary file; one that cannot be written at
# start is a bad -t (exit 1), later it is said once; bad options, and
# options given outside their mode, are refused by name (exit 64);
# make install puts a systemd unit that systemd-analyze verifies.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: HTTP, textfile and options, without the core"

exporter_prereqs promtool

# free_port: a TCP port nothing listens on now
free_port() {
	local p
	for ((p = 20000 + RANDOM % 20000; ; p++)); do
		ss -Htln "sport = :$p" | grep -q . || { echo $p; return; }
	done
}
# listening ADDR:PORT: something listens there
listening() { ss -Htln "src $1" | grep -q .; }
# http ARGS...: curl's status code, the body to $tmp/body, headers to $tmp/hdr
http() { curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' "$@"; }

out=$("$x" --once --format text 2> "$tmp/err")
assert_eq "--once without the core: exit 0, nothing on stderr" "0:" "$?:$(cat "$tmp/err")"
assert_eq "... klp_up 0" "klp_up 0" "$(grep '^klp_up ' <<< "$out")"
check "... promtool check metrics accepts the text format" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
om=$("$x" --once)
assert_eq "--once in OpenMetrics: ends with # EOF" "# EOF" "$(tail -n 1 <<< "$om")"
assert_eq "... counter families are named without _total, samples with it" \
	"# TYPE klp_func_redirects counter|klp_exporter_errors_total 0" \
	"$(grep -m1 '^# TYPE klp_func_redirects ' <<< "$om")|$(grep '^klp_exporter_errors_total' <<< "$om")"

# the default address: loopback
port=9873
if listening "0.0.0.0:$port" || listening "127.0.0.1:$port"; then
	not_ok "port $port is free for the default-address check (used by: $(ss -Htlnp "sport = :$port"))"
else
	"$x" 2> "$tmp/default.err" &
	pids+=($!)
	check "by default it listens on 127.0.0.1:$port" wait_until 10 listening "127.0.0.1:$port"
	assert_eq "... and on no other address" "127.0.0.1:$port" \
		"$(ss -Htln "sport = :$port" | awk '{ print $4 }' | paste -sd' ')"
	kill "${pids[-1]}"
	wait "${pids[-1]}" 2>/dev/null
fi

port=$(free_port)
url=http://127.0.0.1:$port
"$x" -l "127.0.0.1:$port" 2> "$tmp/http.err" &
pid=$!
pids+=($pid)
wait_until 10 listening "127.0.0.1:$port" || bail "klp-exporter -l 127.0.0.1:$port listens"
assert_eq "GET /metrics: 200" 200 "$(http "$url/metrics")"
assert_eq "... the 0.0.4 text format when OpenMetrics is not asked for" \
	"text/plain; version=0.0.4; charset=utf-8" \
	"$(sed -n 's/^Content-Type: //Ip' "$tmp/hdr" | tr -d '\r')"
check "... and it is what --once --format text prints (but the counters, and the process's own: over HTTP only)" \
	diff <(grep -v '_total \| process_\|^process_' "$tmp/body") <(grep -v '_total ' <<< "$out")
assert_eq "Accept: application/openmetrics-text: 200, OpenMetrics" \
	"200 application/openmetrics-text; version=1.0.0; charset=utf-8 # EOF" \
	"$(http -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$url/metrics") $(sed -n 's/^Content-Type: //Ip' "$tmp/hdr" | tr -d '\r') $(tail -n 1 "$tmp/body")"
assert_eq "HEAD /metrics: 200, no body" "200 0" \
	"$(curl -s -I -o /dev/null -w '%{http_code} %{size_download}' "$url/metrics")"
for path in / /metrics/ /metricsx /debug/pprof /metrics/../x; do
	assert_eq "GET $path: 404" 404 "$(http --path-as-is "$url$path")"
done
assert_eq "GET /metrics?x=1: the query is not the path (200)" 200 "$(http "$url/metrics?x=1")"
assert_eq "POST /metrics: 405, Allow: GET, HEAD" "405 GET, HEAD" \
	"$(http -X POST -d x "$url/metrics") $(sed -n 's/^Allow: //Ip' "$tmp/hdr" | tr -d '\r')"
assert_eq "DELETE /metrics: 405" 405 "$(http -X DELETE "$url/metrics")"
assert_eq "GET with a body: 413" 413 "$(http -X GET --data-binary @/etc/os-release "$url/metrics")"
assert_eq "a 64 KiB header: 431" 431 \
	"$(http -H "X-Big: $(head -c 65536 /dev/zero | tr '\0' a)" "$url/metrics")"
assert_eq "a 64 KiB path: refused (414 or 431)" ok \
	"$(c=$(http "$url/$(head -c 65536 /dev/zero | tr '\0' a)"); [ "$c" = 414 ] || [ "$c" = 431 ] && echo ok || echo "$c")"
# garbage, then a request line cut short and left hanging
printf 'GARBAGE\r\n\r\n' > /dev/tcp/127.0.0.1/$port 2>/dev/null
exec {fd}<> "/dev/tcp/127.0.0.1/$port" && printf 'GET /met' >&$fd
assert_eq "after all that: still serving, 200" 200 "$(http "$url/metrics")"
exec {fd}>&-
check "... and alive" kill -0 "$pid"
assert_eq "... and nothing on stderr but its startup line (where it listens)" \
	"$("$x" --version): listening on http://127.0.0.1:$port/metrics; cores found: none" \
	"$(cat "$tmp/http.err")"
kill "$pid"
wait "$pid"
assert_eq "SIGTERM: exit 0" 0 "$?"

port2=$(free_port)
"$x" -l "127.0.0.1:$port2" 2>/dev/null &
pids+=($!)
wait_until 10 listening "127.0.0.1:$port2" || not_ok "a second exporter listens on $port2"
"$x" -l "127.0.0.1:$port2" 2> "$tmp/busy.err"
assert_eq "a port in use: exit 1, the address named" "1 yes" \
	"$? $(grep -q "cannot listen on 127.0.0.1:$port2" "$tmp/busy.err" && echo yes || cat "$tmp/busy.err")"
kill "${pids[-1]}"

# textfile mode: written every second, replaced by rename
mkdir "$tmp/tf"
"$x" --no-http -t "$tmp/tf/klp.prom" -i 1 2> "$tmp/tf.err" &
pid=$!
pids+=($pid)
check "the textfile is written" wait_until 10 test -s "$tmp/tf/klp.prom"
ino1=$(stat -c %i "$tmp/tf/klp.prom")
check "... and written again within 3 s as a new file (renamed over, not rewritten)" \
	wait_until 3 eval '[ "$(stat -c %i "$tmp/tf/klp.prom")" != "$ino1" ]'
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics < "$tmp/tf/klp.prom" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
assert_eq "... nothing else in its directory (no temporary file left)" "klp.prom" "$(ls -A "$tmp/tf")"
check "... and no HTTP port opened (--no-http)" eval '! ss -Htlnp | grep -q "pid=$pid,"'
kill "$pid"
wait "$pid"
assert_eq "... SIGTERM: exit 0, nothing on stderr but the startup line" \
	"0:$("$x" --version): textfile $tmp/tf/klp.prom every 1 s; cores found: none" \
	"$?:$(cat "$tmp/tf.err")"

"$x" --no-http -t "$tmp/nodir/klp.prom" -i 1 2> "$tmp/nodir.err" &
pid=$!
pids+=($pid)
check "a textfile that cannot be written at start: exit 1 within 10 s" \
	wait_until 10 eval '! kill -0 $pid 2>/dev/null'
kill "$pid" 2>/dev/null	# still running: the check failed, end it
wait "$pid"
assert_eq "... exit 1, naming the file and why" \
	"1 klp-exporter: cannot write $tmp/nodir/klp.prom: No such file or directory" \
	"$? $(cat "$tmp/nodir.err")"
# one that goes later: said once, counted, and the exporter keeps going
mkdir "$tmp/later"
"$x" --no-http -t "$tmp/later/klp.prom" -i 1 2> "$tmp/later.err" &
pid=$!
pids+=($pid)
wait_until 10 test -s "$tmp/later/klp.prom" || not_ok "the textfile in $tmp/later is written"
rm -rf "$tmp/later"
check "a textfile that cannot be written later: said on stderr, naming it" \
	wait_until 10 grep -q "cannot write $tmp/later/klp.prom" "$tmp/later.err"
sleep 2
assert_eq "... once, not every interval" 1 "$(grep -c 'cannot write' "$tmp/later.err")"
check "... and it keeps running" kill -0 "$pid"
kill "$pid"

# make install: the unit, its ExecStart the installed binary, which
# systemd-analyze verifies without a word (an unknown key is a warning)
make -s -C "$KLP_TOP" install DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1 ||
	diag "$(tail -n 20 "$tmp/install.log")"
unit=$tmp/root/etc/systemd/system/klp-exporter.service
assert_eq "make install: the systemd unit runs the installed klp-exporter" \
	"ExecStart=/usr/local/sbin/klp-exporter" "$(grep '^ExecStart=' "$unit" 2>&1)"
sed "s|^ExecStart=/usr/local|ExecStart=$tmp/root/usr/local|" "$unit" > "$tmp/klp-exporter.service"
out=$(systemd-analyze verify --man=no "$tmp/klp-exporter.service" 2>&1)
assert_eq "... systemd-analyze verify: clean" "0:" "$?:$out"
check "... the rules installed beside it" test -s "$tmp/root/usr/local/share/klp/prometheus/klp.rules.yml"

# bad options: refused by name, exit 64 (argp usage)
bad() {	# bad LABEL WANT-IN-STDERR ARGS...
	local label=$1 want=$2 rc
	shift 2
	# a refusal is at once: 5 s bounds one that is not
	timeout 5 "$x" "$@" > /dev/null 2> "$tmp/bad.err"
	rc=$?
	assert_eq "$label: refused, naming it" "64 yes" \
		"$rc $(grep -qF -- "$want" "$tmp/bad.err" && echo yes || head -c 300 "$tmp/bad.err")"
}
bad "--no-http without -t" "--no-http needs -t FILE" --no-http
bad "-i 0" "klp-exporter: invalid interval: 0 (1 to 86400 seconds)" -i 0 -t "$tmp/never.prom"
bad "--format yaml" "klp-exporter: invalid format: yaml" --once --format yaml
bad "a positional argument" "klp-exporter: unrecognized argument: 5" 5
bad "-l without a port" "klp-exporter: -l nonsense: give ADDRESS:PORT, e.g. 127.0.0.1:9873" -l nonsense
bad "-l with a host name (addresses only)" \
	"klp-exporter: -l localhost:$port: 'localhost' is not an IPv4 address" -l "localhost:$port"
bad "-l with a port over 65535" \
	"klp-exporter: -l 127.0.0.1:99999: port out of range (1-65535, or 0 for any)" -l 127.0.0.1:99999
bad "-l with a negative port" "klp-exporter: -l 127.0.0.1:-1: '-1' is not a port number" -l 127.0.0.1:-1
bad "-l with nothing after the colon" "klp-exporter: -l 127.0.0.1:: no port after the ':'" -l 127.0.0.1:
bad "-l [bogus]:1: names the text that is not an address" \
	"klp-exporter: -l [bogus]:1: 'bogus' is not an IPv6 address" -l '[bogus]:1'
bad "-l with IPv6 out of brackets" "klp-exporter: -l ::1:9873: an IPv6 address goes in brackets" -l ::1:9873
bad "--format without --once" "klp-exporter: --format goes with --once only" --format text
bad "-l with --once" "klp-exporter: -l does not go with --once" --once -l "127.0.0.1:$port"
bad "-t with --once" "klp-exporter: -t does not go with --once" --once -t "$tmp/never.prom"
bad "-i without -t" "klp-exporter: -i goes with -t only" -i 5
bad "-l with --no-http" "klp-exporter: -l and --no-http: one or the other" \
	--no-http -l "127.0.0.1:$port" -t "$tmp/never.prom"
check "... and none of them wrote the textfile it named" test ! -e "$tmp/never.prom"
ktap_finish
