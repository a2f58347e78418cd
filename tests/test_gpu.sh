#!/bin/sh
# GPU tests (label gpu). Skipped (77) where no GPU is visible.
#   1. the corpus and builtin:all on cuda: the same verdicts and minimal
#      cases as sim (same seed);
#   2. the same on nccl, worlds up to the number of GPUs;
#   3. large cases on cuda: a 2 GiB bf16 [s, b, h, d] DeepSpeed all-to-all
#      (must pass) and PR 5664's fix at 2^31 i8 elements, where 32-bit
#      indices overflow (must fail, with its first wrong element);
#   4. compute-sanitizer memcheck over builtin:all on cuda, when installed.
# Usage: test_gpu.sh SHARDCHECK
set -u
sc=$1
here=$(dirname "$0")
probe=$("$sc" check builtin:all_to_all --backend cuda --cases 1 -q 2>&1)
if [ $? -eq 2 ]; then
	echo "gpu: skipped: $probe"
	exit 77
fi
fail=0
step() { echo "== $*"; }

step "1. corpus and builtins: cuda against sim"
"$here/test_backends.sh" "$sc" cuda 200 || fail=1

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] || ngpu=1
step "2. corpus and builtins: nccl against sim, worlds 1..$ngpu"
# nccl holds one rank per GPU: the corpus's case files pin worlds up to 8,
# so with fewer GPUs only its specs (and the built-ins) are compared
targets="corpus builtin:all"
[ "$ngpu" -ge 8 ] || targets="$(find corpus -name '*.sc' | sort) builtin:all"
# shellcheck disable=SC2086
"$here/test_backends.sh" "$sc" nccl 100 "1..$ngpu" $targets
rc=$?
if [ $rc -eq 77 ] && "$sc" list | grep -q '^  nccl *available'; then
	echo "FAIL: nccl is compiled in and a GPU is visible, yet nccl could not run"
	fail=1
elif [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
	fail=1
fi

step "3. large cases on cuda"
out=$("$sc" eval corpus/deepspeed/sf-seq2head.sc --backend cuda --world 8 \
	--sizes s=32768,b=4,h=64,d=128 --dtype bf16 --case-memory 65536 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: the 2 GiB bf16 all-to-all should pass (exit $rc)"; fail=1; }
out=$("$sc" eval corpus/deepspeed/sf-head2seq-after-5664.sc --backend cuda --world 8 \
	--sizes s=65536,b=4,h=64,d=128 --dtype i8 --case-memory 65536 2>&1)
rc=$?
echo "$out" | head -8
if [ $rc -ne 1 ] || ! echo "$out" | grep -q "holds X\["; then
	echo "FAIL: PR 5664's fix at 2^31 elements should fail with its first wrong element (exit $rc)"
	fail=1
fi

step "4. compute-sanitizer memcheck"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$cs" ]; then
	"$cs" --tool memcheck --error-exitcode 9 "$sc" check builtin:all corpus/deepspeed --backend cuda \
		--cases 30 --seed 3 -q >/tmp/sc-memcheck.$$ 2>&1
	rc=$?
	tail -5 /tmp/sc-memcheck.$$
	rm -f /tmp/sc-memcheck.$$
	[ $rc -ne 9 ] || { echo "FAIL: memcheck reported errors"; fail=1; }
else
	echo "compute-sanitizer not installed: memcheck not run"
fi
[ $fail -eq 0 ] && echo "gpu: all passed"
exit $fail
