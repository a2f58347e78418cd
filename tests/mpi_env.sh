# Sourced by the scripts that run shardcheck under mpirun, with $sc set:
# skips (exit 77, saying why under the name $1) without mpirun or a build
# with the mpi backend; else sets what Open MPI needs on these machines.
if ! command -v mpirun >/dev/null || ! "$sc" list | grep -q "^  mpi *available"; then
	echo "$1: skipped: no mpirun or this build has no mpi backend (apt-get install openmpi-bin libopenmpi-dev)"
	exit 77
fi
if [ "$(id -u)" -eq 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# oversubscribed ranks must yield the core while they wait, or they spin
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# Open MPI keeps allocations until exit; under LeakSanitizer they are not ours
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
