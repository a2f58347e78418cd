#!/usr/bin/env bash
# Checks what a newcomer sees from the README's two commands on a fresh
# clone: a few setup lines, then shardcheck's own output last; the main job
# builds no tests. Usage (from the repository root):
#   tests/check_first_run.sh default OUTPUT   # output of scripts/run-default.sh
#   tests/check_first_run.sh test OUTPUT      # output of scripts/test.sh
set -u
mode=$1 out=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "first run ($mode): FAILED: $*" >&2; }

first_line() { grep -n -m1 -- "$1" "$out" | cut -d: -f1; }
noise='^(Get:|Hit:|Reading |Building |Setting up |Unpacking |Selecting |Preparing |-- |\[ *[0-9]+%\]|Scanning |Consolidate compiler)'
if grep -Eq "$noise" "$out"; then bad "install or build output on the terminal: $(grep -Em1 "$noise" "$out")"; else ok; fi
[ -s build/logs/setup.log ] && ok || bad "build/logs/setup.log is missing"
case $mode in
default)
	n=$(first_line '^shardcheck [0-9.]*: seed')
	[ -n "$n" ] && [ "$n" -le 8 ] && ok || bad "shardcheck's first line is line ${n:-none}, want within the first 8"
	tail -n 1 "$out" | grep -q '^report: reports/latest/' && ok || bad "the last line is not the report: $(tail -n 1 "$out")"
	tail -n 3 "$out" | grep -q ' checks: .* pass, ' && ok || bad "the summary is not among the last lines"
	tests=$(find build -path '*/tests/*' -name 'test_*' -type f -perm -u+x 2>/dev/null | wc -l)
	[ "$tests" -eq 0 ] && ok || bad "the main job built $tests test programs"
	;;
test)
	n=$(first_line '^Test project ')
	[ -n "$n" ] && [ "$n" -le 10 ] && ok || bad "ctest starts at line ${n:-none}, want within the first 10"
	tail -n 20 "$out" | grep -q 'tests passed, 0 tests failed' && ok || bad "ctest's summary is not among the last lines"
	;;
*)
	echo "usage: $0 default|test OUTPUT" >&2
	exit 2
	;;
esac
echo "first run ($mode): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
