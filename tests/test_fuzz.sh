#!/usr/bin/env bash
# shardcheck fuzz: a layout bug planted in a corpus spec is found, shrunk and
# written; a later run replays it first (still failing, then fixed); kill -9
# loses no failure already printed; SIGTERM stops cleanly with a report.
# Usage: test_fuzz.sh PATH/TO/shardcheck  (from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

mkdir -p "$tmp/w" && cp -r corpus "$tmp/w/corpus" && rm -rf "$tmp/w/corpus/fuzz"
cd "$tmp/w" || exit 2
spec=corpus/deepspeed/sf-head2seq-batchdim.sc
cp "$spec" "$tmp/good.sc"
sed -i 's/^permute 1 2 0 3 4$/permute 2 1 0 3 4/' "$spec"   # the planted bug
cmp -s "$spec" "$tmp/good.sc" && bad "the bug was not planted"

"$sc" fuzz --time 20 --seed 11 --report rep1 -q >out1 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "planted bug: exit $rc"
grep -q "^NEW   $spec semantics" out1 && ok || { bad "planted bug not reported"; tail -5 out1 >&2; }
grep -q "minimal case: world=1 s=2 b=2 h=1 d=1 dtype=i32 seed=0" out1 && ok || bad "not shrunk to the minimum"
f=$(ls reports/findings/*.case 2>/dev/null | head -1)
[ -n "$f" ] && [ -s rep1/failures/deepspeed-sf-head2seq-batchdim-semantics.case ] && ok || bad "failure not written"
"$sc" repro "$f" >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "the written case does not replay the failure"
python3 -c "import json; json.load(open('rep1/report.json'))" && ok || bad "report.json"

# resume: the finding is replayed first; once fixed, it is reported fixed
"$sc" fuzz --time 2 --seed 12 --report rep2 -q >out2 2>&1
rc=$?
grep -q "^STILL $f" out2 && [ $rc -eq 1 ] && ok || bad "resume: still failing not reported (exit $rc)"
cp "$tmp/good.sc" "$spec"
"$sc" fuzz --time 2 --seed 13 --report rep3 -q >out3 2>&1
rc=$?
grep -q "^FIXED $f" out3 && [ $rc -eq 0 ] && ok || { bad "resume: fixed not reported (exit $rc)"; cat out3 >&2; }

# kill -9 loses nothing already printed
rm -rf reports/findings
sed -i 's/^permute 1 2 0 3 4$/permute 2 1 0 3 4/' "$spec"
"$sc" fuzz --time 60 --seed 14 --report rep4 --jobs 2 >out4 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "saved " out4 && break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null
pkill -9 -f "fuzz --time 60 --seed 14" 2>/dev/null
wait "$pid" 2>/dev/null
saved=$(grep -o "saved [^ ]*" out4 | cut -d' ' -f2)
[ -n "$saved" ] && ok || bad "nothing was reported before the kill"
for p in $saved; do
	"$sc" repro "$p" >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "after kill -9: $p is missing or does not replay"
done
ls rep4/failures | grep -q tmp && bad "a temporary file was left half-written" || ok

# a spec of the directory that no longer loads: the others are fuzzed, the
# run exits 2 and says which file
mkdir -p broken && cp "$tmp/good.sc" broken/ok.sc && printf 'dims s\ninput shard q\noutput shard s\n' >broken/bad.sc
"$sc" fuzz broken --time 1 --seed 16 --report rep6 -q >out6 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "^ERROR broken/bad.sc did not load" out6 && grep -q "^fuzz done: [1-9][0-9]* cases.* 1 error;" out6 && ok ||
	{ bad "a broken spec: exit $rc"; cat out6 >&2; }

# SIGTERM: a clean stop with the report
"$sc" fuzz --time 60 --seed 15 --report rep5 -q >out5 2>&1 &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"
rc=$?
grep -q "^fuzz stopped" out5 && [ -s rep5/report.json ] && [ -s rep5/junit.xml ] && ok || bad "SIGTERM: no clean stop (exit $rc)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
