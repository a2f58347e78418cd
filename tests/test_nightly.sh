#!/usr/bin/env bash
# A nightly fuzz job that one bad finding cannot stop: a renamed spec, a
# run from another directory, garbled and truncated findings, --jobs 2 with
# one bug, an unwritable report folder, kill -9 then resume.
# Usage: test_nightly.sh PATH/TO/shardcheck  (from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"
trap 'pkill -9 -f -- "--report $tmp/" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
left() { # no process of a run with this report folder is left
	sleep 0.3
	if pgrep -f -- "--report $1" >/dev/null; then bad "processes of $1 left running"; else ok; fi
}

mkdir -p "$tmp/w/corpus/bugs" && cd "$tmp/w" || exit 2
cp "$OLDPWD/corpus/deepspeed/sf-head2seq-batchdim.sc" corpus/bugs/a2a.sc
sed -i 's/^permute 1 2 0 3 4$/permute 2 1 0 3 4/' corpus/bugs/a2a.sc   # a planted bug
cp "$OLDPWD/corpus/slapo/all-gather-axis1.sc" corpus/bugs/ag.sc        # a correct spec

# one bug, two jobs: announced once, saved once, nothing left behind
"$sc" fuzz corpus --time 6 --seed 21 --jobs 2 --report "$tmp/r1" >"$tmp/o1" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || { bad "jobs: exit $rc"; tail -5 "$tmp/o1" >&2; }
n=$(grep -c "NEW   corpus/bugs/a2a.sc semantics" "$tmp/o1")
[ "$n" -eq 1 ] && ok || bad "jobs: the bug was announced $n times"
[ "$(ls reports/findings | grep -c 'a2a-sc-semantics')" -eq 1 ] && ok || bad "jobs: not saved exactly once"
ls -a "$tmp/r1" | grep -q '\.job' && bad "jobs: .job files left in the report" || ok
grep -q '"status": "complete"' "$tmp/r1/report.json" && ok || bad "jobs: report not marked complete"
left "$tmp/r1"
finding=$(ls reports/findings/a2a-sc-semantics-*.case)

# from another working directory: the finding still replays (still failing)
(cd / && "$sc" fuzz "$tmp/w/corpus" --findings "$tmp/w/reports/findings" --time 1 --seed 22 --report "$tmp/r2" >"$tmp/o2" 2>&1)
rc=$?
grep -q "^STILL .*a2a-sc-semantics" "$tmp/o2" && [ $rc -eq 1 ] && ok || { bad "other cwd: not replayed (exit $rc)"; head -5 "$tmp/o2" >&2; }
grep -q "^STALE" "$tmp/o2" && bad "other cwd: a finding was stale" || ok
# (a run this short may find the bug again and save it shrunk only as far as
# its second allowed, under a new signature: the stale count below is about
# the one finding above)
for f in reports/findings/*.case; do [ "$f" = "$finding" ] || rm -f "$f"; done

# garbled and truncated findings, a renamed spec: stale, listed, the run goes on
head -c 60 "$finding" >reports/findings/truncated.case
printf 'shardcheck-case 1\n\x00\x01garbage\n' >reports/findings/garbled.case
mv corpus/bugs/a2a.sc corpus/bugs/a2a-renamed.sc
"$sc" fuzz corpus --time 3 --seed 23 --report "$tmp/r3" >"$tmp/o3" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || { bad "stale: exit $rc (want 1: the renamed spec still has the bug)"; tail -5 "$tmp/o3" >&2; }
[ "$(grep -c '^STALE' "$tmp/o3")" -eq 3 ] && ok || { bad "stale: want 3 STALE lines"; grep STALE "$tmp/o3" >&2; }
grep -q "^STALE .*a2a-sc-semantics.*cannot open\|^STALE .*a2a-sc-semantics.*No such file" "$tmp/o3" && ok || bad "stale: the renamed spec's reason"
grep -q "^STALE .*garbled.case.*garbled.case:2: " "$tmp/o3" && ok || bad "stale: the garbled finding's reason"
grep -q "NEW   corpus/bugs/a2a-renamed.sc semantics" "$tmp/o3" && ok || bad "stale: the run did not go on to find the bug again"
python3 - "$tmp/r3/report.json" <<'PY' && ok || bad "stale: not in report.json with a reason"
import json, sys
d = json.load(open(sys.argv[1]))
st = [r for r in d["results"] if r["verdict"] == "stale"]
assert len(st) == 3 and all(r["reason"] for r in st), st
PY
grep -q "3 stale" "$tmp/o3" && ok || bad "stale: not counted in the summary"
rm -rf reports/findings

# an unwritable report folder: the finding is kept in the findings folder
touch "$tmp/afile"
"$sc" fuzz corpus --time 3 --seed 24 --report "$tmp/afile/rep" >"$tmp/o4" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || bad "unwritable report: exit $rc, want 2"
grep -q "^NEW   corpus/bugs/a2a-renamed.sc" "$tmp/o4" && ok || bad "unwritable report: nothing found"
f4=$(ls reports/findings/a2a-renamed-sc-semantics-*.case 2>/dev/null | head -1)
[ -n "$f4" ] && "$sc" repro "$f4" >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "unwritable report: the finding is not kept"
grep -q "report NOT written" "$tmp/o4" && ok || bad "unwritable report: not said"
rm -rf reports/findings

# kill -9 mid-run, then resume: nothing lost, the report said it was incomplete
"$sc" fuzz corpus --time 60 --seed 25 --report "$tmp/r5" >"$tmp/o5" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "saved " "$tmp/o5" && break; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
grep -q '"status": "running"' "$tmp/r5/report.json" && ok || bad "kill -9: the report does not say the run was incomplete"
grep -q "Status: running" "$tmp/r5/summary.md" && ok || bad "kill -9: summary.md does not say it"
left "$tmp/r5"
saved=$(grep -o "saved [^ ]*" "$tmp/o5" | head -1 | cut -d' ' -f2)
"$sc" fuzz corpus --time 2 --seed 26 --report "$tmp/r6" >"$tmp/o6" 2>&1
rc=$?
[ -n "$saved" ] && grep -q "^STILL $saved" "$tmp/o6" && [ $rc -eq 1 ] && ok || { bad "resume after kill -9 (exit $rc)"; head -5 "$tmp/o6" >&2; }

# --time bounds the whole run, shrinking included
start=$(date +%s.%N)
"$sc" check corpus builtin:all --cases 100000000 --time 2 --seed 27 -q >"$tmp/o7" 2>&1
took=$(echo "$(date +%s.%N) - $start" | bc)
[ "$(echo "$took < 6" | bc)" -eq 1 ] && ok || bad "--time 2 took ${took}s"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
