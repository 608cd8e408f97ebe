# SPDX-License-Identifier: GPL-2.0
# selftests/headers.sh - the "# klp-KEY: VALUE" lines in a script's
# header, as the host's runners read them (selftests/run.sh for guest
# groups, selftests/mutants/run.sh for groups and mutants); sourced.

# klp_headers FILE KEY: the values of FILE's "# klp-KEY: " lines, a line each
klp_headers() {
	sed -n "s/^# klp-$2: //p" "$1"
}

# klp_header FILE KEY: the value of FILE's first "# klp-KEY: " line
klp_header() {
	klp_headers "$1" "$2" | head -n 1
}

# klp_header_num FILE KEY DEFAULT: the first "# klp-KEY: " value if it is
# a number, else DEFAULT
klp_header_num() {
	local v
	v=$(klp_header "$1" "$2")
	[[ $v =~ ^[0-9]+$ ]] || v=$3
	echo "$v"
}

# guest_cost SCRIPT: the seconds the guest group took on an idle machine
# (its "# klp-cost:" header; none: 0)
guest_cost() {
	klp_header_num "$1" cost 0
}
