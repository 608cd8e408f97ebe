#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp's Debian packages (make deb, scripts/deb.sh; reused while the tree is
# unchanged): lintian finds nothing but the overrides debian/ explains;
# each package holds exactly what it should, the tree's files, at the
# version dkms.conf and debian/changelog agree on; the tools were built
# with Debian's hardening flags and from this revision; then klp-dkms
# installed on this host with apt: its postinst has DKMS build and install
# klp.ko and klp_events.ko for every kernel with headers (6.1 and 6.12
# here), a kernel's headers installed again (DKMS's kernel hook) build
# them again for it, and apt-get purge takes every module away.  The
# guest group 50-systemd installs klp-tools on Debian with systemd.
. "$(dirname "$0")/../lib.sh"
ktap_start "Debian packages: lintian, contents, DKMS on this host's kernels"

for c in dpkg-buildpackage lintian dkms; do
	command -v $c > /dev/null || bail "$c installed (scripts/deps.sh installs it)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

debs=$("$KLP_TOP/scripts/deb.sh" 2> "$tmp/deb.err") ||
	{ diag "$(cat "$tmp/deb.err")"; bail "scripts/deb.sh builds the packages"; }
dkms_deb=$(grep '/klp-dkms_' <<< "$debs")
tools_deb=$(grep '/klp-tools_' <<< "$debs")
ok "scripts/deb.sh (make deb): $(basename "$dkms_deb") $(basename "$tools_deb")"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KLP_TOP/dkms.conf")
assert_eq "both at dkms.conf's version, debian/changelog's" "$ver $ver $ver" \
	"$(dpkg-deb -f "$dkms_deb" Version) $(dpkg-deb -f "$tools_deb" Version) $(cd "$KLP_TOP" && dpkg-parsechangelog -S Version)"

# --- lintian ------------------------------------------------------------------
changes=$(dirname "$tools_deb")/klp_${ver}_amd64.changes
lintian -I -E --pedantic "$changes" > "$tmp/lintian" 2>&1
assert_eq "lintian -I -E --pedantic on the .changes: no tag but the overridden" "" \
	"$(grep -v 'running with root privileges' "$tmp/lintian")"
lintian --show-overrides "$changes" 2>/dev/null | grep '^O: ' > "$tmp/overridden"
diag "overridden: $(wc -l < "$tmp/overridden") tags (debian/*.lintian-overrides)"
# every override says why: a comment right above each one
unexplained=$(awk 'FNR == 1 { c = 0 } /^#/ { c = 1; next } /^[^#[:space:]]/ { if (!c) print FILENAME ": " $0 }
	/^$/ { c = 0 }' "$KLP_TOP"/debian/*.lintian-overrides)
assert_eq "... each override explained by a comment above it" "" "$unexplained"

# --- contents -----------------------------------------------------------------
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | grep -v '^usr/share/doc/' | sort; }
want_dkms=$(git -C "$KLP_TOP" ls-files --cached --others --exclude-standard -- dkms.conf \
	':(glob)core/*.[ch]' core/Kbuild ':(glob)include/klp/*.h' | sed "s|^|usr/src/klp-$ver/|" | sort)
assert_eq "klp-dkms: dkms.conf, core/'s sources and include/klp, in /usr/src/klp-$ver" \
	"$want_dkms" "$(files "$dkms_deb")"
want_tools=$( (cd "$KLP_TOP" && for t in klptop klp-trace klp-exporter; do echo "usr/sbin/$t"; done
	for b in bpf/*.bpf.c; do b=${b#bpf/}; echo "usr/lib/klp/${b%.c}.o"; done
	for m in man/*.8; do echo "usr/share/man/man8/${m#man/}.gz"; done
	for h in include/klp/*.h; do echo "usr/$h"; done
	echo lib/systemd/system/klp-exporter.service
	echo usr/share/lintian/overrides/klp-tools
	echo usr/share/klp/prometheus/klp.rules.yml) | sort)
assert_eq "klp-tools: the three tools, the BPF objects, man pages, include/klp, the unit and the rules" \
	"$want_tools" "$(files "$tools_deb")"
dpkg-deb -x "$tools_deb" "$tmp/tools"
dpkg-deb -e "$tools_deb" "$tmp/tools.ctl"
assert_eq "... the unit as prometheus/ has it, ExecStart /usr/sbin/klp-exporter" "" \
	"$(sed 's|@SBINDIR@|/usr/sbin|g' "$KLP_TOP/prometheus/klp-exporter.service" |
	   diff - "$tmp/tools/lib/systemd/system/klp-exporter.service")"
check "... installed disabled: its postinst enables it only where an earlier version was enabled" \
	eval 'grep -B6 "deb-systemd-helper enable" "$tmp/tools.ctl/postinst" | grep -q "deb-systemd-helper debian-installed"'
for lib in libbpf1 libmicrohttpd12 libtracefs1 libtraceevent1; do
	check "... depends on $lib (dh_shlibdeps)" eval 'dpkg-deb -f "$tools_deb" Depends | grep -q "$lib"'
done
rev=$(git -C "$KLP_TOP" rev-parse --short=12 HEAD)
assert_eq "... klp-exporter built from this revision (build_info)" \
	"klp-exporter $ver (revision $rev)" "$("$tmp/tools/usr/sbin/klp-exporter" --version)"
for t in klptop klp-trace klp-exporter; do
	f=$tmp/tools/usr/sbin/$t
	assert_eq "... $t hardened: PIE, full RELRO (BIND_NOW), stack protector, fortified" "DYN 1 1 1 1" \
		"$(readelf -h "$f" | awk '$1 == "Type:" { print $2 }') $(readelf -lW "$f" | grep -c GNU_RELRO) \
$(readelf -dW "$f" | grep -cE 'BIND_NOW|FLAGS_1.*NOW' | sed 's/^[2-9]$/1/') \
$(readelf -sW --dyn-syms "$f" | grep -c '__stack_chk_fail' | sed 's/^[2-9]$/1/') \
$(readelf -sW --dyn-syms "$f" | grep -cE '__[a-z]+_chk@' | sed 's/^[0-9]*[1-9][0-9]*$/1/')"
done

# --- klp-dkms installed with apt: DKMS builds for every kernel ---------------
kvers=$(cd /usr/src && ls -d linux-headers-*-amd64 2>/dev/null | sed 's/^linux-headers-//' | sort -V)
check "headers of a 6.1 and a 6.12 kernel installed" \
	eval 'echo "$kvers" | grep -q "^6\.1\." && echo "$kvers" | grep -q "^6\.12\."'
# one run at a time on this machine: the package is installed system-wide
exec 7> /var/lock/klp-dkms-test.lock
flock 7
if dpkg -s klp-dkms > /dev/null 2>&1; then
	diag "klp-dkms was installed (a run before stopped half-way?): purged first"
	apt-get purge -y -q klp-dkms > /dev/null 2>&1
fi
# DKMS builds for the running kernel and the newest one by default; here
# the running kernel is not Debian's, so all of them (framework.conf's
# autoinstall_all_kernels, read from the environment)
if autoinstall_all_kernels=yes DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q -o DPkg::Lock::Timeout=600 "$dkms_deb" > "$tmp/apt.log" 2>&1; then
	ok "apt-get install klp-dkms"
else
	not_ok "apt-get install klp-dkms"
	sed 's/^/#   /' "$tmp/apt.log" | tail -n 30
fi
for k in $kvers; do
	assert_eq "$k: dkms status installed" "klp/$ver, $k, x86_64: installed" \
		"$(dkms status "klp/$ver" -k "$k" 2>/dev/null)"
	klp_ko_check "$k: installed by DKMS in /lib/modules (modinfo -k finds them: depmod ran)" "$k" \
		"$(modinfo -k "$k" -F filename klp 2>/dev/null)" \
		"$(modinfo -k "$k" -F filename klp_events 2>/dev/null)" "/lib/modules/$k/updates/dkms/"
done

# a kernel's headers installed again (a new kernel): DKMS's hook builds for
# it (AUTOINSTALL in dkms.conf)
k=$(echo "$kvers" | tail -n 1)
dkms remove "klp/$ver" -k "$k" > /dev/null 2>&1
check "$k: removed by hand" eval '! modinfo -k "$k" klp > /dev/null 2>&1'
/etc/kernel/header_postinst.d/dkms "$k" > "$tmp/hook.log" 2>&1
klp_ko_check "$k: built and installed again by DKMS's kernel hook (AUTOINSTALL)" "$k" \
	"$(modinfo -k "$k" -F filename klp 2>/dev/null)" \
	"$(modinfo -k "$k" -F filename klp_events 2>/dev/null)" "/lib/modules/$k/updates/dkms/"

check "apt-get purge klp-dkms" eval 'apt-get purge -y -q "klp-dkms" > "$tmp/apt.log" 2>&1'
for k in $kvers; do
	check "$k: no klp module left" eval '! modinfo -k "$k" klp > /dev/null 2>&1 && ! modinfo -k "$k" klp_events > /dev/null 2>&1'
done
check "no DKMS tree or source left" test ! -e "/var/lib/dkms/klp" -a ! -e "/usr/src/klp-$ver"
ktap_finish
