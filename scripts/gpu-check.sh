#!/usr/bin/env bash
# On a GPU machine: builds shardcheck with CUDA and NCCL, runs the gpu tests
# (ctest -L gpu) and the GPU benchmarks, and logs everything with elapsed
# times. NCCL is taken from NCCL_HOME, the CUDA toolkit, or the Python wheel
# nvidia-nccl (as PyTorch installs it). Usage: scripts/gpu-check.sh [BUILD_DIR]
# Environment: SC_GPU_STEPS (default "gate kernels backends bench": which
# steps run after the build), SC_GPU_TEST_TIMEOUT (seconds for the backend
# tests, 300), SC_GPU_BENCH_CASES (5000) and SC_GPU_BENCH_TIMEOUT (150).
set -u
b=${1:-build}
steps=" ${SC_GPU_STEPS:-gate kernels backends bench} "
want() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - t0)) s] $*"; }
stamp machine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nvcc --version | tail -2
gcc --version | head -1
cmake --version | head -1
if [ -z "${NCCL_HOME:-}" ]; then
	for d in /usr/local/cuda /usr \
		$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null); do
		[ -f "$d/include/nccl.h" ] && { NCCL_HOME=$d; break; }
	done
fi
nccl=()
if [ -n "${NCCL_HOME:-}" ]; then
	lib=$(ls "$NCCL_HOME"/lib/libnccl.so "$NCCL_HOME"/lib/libnccl.so.2 \
		"$NCCL_HOME"/lib/x86_64-linux-gnu/libnccl.so* 2>/dev/null | head -1)
	echo "NCCL: $NCCL_HOME (${lib:-no library})"
	[ -n "$lib" ] && nccl=(-DSC_NCCL_INCLUDE="$NCCL_HOME/include" -DSC_NCCL_LIBRARY="$lib")
	export LD_LIBRARY_PATH=$(dirname "${lib:-/}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
stamp configure
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${nccl[@]}" | grep shardcheck || exit 1
stamp build
cmake --build "$b" -j "$(nproc)" >"$b.log" 2>&1 || { tail -40 "$b.log"; exit 1; }
"$b/shardcheck" list | sed -n '/^backends:/,$p'
if want gate; then
	stamp "the gate on CUDA plugins"
	(cd "$b" && timeout 240 ctest -R gate_gpu -V | sed 's/^[0-9]*: //')
fi
if want kernels; then
	stamp "gpu kernels"
	(cd "$b" && timeout 120 ctest -R gpu_kernels --output-on-failure)
fi
if want backends; then
	stamp "gpu backends"
	(cd "$b" && timeout "${SC_GPU_TEST_TIMEOUT:-300}" ctest -R gpu_backends -V | sed 's/^[0-9]*: //')
fi
if want bench; then
	stamp "gpu benchmarks"
	timeout "${SC_GPU_BENCH_TIMEOUT:-150}" bench/bench_gpu.sh "${SC_GPU_BENCH_CASES:-5000}" "$b"
fi
stamp done
