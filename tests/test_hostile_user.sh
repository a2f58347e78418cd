#!/usr/bin/env bash
# The hostile-plugin suite (test_hostile.sh) run by an ordinary user, who
# may not make pid namespaces: shardcheck's children then get user and pid
# namespaces of their own, and the suite's every attack, signals to
# shardcheck included, must fail as it does for root. Needs root (to run
# as nobody) and unprivileged user namespaces: skipped (77) otherwise.
# Usage: test_hostile_user.sh PATH/TO/shardcheck HOSTILE_DIR
set -u
sc=$(readlink -f "$1") dir=$(readlink -f "$2")
here=$(dirname "$(readlink -f "$0")")
user=nobody
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id -u $user >/dev/null 2>&1; then
	echo "hostile_user: skipped (needs root, setpriv and a user '$user' to run as)"
	exit 77
fi
uid=$(id -u $user) gid=$(id -g $user)
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups env HOME="$tmp" TMPDIR="$tmp" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chown "$uid:$gid" "$tmp"
if ! as_user unshare -U -p -f --map-current-user true 2>/dev/null; then
	echo "hostile_user: skipped (user namespaces refused to $user here)"
	exit 77
fi
if as_user unshare -p -f true 2>/dev/null; then
	echo "hostile_user: skipped ($user may make pid namespaces itself: nothing to tell apart)"
	exit 77
fi
# the user's children are in namespaces of their own, not the fallback's
as_user env SC_LOG=plugin "$sc" gate --plugin "$dir/libhostile.so" stop_parent --property semantics --cases 5 \
	--report "$tmp/probe" >"$tmp/probe.out" 2>&1
if ! grep -q "children in user namespaces of their own" "$tmp/probe.out"; then
	echo "FAILED: $user's gate did not put its children in user namespaces" >&2
	tail -n 5 "$tmp/probe.out" >&2
	exit 1
fi
as_user bash "$here/test_hostile.sh" "$sc" "$dir"
