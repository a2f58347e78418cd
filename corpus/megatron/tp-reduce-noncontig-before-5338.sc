# Megatron-LM's tensor-parallel all-reduce helper `_reduce` before PR #5338
# ("fix(tensor_parallel): _reduce returns unreduced tensor for
# non-contiguous input", fixes issue #5337). `_reduce` backs
# reduce_from_tensor_model_parallel_region (forward) and
# copy_to_tensor_model_parallel_region (backward, the dgrad all-reduce of a
# column-parallel layer without sequence parallelism). Each TP rank holds a
# partial sum T_r; every rank must end with X = sum_r T_r. Before the fix
# the all-reduce runs on `input_.contiguous()` and the function returns
# `input_`: when `input_` is contiguous, .contiguous() is `input_` itself
# and the reduction lands in place; when it is not, .contiguous() is a
# fresh copy, the copy is reduced and dropped, and every rank gets its own
# unreduced partial back.
#
# NVIDIA/Megatron-LM @ adfe9e11d93f803eaac097c5cc09ea88e45e5a0d (parent of
# the fix), megatron/core/tensor_parallel/mappings.py lines 22-35:
#     if group.size() == 1:
#         return input_
#     torch.distributed.all_reduce(input_.contiguous(), group=group)
#     return input_
# NVIDIA/Megatron-LM @ 60f338a9cd328e71b272c42d6723ebeabb51fef3 (the fix) is
# tp-reduce-noncontig-5338.sc.
#
# The caller: the input reaches `_reduce` as a transposed view of the rank's
# partial ([s, h] -> [h, s]), which is non-contiguous. Megatron's own call
# paths pass contiguous tensors (issue #5337 says so); the path that was hit
# in practice is NovaSky-AI/SkyRL PR #1886 (fused LM head): the backward of
# copy_to_tensor_model_parallel_region receives the gradient of a
# `.transpose(0, 1)`, a transposed view, and trained on unreduced dgrads
# with TP > 1 and sequence_parallel off. The transpose step stands for that
# caller; `y = narrow x 0 0 size(0)` (a full-length view, an identity) only
# makes the returned `input_` the spec's output, since the output is the
# last named tensor.
#
# `require s >= 2 and h >= 2`: shardcheck's named tensors do not alias, so
# `c = contiguous x` is always modelled as a separate tensor; in PyTorch a
# transposed [s, h] with s == 1 or h == 1 is still contiguous, .contiguous()
# returns it, and the pre-fix code is then correct (in place). Without the
# require, shardcheck reports a failure at world=2 s=1 h=1 that the real
# code does not have (gloo: all 20 such cases per world agree). World 1
# (the `group.size() == 1` early return) needs no step: an all-reduce over
# one rank is the identity. Left out: the autograd.Function wrappers, the
# `assert group is not None`.
#
# Expected FAIL. Minimal case: world=2 s=2 h=2 (dtype i32, seed 0):
#   rank 0 [1, 0] holds 1, expected X[0, 1] = 0
#   replay: shardcheck eval corpus/megatron/tp-reduce-noncontig-before-5338.sc --world 2
#           --sizes s=2,h=2 --dtype i32 --seed 0
#
# Confirmed on gloo (torch 1.13.0a0 and torch 2.11.0+cu130):
# a script runs `_reduce` extracted
# verbatim from both commits (git show, nothing stubbed) on 56 cases (s, h
# in 1..4 exhaustively plus 40 drawn in 1..9), worlds 2, 3 and 4, input
# T_r.transpose(0, 1), expected X.transpose(0, 1) on every rank. It printed,
# for each world and both torch versions, "before: 56 cases, 36 differ
# (with s,h>=2: 36 cases, 36 differ); smallest differing: s=2 h=2" (all
# ranks) and "after: 56 cases, 0 differ". The 20 cases with s == 1 or
# h == 1 agree before the fix, as the require says.
pipeline megatron-tp-reduce-noncontig-before-5338
dims s h
input partial sum
output replicate as h s
require s >= 2 and h >= 2
expect fail
tensor x = input
x = transpose x 0 1
c = contiguous x
c = all_reduce c sum
y = narrow x 0 0 size(0)
