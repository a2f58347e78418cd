#!/usr/bin/env bash
# Builds everything (warnings are errors) in build/, the folder the main job
# uses too, and runs every test suite. As root on Debian it also installs
# python3-torch (with numpy, and pytest for the trace suite's plugin
# example), the reference the interpreter is compared against, and what
# the Python package's suite installs it with (venv, setuptools, wheel);
# without them those suites report skipped. Install and build output goes to
# build/logs/setup.log; ctest's output follows.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c "import torch, numpy, pytest, ensurepip, setuptools, wheel" >/dev/null 2>&1; then
	export SC_OPTIONAL_PACKAGES="python3-torch python3-numpy python3-pytest python3-venv python3-setuptools python3-wheel"
fi
scripts/setup.sh default
# a current torch 2.x beside Debian's 1.13 for the torch2 suite
# (SC_TORCH2=1: made from PyPI when missing, about 5 GB; else skipped)
if [ "${SC_TORCH2:-0}" = 1 ]; then
	if py=$(scripts/torch2-venv.sh 2>>build/logs/setup.log); then
		export SC_TORCH2_PYTHON=$py
	else
		echo "test: torch 2.x could not be installed (build/logs/setup.log): the torch2 suite is skipped" >&2
	fi
fi
n=$(ctest --preset default -N | sed -n 's/^Total Tests: //p')
echo "test: running ${n:-all} suites on $(nproc) cores; about 5 minutes on 2 cores, the longest (trace, docs) 1 to 2 minutes each" >&2
ctest --preset default -j"$(nproc)"
