#!/usr/bin/env bash
# Runs a PyTorch differential test (tests/SCRIPT.py) with whichever python
# has torch; exits 77 (skipped) when none does.
# Usage: test_torch_ref.sh SCRIPT.py ARGS...
here=$(cd "$(dirname "$0")" && pwd)
script=$1
shift
for py in /usr/bin/python3 python3; do
	if "$py" -c "import torch, numpy" >/dev/null 2>&1; then
		exec "$py" "$here/$script" "$@"
	fi
done
echo "torch_reference: skipped: no python3 with torch and numpy (Debian: apt-get install python3-torch python3-numpy)"
exit 77
