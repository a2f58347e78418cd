#!/usr/bin/env bash
# check --exhaustive: on every corpus bug, the first failure in the
# shrinking order is the shrinker's minimal case (where that case lies within
# the bounds); every corpus fix holds for all cases, and the count is stated.
# Usage: test_exhaustive.sh PATH/TO/shardcheck   (run from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

"$sc" check corpus --exhaustive --max-dim 4 --json "$tmp/exh.json" >"$tmp/exh.out" 2>&1
"$sc" check corpus --seed 1 --cases 1000 --json "$tmp/shr.json" >/dev/null 2>&1
# specs whose drawn counts take too many values at worlds 1..8, again at 1..2
"$sc" check $(grep -l "^counts\\|^routes\\|^sequences\\|^microbatches" corpus/*/*.sc) --exhaustive --world 1..2 --max-dim 2 --json "$tmp/exh2.json" >/dev/null 2>&1
touch "$tmp/outside.txt"
if python3 - "$tmp/exh.json" "$tmp/shr.json" "$tmp/exh2.json" "$tmp/outside.txt" <<'PY'
import json, sys
exh = {(r["target"], r["property"]): r for r in json.load(open(sys.argv[1]))["results"]}
shr = {(r["target"], r["property"]): r for r in json.load(open(sys.argv[2]))["results"]}
exh2 = {(r["target"], r["property"]): r for r in json.load(open(sys.argv[3]))["results"]}
def case(r):
    c = r["counterexample"]
    return c and (c["world"], c["sizes"], c["dtype"])
def inside(c):  # the shrinker's minimum lies within --world 1..8 and --max-dim 4
    return c["world"] <= 8 and all(not isinstance(v, int) or v <= 4 for v in c["sizes"].values())
same = fails = passes = outside = refused = 0
outside_specs = []  # bugs whose minimum lies past the bounds: an unmet expectation there is the bound's
for k, s in shr.items():
    e = exh[k]
    if e["verdict"] == "error":  # the one refusal: drawn counts with too many values to end
        assert "take more than 1000000 values within --world 1..8" in e["error"], (k, e["error"])
        refused += 1
        e = exh2[k]  # the same at worlds 1..2, dims up to 2
        assert e["verdict"] != "error", (k, e["error"])
        if s["verdict"] == "fail" and not (s["counterexample"]["world"] <= 2 and all(
                not isinstance(v, int) or v <= 2 for v in s["counterexample"]["sizes"].values())):
            outside += 1
            outside_specs.append(k[0])
            continue
    elif s["verdict"] == "fail" and not inside(s["counterexample"]):
        outside += 1
        outside_specs.append(k[0])
        continue
    assert e["verdict"] == s["verdict"], (k, e["verdict"], s["verdict"])
    assert case(e) == case(s), (k, case(e), case(s))
    fails += s["verdict"] == "fail"
    passes += s["verdict"] == "pass"
print(f"exhaustive: {fails} minimal cases equal to the shrinker's, {passes} passes, "
      f"{outside} minima outside the bounds, {refused} refused at worlds 1..8 (drawn counts; compared at 1..2)")
assert fails >= 30 and passes >= 150, (fails, passes)
held = [r for r in exh.values() if r["verdict"] == "pass"]
assert all(r["cases"] == r["exhaustive_cases"] > 0 for r in held), "a pass without every case run"
open(sys.argv[4], "w").write("".join(t + "\n" for t in sorted(set(outside_specs))))
PY
then ok; else bad "exhaustive and shrinker disagree"; fi
grep -q "^pass  corpus/deepspeed/sf-head2seq-batchdim.sc *[0-9] properties *every case: [0-9]* cases" "$tmp/exh.out" && ok ||
	bad "a fix's pass does not state the count"
grep -q "corpus/deepspeed/sf-head2seq-batchdim.sc: [0-9]* cases within the bounds" "$tmp/exh.out" && ok ||
	bad "the count is not shown before the checks"
# (unmet only where the shrinker's minimum lies past --max-dim 4 or world 8)
grep "^UNMET" "$tmp/exh.out" | awk '{print $2}' | grep -v -x -F -f "$tmp/outside.txt" | grep -q . &&
	bad "an expectation was unmet: $(grep "^UNMET" "$tmp/exh.out")" || ok

# a minimum beyond the default bounds is found once the bounds reach it
"$sc" check corpus/deepspeed/autotp-grain-before-8185.sc --exhaustive --max-dim 70 --property semantics >"$tmp/o" 2>&1
grep -q "minimal case: world=1 o=65 i=1 dtype=i32 seed=0" "$tmp/o" && ok || { bad "--max-dim 70: not world=1 o=65"; cat "$tmp/o" >&2; }
# the statement names the bounds; --world lists and --dtypes narrow them
"$sc" check corpus/deepspeed/sf-head2seq-batchdim.sc --exhaustive --world 2,4 --dtypes i32 --property semantics >"$tmp/o" 2>&1
grep -q "exhaustive: every case with world 2,4, each dim <= 8, dtypes i32" "$tmp/o" && ok || { bad "the bounds line"; head -3 "$tmp/o" >&2; }
# a require on a mesh's sizes (A >= 2) rules out the smallest case, not the walk
"$sc" check tests/specs/mesh-group-list.sc --exhaustive --world 1..4 --max-dim 3 --property semantics >"$tmp/o" 2>&1
grep -q "mesh-group-list.sc: 36 cases within the bounds" "$tmp/o" && grep -q "^pass .*holds for all 36 cases" "$tmp/o" && ok ||
	{ bad "a mesh require empties the walk"; cat "$tmp/o" >&2; }
# too many tuples is refused with what to do
"$sc" check builtin:all_to_all --exhaustive --max-dim 4096 --property semantics >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q "lower --max-dim" "$tmp/o" && ok || { bad "too many tuples"; tail -3 "$tmp/o" >&2; }

echo "exhaustive: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
