#!/usr/bin/env bash
# Strict .case parsing: every bad field is "path:LINE: message", exit 2 and
# nothing run; every case file of the corpus still loads.
# Usage: test_casefile.sh PATH/TO/shardcheck  (from the repository root)
set -u
sc=$1
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
spec=$PWD/corpus/deepspeed/sf-head2seq-batchdim.sc
good() { # the lines of a valid case, one per argument replaced by sed expressions
	printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 2\nsizes s=4 b=2 h=2 d=1\ndtype i32\nseed 7\n' "$spec"
}
# bad NAME LINE REGEX: good() edited by the sed script on stdin... must be refused
refuse() {
	local name=$1 line=$2 re=$3
	"$sc" repro "$tmp/$name.case" >"$tmp/$name.out" 2>&1
	local rc=$?
	if [ $rc -eq 2 ] && grep -qE -- "$name\.case:$line: .*$re" "$tmp/$name.out" && ! grep -q "^FAIL\|^pass" "$tmp/$name.out"; then ok
	else bad "$name: exit $rc, want 2 and '$name.case:$line: ...$re'"; cat "$tmp/$name.out" >&2; fi
}
good >"$tmp/ok.case"
"$sc" repro "$tmp/ok.case" >"$tmp/ok.out" 2>&1; [ $? -eq 0 ] && ok || { bad "a valid case file is refused"; cat "$tmp/ok.out" >&2; }

good | sed 's/^backend sim/backend simm/' >"$tmp/backend.case";        refuse backend 4 "unknown backend 'simm'"
good | sed 's/^seed 7/seed -1/' >"$tmp/seedneg.case";                 refuse seedneg 8 "seed must be a decimal integer"
good | sed 's/^seed 7/seed 18446744073709551616/' >"$tmp/seedbig.case"; refuse seedbig 8 "seed must be a decimal integer"
good | sed '/^seed/d' >"$tmp/noseed.case";                            refuse noseed 8 "missing 'seed' \(a truncated file\?\)"
good | head -c 150 >"$tmp/trunc.case";                                refuse trunc '[0-9]+' ""
good | sed 's/^seed 7/seed /' >"$tmp/seedcut.case";                   refuse seedcut 8 "seed must be a decimal integer in 0..2\^64-1, got ''"
good | sed 's/^world 2/world +2/' >"$tmp/worldplus.case";             refuse worldplus 5 "world must be 1..256"
good | sed 's/^world 2/world 2x/' >"$tmp/worldx.case";                refuse worldx 5 "world must be 1..256"
good | sed 's/^sizes .*/sizes s=4 b=2 h=2 d=-1/' >"$tmp/sizeneg.case"; refuse sizeneg 6 "size of 'd' must be 1..2\^40"
good | sed 's/^sizes .*/sizes s=1099511627776 b=1099511627776 h=2 d=1/' >"$tmp/sizeover.case"
refuse sizeover 6 "more than 2\^40 elements"
good | sed 's/^sizes .*/sizes s=4 s=4 b=2 h=2 d=1/' >"$tmp/sizedup.case"; refuse sizedup 6 "'s' given twice"
good | sed 's/^dtype i32/dtype i32\nseed 8/' >"$tmp/dupkey.case";      refuse dupkey 8 "'seed' given twice \(first at line 9\)|'seed' given twice"
good | sed 's/^shardcheck-case 1/shardcheck-case 1abc/' >"$tmp/version.case"; refuse version 1 "version '1abc' is not supported"
good | sed 's/^property semantics/property reduce-consistency/' >"$tmp/applies.case"; refuse applies 3 "does not apply"
{ good | sed 's/^dtype i32/dtype i32\x00/'; } >"$tmp/nul.case";     refuse nul 7 "NUL byte"
{ good | sed 's/^dtype i32/dtype\x01 i32/'; } >"$tmp/ctrl.case";     refuse ctrl 7 "control character 0x01"
{ good; printf '# %05000d\n' 0; } >"$tmp/long.case";                 refuse long 9 "line longer than 2047 bytes"
printf 'shardcheck-case 1\ntarget builtin:all_to_all\nproperty semantics\nworld 2\nsizes d0=2 d1=2\nparams dim=0 dim=1 ndims=2\ndtype i32\nseed 0\n' >"$tmp/pdup.case"
refuse pdup 6 "param 'dim' given twice"

# every case file in the corpus loads (its verdict is its own business)
for f in $(find corpus -name '*.case'); do
	"$sc" repro "$f" >"$tmp/c.out" 2>&1
	rc=$?
	[ $rc -le 1 ] && ok || { bad "$f: exit $rc"; cat "$tmp/c.out" >&2; }
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
