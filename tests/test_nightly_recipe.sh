#!/usr/bin/env bash
# The nightly recipe of examples/nightly/: nightly.sh run twice on a spec
# folder with one planted bug (a finding, then the same finding replayed and
# not announced again), its dated reports, latest link, pruning, published
# page and lock, a fix that retires the finding; the workflow and the
# crontab line parse.
# Usage: test_nightly_recipe.sh PATH/TO/shardcheck   (from the repository root)
# shellcheck disable=SC2010,SC2012,SC2015  # the style of the other shell tests
set -u
sc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(pwd)
nightly=$root/examples/nightly/nightly.sh
pass=0 fail=0
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
check() { # description command...: ok when the command succeeds
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
expect_grep() { # pattern file description
	if grep -Eq -- "$1" "$2"; then ok; else bad "$3: '$1' not in $2"; tail -20 "$2" >&2; fi
}
expect_no_grep() { # pattern file description
	if grep -Eq -- "$1" "$2"; then bad "$3: '$1' in $2"; grep -E -- "$1" "$2" | head -5 >&2; else ok; fi
}

# the scripts parse; the crontab line is a shell command
check "bash -n nightly.sh" bash -n "$nightly"
check "bash -n test_nightly_recipe.sh" bash -n "$root/tests/test_nightly_recipe.sh"
cron=$(grep -E '^[0-9*]' examples/nightly/crontab.example | sed -E 's/^([^ ]+ +){5}//')
check "crontab.example has a cron line with flock and a log" grep -q 'flock -n .*nightly\.sh.*>>.*2>&1' <<<"$cron"
check "bash -n on the cron line" bash -n -c "$cron"

# help and usage errors
"$nightly" -h >"$tmp/help" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "-h: exit $rc"
expect_grep "^Exit code" "$tmp/help" "-h shows the exit codes"
expect_grep "NIGHTLY_STATE" "$tmp/help" "-h shows the environment"
SHARDCHECK=$sc "$nightly" --bogus >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || bad "an unknown option: exit $rc, want 2"
SHARDCHECK=$sc NIGHTLY_STATE=$tmp/none "$nightly" "$tmp/no-such-specs" >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || bad "a missing spec folder: exit $rc, want 2"
expect_grep "no-such-specs: no such spec folder" "$tmp/o" "a missing spec folder is named"

# a spec folder with one planted bug (no `expect` line) and a correct spec
mkdir -p "$tmp/specs"
grep -v '^expect ' corpus/deepspeed/sf-head2seq-before-5664.sc >"$tmp/specs/planted.sc"
cp corpus/deepspeed/sf-seq2head.sc "$tmp/specs/"
state=$tmp/state
pub=$tmp/pub
mkdir -p "$state/reports/2029-12-01" "$state/reports/2030-01-10" # one old report, one recent
run_nightly() { # output rc-file extra env...: one night of 3 s, two jobs, on 2030-01-15
	local out=$1
	shift
	env SHARDCHECK="$sc" NIGHTLY_STATE="$state" NIGHTLY_PUBLISH="$pub" NIGHTLY_TIME=3s NIGHTLY_JOBS=2 \
		NIGHTLY_DATE=2030-01-15 NIGHTLY_KEEP=14 "$@" >"$out" 2>&1
}

# night 1: the bug is found, saved in the state folder, exit 1
t0=$SECONDS
run_nightly "$tmp/o1" "$nightly" "$tmp/specs" -- --seed 21
rc=$?
[ $rc -eq 1 ] && ok || { bad "night 1: exit $rc, want 1"; tail -20 "$tmp/o1" >&2; }
expect_grep "^(\[job [0-9]+\] )?NEW +$tmp/specs/planted.sc semantics: saved $state/findings/planted-sc-semantics-[0-9a-f]+\.case" "$tmp/o1" "night 1: the bug is announced"
expect_grep "1 new failure, 0 earlier still failing" "$tmp/o1" "night 1: counted as new"
n=$(ls "$state/findings" 2>/dev/null | grep -c '^planted-sc-semantics-.*\.case$')
[ "$n" -eq 1 ] && ok || bad "night 1: $n findings in $state/findings, want 1"
finding=$(ls "$state/findings"/*.case 2>/dev/null | head -1)
r1=$state/reports/2030-01-15
for f in summary.md report.json junit.xml fuzz.log nightly.txt; do
	[ -f "$r1/$f" ] && ok || bad "night 1: no $f in the dated report $r1"
done
ls "$r1"/failures/*planted*semantics*.case >/dev/null 2>&1 && ok || bad "night 1: no failure file in the report"
[ "$(readlink "$state/reports/latest")" = 2030-01-15 ] && ok || bad "night 1: latest -> $(readlink "$state/reports/latest")"
expect_grep '^new=1$' "$r1/nightly.txt" "night 1: nightly.txt counts the new finding"
expect_grep '^exit=1$' "$r1/nightly.txt" "night 1: nightly.txt has the exit code"
grep -q '"status": "complete"' "$r1/report.json" && ok || bad "night 1: report.json not complete"
[ ! -e "$state/reports/2029-12-01" ] && ok || bad "night 1: the report older than 14 days was not pruned"
[ -d "$state/reports/2030-01-10" ] && ok || bad "night 1: a report within 14 days was pruned"
[ -f "$pub/summary.md" ] && ok || bad "night 1: no summary.md in the publish folder"
[ -f "$pub/index.md" ] && ok || bad "night 1: no index.md in the publish folder"
[ -f "$pub/2030-01-15/summary.md" ] && ok || bad "night 1: no per-run summary.md in the publish folder"
expect_grep "planted.sc" "$pub/summary.md" "night 1: the published summary names the bug"
expect_grep '^\| \[2030-01-15\]\(2030-01-15/summary.md\) \| 1 \| done \| 1 \| 0 \|' "$pub/index.md" "night 1: index.md lists the run with its counts"
if ls "$r1"/failures/*.svg >/dev/null 2>&1; then # pictures, where this build draws them
	ls "$pub"/2030-01-15/failures/*.svg >/dev/null 2>&1 && ok || bad "night 1: pictures not published"
	expect_grep '\]\(2030-01-15/failures/' "$pub/summary.md" "night 1: the top summary's pictures point into the run's folder"
fi

# night 2: the known finding is replayed first and still fails; fuzzing
# finds the same bug again but does not announce or save it as new. fuzz
# exits 1 for an earlier finding that still fails (help fuzz: "0 nothing
# new and no earlier finding still failing, 1 otherwise").
run_nightly "$tmp/o2" "$nightly" "$tmp/specs" -- --seed 22
rc=$?
[ $rc -eq 1 ] && ok || { bad "night 2: exit $rc, want 1 (an earlier finding still fails)"; tail -20 "$tmp/o2" >&2; }
expect_grep "^(\[job [0-9]+\] )?STILL $finding: $tmp/specs/planted.sc semantics still fails" "$tmp/o2" "night 2: the finding is replayed"
expect_no_grep "NEW " "$tmp/o2" "night 2: the same bug is not announced as new"
expect_grep "0 new failures, 1 earlier still failing" "$tmp/o2" "night 2: counted as still failing, not new"
n=$(ls "$state/findings" | grep -c '\.case$')
[ "$n" -eq 1 ] && ok || bad "night 2: $n findings, want still 1"
r2=$state/reports/2030-01-15.2
[ -f "$r2/summary.md" ] && ok || bad "night 2: a second run the same day has no report of its own ($r2)"
[ "$(readlink "$state/reports/latest")" = 2030-01-15.2 ] && ok || bad "night 2: latest -> $(readlink "$state/reports/latest")"
expect_grep '^new=0$' "$r2/nightly.txt" "night 2: nightly.txt: nothing new"
expect_grep '^still=1$' "$r2/nightly.txt" "night 2: nightly.txt: one still failing"
[ "$(grep -c '^| \[2030-01-15' "$pub/index.md")" -eq 2 ] && ok || { bad "night 2: index.md does not list both runs"; cat "$pub/index.md" >&2; }
head -n 7 "$pub/index.md" | grep -q '2030-01-15\.2' && ok || bad "night 2: the newest run is not first in index.md"

# two nights never overlap: the lock is held, nothing runs
exec 8>>"$state/nightly.lock"
flock -n 8
run_nightly "$tmp/o3" "$nightly" "$tmp/specs"
rc=$?
exec 8>&-
[ $rc -eq 2 ] && ok || bad "a held lock: exit $rc, want 2"
expect_grep "another run holds .*nightly.lock" "$tmp/o3" "a held lock is said"
[ ! -e "$state/reports/2030-01-15.3" ] && ok || bad "a held lock: a run was started anyway"

# the bug is fixed: the finding replays as FIXED, exit 0; NIGHTLY_RETIRE=fixed moves it out
sed -i 's/^transpose 0 1$/permute 1 2 0 3 4/' "$tmp/specs/planted.sc"
run_nightly "$tmp/o4" env NIGHTLY_RETIRE=fixed NIGHTLY_TIME=2s "$nightly" "$tmp/specs"
rc=$?
[ $rc -eq 0 ] && ok || { bad "fixed: exit $rc, want 0"; tail -20 "$tmp/o4" >&2; }
expect_grep "^(\[job [0-9]+\] )?FIXED $finding: .*planted.sc semantics passes now" "$tmp/o4" "fixed: the finding passes"
[ ! -e "$finding" ] && ok || bad "fixed: the finding is still in findings/"
[ -f "$state/retired/2030-01-15.3/$(basename "$finding")" ] && ok || bad "fixed: the finding is not in retired/2030-01-15.3/"

# the workflow: YAML that parses, with the steps the recipe promises
wf=examples/nightly/shardcheck-nightly.yml
if python3 -c 'import yaml' 2>/dev/null; then
	python3 - "$wf" <<'EOF' && ok || bad "the workflow's structure"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
on = d.get("on", d.get(True))  # YAML 1.1 reads the key `on` as true
assert on["schedule"][0]["cron"], "no schedule cron"
assert "workflow_dispatch" in on, "no workflow_dispatch"
steps = d["jobs"]["fuzz"]["steps"]
uses = [s.get("uses", "") for s in steps]
runs = "\n".join(s.get("run", "") for s in steps)
for a in ("actions/checkout@", "actions/cache/restore@", "actions/cache/save@", "actions/upload-artifact@"):
    assert any(u.startswith(a) for u in uses), "no " + a
restore = next(s for s in steps if s.get("uses", "").startswith("actions/cache/restore@"))
save = next(s for s in steps if s.get("uses", "").startswith("actions/cache/save@"))
assert "run_id" in restore["with"]["key"] and restore["with"]["restore-keys"].strip(), "cache key/restore-keys"
assert "always()" in save.get("if", ""), "the findings are not saved when the job fails"
for w in ("setup.sh default shardcheck", "nightly.sh", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
    assert w in runs, "no " + w
assert d["jobs"]["fuzz"]["timeout-minutes"] <= 360
EOF
else
	for w in '^on:' 'schedule:' 'cron: ' 'workflow_dispatch:' 'actions/cache/restore@' 'restore-keys:' \
		'actions/cache/save@' 'actions/upload-artifact@' 'setup.sh default shardcheck' 'nightly.sh' 'GITHUB_STEP_SUMMARY'; do
		expect_grep "$w" "$wf" "the workflow"
	done
	grep -q $'\t' "$wf" && bad "the workflow has tabs" || ok
fi

# a spec that does not parse: left out with an ERROR line naming its line,
# the rest fuzzed, the night exits 2, the line repeated at the end and on
# the published page
mkdir -p "$tmp/specs3"
cp corpus/deepspeed/sf-seq2head.sc "$tmp/specs3/"
printf 'dims a\nbogus step\n' >"$tmp/specs3/broken.sc"
env SHARDCHECK="$sc" NIGHTLY_STATE="$tmp/state3" NIGHTLY_PUBLISH="$tmp/pub3" NIGHTLY_TIME=2s \
	NIGHTLY_DATE=2030-01-15 "$nightly" "$tmp/specs3" >"$tmp/o3" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || { bad "a broken spec: exit $rc, want 2"; tail -20 "$tmp/o3" >&2; }
expect_grep "^ERROR .*broken.sc did not load.*broken.sc:2:1: unknown" "$tmp/o3" "a broken spec: its ERROR line"
tail -n 3 "$tmp/o3" | grep -q "^  ERROR .*broken.sc" && ok || { bad "a broken spec: not repeated at the end"; tail -5 "$tmp/o3" >&2; }
expect_grep "sf-seq2head.sc" "$tmp/state3/reports/2030-01-15/report.json" "a broken spec: the other spec was fuzzed"
expect_grep "^## Errors and warnings" "$tmp/pub3/2030-01-15/summary.md" "a broken spec: on the published page"

[ $((SECONDS - t0)) -lt 60 ] && ok || bad "the nights took $((SECONDS - t0)) s"
echo "nightly_recipe: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
