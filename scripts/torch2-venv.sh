#!/usr/bin/env bash
# A current PyTorch 2.x beside Debian's 1.13, for the torch suites to run
# against both (tests/test_torch2.sh): a virtual environment with torch
# (PyPI's wheel, about 5 GB with its CUDA libraries; the suites use its CPU
# side only), numpy and pytest. Prints the environment's python on stdout.
# Usage: scripts/torch2-venv.sh   (env SC_TORCH2_VENV: where, default
# ~/.cache/shardcheck/torch2; SC_TORCH2_VERSION: which, default 2.11.0)
set -euo pipefail
venv=${SC_TORCH2_VENV:-$HOME/.cache/shardcheck/torch2}
version=${SC_TORCH2_VERSION:-2.11.0}
py=$venv/bin/python
if "$py" -c "import torch, numpy, pytest; assert torch.__version__.startswith('$version')" >/dev/null 2>&1; then
	echo "$py"
	exit 0
fi
echo "torch2-venv: installing torch $version from PyPI into $venv (a few minutes)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
/usr/bin/python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "torch==$version" numpy pytest >&2
"$py" -c "import torch; print('torch2-venv: torch', torch.__version__, file=__import__('sys').stderr)"
echo "$py"
