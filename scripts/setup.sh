#!/usr/bin/env bash
# Installs what a build needs when it is missing (Debian 12), then configures
# and builds. Usage: scripts/setup.sh [PRESET]   (default: default)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
# Open MPI for the mpi backend (a build without it still works: the backend
# then reports itself unavailable and its tests are skipped)
if [ "${SC_NO_MPI:-0}" != 1 ]; then
	command -v mpirun >/dev/null || need+=(openmpi-bin)
	[ -e /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || [ -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] \
		|| command -v mpicc >/dev/null || need+=(libopenmpi-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing ${need[*]}; run as root or install them" >&2
		exit 2
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q "${need[@]}"
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
