#!/usr/bin/env bash
# Only regular files are read: a FIFO, a symlink to one, a directory or a
# device where a spec, a case file, a finding or a finding's target is
# expected is refused by check, repro and eval (exit 2, "PATH: not a
# regular file (...)"), and skipped by fuzz, which says so on stderr and in
# its report, then runs to the end of --time. Nothing blocks: every command
# runs under `timeout 30`, so a regression fails instead of hanging.
# Floating-point options refuse NaN, infinities and overflow; integer
# options refuse what would wrap.
# Usage: test_files.sh PATH/TO/shardcheck  (from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

spec=$PWD/corpus/deepspeed/sf-head2seq-batchdim.sc
[ -f "$spec" ] || { echo "run from the repository root" >&2; exit 2; }
T() { timeout "${SC_TEST_TIMEOUT:-30}" "$sc" "$@"; }
# a case file for target $1
case_for() {
	printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 2\nsizes s=4 b=2 h=2 d=1\ndtype i32\nseed 7\n' "$1"
}

mkfifo "$tmp/fifo.sc" "$tmp/fifo.case"
ln -s "$tmp/fifo.sc" "$tmp/link.sc"
mkdir "$tmp/dir.sc" "$tmp/dir.case"
case_for "$tmp/fifo.sc" >"$tmp/to-fifo.case"
case_for "$tmp/dir.sc" >"$tmp/to-dir.case"
case_for /dev/zero >"$tmp/to-zero.case"
case_for "$spec" >"$tmp/good.case"

# refused FILE KIND CMD...: exit 2 and "FILE: not a regular file (KIND)"
refused() {
	local file=$1 kind=$2; shift 2
	expect_rc 2 "$* ($kind)" T "$@"
	expect_grep "$file: not a regular file ($kind)" "$tmp/err" "$* ($kind)"
}
refused "$tmp/fifo.sc" "a FIFO" check "$tmp/fifo.sc"
refused "$tmp/link.sc" "a FIFO" check "$tmp/link.sc"
refused "$tmp/fifo.sc" "a FIFO" check --chain "$spec,$tmp/fifo.sc"
refused "$tmp/fifo.sc" "a FIFO" eval "$tmp/fifo.sc" --world 2 --sizes s=4,b=2,h=2,d=1
refused "$tmp/fifo.case" "a FIFO" repro "$tmp/fifo.case"
refused "$tmp/fifo.case" "a FIFO" check "$tmp/fifo.case"
refused "$tmp/fifo.sc" "a FIFO" repro "$tmp/to-fifo.case"
refused "$tmp/fifo.sc" "a FIFO" check "$tmp/to-fifo.case"
refused "$tmp/dir.case" "a directory" repro "$tmp/dir.case"
refused "$tmp/dir.sc" "a directory" check --chain "$spec,$tmp/dir.sc"
refused "$tmp/dir.sc" "a directory" repro "$tmp/to-dir.case"
refused /dev/zero "a character device" check /dev/zero
refused /dev/zero "a character device" repro /dev/zero
refused /dev/zero "a character device" repro "$tmp/to-zero.case"
expect_rc 0 "repro of a regular case file" T repro "$tmp/good.case"

# fuzz: a corpus with a good spec, a FIFO, a symlink to it, a device link;
# findings with a FIFO, a directory and a case whose target is a FIFO
mkdir -p "$tmp/c" "$tmp/f"
cp "$spec" "$tmp/c/good.sc"
mkfifo "$tmp/c/fifo.sc" "$tmp/f/a-fifo.case"
ln -s "$tmp/c/fifo.sc" "$tmp/c/link.sc"
ln -s /dev/zero "$tmp/c/zero.sc"
mkdir "$tmp/f/b-dir.case"
case_for "$tmp/c/fifo.sc" >"$tmp/f/c-to-fifo.case"
start=$(date +%s)
expect_rc 0 "fuzz over a corpus with a FIFO" T fuzz --time 5 --seed 1 --report "$tmp/rep" --findings "$tmp/f" "$tmp/c"
took=$(($(date +%s) - start))
[ "$took" -lt 20 ] && ok || bad "fuzz --time 5 took ${took}s"
for f in c/fifo.sc c/link.sc; do
	expect_grep "$tmp/$f: not a regular file (a FIFO); skipped" "$tmp/err" "fuzz: $f on stderr"
	expect_grep "$tmp/$f: not a regular file (a FIFO); skipped" "$tmp/rep/report.json" "fuzz: $f in the report"
done
expect_grep "$tmp/c/zero.sc: not a regular file (a character device); skipped" "$tmp/err" "fuzz: device on stderr"
expect_grep "^STALE $tmp/f/a-fifo.case: .*not a regular file (a FIFO)" "$tmp/out" "fuzz: FIFO finding"
expect_grep "^STALE $tmp/f/b-dir.case: .*not a regular file (a directory)" "$tmp/out" "fuzz: directory finding"
expect_grep "^STALE $tmp/f/c-to-fifo.case: .*$tmp/c/fifo.sc: not a regular file (a FIFO)" "$tmp/out" \
	"fuzz: a finding whose target is a FIFO"
expect_grep "\"target\": \"$tmp/c/good.sc\", \"property\": \"semantics\", \"verdict\": \"pass\"" "$tmp/rep/report.json" "fuzz: the good spec was fuzzed"
expect_grep '"status": "complete"' "$tmp/rep/report.json" "fuzz: report.json finished"
expect_no_grep '"status": "running"' "$tmp/rep/report.json" "fuzz: report.json finished"
# check over the same folder: what it cannot read is an error, not a pass
expect_rc 2 "check over a folder with a FIFO" T check --cases 5 "$tmp/c"
expect_grep "$tmp/c/fifo.sc: not a regular file (a FIFO); refusing to read" "$tmp/out" "check: FIFO in a folder"
expect_grep "^pass  $tmp/c/good.sc" "$tmp/out" "check: the good spec still checked"
# --jobs: the same, the findings replayed by the main process
expect_rc 0 "fuzz --jobs 2 over a corpus with a FIFO" T fuzz --time 3 --jobs 2 --seed 2 --report "$tmp/rep2" \
	--findings "$tmp/f" "$tmp/c"
expect_grep "$tmp/c/fifo.sc: not a regular file (a FIFO); skipped" "$tmp/err" "fuzz --jobs: FIFO on stderr"
expect_grep '"status": "complete"' "$tmp/rep2/report.json" "fuzz --jobs: report.json finished"
# --time bounds the findings' replay too: after a finding that hangs
# (--timeout 2) the 1 s are spent, and the next one is not replayed: an
# error that names it (exit 2), neither a pass nor a run past --time
faulty=$(dirname "$sc")/examples/libfaulty.so
if [ -f "$faulty" ]; then
	mkdir -p "$tmp/fh"
	for k in a b; do
		printf 'shardcheck-case 1\ntarget %s:hang\nproperty semantics\nbackend sim\nworld 1\nsizes s=1 b=2 h=1 d=1\ndtype i32\nseed 0\n' \
			"$faulty" >"$tmp/fh/$k-hang.case"
	done
	start=$(date +%s)
	expect_rc 2 "fuzz --time 1 after a finding that hangs" T fuzz --time 1 --timeout 2 --seed 1 --report "$tmp/rep3" \
		--findings "$tmp/fh" builtin:all_gather
	took=$(($(date +%s) - start))
	[ "$took" -lt 15 ] && ok || bad "fuzz --time 1 with hanging findings took ${took}s"
	expect_grep "^STILL $tmp/fh/a-hang.case" "$tmp/out" "fuzz: the first hanging finding replayed"
	expect_grep "^ERROR $tmp/fh/b-hang.case replay: not replayed: the --time budget of 1 s ran out" "$tmp/out" \
		"fuzz: the finding past --time named"
	expect_grep "not replayed: the --time budget" "$tmp/rep3/report.json" "fuzz: the finding past --time in the report"
else
	echo "files: fuzz --time with hanging findings skipped ($faulty not built)"
fi

# floating-point options: NaN, infinities and overflow refused, naming the flag
for v in nan NAN inf -inf infinity 1e999 -1 0 '' 1e999h 5x; do
	expect_rc 2 "check --time '$v'" T check --time "$v" --cases 1 builtin:all_gather
	expect_grep "--time needs" "$tmp/err" "check --time '$v'"
	expect_rc 2 "fuzz --time '$v'" T fuzz --time "$v" --report "$tmp/rt" --findings "$tmp/ft" builtin:all_gather
	expect_grep "--time needs" "$tmp/err" "fuzz --time '$v'"
	expect_rc 2 "check --timeout '$v'" T check --timeout "$v" --cases 1 builtin:all_gather
	expect_grep "--timeout needs" "$tmp/err" "check --timeout '$v'"
	expect_rc 2 "gate --timeout '$v'" T gate --timeout "$v" --plugin /nonexistent.so
	expect_grep "--timeout needs" "$tmp/err" "gate --timeout '$v'"
done
# integer options: a sign behind blanks, or a value that would wrap, refused
for o in --cases --max-elems --seed --jobs --max-dim --case-memory; do
	for v in ' -1' ' 5' 18446744073709551616 -1; do
		expect_rc 2 "check $o '$v'" T check "$o" "$v" --cases 1 builtin:all_gather
		expect_grep "$o needs" "$tmp/err" "check $o '$v'"
	done
done
for o in --cases --max-elems; do
	expect_rc 2 "check $o 2^63" T check "$o" 9223372036854775808 builtin:all_gather
	expect_grep "$o needs" "$tmp/err" "check $o 2^63"
done
expect_rc 2 "eval --world ' -1'" T eval builtin:all_gather --world ' -1' --sizes n=4
expect_grep "--world needs" "$tmp/err" "eval --world ' -1'"
expect_rc 0 "check --time 1.5 --timeout 2.5 still accepted" T check --time 1.5 --timeout 2.5 --cases 1 builtin:all_gather

finish files
