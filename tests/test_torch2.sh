#!/usr/bin/env bash
# The torch suites against a current PyTorch 2.x, beside Debian's 1.13 that
# the other torch suites use: shardcheck follows each torch's rules where
# versions differ (--torch, docs/language.md "Torch versions"), and every
# step must match both. The 2.x python is $SC_TORCH2_PYTHON, else the one
# scripts/torch2-venv.sh made; skipped (77) when there is none.
# `--trace` runs the trace suite alone (minutes: a ctest of its own, in the
# builds without sanitizers).
# Usage: test_torch2.sh PATH/TO/shardcheck PATH/TO/sc_stepdump PATH/TO/sc_computedump
#        test_torch2.sh --trace PATH/TO/shardcheck
set -u
only=
if [ "${1:-}" = --trace ]; then only=trace; shift; fi
sc=$1 stepdump=${2:-} computedump=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
py=${SC_TORCH2_PYTHON:-$HOME/.cache/shardcheck/torch2/bin/python}
if ! "$py" -c "import torch, numpy; assert int(torch.__version__.split('.')[0]) >= 2" >/dev/null 2>&1; then
	echo "torch2: skipped: no python with torch 2.x ($py); scripts/torch2-venv.sh makes one from PyPI"
	exit 77
fi
echo "torch2: $("$py" -c 'import torch; print("torch", torch.__version__)') at $py"
fail=0
run() {
	echo "== $*"
	"$py" "$here/$@" || { echo "torch2: FAILED: $*"; fail=1; }
}
if [ "$only" = trace ]; then
	run test_trace.py "$sc"
	[ "$fail" -eq 0 ] && echo "torch2: the trace suite passed" || echo "torch2: the trace suite failed"
	exit "$fail"
fi
run test_torch_ref.py "$stepdump"
run test_torch_compute.py "$computedump" 150
run test_torch_layout.py "$sc" 100
run test_torch_mesh.py "$sc" 100
run test_torch_steps.py "$sc" 400
run test_torch_dist.py "$sc" 100
[ "$fail" -eq 0 ] && echo "torch2: every suite passed" || echo "torch2: some suites failed"
exit "$fail"
