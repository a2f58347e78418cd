#!/usr/bin/env bash
# CLI tests: exit codes, error locations, --seed replay, --json, eval --dump.
# Usage: test_cli.sh PATH/TO/shardcheck   (run from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

expect_rc 0 "--version" "$sc" --version
expect_grep "shardcheck 0.1.0" "$tmp/out" "version text"
expect_rc 0 "help check" "$sc" help check
expect_grep "--max-elems" "$tmp/out" "check help lists options"
expect_rc 0 "list" "$sc" list
expect_grep "f8e5m2" "$tmp/out" "list shows dtypes"
expect_grep "mpi" "$tmp/out" "list shows backends"
# cuda and nccl are "available" only where a GPU is visible, not merely compiled in
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
	if grep -qE '^  (cuda|nccl) +available' "$tmp/out"; then bad "list: cuda/nccl available without a GPU"; else ok; fi
fi
expect_rc 2 "no command" "$sc"
expect_rc 2 "unknown command" "$sc" frob
expect_rc 2 "unknown option" "$sc" check --frob
expect_rc 2 "bad --world" "$sc" check --world 0..3
expect_rc 2 "bad --dtypes" "$sc" check --dtypes f128
expect_rc 2 "unknown property" "$sc" check --property nope
expect_no_grep "did you mean" "$tmp/err" "no suggestion for a word nothing is close to"
# a slip of the keyboard gets the closest known name
hint() { # description expected-suggestion args...
	local what=$1 want=$2; shift 2
	expect_rc 2 "$what" "$sc" "$@"
	expect_grep "(did you mean '$want'?)" "$tmp/err" "$what: suggests $want"
}
hint "misspelt command" check chek
hint "misspelt option" --world check --wrld 4
hint "misspelt short-typed option" --seed check --seeed 3
hint "misspelt property" semantics check --property semantic
hint "misspelt backend" sim check --backend simm
hint "misspelt dtype" bf16 check --dtype bf61
hint "misspelt dtype in a list" f16 check --dtypes i32,fp16
hint "misspelt builtin" builtin:all_gather check builtin:all_gathr
printf 'dims a b\ninput shard a\noutput shard a\ntranpsose 0 1\n' >"$tmp/slip.sc"
hint "misspelt step" transpose check "$tmp/slip.sc"
expect_grep "slip.sc:4:1: unknown declaration or step 'tranpsose'" "$tmp/err" "misspelt step: file:line:col"
# the diagnosis of a failure is on the terminal and in report.json, not
# only in its picture
expect_rc 1 "diagnosis" "$sc" check corpus/deepspeed/sf-head2seq-before-5664.sc --no-expect --property semantics \
	--cases 100 --seed 1 --report "$tmp/diag"
expect_grep "^      diagnosis: dims b and h swapped" "$tmp/out" "diagnosis on the terminal"
expect_grep '"diagnosis": "dims b and h swapped' "$tmp/diag/report.json" "diagnosis in report.json"
# an output-shape mismatch: the diagnosis names the step after which the
# shape last changed, or says that none did
printf 'dims a b\ninput shard a\noutput shard b\ntranspose 0 1\n' >"$tmp/shape.sc"
expect_rc 1 "shape mismatch" "$sc" check "$tmp/shape.sc" --property semantics --seed 1
expect_grep "diagnosis: the shape became \[2, 1\] at shape.sc:4 (transpose), from \[1, 2\]" "$tmp/out" \
	"shape mismatch: the step"
# one line per target unless a check fails; -v one per property
expect_rc 0 "one line per target" "$sc" check corpus/deepspeed/sf-seq2head.sc builtin:all_gather --cases 50 --seed 1
[ "$(grep -c '^pass ' "$tmp/out")" -eq 2 ] && ok || { bad "one line per target: $(grep -c '^pass ' "$tmp/out") pass lines"; cat "$tmp/out" >&2; }
expect_grep "^pass  corpus/deepspeed/sf-seq2head.sc  *4 properties  *200 cases" "$tmp/out" "one line per target: counts"
expect_rc 0 "-v: one line per property" "$sc" check corpus/deepspeed/sf-seq2head.sc builtin:all_gather --cases 50 --seed 1 -v
[ "$(grep -c '^pass ' "$tmp/out")" -eq 9 ] && ok || { bad "-v: $(grep -c '^pass ' "$tmp/out") pass lines, want 9"; cat "$tmp/out" >&2; }
# a failing target: its failures in full, its passing properties in one line;
# a second property failing at the same case with the same message points up
expect_rc 0 "a failing target's line" "$sc" check corpus/deepspeed/autotp-grain-before-8185.sc --cases 200 --seed 1
expect_grep "^FAIL  corpus/deepspeed/autotp-grain-before-8185.sc semantics" "$tmp/out" "a failing target: in full"
expect_grep "the same minimal case and message as " "$tmp/out" "a repeated failure: pointed at"
# many named tensors: a flat parameter of twelve pieces (FSDP's flat_param
# split back into its parameters) put back in order passes, reversed
# fails; the 65th named tensor is refused
flat() { # order: twelve pieces of X[n], concatenated in that order
	printf 'dims n\ninput replicate\noutput replicate\nsizes n=12..48\nrequire n %% 12 == 0\ntensor flat = input\n'
	printf '%s = split flat [%s] dim=0\n' "$(seq -s ', ' -f 'p%g' 0 11)" "$(printf 'n/12, %.0s' $(seq 11))n/12"
	printf 'y = cat %s dim=0\n' "$1"
}
flat "$(seq -s ' ' -f 'p%g' 0 11)" >"$tmp/flat.sc"
expect_rc 0 "twelve named pieces" "$sc" check "$tmp/flat.sc" --property semantics --cases 100 --seed 1
flat "$(seq -s ' ' -f 'p%g' 11 -1 0)" >"$tmp/flatrev.sc"
expect_rc 1 "twelve named pieces, reversed" "$sc" check "$tmp/flatrev.sc" --property semantics --cases 100 --seed 1
{ printf 'dims n\ninput replicate\noutput replicate\ntensor t0 = input\n'
  for i in $(seq 1 64); do printf 't%d = contiguous t%d\n' "$i" $((i - 1)); done; } >"$tmp/names65.sc"
expect_rc 2 "65 named tensors" "$sc" check "$tmp/names65.sc"
expect_grep "names65.sc:68:1: too many named tensors (at most 64)" "$tmp/err" "65 named tensors: refused at the 65th"
# a parameter lowered with the dims that are its multiples (t tokens over
# P*nle experts: t % (P*nle) == 0): seeds 8 and 9 stopped at t=6 nle=3
for seed in 8 9; do
	expect_rc 1 "param and dim shrunk together (seed $seed)" "$sc" check corpus/fairscale/moe-local-experts-before-184.sc \
		--seed $seed --cases 500 --property semantics --no-expect
	expect_grep "minimal case: world=2 t=4 h=1 nle=2 C=1 R=0:0:0:0 " "$tmp/out" "param and dim shrunk together (seed $seed)"
done
# nested loops share one bound on their iterations (300 x 300 > 65536)
printf 'dims n\ninput replicate\noutput replicate\ntensor y = input\nfor i in 0..299\n  for j in 0..299\n    y = contiguous y\n  end\nend\n' >"$tmp/loops90k.sc"
expect_rc 1 "nested loops past their bound" "$sc" check "$tmp/loops90k.sc" --cases 5 --property semantics
expect_grep "the loops run more than 65536 iterations in all" "$tmp/out" "nested loops: the bound is named"
# a compute spec names 64 tensors too (an FSDP flat parameter of ten,
# each step's temporaries), in 256 statements
{ printf 'dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = x\nprogram\nt1 = x\n'
  for i in $(seq 2 62); do printf 't%d = add t%d x\n' "$i" $((i - 1)); done
  printf 'y = scale t62 1/62\n'; } >"$tmp/ctensors64.sc"
expect_rc 0 "a compute spec of 64 tensors" "$sc" check "$tmp/ctensors64.sc" --property semantics --cases 20 --seed 1
expect_grep "^pass .*ctensors64.sc" "$tmp/out" "64 compute tensors: checked, not refused"
{ cat "$tmp/ctensors64.sc"; printf 't63 = add y x\n'; } >"$tmp/ctensors65.sc"
expect_rc 2 "a compute spec of 65 tensors" "$sc" check "$tmp/ctensors65.sc"
expect_grep "ctensors65.sc:70:1: too many tensors (at most 64)" "$tmp/err" "65 compute tensors: refused at the 65th"
# a step with a `# FILE:LINE` comment (a traced spec's): that line is named
# beside the spec's, in the diagnosis and in a step's error; any other
# comment is not
printf 'dims a b\ninput shard a\noutput shard b\ntranspose 0 1  # layers/a2a.py:41  x = x.transpose(0, 1)\n' \
	>"$tmp/shapesrc.sc"
expect_rc 1 "shape mismatch, traced" "$sc" check "$tmp/shapesrc.sc" --property semantics --seed 1
expect_grep "diagnosis: the shape became \[2, 1\] at shapesrc.sc:4 (transpose, layers/a2a.py:41), from \[1, 2\]" \
	"$tmp/out" "shape mismatch, traced: the Python line"
printf 'dims a b\ninput shard a\noutput shard a\nview [a, b+1]  # a2a.py:7\nview [a, b+1]  # note: 7\n' >"$tmp/viewsrc.sc"
expect_rc 1 "step error, traced" "$sc" check "$tmp/viewsrc.sc" --property semantics --seed 1
expect_grep "line 4 (a2a.py:7) \`view \[a, b+1\]\`: " "$tmp/out" "step error, traced: the Python line"
printf 'dims a b\ninput shard a\noutput shard a\nview [a, b+1]  # note: 7\n' >"$tmp/viewnote.sc"
expect_rc 1 "step error, a plain comment" "$sc" check "$tmp/viewnote.sc" --property semantics --seed 1
expect_grep "line 4 \`view \[a, b+1\]\`: " "$tmp/out" "step error, a plain comment: only the spec's line"
printf 'dims a b\ninput shard a\noutput shard b\n' >"$tmp/shape0.sc"
expect_rc 1 "shape mismatch, no step" "$sc" check "$tmp/shape0.sc" --property semantics --seed 1
expect_grep "diagnosis: no step changed its shape: it is the input's" "$tmp/out" "shape mismatch, no step: said"
# an empty --world range says so
expect_rc 2 "empty --world range" "$sc" check --world 4..2
expect_grep "needs LO <= HI, got '4..2' (an empty range)" "$tmp/err" "empty --world range: the reason"
expect_rc 2 "unavailable backend" "$sc" check --backend nccl builtin:all_gather
expect_grep "unavailable" "$tmp/err" "unavailable backend message"
expect_rc 2 "missing file" "$sc" check does/not/exist.sc
# the binary alone, without the libraries of its optional parts (Open MPI,
# CUDA, NCCL): it links none of them, starts, runs sim, and says why mpi
# is unavailable
mkdir -p "$tmp/alone" && cp "$sc" "$tmp/alone/shardcheck"
if ldd "$sc" | grep -qE 'lib(mpi|cudart|nccl)\.'; then bad "the binary links an optional part's library"; else ok; fi
expect_rc 0 "alone: sim" "$tmp/alone/shardcheck" check builtin:all_gather --cases 50 -q
if ls "$(dirname "$sc")"/libshardcheck_mpi.so >/dev/null 2>&1; then
	LD_LIBRARY_PATH= expect_rc 2 "alone: mpi" "$tmp/alone/shardcheck" check --backend mpi builtin:all_gather
	expect_grep "backend 'mpi' is unavailable: libshardcheck_mpi.so is not next to the shardcheck binary" "$tmp/err" \
		"alone: why mpi is unavailable"
fi
# a case over --case-memory: eval says so and exits 2 (--dump once crashed here)
printf 'dims a b\ninput replicate\noutput replicate\ncontiguous\n' > "$tmp/big.sc"
expect_rc 2 "eval over --case-memory" "$sc" eval "$tmp/big.sc" --world 1 --sizes a=70000,b=70000
expect_grep "needs more than --case-memory" "$tmp/err" "eval over memory says why"
expect_rc 2 "eval --dump over --case-memory" "$sc" eval "$tmp/big.sc" --world 1 --sizes a=70000,b=70000 --dump "$tmp/bigdump"
# trace: help, and a module folder that does not exist
expect_rc 0 "help trace" "$sc" help trace
expect_grep "PyTorch" "$tmp/out" "trace help"
SHARDCHECK_PYTHONPATH=/nonexistent expect_rc 2 "trace without its module" "$sc" trace x.py --call "f(X)" --dims s --input replicate --output replicate
expect_grep "SHARDCHECK_PYTHONPATH" "$tmp/err" "trace names where it looked"

# a malformed spec: file:line:col, exit 2, nothing run
printf 'dims s b\ninput shard s\noutput shard s\nreshape [s, q]\n' >"$tmp/bad.sc"
expect_rc 2 "malformed spec" "$sc" check "$tmp/bad.sc"
expect_grep "bad.sc:4:13: unknown name 'q'" "$tmp/err" "spec error location"
expect_grep "nothing run" "$tmp/err" "nothing run"

# the corpus meets every expectation; a buggy spec exits 1 with provenance
expect_rc 0 "corpus" "$sc" check corpus --seed 3 --cases 200 -q
expect_rc 1 "buggy spec" "$sc" check --no-expect corpus/deepspeed/sf-head2seq-before-5664.sc --property semantics --seed 3
expect_grep "minimal case: world=2 s=2 b=2 h=2 d=1 dtype=i32 seed=0" "$tmp/out" "minimal DeepSpeed case"
expect_grep "holds X\[" "$tmp/out" "provenance of wrong elements"
expect_grep "replay: shardcheck eval" "$tmp/out" "replay command"
expect_rc 0 "builtins" "$sc" check --seed 4 --cases 300 -q

# the same seed replays the same run
"$sc" check builtin:all_to_all corpus/neuronx --seed 11 --cases 100 --json "$tmp/a.json" >/dev/null 2>&1
"$sc" check builtin:all_to_all corpus/neuronx --seed 11 --cases 100 --json "$tmp/b.json" >/dev/null 2>&1
if python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda d: [{k: v for k, v in r.items() if k != "seconds" and k != "counterexample"} | ({"cx": {k: v for k, v in r["counterexample"].items() if k != "shrink_seconds"}} if r["counterexample"] else {}) for r in d["results"]]
assert strip(a) == strip(b), "runs differ"
assert a["seed"] == "11"
PY
then ok; else bad "--seed replay"; fi

# --json - : stdout is the JSON document alone
"$sc" check corpus/slapo --seed 2 --cases 50 --json - >"$tmp/j.out" 2>"$tmp/j.err"
if python3 - "$tmp/j.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "shardcheck" and d["backend"] == "sim"
fails = [r for r in d["results"] if r["verdict"] == "fail"]
assert fails and all(r["expected"] == "fail" for r in fails)
cx = fails[0]["counterexample"]
for k in ("world", "sizes", "dtype", "seed", "shrink_steps", "wrong", "first_wrong"):
    assert k in cx, k
PY
then ok; else bad "--json - output"; fi
expect_grep "checks:" "$tmp/j.err" "human lines on stderr with --json -"

# eval: a passing case, a failing case, a runtime failure, dumps numpy loads
expect_rc 0 "eval pass" "$sc" eval corpus/deepspeed/sf-head2seq-batchdim.sc --world 2 --sizes s=4,b=2,h=4,d=1 --dump "$tmp/d1"
expect_rc 1 "eval fail" "$sc" eval corpus/deepspeed/sf-head2seq-before-5664.sc --world 2 --sizes s=2,b=2,h=2,d=1 --dtype bf16 --dump "$tmp/d2"
expect_rc 1 "eval runtime failure" "$sc" eval corpus/deepspeed/bf-head2seq-before-5664.sc --world 2 --sizes b=2,s=2,h=2,d=1 --dump "$tmp/d3"
expect_grep "is invalid for input of size" "$tmp/out" "runtime failure message"
if [ ! -e "$tmp/d3/rank0.output.npy" ] && [ -e "$tmp/d3/rank0.input.npy" ]; then ok; else bad "runtime failure writes no output file"; fi
expect_rc 2 "eval invalid case" "$sc" eval corpus/deepspeed/sf-head2seq-batchdim.sc --world 3 --sizes s=4,b=2,h=4,d=1
expect_rc 2 "eval of a drawn dim at 0" "$sc" eval corpus/deepspeed/sf-head2seq-batchdim.sc --world 1 --sizes s=4,b=0,h=4,d=1
expect_grep "b=0: a drawn dim is at least 1" "$tmp/err" "a drawn dim at 0 is named"
expect_rc 0 "eval builtin" "$sc" eval builtin:all_to_all --params dim=0,concat=1 --world 2 --sizes d0=2,d1=4
npy=""
for py in /usr/bin/python3 python3; do "$py" -c "import numpy" 2>/dev/null && { npy=$py; break; }; done
if [ -n "$npy" ]; then
	if "$npy" - "$tmp/d1" "$tmp/d2" <<'PY'
import numpy as np, sys
d1, d2 = sys.argv[1:3]
for r in range(2):
    o = np.load(f"{d1}/rank{r}.output.npy"); e = np.load(f"{d1}/rank{r}.expected.npy")
    assert o.shape == (2, 2, 4, 1) and o.dtype == np.int32 and (o == e).all()
o = np.load(f"{d2}/rank0.output.npy"); e = np.load(f"{d2}/rank0.expected.npy")
assert o.dtype == np.uint16 and (o != e).any()
PY
	then ok; else bad "npy files load in numpy"; fi
else
	head -c 6 "$tmp/d1/rank0.output.npy" | grep -q NUMPY && ok || bad "npy magic"
fi


# reports: report.json, junit.xml, summary.md, failures/*.case + *.md
"$sc" check --no-expect corpus/deepspeed/sf-head2seq-before-5664.sc builtin:all_gather --seed 5 --cases 100 --report "$tmp/rep" >"$tmp/rep.out" 2>&1
for f in report.json junit.xml summary.md failures/deepspeed-sf-head2seq-before-5664-semantics.case failures/deepspeed-sf-head2seq-before-5664-semantics.md; do
	[ -s "$tmp/rep/$f" ] && ok || bad "report file $f missing"
done
if ls "$tmp/rep" | grep -q tmp; then bad "temporary files left in the report folder"; else ok; fi
if python3 - "$tmp/rep" <<'PY'
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
r = json.load(open(f"{d}/report.json"))
for k in ("tool", "version", "argv", "seed", "backend", "results"):
    assert k in r, k
fail = [x for x in r["results"] if x["verdict"] == "fail"]
assert len(fail) == 1, fail
x = fail[0]
for k in ("target", "property", "verdict", "expected", "cases", "seconds", "counterexample"):
    assert k in x, k
cx = x["counterexample"]
assert cx["world"] == 2 and cx["sizes"] == {"s": 2, "b": 2, "h": 2, "d": 1}, cx
assert cx["dtype"] == "i32" and cx["seed"] == 0 and cx["wrong"] == 4 and cx["shrink_steps"] > 0
assert cx["case_file"].endswith("failures/deepspeed-sf-head2seq-before-5664-semantics.case")
w = cx["first_wrong"][0]
assert w["rank"] == 0 and w["index"] == [0, 0, 1, 0] and w["expected_from"] == [0, 0, 1, 0] and w["actual_from"] == [0, 1, 0, 0], w
root = ET.parse(f"{d}/junit.xml").getroot()
assert root.tag == "testsuites" and int(root.get("failures")) == 1, root.attrib
cases = root.findall(".//testcase")
assert len(cases) == int(root.get("tests")) and len(cases) >= 6
f = [c for c in cases if c.find("failure") is not None]
assert len(f) == 1 and "shardcheck repro" in f[0].find("failure").get("message")
md = open(f"{d}/summary.md").read()
assert "| target | property | verdict |" in md and "shardcheck repro" in md
PY
then ok; else bad "report.json / junit.xml / summary.md content"; fi

# repro replays the written case with the same wrong elements
grep "holds X\[" "$tmp/rep.out" | sed 's/^ *//' >"$tmp/wrong.check"
expect_rc 1 "repro" "$sc" repro "$tmp/rep/failures/deepspeed-sf-head2seq-before-5664-semantics.case" --dump "$tmp/rd"
grep "holds X\[" "$tmp/out" | sed 's/^ *//' >"$tmp/wrong.repro"
if [ -s "$tmp/wrong.check" ] && cmp -s "$tmp/wrong.check" "$tmp/wrong.repro"; then ok; else bad "repro shows other wrong elements"; fi
expect_grep "actual \[1, 2, 2, 1\]" "$tmp/out" "repro prints tensors in full"
expect_grep "!" "$tmp/out" "repro marks wrong elements"
[ -e "$tmp/rd/rank1.output.npy" ] && ok || bad "repro --dump"
# check accepts a .case file and a directory of them; the corpus regression holds
expect_rc 1 "check .case" "$sc" check --no-expect "$tmp/rep/failures/deepspeed-sf-head2seq-before-5664-semantics.case"
expect_rc 1 "check dir of .case" "$sc" check --no-expect "$tmp/rep/failures"
expect_rc 1 "repro corpus regression" "$sc" repro corpus/deepspeed/sf-head2seq-before-5664.case
printf 'shardcheck-case 9\n' >"$tmp/v9.case"
expect_rc 2 "unsupported case version" "$sc" repro "$tmp/v9.case"
expect_grep "v9.case:1: case file version '9'" "$tmp/err" "case file error location"
printf 'shardcheck-case 1\ntarget corpus/deepspeed/sf-head2seq-batchdim.sc\nproperty semantics\nworld 2\nsizes s=4 b=2 h=2 q=1\ndtype i32\nseed 0\n' >"$tmp/bad.case"
expect_rc 2 "bad case sizes" "$sc" repro "$tmp/bad.case"
expect_grep "bad.case:5: 'q' is not a dim" "$tmp/err" "case sizes error"

# every expect-fail spec: check --json - and --report, then repro the written
# case: the same failure, the same wrong elements
for spec in $(grep -l "^expect fail" $(find corpus -name '*.sc' | sort)); do
	name=$(basename "$(dirname "$spec")")-$(basename "$spec" .sc)
	name=${name//./-} # (case file names keep letters, digits and '-')
	"$sc" check "$spec" --property semantics --seed 8 --json - --report "$tmp/all" >"$tmp/all.json" 2>"$tmp/all.txt"
	cf="$tmp/all/failures/$name-semantics.case"
	if ! python3 - "$tmp/all.json" "$cf" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["verdict"] == "fail" and r["counterexample"]["case_file"] == sys.argv[2], r
PY
	then bad "$spec: --json - result"; continue; fi
	grep -E "holds|runtime|invalid|Tensors|exceed their error bound|has shape|assertion failed|sends|expects|different shapes|Split sizes|is not a rank|exceeds dimension|out of range" "$tmp/all.txt" | grep -v replay | sed 's/^ *//' >"$tmp/w1"
	"$sc" repro "$cf" >"$tmp/rp.out" 2>&1; rc=$?
	sed -n '/still fails/,$p' "$tmp/rp.out" | grep -E "holds|runtime|invalid|Tensors|exceed their error bound|has shape|assertion failed|sends|expects|different shapes|Split sizes|is not a rank|exceeds dimension|out of range" | grep -v replay | sed 's/^ *//' >"$tmp/w2"
	if [ "$rc" -eq 1 ] && [ -s "$tmp/w1" ] && cmp -s "$tmp/w1" "$tmp/w2"; then ok; else bad "$spec: repro differs (rc $rc)"; diff "$tmp/w1" "$tmp/w2" >&2; fi
done

# the flag table: every option in sc_flags.def is in the help of the
# commands it names; a one-case option is refused by check; logging
for flag in $(sed -n 's/^SC_FLAG([a-z_]*, "\(--[a-z-]*\)".*SC_CHECK.*/\1/p' src/cli/sc_flags.def); do
	"$sc" help check >"$tmp/h"
	expect_grep " $flag" "$tmp/h" "check help lists $flag"
done
for flag in $(sed -n 's/^SC_FLAG([a-z_]*, "\(--[a-z-]*\)".*SC_EVAL.*/\1/p' src/cli/sc_flags.def); do
	"$sc" help eval >"$tmp/h"
	expect_grep " $flag" "$tmp/h" "eval help lists $flag"
done
expect_rc 2 "--sizes is eval's" "$sc" check --sizes a=1 builtin:all_gather
expect_grep "unknown option '--sizes'" "$tmp/err" "check refuses --sizes"
expect_rc 2 "--log bogus" "$sc" check --log bogus builtin:all_gather
expect_grep "unknown subsystem" "$tmp/err" "--log names the bad subsystem"
expect_rc 0 "--log gen,shrink" "$sc" check builtin:all_gather --cases 20 --seed 1 -q --log gen,check
expect_grep "^\[sc check\] " "$tmp/err" "--log check logs the generated built-in spec"
expect_rc 1 "--log trace on a step failing at run time" "$sc" check --no-expect corpus/deepspeed/bf-head2seq-before-5664.sc \
	--property semantics --seed 3 --cases 50 --no-shrink --log trace
expect_grep "^\[sc trace\] .*raised" "$tmp/err" "trace shows where a failure was raised"
SC_LOG=shrink expect_rc 1 "SC_LOG=shrink" "$sc" check --no-expect corpus/deepspeed/sf-head2seq-before-5664.sc \
	--property semantics --seed 3 --cases 50
expect_grep "^\[sc shrink\] .*step" "$tmp/err" "SC_LOG=shrink logs shrink steps"

# eval takes any case the spec admits: `sizes` hints guide generation only
expect_rc 0 "eval outside a sizes hint" "$sc" eval corpus/slapo/seqpar-linear-rs-ag.sc --world 2 --sizes b=5,s=8,h=7,k=16 --dtype f32
expect_rc 2 "eval breaking a require" "$sc" eval corpus/slapo/seqpar-linear-rs-ag.sc --world 3 --sizes b=5,s=8,h=7,k=16 --dtype f32
expect_grep "require at corpus/slapo/seqpar-linear-rs-ag.sc:13 does not hold: s % P == 0" "$tmp/err" "eval names the require"
# a hint of 1..3 for a sharded dim admits no size at world 4; eval takes one the requires admit
printf 'pipeline hint13\ndims s d\ninput shard s\noutput shard s\nrequire d %% 2 == 1\nsizes s=1..3 d=1..3\ncontiguous\n' >"$tmp/hint13.sc"
expect_rc 0 "eval --world 4 outside a 1..3 hint" "$sc" eval "$tmp/hint13.sc" --world 4 --sizes s=4,d=5
expect_grep "^pass .*world=4 s=4 d=5" "$tmp/out" "eval runs the case outside the hints"
expect_rc 2 "eval breaking divisibility" "$sc" eval "$tmp/hint13.sc" --world 4 --sizes s=6,d=1
expect_grep "sharded dim 's' (6) not divisible by world 4" "$tmp/err" "eval names the divisibility"
expect_rc 2 "eval breaking a require outside the hints" "$sc" eval "$tmp/hint13.sc" --world 4 --sizes s=4,d=4
expect_grep "require at $tmp/hint13.sc:5 does not hold: d % 2 == 1" "$tmp/err" "eval names the require (file:line)"
# generation still honours the hints: no size of s in 1..3 at world 4, so check draws no case there
expect_rc 2 "check draws within the hints" "$sc" check "$tmp/hint13.sc" --world 4 --cases 20 --seed 1

# uneven placements: a chunk/split mix-up is caught at its true minimum; a
# flatten on ranks of different shapes is computed per rank; a tensor
# collective over uneven shards fails as torch raises (never reads past)
expect_rc 1 "chunk vs split" "$sc" check tests/specs/uneven-chunk-vs-split.sc --seed 1 --cases 500 --property semantics
expect_grep "minimal case: world=3 n=4 m=1 dtype=i32 seed=0" "$tmp/out" "chunk vs split: the minimum"
expect_rc 0 "flatten per rank" "$sc" check tests/specs/uneven-flatten.sc tests/specs/uneven-split-in-group.sc --seed 1 --cases 500
expect_rc 1 "all_gather_into_tensor of uneven shards" "$sc" check tests/specs/uneven-all-gather.sc --seed 1 --cases 300 --property semantics
expect_grep "minimal case: world=2 n=1 m=1 dtype=i32 seed=0" "$tmp/out" "uneven all_gather: the minimum"
expect_grep "ranks hold tensors of different shapes (rank 0 \[1, 1\], rank 1 \[0, 1\])" "$tmp/out" "uneven all_gather: the message"

# language 2: per-rank sizes and sized exchanges. Correct transcriptions pass
# every property; each planted one is caught at its true minimum with the
# message that names the fault
expect_rc 0 "language 2: correct specs" "$sc" check tests/specs/uneven-list-all-gather.sc tests/specs/l2-pad-gather.sc \
	tests/specs/l2-a2a-redistribute.sc tests/specs/l2-shift-ring.sc tests/specs/l2-zigzag-gather.sc \
	tests/specs/l2-gather-last.sc tests/specs/l2-pipeline.sc tests/specs/l2-pad-allreduce-gather.sc \
	tests/specs/l2-ref-gqa.sc tests/specs/l2-ref-vocab-pad.sc corpus/megatron/qkv-split-query.sc \
	tests/specs/l2-gather-sizes.sc tests/specs/l3-ring-allgather.sc tests/specs/l3-prefix-offset.sc \
	tests/specs/l3-scatter.sc tests/specs/l3-buffer-gather.sc tests/specs/l3-packed-zigzag.sc tests/specs/l3-route-select.sc \
	--seed 1 --cases 300
l2_planted() { # spec minimum message
	expect_rc 1 "$1" "$sc" check --no-expect "tests/specs/$1.sc" --seed 1 --cases 300 --property semantics
	expect_grep "minimal case: $2 dtype=i32 seed=0" "$tmp/out" "$1: the minimum"
	expect_grep "$3" "$tmp/out" "$1: the message"
}
l2_planted uneven-list-all-gather-sizes "world=3 n=4 m=1" "rank 0 expects 1 row from rank 1, which sends 2"
l2_planted l2-pad-gather-split "world=3 s=4 h=1" "rank 0 \[3, 0\] holds padding, expected X\[3, 0\]"
l2_planted l2-a2a-redistribute-bad "world=3 t=4 h=1" "rank 1 sends 1 row to rank 1, which expects 2"
l2_planted l2-shift-twice "world=3 s=3 h=1" "rank 0 \[0, 0\] holds X\[1, 0\]"
l2_planted l2-zigzag-gather-bad "world=2 s=4 h=1" "wrong elements"
l2_planted l2-pad-allreduce-gather-bad "world=3 t=4 h=1" "rank 0 \[3, 0\] holds padding, expected X\[3, 0\]"
l2_planted l2-ref-gqa-bad "world=4 kv=2 d=1" "rank 1 \[0, 0\] holds X\[1, 0\] = .*, expected X\[0, 0\]"
l2_planted l2-ref-vocab-pad-front "world=2 v=1 h=1" "rank 1 \[0, 0\] holds X\[0, 0\] = .*, expected padding = 0"
l2_planted l2-qkv-blocked-split "world=1 s=1 b=1 g=2 j=3 e=1" "rank 0 \[0, 0, 1, 0\] holds X\[0, 0, 0, 1, 0\]"
# repro's pictures name the padding where a value of X belongs
"$sc" check tests/specs/l2-pad-gather-split.sc --property semantics --seed 1 --report "$tmp/padrep" >/dev/null 2>&1
expect_rc 1 "repro of padding" "$sc" repro "$tmp/padrep/failures/specs-l2-pad-gather-split-semantics.case"
expect_grep "\[3, :\] *(padding)!" "$tmp/out" "repro marks the padding"
l2_planted l3-ring-allgather-short "world=2 s=2 h=1" "rank 0 output has shape \[0, 1\], but the output placement needs \[2, 1\]"
l2_planted l3-prefix-offset-inclusive "world=1 t=1 h=1" "start (1) + length (1) exceeds dimension size (1)"
l2_planted l3-scatter-wrong-dim "world=2 s=2 h=2" "rank 0 output has shape \[1, 2\], but the output placement needs \[2, 1\]"
l2_planted l3-buffer-gather-offset "world=1 s=1 h=1" "rank 0 \[0, 0\] holds padding, expected X\[0, 0\]"
# packed sequences: the minimum is two sequences at world 2 (one sequence,
# or world 1, zigzags the same either way); the case file and the replay
# line carry the sequences
l2_planted l3-packed-zigzag-whole "world=2 n=8 h=1 L=4:4" "rank 0 \[1, 0\] holds X\[1, 0\] = .*, expected X\[3, 0\]"
expect_grep "replay: shardcheck eval tests/specs/l3-packed-zigzag-whole.sc --world 2 --sizes n=8,h=1,L=4:4 " "$tmp/out" \
	"packed: the replay names the sequences"
expect_rc 1 "packed: the replay line" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 2 --sizes n=8,h=1,L=4:4 --dtype i32 --seed 0
expect_rc 0 "packed: one sequence zigzags alike" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 2 --sizes n=8,h=1,L=8
expect_rc 0 "packed: no sequence at all" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 3 --sizes n=0,h=2,L=
expect_rc 2 "packed: a length not a multiple" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 2 --sizes n=6,h=1,L=4:2
expect_grep "L(1) = 2 is not a multiple of 4" "$tmp/err" "packed: the multiple named"
expect_rc 2 "packed: more sequences than declared" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 1 --sizes n=8,h=1,L=2:2:2:2
expect_grep "L has 4 sequences, outside 0..3" "$tmp/err" "packed: the count named"
expect_rc 2 "packed: n not their sum" "$sc" eval tests/specs/l3-packed-zigzag-whole.sc --world 2 --sizes n=4,h=1,L=4:4
expect_grep "n is 4, but its sequences L hold 8 rows" "$tmp/err" "packed: the sum named"
# routes: a token's expert is part of the case (drawn, shrunk to one token
# at expert 0, replayed); entries outside the experts are refused
l2_planted l3-route-select-range "world=2 t=1 h=1 R=0" "rank 1 output has shape \[1, 1\], but the output placement needs \[0, 1\]"
expect_rc 1 "routes: the replay line" "$sc" eval tests/specs/l3-route-select-range.sc --world 2 --sizes t=1,h=1,R=0 --dtype i32 --seed 0
expect_rc 0 "routes: the token to rank 1's expert" "$sc" eval tests/specs/l3-route-select-range.sc --world 2 --sizes t=1,h=1,R=1
expect_rc 2 "routes: an expert out of range" "$sc" eval tests/specs/l3-route-select.sc --world 2 --sizes t=3,h=1,R=0:1:4
expect_grep "R(2) = 4 outside 0..1" "$tmp/err" "routes: the entry named"
expect_rc 2 "routes: one route per token" "$sc" eval tests/specs/l3-route-select.sc --world 2 --sizes t=3,h=1,R=0:1
expect_grep "R: expected 3 entries" "$tmp/err" "routes: the count named"
# top-k routes: each token to K distinct experts, a token's experts a row of
# the case (R=a:b/c:d); the copies a dispatcher drops are caught at one
# token on two experts; repeated experts and flat rows are refused by name
l2_planted l3-route-topk-truncated "world=1 t=1 h=1 E=2 R=0:1" "rank 0 output has shape \[1, 1\], but the output placement needs \[2, 1\]"
expect_rc 0 "topk: the correct dispatcher" "$sc" check tests/specs/l3-route-topk.sc --seed 1 --cases 2000
expect_rc 0 "topk: two tokens, a row each" "$sc" eval tests/specs/l3-route-topk.sc --world 2 --sizes t=2,h=1,E=4,R=3:0/1:2
expect_rc 1 "topk: two tokens, truncated" "$sc" eval tests/specs/l3-route-topk-truncated.sc --world 2 --sizes t=2,h=1,E=4,R=3:0/1:2
expect_rc 2 "topk: a token's experts repeated" "$sc" eval tests/specs/l3-route-topk.sc --world 1 --sizes t=2,h=1,E=2,R=0:1/1:1
expect_grep "R(1, 0) = R(1, 1) = 1: a token's topk experts are distinct" "$tmp/err" "topk: the repeat named"
expect_rc 2 "topk: a row per token" "$sc" eval tests/specs/l3-route-topk.sc --world 1 --sizes t=2,h=1,E=2,R=0:1:1:0
expect_grep "R: expected 2 tokens of 2 experts each (a:b/c:d, topk experts a token)" "$tmp/err" "topk: the rows named"
# exhaustive, counted by hand: world 1 (E=2: 2 orders a token) 2+4 routes,
# world 2 (E=2: 2+4; E=4: 12+144), per h, times 2 h and 4 dtype widths
expect_rc 0 "topk: --exhaustive, correct spec" "$sc" check tests/specs/l3-route-topk.sc --exhaustive --world 1..2 --max-dim 2 --property semantics
expect_grep "holds for all 1344 cases" "$tmp/out" "topk: --exhaustive visits every route of distinct experts"
expect_rc 0 "topk: --exhaustive minimum (an expected failure)" "$sc" check tests/specs/l3-route-topk-truncated.sc --exhaustive --world 1..2 --max-dim 2 --property semantics
expect_grep "minimal case: world=1 t=1 h=1 E=2 R=0:1 " "$tmp/out" "topk: --exhaustive finds the shrinker's minimum"
printf 'shardcheck-case 1\ntarget %s/tests/specs/l3-route-topk-truncated.sc\nproperty semantics\nbackend sim\nworld 2\nsizes t=2 h=1 E=4 R=3:0/1:2\ndtype i32\nseed 0\n' \
	"$PWD" >"$tmp/topk.case"
expect_rc 1 "topk: repro of a case file" "$sc" repro "$tmp/topk.case"
expect_grep "world=2 t=2 h=1 E=4 R=3:0/1:2 dtype=i32 seed=0" "$tmp/out" "topk: repro reads and writes a token's experts as a row"
"$sc" check tests/specs/l3-route-topk-truncated.sc --no-expect --property semantics --seed 5 --report "$tmp/topkrep" >/dev/null 2>&1
expect_grep '"R": \[\[0, 1\]\]' "$tmp/topkrep/report.json" "topk: the report lists a token's experts"
# the combine: a token's copies merged back into it (checked as a
# reduction); copies merged from other tokens' rows are a mix. Routes over
# two dims (R[b*l]) take a row per token of both
expect_rc 0 "combine: the round trip" "$sc" check tests/specs/l3-route-topk-combine.sc --seed 1 --cases 1000
l2_planted l3-route-topk-combine-unsorted "world=1 t=2 h=1 R=0:1/0:1" "rank 0 \[0, 0\] holds a reduction of different elements"
expect_rc 1 "routes of two dims: the replay line" "$sc" eval corpus/torchtitan/moe-sp-combine-indices-before-3604.sc --world 2 \
	--sizes b=2,l=2,d=1,R=0:1/0:1/0:1/0:1 --dtype i32 --seed 0
expect_rc 0 "routes of two dims: one batch places alike" "$sc" eval corpus/torchtitan/moe-sp-combine-indices-before-3604.sc --world 2 \
	--sizes b=1,l=2,d=1,R=0:1/2:3
expect_rc 2 "routes of two dims: a row per token" "$sc" eval corpus/torchtitan/moe-sp-combine-indices-3604.sc --world 2 \
	--sizes b=2,l=2,d=1,R=0:1/0:1
expect_grep "R: expected 4 tokens of 2 experts each" "$tmp/err" "routes of two dims: b*l tokens"
# an output known by its local shape only (`output shape [...]`, not a
# compute spec's output named "shape")
printf 'dims s b h d\ninput shard s\noutput shape [s/P, b, h, d]\ncontiguous\n' >"$tmp/lshape.sc"
expect_rc 0 "output shape [...] parses" "$sc" check "$tmp/lshape.sc" --cases 50
# groups of listed ranks (new_group([0, P-1])): the others skip the step;
# a rank listed twice fails the step as new_group raises
expect_rc 0 "group list: correct specs" "$sc" check tests/specs/l3-group-list.sc tests/specs/mesh-group-list.sc --seed 1 --cases 500
l2_planted l3-group-list-middle "world=3 v=1 h=2" "rank 0 \[0, 1\] holds 1, expected X\[0, 1\] = 0"
l2_planted mesh-group-list-second "world=3 A=3 B=1 s=3 h=1" "rank 2 = (pp 2, dp 0) output has shape \[1, 1\], but the output placement needs \[2, 1\]"
l2_planted mesh-group-list-order "world=2 A=2 B=1 s=2 h=1" "rank 0 = (pp 0, dp 0) \[0, 0\] holds X\[0, 0\] = .*, expected X\[1, 0\]"
sed '/^require/d; /^expect/d' tests/specs/l3-group-list-middle.sc >"$tmp/glist.sc"
expect_rc 1 "group list: a rank listed twice" "$sc" eval "$tmp/glist.sc" --world 1 --sizes v=1,h=1
expect_grep "group=\[...\]: rank 0 listed twice" "$tmp/out" "group list: the repeat named"
# parameters: E drawn per case with the world (E/P experts a rank), shrunk
# with it and toward its lowest, written in the case and the replay line;
# values outside the range, or missing, refused with their name
l2_planted l3-param-experts-token-order "world=1 t=2 h=1 E=2 R=1:0" "rank 0 \[0, 0\] holds X\[0, 0\] = .*, expected X\[1, 0\]"
expect_grep "replay: shardcheck eval tests/specs/l3-param-experts-token-order.sc --world 1 --sizes t=2,h=1,E=2,R=1:0 " "$tmp/out" \
	"param: the replay names the parameter"
expect_rc 1 "param: the replay line" "$sc" eval tests/specs/l3-param-experts-token-order.sc --world 1 --sizes t=2,h=1,E=2,R=1:0 --dtype i32 --seed 0
expect_rc 0 "param: one expert a rank holds no order" "$sc" eval tests/specs/l3-param-experts-token-order.sc --world 2 --sizes t=2,h=1,E=2,R=1:0
expect_rc 2 "param: out of its range" "$sc" eval tests/specs/l3-param-experts-token-order.sc --world 1 --sizes t=2,h=1,E=3,R=1:0
expect_grep "parameter E = 3 outside 1..2" "$tmp/err" "param: the range named"
expect_rc 2 "param: missing" "$sc" eval tests/specs/l3-param-experts-token-order.sc --world 1 --sizes t=2,h=1,R=1:0
expect_grep "missing the value of parameter E (E=N)" "$tmp/err" "param: the missing one named"
expect_rc 0 "param: the correct twin" "$sc" check tests/specs/l3-param-experts.sc --seed 1 --cases 2000
# exhaustive: every E of its range at each world (counted by hand: world 1,
# t and h in 1..2, E in 1..2 routes over E experts: t=1 1+2, t=2 1+4, so 8
# per h, 16, times 4 dtype widths, 64), its minimum the shrinker's
expect_rc 0 "param: --exhaustive, correct spec" "$sc" check tests/specs/l3-param-experts.sc --exhaustive --world 1 --max-dim 2 --property semantics
expect_grep "holds for all 64 cases" "$tmp/out" "param: --exhaustive visits every value"
expect_rc 1 "param: --exhaustive minimum" "$sc" check tests/specs/l3-param-experts-token-order.sc --exhaustive --world 1..3 --max-dim 3 --property semantics
expect_grep "minimal case: world=1 t=2 h=1 E=2 R=1:0 " "$tmp/out" "param: --exhaustive finds the shrinker's minimum"
"$sc" check tests/specs/l3-param-experts-token-order.sc --property semantics --seed 3 --report "$tmp/paramrep" >/dev/null 2>&1
expect_rc 1 "param: repro of the case file" "$sc" repro "$tmp/paramrep/failures/specs-l3-param-experts-token-order-semantics.case"
expect_grep "^sizes t=2 h=1 E=2 R=1:0$" "$tmp/paramrep/failures/specs-l3-param-experts-token-order-semantics.case" \
	"param: the case file holds the parameter"
# --exhaustive enumerates drawn sequences, routes, counts and micro-batches
# (fewer entries first, then entries left to right): its first failure is
# the shrinker's minimum, and the cases it visits are every one within the
# bounds (counted by hand: world 1, n and h in 1..2, lengths multiples of
# 2 summing to n: L=2, 0:2, 2:0, 0:0:2, 0:2:0, 2:0:0 for n=2, none for n=1,
# and for n=0 no sequence, 0, 0:0, 0:0:0; times 2 values of h and 4 dtype
# widths, 80; routes at worlds 1..2, t and
# h in 1..2: 4 + 12 cases, 64)
expect_rc 1 "sequences: --exhaustive minimum" "$sc" check tests/specs/l3-packed-zigzag-whole.sc --exhaustive --property semantics
expect_grep "minimal case: world=2 n=8 h=1 L=4:4 " "$tmp/out" "sequences: --exhaustive finds the shrinker's minimum"
expect_rc 0 "sequences: --exhaustive, correct spec" "$sc" check tests/specs/l3-packed-zigzag.sc --exhaustive --world 1 --max-dim 2 --property semantics
expect_grep "holds for all 80 cases" "$tmp/out" "sequences: --exhaustive visits every sequence vector"
expect_rc 1 "routes: --exhaustive minimum" "$sc" check tests/specs/l3-route-select-range.sc --exhaustive --world 1..4 --max-dim 4 --property semantics
expect_grep "minimal case: world=2 t=1 h=1 R=0 " "$tmp/out" "routes: --exhaustive finds the shrinker's minimum"
expect_rc 0 "routes: --exhaustive, correct spec" "$sc" check tests/specs/l3-route-select.sc --exhaustive --world 1..2 --max-dim 2 --property semantics
expect_grep "holds for all 64 cases" "$tmp/out" "routes: --exhaustive visits every route"
expect_rc 0 "counts: --exhaustive minimum (an expected failure)" "$sc" check corpus/megatron/moe-a2a-combine-reuses-dispatch-splits.sc --exhaustive --world 1..2 --max-dim 3 --property semantics
expect_grep "minimal case: world=2 t=1 h=1 C=0:0/1:0 " "$tmp/out" "counts: --exhaustive finds the shrinker's minimum"
expect_rc 0 "micro-batches: --exhaustive minimum (an expected failure)" "$sc" check corpus/transformers/gradient-accumulation-v4.45.2.sc --exhaustive --world 1..2 --max-dim 3 --property semantics
expect_grep "minimal case: world=1 g=2 n=3 v=2 N=1:2 " "$tmp/out" "micro-batches: --exhaustive finds the shrinker's minimum"
# too many drawn values to end: refused before the walk, naming them, never a pass
expect_rc 2 "routes: --exhaustive past its bound" "$sc" check tests/specs/l3-route-select.sc --exhaustive
expect_grep "the drawn routes R take more than 1000000 values within --world 1..8 and --max-dim 8; lower either" "$tmp/out" \
	"routes: the refusal names the routes and the bounds"
"$sc" check tests/specs/l3-packed-zigzag-whole.sc --property semantics --seed 1 --report "$tmp/packrep" >/dev/null 2>&1
expect_rc 1 "packed: repro of the case file" "$sc" repro "$tmp/packrep/failures/specs-l3-packed-zigzag-whole-semantics.case"
expect_grep "L=4:4" "$tmp/out" "packed: repro reads the sequences"
l2_planted l2-gather-sizes-bad "world=2 t=1 h=1" "rank 0 expects 1 row from rank 1, which sends 0"
l2_planted l2-gather-first "world=2 s=2 h=1" "rank 0 output has shape \[1, 1\], but the output placement needs \[2, 1\]"

# meshes: collectives on sub-groups, nested, strided and partial entries;
# correct specs hold every property, planted ones are caught at their true
# minimum (mesh sizes before dims) with the ranks' mesh coordinates
meshok=()
for f in mesh-dp-gather mesh-strided-fsdp-tp mesh-partial-tp mesh-rs-tp mesh-moe-ep mesh-coord-narrow mesh-3d-zigzag-gather; do
	meshok+=("tests/specs/$f.sc")
done
expect_rc 0 "meshes: correct specs" "$sc" check "${meshok[@]}" --seed 1 --cases 300
l2_planted mesh-dp-gather-wrong-group "world=2 D=1 T=2 s=1 h=2" "rank 0 = (dp 0, tp 0) output has shape \[2, 1\]"
l2_planted mesh-strided-as-nested "world=2 D=1 T=2 s=2 h=1" "rank 0 = (dp 0, tp 0) output has shape \[2, 1\]"
l2_planted mesh-partial-wrong-group "world=2 D=1 T=2 s=1 h=1" "rank 1 = (dp 0, tp 1) \[0, 0\] holds 0, expected X\[0, 0\]"
l2_planted mesh-moe-combine-no-swap "world=2 E=2 T=1 t=1 h=1 C=0:0/1:0" "Split sizes doesn't match total dim 0 size"
l2_planted mesh-coord-narrow-rank "world=4 D=2 T=2 s=4 h=1" "rank 1 = (dp 0, tp 1) \[0, 0\] holds X\[0, 0\]"
l2_planted mesh-3d-zigzag-gather-P "world=2 D=1 C=1 T=2 b=1 s=4 h=2" "rank 0 = (dp 0, cp 0, tp 0) \[0, 1, 0\] holds X\[0, 2, 0\]"
# the replay line and a case file carry the mesh sizes; both reproduce it
"$sc" check tests/specs/mesh-partial-wrong-group.sc --property semantics --seed 1 --report "$tmp/meshrep" >/dev/null 2>&1
"$sc" check tests/specs/mesh-partial-wrong-group.sc --property semantics --seed 1 >"$tmp/out" 2>&1
replay=$(sed -n 's/^ *replay: shardcheck //p' "$tmp/out" | head -1)
expect_grep "eval tests/specs/mesh-partial-wrong-group.sc --world 2 --sizes D=1,T=2,s=1,h=1" "$tmp/out" "mesh replay line"
expect_rc 1 "mesh replay" "$sc" $replay
expect_rc 1 "mesh repro" "$sc" repro "$tmp/meshrep/failures/specs-mesh-partial-wrong-group-semantics.case"
expect_grep "sizes D=1 T=2 s=1 h=1" "$tmp/meshrep/failures/specs-mesh-partial-wrong-group-semantics.case" "mesh case file"
expect_grep "rank 1 = (dp 0, tp 1):" "$tmp/out" "mesh repro pictures name coordinates"
expect_grep '"sizes": {"D": 1, "T": 2, "s": 1, "h": 1}' "$tmp/meshrep/report.json" "mesh sizes in report.json"
expect_grep '"rank": 1, "mesh": {"dp": 0, "tp": 1}' "$tmp/meshrep/report.json" "mesh coordinates in report.json"
expect_rc 0 "mesh eval --dump" "$sc" eval tests/specs/mesh-partial-tp.sc --world 4 --sizes D=2,T=2,s=2,h=1 --dump "$tmp/meshdump"
expect_grep "rank 3 = (dp 1, tp 1)" "$tmp/meshdump/ranks.txt" "mesh eval --dump writes the coordinates"
# chains of mesh specs: compose and roundtrip entry by entry; a planted
# second half is caught; a chain mixing meshes and worlds is refused
expect_rc 0 "mesh chain" "$sc" check --chain tests/specs/mesh-chain-gather.sc,tests/specs/mesh-chain-slice.sc --seed 1 --cases 200 -v
expect_grep "roundtrip" "$tmp/out" "mesh chain: roundtrip applies"
expect_rc 1 "mesh chain planted" "$sc" check --chain tests/specs/mesh-chain-gather.sc,tests/specs/mesh-chain-slice-bad.sc \
	--seed 1 --cases 200 --property compose
expect_grep "minimal case: world=2 D=2 T=1 s=2 h=1" "$tmp/out" "mesh chain planted: the minimum"
expect_rc 2 "mesh chain with a world spec" "$sc" check --chain tests/specs/mesh-chain-gather.sc,tests/specs/l2-pad-gather.sc
expect_grep "the same 'dims' and 'world' (or 'mesh')" "$tmp/err" "mesh chain with a world spec: the message"
# in a mesh entry's sizes=E, r is the index in the entry's group and P the
# whole mesh: 2 ep ranks of 4 rows each make t = 8
printf 'dims t h\nmesh ep=E tp=T\ninput ep:shard t sizes=P\noutput replicate\nall_gather dim=0 group=ep\n' >"$tmp/meshp.sc"
expect_rc 0 "mesh sizes= with P" "$sc" eval "$tmp/meshp.sc" --world 4 --sizes E=2,T=2,t=8,h=1
expect_rc 2 "mesh sizes= with P: t is their sum" "$sc" eval "$tmp/meshp.sc" --world 4 --sizes E=2,T=2,t=4,h=1
# a mesh's errors: file:line:col, exit 2
printf 'dims s\nmesh dp=D tp=T\ninput dp:shard s tp:shard s\noutput replicate\nall_gather dim=0 group=ep\n' >"$tmp/meshbad.sc"
expect_rc 2 "mesh: unknown group" "$sc" check "$tmp/meshbad.sc"
expect_grep "meshbad.sc:5:24: unknown mesh dim 'ep'" "$tmp/err" "mesh: unknown group's message"
printf 'dims s\nworld P\ninput dp:shard s\noutput replicate\n' >"$tmp/meshbad.sc"
expect_rc 2 "mesh: entries without a mesh" "$sc" check "$tmp/meshbad.sc"
expect_grep "needs a 'mesh' declaration" "$tmp/err" "mesh: entries without a mesh's message"
printf 'dims s\nmesh dp=D tp=T\ninput dp:shard s zigzag tp:shard s chunk\noutput replicate\n' >"$tmp/meshbad.sc"
expect_rc 2 "mesh: an uneven shard inside a zigzag one" "$sc" check "$tmp/meshbad.sc"
expect_grep "meshbad.sc:3:34: input: inside a zigzag shard only one even shard nests" "$tmp/err" "mesh: zigzag's message"
# an even shard nested inside a zigzag one (USP): the same verdicts and
# minimal cases as the reference-block specs of the same code
expect_rc 0 "mesh: zigzag then even" "$sc" check tests/specs/mesh-zigzag-nested.sc --seed 1 --cases 500
for pair in "tests/specs/mesh-zigzag-nested-bad.sc corpus/yunchang/zigzag-extract-local-before-57.sc"; do
	set -- $pair
	"$sc" check "$1" --seed 1 --cases 500 --property semantics >"$tmp/zz1" 2>&1
	"$sc" check "$2" --seed 1 --cases 500 --property semantics >"$tmp/zz2" 2>&1
	m1=$(grep -o "minimal case: [^(]*" "$tmp/zz1")
	m2=$(grep -o "minimal case: [^(]*" "$tmp/zz2")
	if [ -n "$m1" ] && [ "$m1" = "$m2" ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL: zigzag nested vs reference: '$m1' against '$m2'"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
