#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build klp's Debian packages (debian/) into build/deb/: klp-dkms (the
# core's source, for DKMS) and klp-tools, with dpkg-buildpackage in a copy
# of the tree (tracked files and new ones not ignored), so that nothing is
# written next to the tree.  The packages are reused while that copy would
# be the same (its files' contents and the git revision, hashed).
#
# -m KVER (repeatable): also klp-modules-KVER, klp.ko and klp_events.ko as
# DKMS builds them from klp-dkms's source for that kernel (a private DKMS
# tree), packaged for machines without headers or a compiler: it conflicts
# with klp-dkms, which builds the same modules on the machine itself.
#
# Prints the packages' paths, one a line.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "deb: $*" >&2; exit 1; }
kvers=()
while getopts "m:" o; do
	case $o in
	m) kvers+=("$OPTARG") ;;
	*) die "usage: $0 [-m KVER]..." ;;
	esac
done

out=$top/build/deb
mkdir -p "$out"
exec 8> "$out/.lock"
flock 8

ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
dkver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ "$ver" = "$dkver" ] ||
	die "debian/changelog says $ver, dkms.conf's PACKAGE_VERSION $dkver: make them agree"

# the tree's files, NUL-separated: git's list, or all but build/
tree_files() {
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			(cd "$top" && while IFS= read -r -d '' f; do
				[ -f "$f" ] && printf '%s\0' "$f"
			done)
	else
		(cd "$top" && find . -path ./build -prune -o -type f -printf '%P\0')
	fi
}
rev=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
key=$( { echo "$rev"; tree_files | (cd "$top" && xargs -0 sha256sum); } | sha256sum | cut -c1-16)

debs=("$out/klp-dkms_${ver}_all.deb" "$out/klp-tools_${ver}_amd64.deb")
if [ "$(cat "$out/tree.key" 2>/dev/null)" != "$key" ] || ! ls "${debs[@]}" > /dev/null 2>&1; then
	rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out/tree.key"
	mkdir -p "$out/src/klp-$ver"
	tree_files | (cd "$top" && tar --null -T - -cf -) | tar -C "$out/src/klp-$ver" -xf -
	echo "deb: building klp $ver (revision $rev) in $out/src" >&2
	if ! (cd "$out/src/klp-$ver" && KLP_REVISION=$rev \
		dpkg-buildpackage -b -us -uc -j"$(nproc)" > "$out/build.log" 2>&1); then
		tail -n 40 "$out/build.log" >&2
		die "dpkg-buildpackage failed (whole log: $out/build.log)"
	fi
	mv "$out/src"/*.deb "$out/src"/*.changes "$out/src"/*.buildinfo "$out/"
	rm -rf "$out/src"
	echo "$key" > "$out/tree.key"
fi
printf '%s\n' "${debs[@]}"

# klp-modules-KVER: DKMS's build of klp-dkms's source, as a package
for k in "${kvers[@]}"; do
	mdeb=$out/klp-modules-${k}_${ver}_amd64.deb
	if [ "$(cat "$mdeb.key" 2>/dev/null)" = "$key" ] && [ -f "$mdeb" ]; then
		echo "$mdeb"
		continue
	fi
	[ -d "/lib/modules/$k/build" ] || die "no headers for $k (apt-get install linux-headers-$k)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	dpkg-deb -x "${debs[0]}" "$tmp/x"
	mkdir -p "$tmp/dkms"
	if ! dkms build "klp/$ver" -k "$k" --sourcetree "$tmp/x/usr/src" --dkmstree "$tmp/dkms" \
		> "$tmp/build.log" 2>&1; then
		cat "$tmp/build.log" "$tmp/dkms/klp/$ver/build/make.log" >&2 2>/dev/null
		die "dkms build klp/$ver for $k failed"
	fi
	pkg=klp-modules-$k
	p=$tmp/pkg
	mkdir -p "$p/DEBIAN" "$p/lib/modules/$k/updates/klp" "$p/usr/share/doc/$pkg"
	find "$tmp/dkms/klp/$ver/$k" -name '*.ko*' -exec install -m 644 {} "$p/lib/modules/$k/updates/klp/" \;
	[ -n "$(ls "$p/lib/modules/$k/updates/klp")" ] || die "dkms built no module for $k"
	cp "$top/debian/copyright" "$p/usr/share/doc/$pkg/"
	gzip -9n < "$top/debian/changelog" > "$p/usr/share/doc/$pkg/changelog.gz"
	cat > "$p/DEBIAN/control" <<-EOF
	Package: $pkg
	Source: klp
	Version: $ver
	Architecture: amd64
	Maintainer: $(dpkg-parsechangelog -l "$top/debian/changelog" -S Maintainer)
	Depends: linux-image-$k
	Provides: klp-modules
	Conflicts: klp-dkms
	Section: kernel
	Priority: optional
	Description: klp live patching core, built for Linux $k
	 klp.ko and klp_events.ko, as DKMS builds them from klp-dkms for the
	 kernel $k, for machines without its headers or a compiler.
	EOF
	for s in postinst postrm; do
		printf '#!/bin/sh\nset -e\ndepmod -a %s\n' "$k" > "$p/DEBIAN/$s"
		chmod 755 "$p/DEBIAN/$s"
	done
	(cd "$p" && find lib usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
	dpkg-deb --root-owner-group -Zxz -b "$p" "$mdeb" > /dev/null
	echo "$key" > "$mdeb.key"
	rm -rf "$tmp"
	trap - EXIT
	echo "$mdeb"
done
