#!/usr/bin/env bash
# signals suite: SIGTERM, SIGINT and SIGHUP end check, gate, fuzz and repro
# cleanly (exit 2, one line on stderr naming the signal and the kept case,
# report.json "status": "interrupted" with the results that finished, the
# case in flight and every failure shrunk before it kept, no process left);
# under mpirun a rank killed by SIGKILL is named with its signal, not
# called an interrupt.
# Usage: test_signals.sh PATH/TO/shardcheck EXAMPLES_DIR [mpi]  (from the
# repository root); with mpi, only the mpirun part (77: skipped without it).
set -u
set -m # background runs in their own groups: SIGINT not ignored for them, as for a job of a terminal
. "$(dirname "$0")/testlib.sh"
ex=$2
part=${3:-sim}
pids=()
# (only the runs this script started, by their ids)
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

running() { # pid: alive and not a zombie
	[ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
wait_for() { # seconds command...: polls until the command succeeds
	local t=$1 i=0
	shift
	until "$@"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -ge $((t * 10)) ] && return 1
	done
	return 0
}
start() { # name command...: in the background, output in $tmp/name.{out,err}, pid in $bg
	local name=$1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	bg=$!
	pids+=("$bg")
}
finish_run() { # pid seconds: waits for its end (killed after seconds), exit code in $rc
	if ! wait_for "$2" eval "! running $1"; then
		bad "pid $1 still running $2 s after the signal"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
	rc=$?
}
left() { # report folder: no process of that run is left
	if wait_for 3 eval "! pgrep -f -- \"--report $1\" >/dev/null"; then ok; else
		local p
		p=$(pgrep -f -- "--report $1")
		bad "processes of $1 left running: $(echo $p)"
		kill -9 $p 2>/dev/null # (this script's runs: the folder is its own)
	fi
}
report_says() { # report.json status reason-pattern [min-results]
	python3 - "$@" <<'PY'
import json, re, sys
path, status, reason = sys.argv[1:4]
least = int(sys.argv[4]) if len(sys.argv) > 4 else 0
d = json.load(open(path))
assert d["status"] == status, ("status", d["status"])
assert re.search(reason, d.get("reason") or ""), ("reason", d.get("reason"))
assert len(d["results"]) >= least, ("results", len(d["results"]))
PY
}
has() { grep -qs -- "$2" "$1"; }
junit_says() { # junit.xml status min-testcases: well formed, with the status (the last-resort path's)
	python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
props = {p.get("name"): p.get("value") for p in root.iter("property")}
assert props.get("status") == sys.argv[2], props
assert len(list(root.iter("testcase"))) >= int(sys.argv[3])
PY
}

# --- under mpirun: a rank SIGKILLed (the OOM killer) is named with its signal
if [ "$part" = mpi ]; then
	. "$(dirname "$0")/mpi_env.sh" "signals (mpi)"
	rank_pid() { # report folder rank: the process that runs that rank (not mpirun, not a keeper)
		local p
		for p in $(pgrep -f -- "--report $1"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = shardcheck ] || continue
			tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" || continue
			# with a keeper, the rank is the keeper's child
			[ "$(cat "/proc/$(awk '{print $4}' "/proc/$p/stat")/comm" 2>/dev/null)" = shardcheck ] || continue
			echo "$p"
			return 0
		done
		for p in $(pgrep -f -- "--report $1"); do # no keeper: the launched process
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = shardcheck ] &&
				tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && { echo "$p"; return 0; }
		done
		return 1
	}
	d=$tmp/mpikill
	start mpikill timeout 120 mpirun --oversubscribe -np 2 "$sc" check --backend mpi corpus builtin:all \
		--cases 100000000 --time 60 --seed 2 --report "$d" -q
	if wait_for 60 has "$tmp/mpikill.out" "shardcheck 0.1.0: seed" && wait_for 20 rank_pid "$d" 1 >/dev/null; then
		sleep 1 # inside a case
		victim=$(rank_pid "$d" 1)
		kill -KILL "$victim"
		finish_run "$bg" 60
		[ $rc -ne 0 ] && [ $rc -ne 1 ] && ok || bad "mpi SIGKILL: exit $rc"
		all=$tmp/mpikill.all
		cat "$tmp/mpikill.out" "$tmp/mpikill.err" >"$all"
		has "$all" "shardcheck: aborting: rank 1 ended first (killed by SIGKILL" && ok ||
			{ bad "mpi SIGKILL: rank 1 and its signal not named"; tail -8 "$all" >&2; }
		has "$all" "shardcheck: interrupted" && bad "mpi SIGKILL: called an interrupt" || ok
		report_says "$d/report.json" aborted "rank 1 ended first \(killed by SIGKILL" && ok ||
			bad "mpi SIGKILL: report.json does not name it"
		junit_says "$d/junit.xml" aborted 0 && ok || bad "mpi SIGKILL: no junit.xml"
		head -1 "$d/failures/inflight.case" 2>/dev/null | grep -q "^# rank 1 ended first (killed by SIGKILL" && ok ||
			bad "mpi SIGKILL: the case in flight is not kept with the cause"
		left "$d"
	else
		bad "mpi SIGKILL: the run did not start"; cat "$tmp/mpikill.out" "$tmp/mpikill.err" >&2
	fi
	finish "signals (mpi)"
	exit
fi

# --- check on sim: each signal, during a long run with --report
for sig in TERM INT HUP; do
	d=$tmp/check-$sig
	start "check$sig" "$sc" check corpus builtin:all --cases 100000000 --time 60 --seed 2 --jobs 1 --report "$d"
	if ! wait_for 30 has "$tmp/check$sig.out" "^pass "; then bad "check $sig: no check finished"; continue; fi
	sleep 0.3 # (past the gap between one target's line and the next target's first case)
	kill -"$sig" "$bg"
	finish_run "$bg" 20
	[ $rc -eq 2 ] && ok || bad "check SIG$sig: exit $rc, want 2"
	n=$(grep -cE "^(pass|FAIL|ERROR) " "$tmp/check$sig.out")
	report_says "$d/report.json" interrupted "SIG$sig" "$n" && ok || bad "check SIG$sig: report.json"
	[ -s "$d/junit.xml" ] && ok || bad "check SIG$sig: no junit.xml"
	[ "$(grep -c . "$tmp/check$sig.err")" -eq 1 ] && has "$tmp/check$sig.err" \
		"^shardcheck: interrupted (SIG$sig): .*saved to $d/failures/inflight.case" && ok ||
		{ bad "check SIG$sig: not one line on stderr naming the signal and the case"; cat "$tmp/check$sig.err" >&2; }
	[ "$(head -1 "$d/failures/inflight.case" 2>/dev/null)" = "# interrupted by SIG$sig" ] && ok ||
		bad "check SIG$sig: the case in flight is not kept"
	"$sc" repro "$d/failures/inflight.case" >/dev/null 2>&1
	[ $? -le 1 ] && ok || bad "check SIG$sig: the kept case does not replay"
	left "$d"
done

# --- check --jobs 2: no worker left, the checks the workers finished reported
d=$tmp/jobs
start jobs "$sc" check corpus builtin:all --cases 100000000 --time 60 --seed 2 --jobs 2 --report "$d"
if wait_for 30 has "$tmp/jobs.out" "^pass "; then
	wait_for 10 eval '[ "$(pgrep -f -- "--report $d" | wc -l)" -ge 3 ]' && ok || bad "jobs: the workers did not start"
	kill -TERM "$bg"
	finish_run "$bg" 20
	[ $rc -eq 2 ] && ok || bad "jobs: exit $rc, want 2"
	report_says "$d/report.json" interrupted SIGTERM 1 && ok || bad "jobs: report.json"
	has "$tmp/jobs.err" "^shardcheck: interrupted (SIGTERM)" && ok || bad "jobs: no message"
	[ -s "$d/failures/inflight.case" ] && ok || bad "jobs: the case in flight (a worker's) is not kept"
	left "$d"
else
	bad "jobs: no check finished"
fi

# --- a failure shrunk before the signal: kept in failures/ and in the report
d=$tmp/kept
start kept "$sc" check --no-expect corpus/deepspeed/sf-head2seq-before-5664.sc builtin:all --property semantics \
	--cases 100000000 --time 60 --seed 3 --jobs 1 --report "$d"
if wait_for 30 has "$tmp/kept.out" "^FAIL " && wait_for 10 has "$tmp/kept.out" "^pass "; then
	kill -TERM "$bg"
	finish_run "$bg" 20
	[ $rc -eq 2 ] && ok || bad "kept: exit $rc, want 2 (an interrupt, not 1)"
	f=$d/failures/deepspeed-sf-head2seq-before-5664-semantics.case
	[ -s "$f" ] && ok || bad "kept: $f is gone"
	python3 - "$d/report.json" "$f" <<'PY' && ok || bad "kept: the shrunk failure is not in report.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "interrupted"
f = [r for r in d["results"] if r["verdict"] == "fail"]
assert len(f) == 1 and f[0]["counterexample"]["case_file"] == sys.argv[2], f
assert f[0]["counterexample"]["world"] == 2
PY
	left "$d"
else
	bad "kept: the failure was not found"
fi

# --- gate on sim, while the plugin runs; then a plugin case that hangs
# (it does not return within the grace period: the last-resort path)
plug=$ex/libfaulty.so
d=$tmp/gate
start gate "$sc" gate --plugin "$plug" stale --cases 1000000 --report "$d"
if wait_for 30 has "$tmp/gate.out" "^shardcheck 0.1.0: seed"; then
	sleep 1 # (cases of the plugin running)
	kill -TERM "$bg"
	finish_run "$bg" 20
	[ $rc -eq 2 ] && ok || bad "gate: exit $rc, want 2"
	report_says "$d/report.json" interrupted SIGTERM && ok || bad "gate: report.json"
	has "$tmp/gate.err" "^shardcheck: interrupted (SIGTERM): .*saved to $d/failures/inflight.case" && ok ||
		{ bad "gate: no message"; cat "$tmp/gate.err" >&2; }
	left "$d"
else
	bad "gate: did not start"
fi
d=$tmp/hang
start hang "$sc" gate --plugin "$plug" overrun hang --property semantics --timeout 60 --report "$d"
if wait_for 30 has "$tmp/hang.out" "libfaulty.so:overrun"; then
	sleep 1 # (in the hang: its first case with b=2 never returns)
	t0=$(date +%s)
	kill -TERM "$bg"
	finish_run "$bg" 20
	took=$(($(date +%s) - t0))
	[ $rc -eq 2 ] && [ $took -le 10 ] && ok || bad "hung gate: exit $rc after ${took}s, want 2 within 10s"
	report_says "$d/report.json" interrupted SIGTERM 1 && ok || bad "hung gate: report.json (with overrun's result)"
	junit_says "$d/junit.xml" interrupted 1 && ok || bad "hung gate: junit.xml"
	has "$tmp/hang.err" "interrupted (SIGTERM): .*did not end within .*saved to $d/failures/inflight.case" && ok ||
		{ bad "hung gate: no message"; cat "$tmp/hang.err" >&2; }
	[ -s "$d/failures/examples-libfaulty-so-overrun-semantics.case" ] ||
		[ -n "$(ls "$d"/failures/*overrun-semantics.case 2>/dev/null)" ] && ok || bad "hung gate: overrun's failure not kept"
	left "$d"
	# repro of the hung case: SIGHUP, the case file named
	cp "$d/failures/inflight.case" "$tmp/hung.case" 2>/dev/null
	start repro "$sc" repro "$tmp/hung.case"
	sleep 1
	kill -HUP "$bg"
	finish_run "$bg" 20
	[ $rc -eq 2 ] && ok || bad "repro: exit $rc, want 2"
	has "$tmp/repro.err" "^shardcheck: interrupted (SIGHUP): .*the case is $tmp/hung.case" && ok ||
		{ bad "repro: no message naming the signal and the case"; cat "$tmp/repro.err" >&2; }
	wait_for 3 eval '! pgrep -f -- "repro $tmp/hung.case" >/dev/null' && ok || bad "repro: processes left"
else
	bad "hung gate: did not start"
fi

# --- fuzz --time 60: SIGTERM to one job, SIGINT to two
for jobs in 1 2; do
	sig=TERM
	[ $jobs -eq 2 ] && sig=INT
	d=$tmp/fuzz$jobs
	start "fuzz$jobs" "$sc" fuzz builtin:all --time 60 --seed 5 --jobs $jobs --report "$d" --findings "$tmp/findings$jobs"
	if wait_for 30 has "$tmp/fuzz$jobs.out" "^shardcheck 0.1.0 fuzz"; then
		sleep 1
		kill -"$sig" "$bg"
		finish_run "$bg" 20
		[ $rc -eq 2 ] && ok || bad "fuzz --jobs $jobs: exit $rc, want 2"
		report_says "$d/report.json" interrupted "SIG$sig" && ok || bad "fuzz --jobs $jobs: report.json"
		has "$tmp/fuzz$jobs.err" "^shardcheck: interrupted (SIG$sig)" && ok || bad "fuzz --jobs $jobs: no message"
		left "$d"
	else
		bad "fuzz --jobs $jobs: did not start"
	fi
done

finish signals
