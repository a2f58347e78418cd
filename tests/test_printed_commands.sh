#!/usr/bin/env bash
# Every command shardcheck prints runs as printed: the build is installed
# with `cmake --install` into a scratch prefix whose bin/ is the only
# shardcheck on PATH, and from a scratch directory each kind of printed
# command is copied from the output and run as it stands: check's eval and
# repro replay lines, repro's own, the gate's (with and without a report),
# fuzz's, and pytest's two (its replay of the test, and the repro line in
# its failure text), each failing again (exit 1). Paths with a space are
# quoted. Usage: test_printed_commands.sh PATH/TO/shardcheck BUILD_DIR
set -u
. "$(dirname "$0")/testlib.sh"
build=$2
root=$(cd "$(dirname "$0")/.." && pwd)

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 \
	&& [ -x "$tmp/prefix/bin/shardcheck" ] && ok || { bad "cmake --install"; tail "$tmp/install.log" >&2; exit 1; }
[ -f "$tmp/prefix/share/shardcheck/python/shardcheck/pytest_plugin.py" ] && ok \
	|| bad "cmake --install: no Python module in share/shardcheck/python"
export PATH="$tmp/prefix/bin:$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$(dirname "$sc")" | paste -sd:)"
[ "$(command -v shardcheck)" = "$tmp/prefix/bin/shardcheck" ] && ok || bad "shardcheck on PATH is $(command -v shardcheck)"
# the installed trace runs the installed module, whatever the prefix
shardcheck trace --help >"$tmp/trace.out" 2>&1
grep -qxF "This module: $tmp/prefix/share/shardcheck/python/shardcheck" "$tmp/trace.out" && ok \
	|| { bad "the installed trace does not run the installed module"; tail -3 "$tmp/trace.out" >&2; }

work="$tmp/a dir"
mkdir -p "$work" && cd "$work" || exit 1
grep -v '^expect ' "$root/corpus/deepspeed/sf-head2seq-before-5664.sc" >bug.sc

# replay lines of OUTPUT, as printed ("replay: CMD" or "... (replay: CMD)")
replays() { sed -n 's/^ *replay: \(shardcheck .*\)$/\1/p; s/^E *replay: \(shardcheck .*\)$/\1/p' "$1" | sort -u; }
# runs each printed command of OUTPUT in this directory; each must exit WANT
run_printed() { # what output want [min_count]
	local what=$1 out=$2 want=$3 min=${4:-1} n=0 line rc
	while IFS= read -r line; do
		n=$((n + 1))
		bash -c "$line" >"$tmp/run.out" 2>&1
		rc=$?
		[ $rc -eq "$want" ] && ok || { bad "$what: '$line' exited $rc, want $want"; tail -5 "$tmp/run.out" >&2; }
	done < <(replays "$out")
	[ $n -ge "$min" ] && ok || { bad "$what: $n printed commands, want at least $min"; tail -20 "$out" >&2; }
}

# check without a report: eval lines; with one (a space in its path): repro
shardcheck check bug.sc --property semantics >check.out 2>&1
grep -q "replay: shardcheck eval bug.sc " check.out && ok || bad "check: no eval replay line"
run_printed "check (eval)" check.out 1
shardcheck check bug.sc --property semantics --report "my report" >check2.out 2>&1
grep -q "replay: shardcheck repro 'my report/failures/" check2.out && ok || bad "check: the repro line's path is not quoted"
run_printed "check (repro)" check2.out 1
# repro's own replay line
bash -c "$(replays check2.out | head -1)" >repro.out 2>&1
run_printed "repro" repro.out 1

# the gate, without a report (gate lines) and with one (repro lines)
gate_lib=$build/examples/libfaulty.so
shardcheck gate --plugin "$gate_lib" overrun stale --cases 50 >gate.out 2>&1
grep -q "replay: shardcheck gate --plugin " gate.out && ok || bad "gate: no gate replay line"
run_printed "gate" gate.out 1 3
shardcheck gate --plugin "$gate_lib" overrun stale --cases 50 --report gate-report >gate2.out 2>&1
run_printed "gate (repro)" gate2.out 1 3
if grep -E "replay: .*(DIR|PATH|CASE|<)" gate.out gate2.out check.out check2.out; then
	bad "a placeholder in a printed command"
else
	ok
fi

# fuzz's findings
shardcheck fuzz bug.sc --time 2 >fuzz.out 2>&1
run_printed "fuzz" fuzz.out 1

# pytest: its replay of the test and the repro line in its failure text
if /usr/bin/python3 -c "import torch, pytest" >/dev/null 2>&1; then
	example=$root/examples/pytest/test_ulysses_layout.py
	/usr/bin/python3 -m pytest -q -p no:cacheprovider "$example" >pytest.out 2>&1
	grep -q "1 failed, 1 passed" pytest.out && ok || { bad "pytest: not 1 failed, 1 passed"; tail -20 pytest.out >&2; }
	line=$(sed -n 's/^replay: \(pytest .*\)$/\1/p' pytest.out | head -1)
	case $line in
	"pytest --shardcheck-seed="*) ok ;;
	*) bad "pytest: replay line '$line'" ;;
	esac
	bash -c "${line/#pytest//usr/bin/python3 -m pytest -p no:cacheprovider}" >pytest2.out 2>&1
	grep -q "1 failed" pytest2.out && grep -q "seed $(sed -n 's/.*--shardcheck-seed=\([0-9]*\).*/\1/p' <<<"$line")" pytest2.out \
		&& ok || { bad "pytest: its replay line ($line)"; tail -20 pytest2.out >&2; }
	run_printed "pytest (repro)" pytest.out 1
else
	echo "printed_commands: no PyTorch or pytest for /usr/bin/python3; pytest's lines not run" >&2
fi
finish printed_commands
