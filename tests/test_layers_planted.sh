#!/usr/bin/env bash
# The layering check catches what it must: on a copy of the tree, an
# upward include (util including a run header), an include cycle between
# two modules of one layer, and an over-long function are each reported
# with their file:line and fail the check; the clean tree passes.
# Usage: test_layers_planted.sh REPO_ROOT
set -u
root=${1:?usage: test_layers_planted.sh REPO_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
copy() { rm -rf "$tmp/t"; mkdir -p "$tmp/t/tests"; cp -r "$root/src" "$root/generators" "$root/properties" "$root/fuzz" "$root/include" "$tmp/t/"; cp "$root/tests/check_layers.sh" "$tmp/t/tests/"; }
check() { # want_rc pattern what
	"$tmp/t/tests/check_layers.sh" "$tmp/t" >"$tmp/out" 2>&1; local rc=$?
	if [ "$rc" -eq "$1" ] && grep -q -- "$2" "$tmp/out"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAILED: $3 (exit $rc)"; cat "$tmp/out"; fi
}
copy
check 0 "all downward, no cycle" "the clean tree"
copy
echo '#include "sc_check.h"' >>"$tmp/t/src/util/sc_str.c"
check 1 'src/util/sc_str.c:[0-9]*: #include "sc_check.h" goes up' "an upward include"
copy
echo '#include "sc_interp.h"' >>"$tmp/t/src/lang/sc_step.h"
echo '#include "sc_step.h"' >>"$tmp/t/src/lang/sc_interp.h"
check 1 "include cycle between modules" "a cycle in one layer"
copy
{ echo 'int sc_str_long(void)'; echo '{'; for i in $(seq 130); do echo "	(void)$i;"; done; echo '	return 0;'; echo '}'; } >>"$tmp/t/src/util/sc_str.c"
check 1 "function of 133 lines" "an over-long function"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
