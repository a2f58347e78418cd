#!/usr/bin/env bash
# shardcheck gate: every example plugin gets its verdict, with a minimal
# repro for the bad ones; crashes and overruns are reported, not fatal;
# --baseline rejects a one-line index change; ABI plugins (C99, C++, an
# older struct size) load and pass.
# Usage: test_gate.sh PATH/TO/shardcheck EXAMPLES_DIR ABI_DIR
set -u
. "$(dirname "$0")/testlib.sh"
ex=$2 abi=$3
gate() { # want_rc name args...
	local want=$1 name=$2; shift 2
	"$sc" gate "$@" >"$tmp/$name.out" 2>&1
	local rc=$?
	[ $rc -eq "$want" ] && ok || { bad "$name: exit $rc, want $want"; tail -15 "$tmp/$name.out" >&2; }
}
has() { grep -q -- "$2" "$tmp/$1.out" && ok || { bad "$1: '$2' not in the output"; tail -15 "$tmp/$1.out" >&2; }; }

# PART (the 4th argument): "crash" (correct, DeepSpeed, faulty, hang), "rest",
# or all by default; ctest runs the two as separate tests, side by side
part=${4:-all}
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }

if in_part crash; then
gate 0 correct --plugin "$ex/libheads_to_seq.so" --cases 200
has correct "4 checks: 4 pass"
gate 1 ds --plugin "$ex/libds_pre5664.so" --cases 300 --report "$tmp/ds"
has ds "minimal case: world=2 s=2 b=2 h=2 d=1 dtype=i32 seed=0"
has ds "holds X\["
gate 1 faulty --plugin "$ex/libfaulty.so" overrun crash --cases 300 --report "$tmp/faulty"
has faulty "libfaulty.so:overrun *purity"
has faulty "wrote past the end of its output (4 bytes): first changed byte at +0"
has faulty "minimal case: world=1 s=1 b=1 h=3 d=1 dtype=i32 seed=0"
# a crash: SIGSEGV, or (for a plugin built with ASan) ASan's report and exit
grep -qE "the plugin crashed: signal 11|the plugin was stopped by a sanitizer.s report on rank 0" "$tmp/faulty.out" && ok || bad "faulty: the crash is not reported"
has faulty "^report: "
python3 -c "import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert int(r.get('failures')) >= 2" \
	"$tmp/faulty/junit.xml" && ok || bad "faulty: junit.xml"
"$sc" repro "$tmp/faulty/failures/"*crash-semantics.case >"$tmp/repro.out" 2>&1
[ $? -eq 1 ] && grep -qE "crashed: signal 11|stopped by a sanitizer.s report on rank 0" "$tmp/repro.out" && ok || { bad "repro of the crash case"; cat "$tmp/repro.out" >&2; }
gate 1 hang --plugin "$ex/libfaulty.so" hang --property semantics --cases 100 --timeout 1
has hang "the plugin hung: no result after 1 s"
has hang "minimal case: world=1 s=1 b=2 h=1 d=1 dtype=i32 seed=0"
fi

if in_part rest; then
gate 1 diff --plugin "$ex/libheads_to_seq_indexbug.so" --baseline "$ex/libheads_to_seq.so" --property differential --cases 300 --report "$tmp/diff"
has diff "minimal case: world=2 s=2 b=1 h=4 d=1 dtype=i32 seed=0"
"$sc" repro "$tmp/diff/failures/"*differential.case >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "repro of the differential case"
# all_to_allv through the collectives table (ranks as threads): uneven
# shards gathered; counts that disagree with the senders' fail every rank
gate 0 gather_split --plugin "$ex/libgather_split.so" --cases 100
has gather_split "4 checks: 4 pass"
gate 1 countbug --plugin "$ex/libgather_split_countbug.so" --property semantics --cases 100
has countbug "minimal case: world=3 n=4 m=1 dtype=i32 seed=0"
has countbug "the transform returned 2"
# a mesh contract: collectives over a mesh dim's groups (call->group)
gate 0 mesh_gather --plugin "$ex/libmesh_gather.so" --cases 100
has mesh_gather "4 checks: 4 pass"
gate 1 mesh_groupbug --plugin "$ex/libmesh_gather_groupbug.so" --property semantics --cases 100
has mesh_groupbug "minimal case: world=2 D=1 T=2 s=1 h=2 dtype=i32 seed=0"
# a plan cached across calls: right in a fresh process, wrong in the warm
# worker after a case with another head count: a failure (exit 1) with the
# one earlier case that makes it fail, each shrunk, replayed by repro
gate 1 stale --plugin "$ex/libfaulty.so" stale --property semantics --cases 200 --json "$tmp/stale.json" --report "$tmp/stale"
has stale "minimal case: world=1 s=1 b=1 h=1 d=1 dtype=i32 seed=0"
has stale "fails only after 1 earlier call in the same process (alone, in a new process, it passes): world=1 s=1 b=1 h=2 d=1 dtype=i32 seed=0"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["verdict"] == "fail" and r["after_earlier_cases"] == ["world=1 s=1 b=1 h=2 d=1 dtype=i32 seed=0"], r' \
	"$tmp/stale.json" && ok || bad "stale: after_earlier_cases not in the JSON"
grep -qx "earlier world 1 dtype i32 seed 0 sizes s=1 b=1 h=2 d=1" "$tmp/stale/failures/"*stale-semantics.case && ok || bad "stale: no earlier line in the case file"
"$sc" repro "$tmp/stale/failures/"*stale-semantics.case >"$tmp/stale_repro.out" 2>&1
[ $? -eq 1 ] && grep -q "fails after the 1 earlier case of the case file" "$tmp/stale_repro.out" && ok || { bad "stale: repro"; cat "$tmp/stale_repro.out" >&2; }
# a kernel wrong for f32 only: i32 and u32 (the same width, the same bits)
# pass first, so f32 is compared element by element when its bytes differ
gate 1 f32path --plugin "$ex/libfaulty.so" f32path --property dtype --cases 300
has f32path "with dtype f32"
gate 0 same --plugin "$ex/libheads_to_seq.so" --baseline "$ex/libheads_to_seq.so" --property differential --cases 100
for p in c99 old cxx; do
	[ -e "$abi/libabi_$p.so" ] || { [ $p = cxx ] && echo "abi: no C++ compiler; the C++ plugin is skipped" && continue; }
	gate 0 "abi_$p" --plugin "$abi/libabi_$p.so" --cases 100
done
gate 2 missing --plugin "$tmp/nope.so"
has missing "cannot load the plugin"
gate 2 noname --plugin "$ex/libheads_to_seq.so" no_such_transform
"$sc" gate --plugin "$ex/libheads_to_seq.so" --seed random --cases 20 -q >"$tmp/r.out" 2>&1
grep -q "seed [1-9]" "$tmp/r.out" && ok || bad "--seed random"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
