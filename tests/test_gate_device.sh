#!/usr/bin/env bash
# Transforms that accept device memory, gated on emu (the cuda backend's
# device path on the CPU, whose device memory faults when the host touches
# it): they get device pointers (a host read of one crashes), the
# collectives table moves and reduces in device memory, what they leave
# unwritten or write past their output is caught (guard zones, named to the
# byte), and the header says which memory each gets. A device-only
# transform on a host backend, and an unknown memory bit, are refused
# (exit 2). Usage: test_gate_device.sh PATH/TO/shardcheck HOSTILE_DIR EXAMPLES_DIR
set -u
. "$(dirname "$0")/testlib.sh"
lib=$2/libdevice.so
examples=$3
if ! "$sc" list 2>/dev/null | grep -q "^  emu *available"; then
	echo "gate_device: skipped: no emu backend in this build"
	exit 77
fi
gate() { # want_rc name args...
	local want=$1 name=$2; shift 2
	"$sc" gate "$@" >"$tmp/$name.out" 2>&1
	local rc=$?
	[ $rc -eq "$want" ] && ok || { bad "$name: exit $rc, want $want"; tail -15 "$tmp/$name.out" >&2; }
}
has() { grep -qE -- "$2" "$tmp/$1.out" && ok || { bad "$1: '$2' not in the output"; tail -15 "$tmp/$1.out" >&2; }; }

# right: every property, worlds 1..8, device memory named in the header
gate 0 gather --plugin "$lib" gather gather_dev --backend emu --cases 200
has gather "^note: on emu, device memory for gather, gather_dev$"
has gather "8 checks: 8 pass"
# reductions in device memory; their contracts declare the integer dtypes
# (a float maximum drops a NaN's payload), and the dtype property keeps to them
gate 0 reduce --plugin "$lib" max scatter --backend emu --cases 300
has reduce "8 checks: 8 pass"
# a `partial sum` contract: the all_reduce passes on sim and on emu, a max
# in its place fails (a plugin's reductions are judged on their values)
for be in sim emu; do
	gate 0 sum$be --plugin "$lib" sum --backend $be --cases 300
	has sum$be "3 checks: 3 pass"
	gate 1 summax$be --plugin "$lib" sum_max --backend $be --cases 300 --property semantics
	has summax$be "minimal case: world=2 "
done
# the pointers are device memory: the host touching them crashes
gate 1 touch --plugin "$lib" touch --backend emu --cases 20 --property semantics
has touch "minimal case: world=1 n=1 "
has touch "the plugin crashed: signal 11"
# an element left unwritten (every output bit starts set) ...
gate 1 short --plugin "$lib" gather_short --backend emu --cases 50
has short "semantics .*\(case"
has short "rank 0 output element \[0\] was never written"
# ... and a write past the output, into its guard zone, named to the byte
gate 1 over --plugin "$lib" gather_over --backend emu --cases 50 --property semantics
has over "rank 0 wrote past the end of its output in device memory \(4 bytes\): first changed byte at \+0"
has over "minimal case: world=1 n=1 dtype=i32 "
# its replay line names the backend (on sim a device-only transform is
# refused) and, run as printed, fails again
has over "replay: shardcheck gate --plugin .* gather_over --property semantics --world 1..1 --backend emu$"
replay=$(sed -n 's/^ *replay: shardcheck //p' "$tmp/over.out" | head -1)
# shellcheck disable=SC2086
"$sc" $replay >"$tmp/over_replay.out" 2>&1
[ $? -eq 1 ] && ok || { bad "over: the printed replay does not fail again"; tail -5 "$tmp/over_replay.out" >&2; }
# on a host backend: host memory for a transform that accepts both, a
# device-only one refused
gate 0 host --plugin "$lib" gather --cases 50
grep -q "^note:" "$tmp/host.out" && bad "host: a memory note on sim" || ok
gate 2 devonly --plugin "$lib" gather_dev --cases 5 --property semantics
has devonly "transform 'gather_dev' cannot run on sim: it accepts device memory only, which sim has not"
# the CUDA example plugins (built where nvcc is): they load, and declare
# device memory only, which sim has not
if [ -f "$examples/libcuda_heads_to_seq.so" ]; then
	for lib in cuda_heads_to_seq cuda_heads_to_seq_pre5664 cuda_faulty; do
		gate 2 "$lib" --plugin "$examples/lib$lib.so" --cases 5 --property semantics
		has "$lib" "cannot run on sim: it accepts device memory only, which sim has not"
	done
else
	echo "gate_device: no CUDA example plugins in this build (no CUDA compiler): their loading not checked"
fi
# a memory set with a bit no shardcheck knows: the library is refused
gate 2 badbit --plugin "$2/libdevice_bad.so" --cases 5
has badbit "transform 'memory_bad' declares memory 0x10: the known bits are host \(0x1\) and device \(0x2\)"
# a host-only transform on emu: host buffers, and the header says so
gate 0 hostonly --plugin "$examples/libheads_to_seq.so" --backend emu --cases 50
has hostonly "^note: on emu, host memory for heads_to_seq \(transforms that do not accept device memory\)$"
finish gate_device
