#!/usr/bin/env bash
# The gate against hostile plugins (tests/hostile/hostile.c): every fault in
# a plugin's registration or run is an exit 1 (a failure of the case) or 2
# (a plugin error), never 0 and never a signal; its message names the fault;
# the report is written; no process of the plugin is left running, even
# one in a session of its own; the plugin cannot stop, hang or kill the
# gate by signalling it.
# Usage: test_hostile.sh PATH/TO/shardcheck HOSTILE_DIR
set -u
sc=$1 dir=$2
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
# what the plugin's lingering processes call themselves (pgrep -x), and
# what the attacks on shardcheck look for in command lines (this run's
# gates only: their --report is in $tmp)
export HOSTILE_COMM=hx$$ HOSTILE_MARK=$tmp

# gate WANT NAME LIB ARGS...: runs the gate with a report (killed after
# 120 s: a gate stopped by its plugin never ends), then checks the exit
# code (WANT: one code, or several as 0/1), the report and that nothing of
# it is left running: no process with its command line or the plugin's
# lingering name.
gate() {
	local want=$1 name=$2 lib=$3; shift 3
	timeout -s KILL ${HOSTILE_GATE_TIMEOUT:-120} "$sc" gate --plugin "$dir/lib$lib.so" --report "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	local rc=$?
	case "/$want/" in */$rc/*) ok ;; *) bad "$name: exit $rc, want $want"; tail -n 8 "$tmp/$name.out" "$tmp/$name.err" >&2 ;; esac
	[ -s "$tmp/$name/report.json" ] && [ -s "$tmp/$name/junit.xml" ] && ok || bad "$name: no report written"
	sleep 0.2
	if pgrep -f -- "--report $tmp/$name" >/dev/null || pgrep -x "$HOSTILE_COMM" >/dev/null; then
		bad "$name: processes left running: $(pgrep -c -x "$HOSTILE_COMM") named $HOSTILE_COMM"
		pkill -9 -f -- "--report $tmp/$name"; pkill -9 -x "$HOSTILE_COMM"
	else ok; fi
}
has() { # NAME REGEX: in the output or the report
	if grep -qE -- "$2" "$tmp/$1.out" "$tmp/$1.err" && grep -qE -- "$2" "$tmp/$1/report.json"; then ok
	else bad "$1: '$2' not in the output and the report"; tail -n 8 "$tmp/$1.out" "$tmp/$1.err" >&2; fi
}

# registration: a crash, an endless loop, exit(0): a plugin error, exit 2
gate 2 reg_segv hostile_reg_segv --timeout 5
has reg_segv "registration \(sc_plugin_register\) (crashed: signal 11|.*sanitizer's report)"
start=$(date +%s)
gate 2 reg_loop hostile_reg_loop --timeout 1
has reg_loop "registration \(sc_plugin_register\) hung: no result after 1 s"
[ $(( $(date +%s) - start )) -lt 20 ] && ok || bad "reg_loop: took too long"
gate 2 reg_exit hostile_reg_exit
# (under ASan, LeakSanitizer's check at the child's exit can fail inside a
# pid namespace, whose pids /proc does not show: then the sanitizer is named)
has reg_exit "registration \(sc_plugin_register\) (called exit\(0\)|was stopped by a sanitizer's report)"
# a registration that leaves processes in a session of their own
gate 2 reg_leave hostile_reg_leave
has reg_leave "registration left processes running \(killed\)"

# writes past the output: 64 B, 4 KiB and 1 MiB, with several patterns
# (0xA5 was the constant guard byte of older versions)
for t in over64_zero over64_a5 over4k_ff over4k_inc over1m_zero over1m_a5; do
	gate 1 "$t" hostile "$t" --property semantics --cases 20
	has "$t" "rank 0 wrote past the end of its output \(4 bytes\): first changed byte at \+0"
done

# processes left behind: killed with the case, whatever they did to leave
# it: a plain fork, a child in a session of its own (setsid) that forks 4
# and exits, daemon(3) from a child; each a failure of the case
for t in fork_leave setsid_fork daemonize; do
	gate 1 "$t" hostile "$t" --property semantics --cases 20
	has "$t" "left processes running after every rank returned \(killed\)"
done
# daemon(3) in run: the calling process ends; its copy returns and lingers
gate 1 daemon_in_run hostile daemon_in_run --property semantics --cases 20
has daemon_in_run "the plugin ended its process with status 0 without returning"

# signals sent to shardcheck (its parent, or found by its command line in
# /proc): the gate is not stopped, hung or killed; it ends with its report.
# Pid namespaces (made by shardcheck as root, or in a user namespace of
# their own elsewhere) stop them all. Without (SC_SANDBOX_NS=0, or where
# both are refused) shardcheck drops the signals its plugin's processes
# send and a watchdog undoes SIGSTOP; a plugin that stops every shardcheck
# process it finds in /proc (stop_proc) stops the watchdog too: skipped.
signals="stop_parent term_parent usr1_parent stop_proc term_proc usr1_proc"
if [ "${SC_SANDBOX_NS:-1}" = 0 ] || ! { unshare -p -f true || unshare -U -p -f --map-current-user true; } 2>/dev/null; then
	echo "hostile: stop_proc skipped (no pid namespaces: the fallback's watchdog can be stopped too)"
	signals="stop_parent term_parent usr1_parent term_proc usr1_proc"
fi
for t in $signals; do
	gate 0/1 "$t" hostile "$t" --property semantics --cases 20
	grep -q "^report: " "$tmp/$t.out" && ok || bad "$t: the gate did not end with its report"
done

# printing to stdout: stdout stays the JSON document alone
"$sc" gate --plugin "$dir/libhostile.so" print_stdout --cases 20 --json - >"$tmp/json.out" 2>"$tmp/json.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "print_stdout: exit $rc"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["results"]' "$tmp/json.out" 2>/dev/null && ok \
	|| { bad "print_stdout: stdout is not the JSON document"; head -3 "$tmp/json.out" >&2; }
grep -q "hostile: not JSON" "$tmp/json.err" && ok || bad "print_stdout: the plugin's output is not on stderr"

# exit() in run, SIGKILL of itself
gate 1 exit_in_run hostile exit_in_run --property semantics --cases 20
has exit_in_run "the plugin (called exit\(0\)|was stopped by a sanitizer's report) on rank 0"
grep -q "minimal case: world=1 n=1 " "$tmp/exit_in_run.out" && ok || bad "exit_in_run: not shrunk to world=1 n=1"
gate 1 sigkill_self hostile sigkill_self --property semantics --cases 20
has sigkill_self "the plugin crashed: signal 9 \(Killed\)"

# 64 GiB asked for under --plugin-memory 256M: the allocation fails in the
# child (or its sanitizer reports it), and the limit is named
gate 1 hog hostile hog --property semantics --cases 3 --plugin-memory 256M
has hog "--plugin-memory"
"$sc" gate --plugin "$dir/libhostile.so" copy --plugin-memory 12Q >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--plugin-memory 12Q accepted"

# ranks left waiting in a collective no other rank will join: seen when
# every rank still running waits (no --timeout to sit out, even at 60 s)
start=$(date +%s)
gate 1 early_return hostile early_return --property semantics --cases 50 --timeout 60
has early_return "rank 0 returned 7 while rank 1 waited in a collective"
grep -q "minimal case: world=2 " "$tmp/early_return.out" && ok || bad "early_return: not shrunk to world=2"
gate 1 skip_collective hostile skip_collective --property semantics --cases 50 --timeout 60
has skip_collective "rank 0 returned while rank 1 waited in a collective that not every rank of its group called"
[ $(( $(date +%s) - start )) -lt 30 ] && ok || bad "early_return, skip_collective: took too long (a timeout sat out?)"

# a hang found again in each property while shrinking costs one full
# timeout (5 s), then calls cut short: the gate takes well under the
# 5 s per hung candidate it took before, and still fails with the hang
start=$(date +%s)
gate 1 hang_n3 hostile hang_n3 --cases 100 --timeout 5
has hang_n3 "the plugin hung: no result after"
grep -q "minimal case: world=1 n=3 " "$tmp/hang_n3.out" && ok || bad "hang_n3: not shrunk to world=1 n=3"
took=$(( $(date +%s) - start ))
# (about 24 s here, 45 s under ASan on a busy machine; 100 s before)
[ "$took" -lt 70 ] && ok || bad "hang_n3: took $took s (a full timeout per hung candidate?)"

# a collective called from a thread the plugin starts: refused, not a hang
gate 1 coll_in_thread hostile coll_in_thread --property semantics --cases 20 --timeout 60
has coll_in_thread "rank 0: the transform returned 9"

# a leak: the library's worker, which runs case after case, runs out of
# --plugin-memory; a fresh process passes the case alone: a failure that
# needs the earlier calls, with them in the report and the case file
gate 1 leak hostile leak --property semantics --cases 200 --plugin-memory 256M
has leak "fails only after [0-9]+ earlier calls? in the same process"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["verdict"] == "fail" and r["after_earlier_cases"], r' \
	"$tmp/leak/report.json" && ok || bad "leak: after_earlier_cases not in the report"
grep -q "^earlier world " "$tmp/leak/failures/"*leak-semantics.case && ok || bad "leak: no earlier line in the case file"

# a correct transform of the same library passes
"$sc" gate --plugin "$dir/libhostile.so" copy --cases 50 >"$tmp/copy.out" 2>&1 && ok || bad "copy: $(tail -3 "$tmp/copy.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
