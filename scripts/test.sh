#!/usr/bin/env bash
# Builds with warnings as errors and runs every test suite. As root on
# Debian it also installs python3-torch (with numpy; pytest for the trace
# suite's plugin example), the reference the
# interpreter is compared against; without it that suite reports skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c "import torch, numpy, pytest" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] \
	&& command -v apt-get >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q python3-torch python3-numpy python3-pytest ||
		echo "test.sh: python3-torch could not be installed; the torch_reference suite will be skipped" >&2
fi
scripts/setup.sh ci
ctest --preset ci -j"$(nproc)"
