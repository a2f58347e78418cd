#!/usr/bin/env bash
# The gate on the user's own CUDA kernels (label gpu; skipped, 77, where no
# GPU is visible or the build has no CUDA example plugins). On --backend
# cuda a transform that accepts device memory gets its buffers on the GPU
# and the rank's stream, in a process with a CUDA context of its own:
#   - the example Ulysses all-to-all + unpack kernel passes every property;
#     DeepSpeed's layout before PR 5664 fails, shrunk to two ranks;
#   - a write past the output (guard zone), an illegal address and a failed
#     assert in a kernel fail, named; the sticky errors replace the process,
#     so shrinking (passes on a clean context) reaches the minimal case;
#   - a kernel that never returns is a timeout failure, and the GPU serves
#     the next run;
#   - a kernel wrong only after its first call (a plan cache keyed on the
#     element count, not the dtype) fails, named as such;
#   - a host-only transform on cuda is staged through host memory, and a
#     device-only one on nccl is refused (exit 2) with the way to run it;
#   - --sanitize memcheck attaches compute-sanitizer's report of the
#     overrun's minimal case (where the tool is installed).
# Usage: test_gate_gpu.sh PATH/TO/shardcheck EXAMPLES_DIR
set -u
. "$(dirname "$0")/testlib.sh"
ex=$2
if ! "$sc" list 2>/dev/null | grep -q "^  cuda *available"; then
	echo "gate_gpu: skipped: $("$sc" list 2>/dev/null | grep '^  cuda' | sed 's/^  cuda *//')"
	exit 77
fi
if [ ! -f "$ex/libcuda_faulty.so" ]; then
	echo "gate_gpu: skipped: no CUDA example plugins in this build"
	exit 77
fi
gate() { # want_rc name args...
	local want=$1 name=$2; shift 2
	local t0=$SECONDS
	"$sc" gate --backend cuda "$@" >"$tmp/$name.out" 2>&1
	local rc=$?
	echo "gate_gpu: $name: exit $rc in $((SECONDS - t0)) s"
	[ $rc -eq "$want" ] && ok || { bad "$name: exit $rc, want $want"; tail -25 "$tmp/$name.out" >&2; }
}
has() { grep -qE -- "$2" "$tmp/$1.out" && ok || { bad "$1: '$2' not in the output"; tail -25 "$tmp/$1.out" >&2; }; }
hasnt() { grep -qE -- "$2" "$tmp/$1.out" && { bad "$1: '$2' in the output"; grep -E -- "$2" "$tmp/$1.out" | head -5 >&2; } || ok; }

# right: every property, worlds 1..8 on the one GPU, device memory named
gate 0 h2s --plugin "$ex/libcuda_heads_to_seq.so" --cases 200
has h2s "^note: on cuda, device memory for cuda_heads_to_seq$"
has h2s "^note: each process that runs a plugin's ranks on the GPU has a CUDA context of its own"
has h2s "^([0-9]+) checks: \1 pass"
# DeepSpeed before PR 5664: batch and heads interleaved, two ranks needed
gate 1 pre5664 --plugin "$ex/libcuda_heads_to_seq_pre5664.so" --cases 200 --property semantics
has pre5664 "minimal case: world=2 s=2 b=2 h=2 d=1 "
# a write past the output, into its guard zone, named to the byte
gate 1 overrun --plugin "$ex/libcuda_faulty.so" cuda_overrun --cases 50 --property semantics
has overrun "rank 0 wrote past the end of its output in device memory \([0-9]+ bytes\): first changed byte at \+0"
has overrun "minimal case: world=1 n=1 "
# --sanitize memcheck: the overrun's minimal case again under the tool,
# with exactly allocated buffers, so memcheck names the write
if command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
	gate 1 sanitize --plugin "$ex/libcuda_faulty.so" cuda_overrun --cases 20 --property semantics --sanitize memcheck
	has sanitize "compute-sanitizer memcheck, the minimal case run again under it: [1-9][0-9]* errors?"
	has sanitize "Invalid __global__ write of size"
fi
# sticky errors: the case fails naming the CUDA error; each replaces the
# process, so the passing candidates of the shrink run on clean contexts
gate 1 illegal --plugin "$ex/libcuda_faulty.so" cuda_illegal --cases 50 --property semantics
has illegal "CUDA error in the device work of the ranks: .*illegal memory access"
has illegal "minimal case: world=1 n=2 "
hasnt illegal "^ERROR"
gate 1 assert --plugin "$ex/libcuda_faulty.so" cuda_assert --cases 50 --property semantics
has assert "CUDA error in the device work of the ranks: .*assert"
has assert "minimal case: world=1 n=4 "
hasnt assert "^ERROR"
# a kernel that never returns: a timeout failure, then the GPU serves on
gate 1 hang --plugin "$ex/libcuda_faulty.so" cuda_hang --cases 3 --property semantics --timeout 3
has hang "the plugin hung: no result after [0-9]+ s \(every rank returned, and the device work they queued did not finish"
gate 0 after_hang --plugin "$ex/libcuda_heads_to_seq.so" --cases 50 --property semantics
# wrong only after a call of another dtype with the same element count
gate 1 plan --plugin "$ex/libcuda_faulty.so" cuda_plan --cases 300 --property semantics
has plan "fails only after [0-9]+ earlier calls? in the same process"
# a host-only transform on cuda: host buffers, as the note says
gate 0 hostonly --plugin "$ex/libheads_to_seq.so" --cases 50
has hostonly "^note: on cuda, host memory for heads_to_seq \(transforms that do not accept device memory\)$"
# device-only on nccl: refused, pointing at cuda
if "$sc" list | grep -q "^  nccl *available"; then
	"$sc" gate --backend nccl --world 1..1 --plugin "$ex/libcuda_heads_to_seq.so" --cases 5 --property semantics >"$tmp/nccl.out" 2>&1
	[ $? -eq 2 ] && ok || bad "nccl: a device-only transform should be refused (exit 2)"
	has nccl "gate it with --backend cuda"
fi
finish gate_gpu
