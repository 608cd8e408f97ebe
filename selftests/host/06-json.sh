#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/lib/json_lib.c, the JSON string writer klptop and klp-trace share:
# every byte a kernel name can hold comes back from jq as it went in.
. "$(dirname "$0")/../lib.sh"
ktap_start "json_put_str: strings jq reads back unchanged"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include "json.h"

/* each argument as {"s":<it>} on a line */
int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		fputs("{\"s\":", stdout);
		json_put_str(stdout, argv[i], strlen(argv[i]));
		puts("}");
	}
	return 0;
}
EOC
unit_build "$tmp" json strbuf_lib

# every ASCII byte but NUL, then the usual suspects one by one
all=$(printf "$(printf '\\x%02x' $(seq 1 127))")
for s in 'plain_name' 'a"quote' 'back\slash' $'new\nline' $'tab\tbed' \
	 $'bell\a' $'del\x7f' $'esc\e[1m' 'ünïcödé' "$all"; do
	label=$(printf '%q' "$s" | cut -c1-40)
	got=$("$tmp/t" "$s" | jq -j '.s'; echo x)
	assert_eq "round trip: $label" "${s}x" "$got"
done
check "the output is valid JSON, one object a line" \
	bash -c '"$1" a "b\"c" | jq -e . > /dev/null' _ "$tmp/t"
ktap_finish
