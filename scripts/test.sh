#!/usr/bin/env bash
# Builds with warnings as errors and runs every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh ci
ctest --preset ci -j"$(nproc)"
