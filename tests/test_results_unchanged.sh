#!/usr/bin/env bash
# Every verdict, minimal case and report field of the corpus, the built-ins
# and the test specs, for a fixed seed, against tests/golden/results.json:
# a change that should only make shardcheck faster must not change them.
# Usage: test_results_unchanged.sh PATH/TO/shardcheck [--update]
set -u
sc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sc" check corpus builtin:all tests/specs --seed 1 --cases 300 --json "$tmp/r.json" -q >/dev/null 2>&1
python3 tests/golden/normalize.py "$tmp/r.json" >"$tmp/now.json" || exit 1
if [ "${2:-}" = --update ]; then
	cp "$tmp/now.json" tests/golden/results.json
	echo "tests/golden/results.json updated"
	exit 0
fi
if cmp -s "$tmp/now.json" tests/golden/results.json; then
	echo "results unchanged: $(grep -c '"verdict"' tests/golden/results.json) checks"
	exit 0
fi
echo "results differ from tests/golden/results.json (if the change is intended, rerun with --update):" >&2
diff "$tmp/now.json" tests/golden/results.json | head -40 >&2
exit 1
