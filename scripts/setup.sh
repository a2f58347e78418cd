#!/usr/bin/env bash
# Installs what a build needs when it is missing (Debian 12), then configures
# and builds. Usage: scripts/setup.sh [PRESET [TARGET...]] [--install PREFIX]
#   PRESET   a configure preset of CMakePresets.json (default: default)
#   TARGET   what to build (default: everything, tests included)
#   PREFIX   then `cmake --install` there: PREFIX/bin/shardcheck (put
#            PREFIX/bin on PATH; ~/.local/bin usually is), the
#            backend libraries in PREFIX/lib, the Python module in PREFIX/share
# One line per step goes to standard error; the output of apt-get, cmake and
# the compiler goes to build/logs/setup.log, whose tail is shown when a step
# fails. SC_VERBOSE=1 shows it all as it happens.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--install)
		[ $# -ge 2 ] && [ -n "$2" ] || { echo "setup: --install needs a PREFIX (e.g. --install ~/.local)" >&2; exit 2; }
		prefix=$2
		shift 2
		;;
	--install=*) prefix=${1#--install=}; shift ;;
	-h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "setup: unknown option '$1' (usage: scripts/setup.sh [PRESET [TARGET...]] [--install PREFIX])" >&2; exit 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
preset=${args[0]:-default}
targets=("${args[@]:1}")
mkdir -p build/logs
log=build/logs/setup.log
: >"$log"

say() { printf 'setup: %s\n' "$*" >&2; }
# step TITLE CMD...: runs CMD with its output in the log; on failure shows
# the last lines of the log and stops with CMD's status.
step() {
	local title=$1 t0=$SECONDS rc=0
	shift
	printf 'setup: %s ... ' "$title" >&2
	printf '\n### %s\n$ %s\n' "$title" "$*" >>"$log"
	if [ "${SC_VERBOSE:-0}" = 1 ]; then
		echo >&2
		"$@" 2>&1 | tee -a "$log" >&2 || rc=${PIPESTATUS[0]}
	else
		"$@" >>"$log" 2>&1 || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		echo "failed (exit $rc); the last lines of $log:" >&2
		tail -n 25 "$log" | sed 's/^/  | /' >&2
		exit "$rc"
	fi
	echo "done ($((SECONDS - t0)) s)" >&2
}

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
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		say "missing ${need[*]}; install them (as root: apt-get install ${need[*]})"
		exit 2
	fi
	export DEBIAN_FRONTEND=noninteractive
	step "apt-get update" apt-get update -q
	updated=1
	step "installing ${need[*]}" apt-get install -y -q "${need[@]}"
fi
# optional Debian packages a caller asks for (scripts/test.sh: the PyTorch
# reference); when they cannot be installed the build goes on without them
if [ -n "${SC_OPTIONAL_PACKAGES:-}" ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		say "optional $SC_OPTIONAL_PACKAGES not installed (needs root and apt-get)"
	else
		export DEBIAN_FRONTEND=noninteractive
		# shellcheck disable=SC2086
		if ! ( [ -n "${updated:-}" ] || step "apt-get update" apt-get update -q ) ||
			! ( step "installing $SC_OPTIONAL_PACKAGES" apt-get install -y -q $SC_OPTIONAL_PACKAGES ); then
			say "optional $SC_OPTIONAL_PACKAGES could not be installed; going on without them"
		fi
	fi
fi
step "configuring (preset $preset, log $log)" cmake --preset "$preset"
if [ ${#targets[@]} -gt 0 ]; then
	step "building ${targets[*]}" cmake --build --preset "$preset" -j"$(nproc)" --target "${targets[@]}"
else
	step "building everything" cmake --build --preset "$preset" -j"$(nproc)"
fi
if [ -n "$prefix" ]; then
	# the preset's binaryDir (inherited where it names none)
	bindir=$(python3 - "$preset" <<'PY'
import json, sys
ps = {p["name"]: p for p in json.load(open("CMakePresets.json"))["configurePresets"]}
p = ps[sys.argv[1]]
while "binaryDir" not in p and p.get("inherits"):
    p = ps[p["inherits"] if isinstance(p["inherits"], str) else p["inherits"][0]]
print(p.get("binaryDir", "${sourceDir}/build").replace("${sourceDir}/", ""))
PY
)
	step "installing into $prefix" cmake --install "$bindir" --prefix "$prefix"
	case ":$PATH:" in
	*":$prefix/bin:"*) say "shardcheck is $prefix/bin/shardcheck" ;;
	*) say "shardcheck is $prefix/bin/shardcheck; put $prefix/bin on PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
	esac
fi
