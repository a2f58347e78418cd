#!/usr/bin/env bash
# gate --sanitize TOOL and --sanitize-all, wired to compute-sanitizer. A
# stand-in for the tool (first on PATH) records how it was called, runs
# the command it was given and prints a report as the tool does; on emu
# (the device path on the CPU) that checks everything but the tool itself:
# a failure's minimal case is run again as `shardcheck repro` of a .case
# file under `--tool TOOL --target-processes all`, the report is attached
# to the failure (terminal, report.json, NAME.md), a twin failure shares
# it, --sanitize-all runs the whole gate under the tool once (errors exit
# 1), and bad uses are refused with exit 2. On a GPU, test_gate_gpu.sh
# runs the real tool. Usage: test_gate_sanitize.sh PATH/TO/shardcheck HOSTILE_DIR
set -u
. "$(dirname "$0")/testlib.sh"
lib=$2/libdevice.so
mkdir -p "$tmp/bin"
cat >"$tmp/bin/compute-sanitizer" <<'SH'
#!/bin/sh
echo "$@" >>"$FAKE_LOG"
echo "inside=${SC_SANITIZE_INSIDE:-}" >>"$FAKE_LOG"
code=
while [ "$1" != "--target-processes" ]; do shift; done
shift 2
if [ "$1" = "--error-exitcode" ]; then code=$2; shift 2; fi
echo "========= COMPUTE-SANITIZER"
SC_FAKE_UNDER=1 "$@"
rc=$?
echo "replay exit $rc" >>"$FAKE_LOG"
echo "========= Invalid __global__ write of size 4 bytes"
echo "=========     at copy_past+0x1d0 in cuda_faulty.cu:31"
echo "========= "
echo "========= ERROR SUMMARY: 1 error"
[ -n "$code" ] && exit "$code"
exit $rc
SH
chmod +x "$tmp/bin/compute-sanitizer"
mkdir -p "$tmp/t"
export FAKE_LOG=$tmp/log PATH="$tmp/bin:$PATH" TMPDIR=$tmp/t

# a failure: its minimal case again under the tool, the report attached
expect_rc 1 "overrun" "$sc" gate --backend emu --plugin "$lib" gather_over --cases 20 --sanitize memcheck \
	--report "$tmp/rep"
expect_grep "compute-sanitizer memcheck, the minimal case run again under it: 1 error" "$tmp/out" "overrun: the summary"
expect_grep "  ========= Invalid __global__ write of size 4 bytes" "$tmp/out" "overrun: the tool's lines"
expect_no_grep "COMPUTE-SANITIZER" "$tmp/out" "overrun: the banner left out"
expect_grep "^--tool memcheck --target-processes all .*/shardcheck repro $tmp/t/shardcheck-sanitize-[^/]*/minimal.case$" \
	"$tmp/log" "overrun: how the tool was called"
expect_grep "^replay exit 1$" "$tmp/log" "overrun: the replay under the tool fails as the case did"
expect_grep "^inside=1$" "$tmp/log" "overrun: the replay knows it runs under the tool (exact buffers, no guards on cuda)"
runs=$(grep -c '^--tool' "$tmp/log") blocks=$(grep -c "the minimal case run again under it" "$tmp/out") fails=$(grep -c '^FAIL' "$tmp/out")
[ "$runs" -eq "$blocks" ] && [ "$runs" -lt "$fails" ] && ok ||
	bad "overrun: one run of the tool per minimal case, twins sharing it: $runs runs, $blocks reports shown, $fails failures"
[ -z "$(ls -A "$tmp/t")" ] && ok || bad "overrun: a temporary folder left behind in TMPDIR: $(ls "$tmp/t")"
python3 - "$tmp/rep/report.json" <<'PY' && ok || bad "overrun: report.json's sanitizer"
import json, sys
rs = [r for r in json.load(open(sys.argv[1]))["results"] if r["verdict"] == "fail"]
assert rs and all(r["sanitizer"]["tool"] == "memcheck" and r["sanitizer"]["errors"] == 1 for r in rs), rs
assert "Invalid __global__ write" in rs[0]["sanitizer"]["report"]
PY
grep -q "compute-sanitizer memcheck, the minimal case run again under it: 1 error" "$tmp"/rep/failures/*semantics.md &&
	ok || bad "overrun: NAME.md carries the report"
# --sanitize-all: the whole gate once under the tool; its errors exit 1
: >"$tmp/log"
expect_rc 1 "all" "$sc" gate --backend emu --plugin "$lib" gather --cases 20 --property semantics --sanitize-all
expect_grep "^--tool memcheck --target-processes all --error-exitcode 1 .*/shardcheck gate --backend emu --plugin .* gather --cases 20 --property semantics$" \
	"$tmp/log" "all: the command under the tool, without --sanitize-all"
expect_grep "1 checks: 1 pass" "$tmp/out" "all: the gate ran inside"
[ "$(grep -c '^--tool' "$tmp/log")" -eq 1 ] && ok || bad "all: the tool started once"
# refused
expect_rc 2 "sim" "$sc" gate --plugin "$lib" gather --sanitize memcheck
expect_grep "need --backend cuda" "$tmp/err" "sim"
expect_rc 2 "typo" "$sc" gate --backend emu --plugin "$lib" gather --sanitize memchek
expect_grep "unknown tool 'memchek' (did you mean 'memcheck'?)" "$tmp/err" "typo"
expect_rc 2 "check" "$sc" check builtin:all_to_all --sanitize memcheck
expect_grep "belong to \`shardcheck gate\`" "$tmp/err" "check"
finish gate_sanitize
