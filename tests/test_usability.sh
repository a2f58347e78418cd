#!/usr/bin/env bash
# What a new user runs into: --world lists, expectations of a single spec, a
# directory with a broken spec, --cases counting checked cases, the
# --max-elems message, repro's labels and replay lines, fuzz's output folders.
# Usage: test_usability.sh PATH/TO/shardcheck   (run from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

bug=corpus/deepspeed/sf-head2seq-before-5664.sc   # minimal case: world=2 s=2 b=2 h=2 d=1
fix=corpus/deepspeed/sf-head2seq-after-5664.sc    # fails at world=1 only (expect fail)

# --world 2,4,8: only those worlds are drawn; the minimal case is in the list
expect_rc 0 "--world list" "$sc" check "$bug" --property semantics --seed 3 --world 4,8 --json -
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]["counterexample"]; sys.exit(r["world"] != 4)' "$tmp/out"; then ok; else bad "--world 4,8: the minimal case is not at world 4"; head -c 600 "$tmp/out" >&2; fi
expect_rc 0 "--world list header" "$sc" check builtin:all_to_all --property semantics --cases 50 --world 2,4,8
expect_grep "world 2,4,8," "$tmp/out" "the header shows the list"
expect_rc 2 "bad --world list" "$sc" check --world 2,x builtin:all_to_all
expect_grep "P1,P2" "$tmp/err" "the list's error says the form"
# the fix of PR 5664 fails at world 1 first; under --world 2,4 its minimum is at world 2
expect_rc 0 "--world list, expected failure" "$sc" check "$fix" --property semantics --seed 1 --world 2,4 --cases 300
expect_grep "minimal case: world=2 " "$tmp/out" "--world 2,4: the minimum is at world 2"

# a single spec's `expect fail` counts as in a directory; --no-expect ignores it
expect_rc 0 "a single spec with expect fail" "$sc" check "$bug" --seed 3 --cases 200
expect_grep "FAIL .* as expected" "$tmp/out" "the failure is marked expected"
expect_grep "0 expectations unmet" "$tmp/out" "the expectation is met"
expect_rc 1 "--no-expect" "$sc" check "$bug" --seed 3 --cases 200 --no-expect
expect_grep "(0 expected)" "$tmp/out" "--no-expect: no failure is expected"
printf 'pipeline p\ndims s\ninput shard s\noutput shard s\nexpect fail\ncontiguous\n' >"$tmp/wrongexp.sc"
expect_rc 1 "a single spec whose expected failure does not happen" "$sc" check "$tmp/wrongexp.sc" --cases 50
expect_grep "UNMET" "$tmp/out" "the unmet expectation is reported"

# a directory with a spec that does not parse: that spec is an error, the others run
mkdir -p "$tmp/dir"
cp corpus/deepspeed/sf-head2seq-before-5664.sc corpus/deepspeed/sf-head2seq-batchdim.sc "$tmp/dir/"
printf 'dims s\ninput shard s\noutput shard q\n' >"$tmp/dir/broken.sc"
expect_rc 2 "a directory with a broken spec" "$sc" check "$tmp/dir" --seed 1 --cases 100 --report "$tmp/dirrep"
expect_grep "^ERROR .*broken.sc *load .*broken.sc:3:14: output: unknown dim 'q'" "$tmp/out" "the broken spec is named with its line"
expect_grep "^pass  .*sf-head2seq-batchdim.sc" "$tmp/out" "the other specs are checked"
expect_grep "FAIL .*sf-head2seq-before-5664.sc .* as expected" "$tmp/out" "the known bug is still caught"
expect_grep '"property": "load"' "$tmp/dirrep/report.json" "report.json carries the load error"
expect_no_grep "nothing run" "$tmp/err" "the run is not abandoned"
# a broken spec named on its own still stops the run
expect_rc 2 "a broken spec named alone" "$sc" check "$tmp/dir/broken.sc"
expect_grep "nothing run" "$tmp/err" "nothing run"

# repro labels rows with the full index (the last dim as columns), as the FAIL lines count dims
expect_rc 1 "repro" "$sc" repro corpus/deepspeed/sf-head2seq-before-5664.case
expect_grep "^      \[0, 0, 1, :\] " "$tmp/out" "repro rows carry 4-D labels"
expect_no_grep "^      \[0, 0, 1\] " "$tmp/out" "no 3-index labels"
# a .case target replays with repro, as a written failure does
expect_rc 1 ".case regression" "$sc" check --no-expect corpus/deepspeed/sf-head2seq-before-5664.case
expect_grep "replay: shardcheck repro corpus/deepspeed/sf-head2seq-before-5664.case" "$tmp/out" "a .case's replay is repro"
expect_no_grep "replay: shardcheck eval" "$tmp/out" "no eval replay for a .case"

# --cases N checks N cases on every target that passes (rejected draws do not count)
"$sc" check corpus builtin:all tests/specs --cases 300 --seed 1 --json - >"$tmp/cases.json" 2>/dev/null
if python3 - "$tmp/cases.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
short = [(x["target"], x["property"], x["cases"]) for x in r if x["verdict"] == "pass" and x["cases"] != 300]
assert not short, short[:5]
assert sum(x["verdict"] == "pass" for x in r) > 200
PY
then ok; else bad "--cases 300: a passing check ran another number of cases"; fi
# --max-elems too small for any case says so, with the smallest case
expect_rc 2 "--max-elems too small" "$sc" check corpus/ring-attention/zigzag-extract-local.sc --max-elems 4 --property semantics
expect_grep "no case fits --max-elems 4: the smallest case drawn without it has 6 elements" "$tmp/out" "--max-elems is named"
expect_no_grep "require lines" "$tmp/out" "the require lines are not blamed"
# --time is kept with large cases (a case in flight finishes)
start=$(date +%s)
expect_rc 0 "--time with large cases" "$sc" check builtin:all_to_all --max-elems 4000000 --time 3 --cases 100000 -q
[ $(($(date +%s) - start)) -le 8 ] && ok || bad "--time 3 ran $(($(date +%s) - start)) s"

# properties shrink on their own; a differing minimum says why
expect_rc 0 "differing minima" "$sc" check corpus/yunchang/zigzag-extract-local-before-57.sc --seed 1 --cases 300
expect_grep "(unlike semantics, minimal at world=2 D=2 R=1 U=1 b=2 s=2 h=1 d=1: each property is shrunk on its own" \
	"$tmp/out" "the differing minimum is explained"

# fuzz writes nothing into the corpus by default: findings go to reports/findings
mkdir -p "$tmp/fz/corpus" && cp "$bug" "$tmp/fz/corpus/bug.sc" && sed -i '/^expect fail/d' "$tmp/fz/corpus/bug.sc"
(cd "$tmp/fz" && "$sc" fuzz --time 3 --seed 5 -q >out 2>&1)
[ -d "$tmp/fz/corpus/findings" ] && bad "fuzz wrote into the corpus" || ok
ls "$tmp/fz/reports/findings/"*.case >/dev/null 2>&1 && ok || { bad "fuzz: no finding in reports/findings"; tail -5 "$tmp/fz/out" >&2; }
expect_grep "findings reports/findings" "$tmp/fz/out" "fuzz names its findings folder"
(cd "$tmp/fz" && "$sc" fuzz --time 3 --seed 5 --findings "$tmp/fz/kept" -q >out2 2>&1)
ls "$tmp/fz/kept/"*.case >/dev/null 2>&1 && ok || bad "fuzz --findings DIR"

# a long check in a log (no terminal) prints a progress line every 10 s
"$sc" check builtin:all_to_all --property dtype --max-elems 4000000 --cases 100000000 --time 11 >"$tmp/out" 2>"$tmp/err"
expect_grep "^  \.\.\. builtin:all_to_all dtype: [0-9]*/100000000 cases after 1[0-9] s" "$tmp/err" "progress lines in a log"
"$sc" check builtin:all_to_all --property dtype --max-elems 4000000 --cases 100000000 --time 11 -q >"$tmp/out" 2>"$tmp/err"
expect_no_grep "^  \.\.\. " "$tmp/err" "-q: no progress lines"

# check --jobs: the same lines in the same order, the same report, as --jobs 1
for j in 1 3; do
	mkdir -p "$tmp/j$j"
	"$sc" check corpus builtin:all tests/specs --seed 1 --cases 200 --jobs $j --report "$tmp/j$j/rep" >"$tmp/j$j/out" 2>&1
	echo "exit $?" >>"$tmp/j$j/out"
	sed -E "s/[0-9]+\.[0-9]+s\b/T/g; s#$tmp/j$j/#J/#g" "$tmp/j$j/out" >"$tmp/j$j/norm"
	python3 tests/golden/normalize.py "$tmp/j$j/rep/report.json" | sed "s#$tmp/j$j/#J/#g" >"$tmp/j$j/json"
done
cmp -s "$tmp/j1/norm" "$tmp/j3/norm" && ok || { bad "--jobs 3 prints other lines than --jobs 1"; diff "$tmp/j1/norm" "$tmp/j3/norm" | head >&2; }
cmp -s "$tmp/j1/json" "$tmp/j3/json" && ok || { bad "--jobs 3 writes another report.json than --jobs 1"; diff "$tmp/j1/json" "$tmp/j3/json" | head >&2; }
diff -r -x "*.md" -x "*.svg" "$tmp/j1/rep/failures" "$tmp/j3/rep/failures" >/dev/null && ok || { bad "--jobs 3 writes other failure files"; diff -r "$tmp/j1/rep/failures" "$tmp/j3/rep/failures" | head >&2; }
[ "$(ls "$tmp/j3/rep/failures" | wc -l)" -gt 40 ] && ok || bad "--jobs 3: too few failure files"

echo "usability: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
