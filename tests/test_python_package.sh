#!/usr/bin/env bash
# The Python side as a newcomer meets it:
#  - from the checkout, `pytest examples/pytest/test_ulysses_layout.py` with
#    no flags and no environment gives 1 failed, 1 passed, the diagnosis in
#    the failure text (examples/pytest/conftest.py loads the plugin);
#  - `pip install ./src/python` into a virtual environment installs the
#    package; its pytest11 entry point loads the plugin for a test file
#    with no conftest and no -p, and the binary is found on PATH;
#  - with the package installed, the checkout's conftest and `-p` do not
#    load the plugin twice.
# Usage: test_python_package.sh PATH/TO/shardcheck
set -u
. "$(dirname "$0")/testlib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
if ! $py -c "import torch, pytest" >/dev/null 2>&1; then
	echo "python_package: skipped: $py lacks PyTorch or pytest (apt-get install python3-torch python3-pytest)"
	exit 77
fi
example=examples/pytest/test_ulysses_layout.py
clean_env=(env -u PYTHONPATH -u SHARDCHECK_BIN -u SHARDCHECK_PYTHONPATH)
# the checkout's own build folder is where the module looks; another build
# (a sanitizer preset's) is named, as a user of that build would
[ "$sc" = "$root/build/shardcheck" ] || clean_env+=("SHARDCHECK_BIN=$sc")
pytest_cmd=(pytest)
command -v pytest >/dev/null && head -1 "$(command -v pytest)" | grep -q python3 \
	&& "$(head -1 "$(command -v pytest)" | sed 's/^#! *//; s/ .*//')" -c "import torch" >/dev/null 2>&1 \
	|| pytest_cmd=($py -m pytest)

outcome() { # what output: 1 failed, 1 passed, with the diagnosis in the failure text
	grep -q "1 failed, 1 passed" "$2" && ok || { bad "$1: not '1 failed, 1 passed'"; tail -30 "$2" >&2; return; }
	grep -q "diagnosis: dims b and h swapped" "$2" && ok || bad "$1: no diagnosis in the failure text"
	grep -q "FAILED $3::test_head_to_seq_buggy" "$2" && ok || bad "$1: the buggy test is not the one that failed"
}

# 1. the checkout: no flags, no environment
(cd "$root" && "${clean_env[@]}" "${pytest_cmd[@]}" -p no:cacheprovider "$example") >"$tmp/checkout.out" 2>&1
outcome "checkout" "$tmp/checkout.out" "$example"

# 2. pip install into a virtual environment (PyTorch from the system)
if ! $py -c "import ensurepip, setuptools, wheel" >/dev/null 2>&1; then
	echo "python_package: skipped the install: $py lacks venv, setuptools or wheel" \
		"(apt-get install python3-venv python3-setuptools python3-wheel)"
	[ "$fail" -eq 0 ] && exit 77
	finish python_package
fi
cp -r "$root/src/python" "$tmp/src" # pip builds in the source folder: keep the checkout's clean
$py -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.out" 2>&1 \
	&& "$tmp/venv/bin/python" -m pip install -q --no-deps --no-build-isolation --no-index "$tmp/src" >>"$tmp/venv.out" 2>&1 \
	&& ok || { bad "pip install ./src/python"; tail -20 "$tmp/venv.out" >&2; finish python_package; }
vpy=$tmp/venv/bin/python
where=$(cd "$tmp" && "${clean_env[@]}" "$vpy" -c "import shardcheck, os; print(os.path.dirname(shardcheck.__file__))")
case $where in
"$tmp/venv/lib/"*/site-packages/shardcheck) ok ;;
*) bad "the installed package imports from '$where'" ;;
esac
mkdir -p "$tmp/proj" && cp "$root/$example" "$tmp/proj/"
(cd "$tmp/proj" && env -u PYTHONPATH -u SHARDCHECK_BIN PATH="$(dirname "$sc"):$PATH" \
	"$vpy" -m pytest -p no:cacheprovider test_ulysses_layout.py) >"$tmp/installed.out" 2>&1
outcome "installed (entry point)" "$tmp/installed.out" test_ulysses_layout.py
grep -q "^plugins: .*shardcheck-0.1.0" "$tmp/installed.out" && ok || bad "installed: pytest does not list the plugin"
# installed and loaded again by the checkout's conftest, and by -p: once
(cd "$root" && "${clean_env[@]}" "$vpy" -m pytest -p no:cacheprovider -p shardcheck.pytest_plugin \
	"$example") >"$tmp/twice.out" 2>&1
outcome "installed, with the conftest and -p" "$tmp/twice.out" "$example"
finish python_package
