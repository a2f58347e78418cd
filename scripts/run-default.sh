#!/usr/bin/env bash
# The main job on the embedded default: every built-in transform and the
# seed-bug corpus on the sim backend, with a report under reports/latest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default
exec ./build/shardcheck check builtin:all corpus/ --report reports/latest "$@"
