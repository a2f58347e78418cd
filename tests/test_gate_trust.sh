#!/usr/bin/env bash
# The gate never passes what it should fail: registrations that would keep
# a transform from being checked are refused (exit 2, naming it); names are
# printed escaped and their replay commands run as printed; a kernel that
# is wrong only after earlier calls in its process fails (exit 1) with the
# shortest sequence of earlier cases found, each shrunk, in the case file,
# replayed by repro; an overrun is blamed on the rank that wrote it.
# Usage: test_gate_trust.sh PATH/TO/shardcheck HOSTILE_DIR
set -u
. "$(dirname "$0")/testlib.sh"
dir=$2
gate() { # want_rc name args...
	local want=$1 name=$2; shift 2
	"$sc" gate "$@" --report "$tmp/$name" >"$tmp/$name.out" 2>&1
	local rc=$?
	[ $rc -eq "$want" ] && ok || { bad "$name: exit $rc, want $want"; tail -15 "$tmp/$name.out" >&2; }
}
has() { grep -qE -- "$2" "$tmp/$1.out" && ok || { bad "$1: '$2' not in the output"; tail -15 "$tmp/$1.out" >&2; }; }

# registration: more transforms than a library may register, twin names,
# refused add() calls the plugin ignored: the library is refused, exit 2
gate 2 many --plugin "$dir/libregistry_many.so" --cases 20
has many "transform 'copy1024' is the 1025th: a plugin registers at most 1024 \(and 75 more add\(\) calls refused\)"
gate 2 twins --plugin "$dir/libregistry_twins.so" --cases 20
has twins "transform 'twin' is registered twice"
gate 2 refused --plugin "$dir/libregistry_refused.so" --cases 20
has refused "a transform lacks name, contract or run .*\(and 2 more add\(\) calls refused\)"
for n in many twins refused; do
	grep -q '"verdict": "error"' "$tmp/$n/report.json" && ok || bad "$n: the report does not say error"
done

# a plugin path that is a FIFO (dlopen would wait on it for ever): refused
mkfifo "$tmp/fifo.so"
expect_rc 2 "fifo plugin" timeout 30 "$sc" gate --plugin "$tmp/fifo.so"
expect_grep "fifo.so: not a regular file (a FIFO); refusing to load it" "$tmp/out" "fifo plugin"

# a name with a newline and terminal escapes: printed escaped, never raw,
# and the printed replay command selects it and fails it again
"$sc" gate --plugin "$dir/libregistry_escape.so" --property semantics --cases 20 >"$tmp/escape.out" 2>&1
[ $? -eq 1 ] && ok || { bad "escape: exit $?, want 1"; tail "$tmp/escape.out" >&2; }
if grep -q $'\033' "$tmp/escape.out"; then bad "escape: a raw escape byte in the output"; else ok; fi
has escape 'libregistry_escape.so:evil\\n\\x1b\[32mpass\\x1b\[0m +semantics'
replay=$(sed -n 's/^ *replay: \(shardcheck gate .*\)$/\1/p' "$tmp/escape.out" | head -1)
[ -n "$replay" ] && ok || bad "escape: no gate replay line"
(cd "$tmp" && eval "\"$sc\" ${replay#shardcheck }" >"$tmp/escape_replay.out" 2>&1)
[ $? -eq 1 ] && grep -q "1 checks: 0 pass, 1 fail" "$tmp/escape_replay.out" && ok \
	|| { bad "escape: the printed replay command ($replay)"; cat "$tmp/escape_replay.out" >&2; }

# a plan cache keyed on the shape but not the dtype: fails after one call
# of a narrower dtype; both cases shrunk to the smallest shape (which pair
# of dtypes depends on the cases drawn, and so on the library's path)
gate 1 plan --plugin "$dir/libstateful.so" plan_dtype --property semantics --cases 300 --json "$tmp/plan.json"
has plan "minimal case: world=1 n=1 dtype=[a-z0-9]+ seed=0"
has plan "fails only after 1 earlier call in the same process \(alone, in a new process, it passes\): world=1 n=1 dtype=[a-z0-9]+ seed=0"
python3 - "$tmp/plan.json" <<'PY' && ok || bad "plan: the JSON's counterexample and earlier case"
import json, re, sys
r = json.load(open(sys.argv[1]))["results"][0]
width = {"i8": 1, "u8": 1, "i32": 4, "u32": 4, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "u64": 8, "f64": 8}
cx, earlier = r["counterexample"], r["after_earlier_cases"]
assert r["verdict"] == "fail" and cx["world"] == 1 and cx["sizes"] == {"n": 1}, r
m = re.fullmatch(r"world=1 n=1 dtype=(\w+) seed=0", earlier[0]) if len(earlier) == 1 else None
assert m and width[m.group(1)] < width[cx["dtype"]], earlier  # the plan of a narrower dtype
PY
case=$(ls "$tmp/plan/failures/"*plan_dtype-semantics.case)
grep -qE "^earlier world 1 dtype [a-z0-9]+ seed 0 sizes n=1$" "$case" && ok || { bad "plan: the case file"; cat "$case" >&2; }
expect_rc 1 "plan: repro" "$sc" repro "$case"
expect_grep "fails after the 1 earlier case of the case file" "$tmp/out" "plan: repro"
expect_grep "actual \[1\]" "$tmp/out" "plan: repro shows the run after the earlier case"
# without its earlier line the case passes: the line is what replays it
grep -v "^earlier" "$case" >"$tmp/plan/failures/alone.case"
expect_rc 0 "plan: the case alone" "$sc" repro "$tmp/plan/failures/alone.case"
# a malformed earlier line is refused with its line
line=$(grep -n "^earlier" "$case" | cut -d: -f1)
sed 's/^\(earlier world 1 dtype \)[a-z0-9]*/\1i9/' "$case" >"$tmp/plan/failures/bad.case"
expect_rc 2 "plan: a bad earlier line" "$sc" repro "$tmp/plan/failures/bad.case"
expect_grep "bad.case:$line: unknown dtype 'i9'" "$tmp/err" "plan: a bad earlier line"
sed 's/^\(earlier .* seed 0\) sizes n=1$/\1/' "$case" >"$tmp/plan/failures/bad2.case"
expect_rc 2 "plan: an earlier line without sizes" "$sc" repro "$tmp/plan/failures/bad2.case"
expect_grep "bad2.case:$line: expected 'sizes NAME=SIZE" "$tmp/err" "plan: an earlier line without sizes"
# --exhaustive finds it too
gate 1 plan_exh --plugin "$dir/libstateful.so" plan_dtype --property semantics --exhaustive --max-dim 3 --world 1..2
has plan_exh "fails only after [0-9]+ earlier calls? in the same process"

# a counter meant to be per rank: every call after the first is wrong;
# properties that run a case twice fail on the case alone
gate 1 second --plugin "$dir/libstateful.so" second_call --cases 300
has second "semantics .*\(case"
has second "fails only after 1 earlier call in the same process"
has second "fails only when the property's runs of this one case share a process"
# a memo keyed on nothing: later calls write nothing. Run after its twin
# (the same case, whose right result the buffer would still hold if it
# were reused as it is), the case fails: outputs start with every bit set
gate 1 first --plugin "$dir/libstateful.so" first_call --property semantics --cases 300
has first "fails only after 1 earlier call in the same process"
case=$(ls "$tmp/first/failures/"*first_call-semantics.case)
sed '/^earlier /d; s/^# the case fails only after these.*$/&\nearlier world 1 dtype i32 seed 0 sizes n=1/' "$case" |
	sed 's/^world .*/world 1/; s/^sizes .*/sizes n=1/; s/^dtype .*/dtype i32/; s/^seed .*/seed 0/' >"$tmp/first/twin.case"
expect_rc 1 "first: the case after its twin" "$sc" repro "$tmp/first/twin.case"
expect_grep "holds nothing (never written)" "$tmp/out" "first: the case after its twin"
# the same cache keyed right passes
gate 0 copy --plugin "$dir/libstateful.so" copy --cases 300
has copy "4 checks: 4 pass"

# 256 bytes written outside a buffer by the last rank, at worlds 2 to 8:
# the writer is named (the write reaches a neighbour's guard bytes too)
for w in 2 4 8; do
	gate 1 over$w --plugin "$dir/libblame.so" over256 --property semantics --cases 20 --world $w
	has over$w "rank $((w - 1)) wrote past the end of its output"
	gate 1 under$w --plugin "$dir/libblame.so" under256 --property semantics --cases 20 --world $w
	has under$w "rank $((w - 1)) wrote before the start of its output"
done

# a case's dtypes run in one call of the worker: a kernel wrong in any way
# for one dtype only (bf16, the tenth of twelve) fails with that dtype
# named, at worlds 1 and 4
for w in 1 4; do
	gate 1 crash$w --plugin "$dir/libbydtype.so" crash_bf16 --property dtype --cases 50 --world $w
	has crash$w "crashed: signal 11 .*\(with dtype bf16\)"
	gate 1 wrong$w --plugin "$dir/libbydtype.so" wrong_bf16 --property dtype --cases 50 --world $w
	has wrong$w "with dtype bf16, rank [0-9]+ element"
	gate 1 over$w --plugin "$dir/libbydtype.so" over_bf16 --property dtype --cases 50 --world $w
	has over$w "wrote past the end of its output .*\(with dtype bf16\)"
	gate 1 fail$w --plugin "$dir/libbydtype.so" fail_bf16 --property dtype --cases 50 --world $w
	has fail$w "the transform returned 7 \(with dtype bf16\)"
	gate 0 copy$w --plugin "$dir/libbydtype.so" copy --property dtype --cases 50 --world $w
done
gate 1 leave --plugin "$dir/libbydtype.so" leave_bf16 --property dtype --cases 50 --world 2
has leave "left processes running .*\(with dtype bf16\)"
# a failure found while the worker still runs the calls after it: f16's
# wrong bits are the failure, and bf16's hang, in a later call of the
# same batch, costs at most its timeout (the next case waits for it)
SECONDS=0
gate 1 early --plugin "$dir/libbydtype.so" wrong_f16_hang_bf16 --property dtype --cases 50 --world 2 --timeout 3
has early "with dtype f16, rank [01] element"
[ "$SECONDS" -lt 25 ] && ok || bad "early: took $SECONDS s"
# purity's provenance and data runs of a case go together: each fails in
# the run that does it
gate 1 scribble --plugin "$dir/libbydtype.so" scribble_data --property purity --cases 50 --world 2
has scribble "the input of rank [01] was modified"
gate 1 skip --plugin "$dir/libbydtype.so" skip_prov --property purity --cases 50 --world 2
has skip "rank [01] output element .* was never written"
# a hang in the batch's tenth call gets one timeout, not ten: the first
# hang and its confirmation take 3 s each, the rest are cut short
SECONDS=0
gate 1 hang --plugin "$dir/libbydtype.so" hang_bf16 --property dtype --cases 50 --timeout 3
has hang "the plugin hung: no result after [0-9]+ s .*\(with dtype bf16\)"
[ "$SECONDS" -lt 25 ] && ok || bad "hang: took $SECONDS s (a batch's calls share one timeout?)"

finish gate_trust
