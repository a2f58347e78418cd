#!/bin/sh
# Runs the corpus and builtin:all on sim and on BACKEND with the same seed
# and compares every verdict line and minimal case (timings stripped).
# Usage: test_backends.sh SHARDCHECK BACKEND [CASES] [WORLD] [TARGETS...]
# (TARGETS: default the corpus and builtin:all). Exits 77 (skipped) when
# BACKEND cannot run here (not compiled in, or no GPU). Diagnostic log
# lines ("[sc ...]") are not compared.
set -u
sc=$1 be=$2 cases=${3:-200} world=${4:-1..8}
shift $(($# < 4 ? $# : 4))
[ $# -gt 0 ] || set -- corpus builtin:all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sc" check builtin:all_to_all --backend "$be" --cases 1 -q >"$tmp/probe" 2>&1
if [ $? -eq 2 ]; then
	echo "$be: skipped: $(cat "$tmp/probe")"
	exit 77
fi
norm() { grep -v '^\[sc ' | sed -E 's/[0-9]+\.[0-9]+ ?m?s\b//g; s/backend [a-z]+/backend B/'; }
for b in sim "$be"; do
	"$sc" check "$@" --backend "$b" --seed 7 --cases "$cases" --world "$world" -v >"$tmp/$b.out" 2>&1
	echo $? >"$tmp/$b.rc"
	norm <"$tmp/$b.out" >"$tmp/$b.norm"
done
same=1
diff "$tmp/sim.norm" "$tmp/$be.norm" >"$tmp/diff" || same=0
cmp -s "$tmp/sim.rc" "$tmp/$be.rc" || same=0
if [ $same -eq 0 ]; then
	head -60 "$tmp/diff"
	echo "FAIL: $be differs from sim (exit $(cat "$tmp/sim.rc") vs $(cat "$tmp/$be.rc"))"
	exit 1
fi
checks=$(grep -c '^\(pass\|FAIL\|fail\)' "$tmp/sim.norm")
echo "$be matches sim: exit $(cat "$tmp/sim.rc"), $checks verdict lines, $(tail -1 "$tmp/sim.norm")"
