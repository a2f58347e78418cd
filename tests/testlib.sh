# The shell test scripts' harness, sourced after `set -u`:
#   sc       the shardcheck binary ($1 of the script), as an absolute path
#   tmp      a scratch folder, removed at exit
#   ok, bad  count a check; bad says why on stderr
#   expect_rc WANT WHAT CMD...     CMD's exit code is WANT (its output in $tmp/out, $tmp/err)
#   expect_grep PATTERN FILE WHAT  / expect_no_grep PATTERN FILE WHAT
#   finish NAME                    the counts; exits nonzero when a check failed
sc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
expect_rc() { # want_rc description command...
	local want=$1 what=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, want $want"; cat "$tmp/out" "$tmp/err" >&2; fi
}
expect_grep() { # pattern file description
	if grep -q -- "$1" "$2"; then ok; else bad "$3: '$1' not in $2"; head -20 "$2" >&2; fi
}
expect_no_grep() { # pattern file description
	if grep -q -- "$1" "$2"; then bad "$3: '$1' in $2"; grep -- "$1" "$2" | head -5 >&2; else ok; fi
}
finish() { # name
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
