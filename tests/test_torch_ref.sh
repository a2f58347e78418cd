#!/usr/bin/env bash
# Runs the PyTorch differential test with whichever python has torch;
# exits 77 (skipped) when none does.
here=$(cd "$(dirname "$0")" && pwd)
for py in /usr/bin/python3 python3; do
	if "$py" -c "import torch" >/dev/null 2>&1; then
		exec "$py" "$here/test_torch_ref.py" "$@"
	fi
done
echo "torch_reference: skipped: no python3 with torch (Debian: apt-get install python3-torch)"
exit 77
