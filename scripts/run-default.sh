#!/usr/bin/env bash
# The main job on the embedded default: every built-in transform and the
# seed-bug corpus on the sim backend, with a report under reports/latest.
# Builds only the shardcheck binary (in build/, which scripts/test.sh shares);
# install and build output goes to build/logs/setup.log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default shardcheck
echo >&2
exec ./build/shardcheck check builtin:all corpus/ --report reports/latest "$@"
