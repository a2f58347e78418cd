#!/usr/bin/env bash
# A run into a --report folder an earlier run wrote: the earlier report
# and failures move to DIR.previous beside it (its case files still
# replay), nothing stale stands beside the new summary, and files of the
# user's in DIR stay. Run from the repository root.
# Usage: test_report_dir.sh PATH/TO/shardcheck HOSTILE_DIR
set -u
. "$(dirname "$0")/testlib.sh"
dir=$2
rep=$tmp/a/b/rep # deep enough that a case file one level deeper would not replay
bad_spec=corpus/deepspeed/sf-head2seq-before-5664.sc
good_spec=corpus/deepspeed/sf-head2seq-batchdim.sc

expect_rc 1 "failing run" "$sc" check "$bad_spec" --no-expect --property semantics --cases 50 --report "$rep"
ls "$rep"/failures/*.case >/dev/null 2>&1 && ok || bad "failing run: no case file in $rep/failures"
echo mine >"$rep/notes.txt"

# a passing run into the same folder: no failure beside its summary
expect_rc 0 "passing run" "$sc" check "$good_spec" --property semantics --cases 50 --report "$rep"
[ ! -e "$rep/failures" ] && ok || bad "passing run: $rep/failures still there: $(ls "$rep/failures")"
expect_grep "every check passed" "$rep/summary.md" "passing run summary"
expect_grep '"verdict": "pass"' "$rep/report.json" "passing run report"
[ "$(cat "$rep/notes.txt" 2>/dev/null)" = mine ] && ok || bad "the user's notes.txt was touched"
# the earlier run's, beside it, whole, and its case file replays
expect_grep "failures found" "$rep.previous/summary.md" "previous summary"
case_file=$(ls "$rep.previous"/failures/*.case 2>/dev/null | head -1)
[ -n "$case_file" ] && ok || bad "no case file in $rep.previous/failures"
expect_rc 1 "previous case replays" "$sc" repro "$case_file"
expect_grep "minimal case" "$tmp/out" "previous case replays"

# a third run replaces DIR.previous with the second run's
expect_rc 0 "third run" "$sc" check "$good_spec" --property semantics --cases 20 --report "$rep"
[ ! -e "$rep.previous/failures" ] && ok || bad "third run: the first run's failures still in $rep.previous"
expect_grep "every check passed" "$rep.previous/summary.md" "third run: previous is the second run's"

# a gate that cannot load its plugin: the error report, without the
# failures of the run before
expect_rc 1 "failing run again" "$sc" check "$bad_spec" --no-expect --property semantics --cases 50 --report "$rep"
expect_rc 2 "gate load error" "$sc" gate --plugin "$dir/libhostile_reg_exit.so" --report "$rep"
[ ! -e "$rep/failures" ] && ok || bad "gate load error: stale failures beside its report"
expect_grep '"verdict": "error"' "$rep/report.json" "gate load error report"

finish report_dir
