#!/usr/bin/env bash
# nightly.sh: an unattended `shardcheck fuzz` run over your specs, for cron
# or a CI schedule. Each run replays the findings kept from earlier runs,
# fuzzes for a time budget, writes a dated report and (optionally) publishes
# a summary page.
#
# Usage: nightly.sh [-h] [SPECS...] [-- FUZZ-OPTION...]
#   SPECS        spec folders or .sc files to fuzz (default: $SPECS, else corpus/)
#   FUZZ-OPTION  more `shardcheck fuzz` options, e.g. -- --world 2,4,8 --dtypes bf16,f32
#
# Environment (all optional):
#   SHARDCHECK       the shardcheck binary (default: build/shardcheck of the
#                    checkout holding this script, else ./build/shardcheck,
#                    else shardcheck on PATH)
#   SPECS            the spec folder when none is named (default corpus/)
#   NIGHTLY_TIME     fuzz budget, shrinking included: 90s, 30m, 8h (default 8h)
#   NIGHTLY_JOBS     parallel workers (default: the cores, nproc); 1 for --backend mpi
#   NIGHTLY_STATE    what is kept between runs (default
#                    ${XDG_STATE_HOME:-$HOME/.local/state}/shardcheck-nightly):
#                      findings/             every failure found so far, one .case
#                                            each, replayed first by every run
#                      reports/YYYY-MM-DD/   one report per run (a second run the
#                                            same day: YYYY-MM-DD.2), with fuzz.log
#                                            and nightly.txt (the run's counts)
#                      reports/latest        link to the newest report
#                      retired/RUN/          findings moved out by NIGHTLY_RETIRE
#                      nightly.lock          held while a run is going
#   NIGHTLY_KEEP     days of reports to keep (default 14); findings are never pruned
#   NIGHTLY_PUBLISH  a folder for the morning page (default: none): RUN/summary.md
#                    with RUN/failures/*.md and *.svg, summary.md (the newest run)
#                    and index.md (every kept run with its counts)
#   NIGHTLY_RETIRE   fixed, stale or fixed,stale: after the run, move findings
#                    that now pass (FIXED) or cannot be replayed (STALE) to
#                    retired/RUN/ (default: keep them all; a fixed finding
#                    replayed every night catches the bug coming back)
#   NIGHTLY_DATE     the run's date, YYYY-MM-DD (default: today)
#
# Exit code: that of `shardcheck fuzz`:
#   0  nothing new, and no earlier finding still fails
#   1  a new finding, or an earlier finding still fails (see the report)
#   2  an error: a spec folder that is not there, an unwritable report or
#      findings folder, a bad option; also from this script for a usage
#      error or when another run holds the lock (two nights never overlap)
# A spec of the folder that does not parse is left out with an ERROR line;
# the others are fuzzed for the whole budget and the night exits 2 (the
# spec needs fixing). This script repeats such lines, and WARN lines (a
# folder not written), at the end, counts them in nightly.txt and index.md
# and adds them to the published page.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
say() { printf 'nightly: %s\n' "$*"; }
die() { printf 'nightly: %s\n' "$*" >&2; exit 2; }
# a step of this script that fails is an error (2), never read as a finding (1)
trap 'printf "nightly: failed (status %s) at line %s\n" "$?" "$LINENO" >&2; exit 2' ERR

targets=()
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	-*) printf 'nightly: unknown option %s (fuzz options go after --)\n\n' "$1" >&2; usage >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${SPECS:-corpus/}")
for t in "${targets[@]}"; do
	[ -e "$t" ] || die "$t: no such spec folder or file (name one, or set SPECS)"
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${SHARDCHECK:-}" ]; then
	sc=$SHARDCHECK
elif [ -x "$here/../../build/shardcheck" ]; then
	sc=$(cd "$here/../.." && pwd)/build/shardcheck
elif [ -x build/shardcheck ]; then
	sc=build/shardcheck
elif command -v shardcheck >/dev/null; then
	sc=$(command -v shardcheck)
else
	die "no shardcheck binary: build it (scripts/setup.sh default shardcheck) or set SHARDCHECK"
fi
[ -x "$sc" ] || die "$sc is not an executable (SHARDCHECK)"

time_budget=${NIGHTLY_TIME:-8h}
jobs=${NIGHTLY_JOBS:-$(nproc 2>/dev/null || echo 1)}
state=${NIGHTLY_STATE:-${XDG_STATE_HOME:-$HOME/.local/state}/shardcheck-nightly}
keep=${NIGHTLY_KEEP:-14}
publish=${NIGHTLY_PUBLISH:-}
retire=${NIGHTLY_RETIRE:-}
today=${NIGHTLY_DATE:-$(date +%F)}
[[ $keep =~ ^[0-9]+$ ]] || die "NIGHTLY_KEEP=$keep: a number of days"
[[ $today =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || die "NIGHTLY_DATE=$today: YYYY-MM-DD"
case ,$retire, in
,, | ,fixed, | ,stale, | ,fixed,stale, | ,stale,fixed,) ;;
*) die "NIGHTLY_RETIRE=$retire: fixed, stale or fixed,stale" ;;
esac
command -v flock >/dev/null || die "flock is missing (util-linux)"

mkdir -p "$state/findings" "$state/reports"
# one run at a time: the lock is held by this script and by fuzz (which
# inherits it) until both are gone
exec 9>>"$state/nightly.lock"
flock -n 9 || die "another run holds $state/nightly.lock; not starting"

run=$today
n=2
while [ -e "$state/reports/$run" ]; do
	run=$today.$n
	n=$((n + 1))
done
report=$state/reports/$run
mkdir -p "$report"
log=$report/fuzz.log

args=(fuzz --time "$time_budget" --jobs "$jobs" --findings "$state/findings" --report "$report")
args+=(${extra[@]+"${extra[@]}"} "${targets[@]}")
say "run $run: $sc ${args[*]}"
say "log $log"
t0=$SECONDS
# fuzz writes its log itself (complete the moment it exits); tail shows it
# live. INT, TERM and HUP are passed on: fuzz then stops cleanly with the
# report written.
: >"$log" # there before tail opens it (the background job's redirect may come later)
"$sc" "${args[@]}" >>"$log" 2>&1 &
fuzz_pid=$!
trap 'kill -TERM "$fuzz_pid" 2>/dev/null || true' INT TERM HUP
tail -n +1 -f --pid="$fuzz_pid" "$log" &
tail_pid=$!
while :; do
	rc=0
	wait "$fuzz_pid" || rc=$?
	# a signal interrupts wait (status > 128) while fuzz is still finishing
	if [ "$rc" -gt 128 ] && kill -0 "$fuzz_pid" 2>/dev/null; then continue; fi
	break
done
wait "$tail_pid" 2>/dev/null || true
trap - INT TERM HUP
fuzz_rc=$rc
case $rc in 0 | 1 | 2) ;; *) say "shardcheck ended with status $rc (killed?)"; rc=2 ;; esac

# the run's counts, from fuzz's closing line:
# fuzz done: N cases; A new failures, B earlier still failing, C fixed, D stale, E expected, F errors; report DIR
closing=$(grep -E '^fuzz (done|stopped): ' "$log" | tail -n 1 || true)
num() { sed -nE "s/.*[ ;]([0-9]+) $1.*/\\1/p" <<<"$closing"; }
status=$(sed -nE 's/^fuzz (done|stopped):.*/\1/p' <<<"$closing")
[ -n "$closing" ] || rc=2 # no closing line: the run did not end as a fuzz run does
{
	echo "run=$run"
	echo "date=$today"
	echo "exit=$rc"
	echo "status=${status:-error}"
	echo "seconds=$((SECONDS - t0))"
	echo "cases=$(sed -nE 's/^fuzz [a-z]+: ([0-9]+) cases.*/\1/p' <<<"$closing")"
	echo "new=$(num 'new failure')"
	echo "still=$(num 'earlier still failing')"
	echo "fixed=$(num fixed)"
	echo "stale=$(num stale)"
	echo "expected=$(num expected)"
	echo "errors=$(num error)"
	echo "warnings=$(grep -c '^WARN ' "$log" || true)"
} >"$report/nightly.txt"
if [ "$status" = stopped ]; then
	say "the run was stopped before its time was up: the report covers what ran"
elif [ -z "$closing" ]; then
	say "shardcheck did not finish the run (exit $fuzz_rc); the last lines of $log:"
	tail -n 15 "$log" | sed 's/^/  | /'
fi
# a spec that does not parse is left out of the run with an ERROR line,
# a folder not written with a WARN line: repeated here and on the page
if grep -Eq '^(WARN|ERROR) ' "$log"; then
	say "errors and warnings (specs left out, folders not written):"
	grep -E '^(WARN|ERROR) ' "$log" | sed 's/^/  /'
fi

ln -sfn "$run" "$state/reports/latest.tmp"
mv -Tf "$state/reports/latest.tmp" "$state/reports/latest"

# retire findings that pass now or cannot be replayed, when asked
if [ -n "$retire" ]; then
	findings_real=$(cd "$state/findings" && pwd -P)
	kinds=${retire^^}
	kinds=${kinds//,/|}
	{ grep -E "^(\[job [0-9]+\] )?($kinds) .*\.case: " "$log" || true; } |
		sed -E 's/^(\[job [0-9]+\] )?[A-Z]+ (.*\.case): .*/\2/' |
		while IFS= read -r f; do
			# only files of the findings folder, as the run named them
			if [ -f "$f" ] && [ "$(cd "$(dirname "$f")" && pwd -P)" = "$findings_real" ]; then
				mkdir -p "$state/retired/$run"
				mv -f "$f" "$state/retired/$run/"
				say "retired $(basename "$f") to $state/retired/$run/"
			fi
		done
fi

v() { sed -n "s/^$1=//p" "$f"; } # a value of nightly.txt $f

# old reports go (by the date in their name); the newest never does
cutoff=$(date -d "$today - $keep days" +%F)
prune() { # folder: removes its YYYY-MM-DD* subfolders older than the cutoff
	local d name
	for d in "$1"/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*; do
		[ -d "$d" ] || continue
		name=$(basename "$d")
		if [[ ${name:0:10} < $cutoff ]] && [ "$name" != "$run" ]; then
			rm -rf -- "$d"
			say "pruned $d"
		fi
	done
}
prune "$state/reports"

if [ -n "$publish" ]; then
	mkdir -p "$publish/$run/failures"
	if [ -f "$report/summary.md" ]; then
		cp "$report/summary.md" "$publish/$run/summary.md"
	else
		{
			printf '# shardcheck nightly %s: no report\n\nshardcheck exited %s before writing a report. The last lines of its log:\n\n```\n' "$run" "$rc"
			tail -n 30 "$log"
			printf '```\n'
		} >"$publish/$run/summary.md"
	fi
	if grep -Eq '^(WARN|ERROR) ' "$log"; then
		{
			printf '\n## Errors and warnings\n\n```\n'
			grep -E '^(WARN|ERROR) ' "$log"
			printf '```\n'
		} >>"$publish/$run/summary.md"
	fi
	shopt -s nullglob
	for f in "$report"/failures/*.md "$report"/failures/*.svg; do
		cp "$f" "$publish/$run/failures/"
	done
	shopt -u nullglob
	rmdir "$publish/$run/failures" 2>/dev/null || true
	# the newest run's page at the top, its pictures found in RUN/failures/
	sed "s#](failures/#]($run/failures/#g" "$publish/$run/summary.md" >"$publish/summary.md.tmp"
	mv -f "$publish/summary.md.tmp" "$publish/summary.md"
	prune "$publish"
	# the index: every kept run, newest first, with its counts
	{
		echo "# shardcheck nightly"
		echo
		echo "Findings are kept in \`$state/findings\`; newest run: [summary](summary.md)."
		echo
		echo "| run | exit | status | new | still failing | fixed | stale | expected | errors | warnings | cases | time |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
		for f in "$state"/reports/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*/nightly.txt; do
			if [ -f "$f" ]; then basename "$(dirname "$f")"; fi
		done | sort -rV | while IFS= read -r r; do
			f=$state/reports/$r/nightly.txt
			link=$r
			if [ -f "$publish/$r/summary.md" ]; then link="[$r]($r/summary.md)"; fi
			echo "| $link | $(v exit) | $(v status) | $(v new) | $(v still) | $(v fixed) | $(v stale) | $(v expected) | $(v errors) | $(v warnings) | $(v cases) | $(v seconds) s |"
		done
	} >"$publish/index.md.tmp"
	mv -f "$publish/index.md.tmp" "$publish/index.md"
	say "published $publish/index.md"
fi

case $rc in
0) say "exit 0: nothing new, no earlier finding still fails; report $report" ;;
1) say "exit 1: a new finding or an earlier one still failing; report $report, findings $state/findings" ;;
*) say "exit 2: an error (see $log)" ;;
esac
exit "$rc"
