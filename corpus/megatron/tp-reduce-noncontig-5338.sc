# Megatron-LM's tensor-parallel all-reduce helper `_reduce` as PR #5338
# ("fix(tensor_parallel): _reduce returns unreduced tensor for
# non-contiguous input", fixes issue #5337) fixes it: the contiguous tensor
# is kept, reduced in place and returned, so a non-contiguous input (here a
# transposed view of the rank's partial sum, as in NovaSky-AI/SkyRL PR
# #1886's backward through copy_to_tensor_model_parallel_region) comes back
# reduced. Each TP rank holds a partial sum T_r; every rank must end with
# X = sum_r T_r.
#
# NVIDIA/Megatron-LM @ 60f338a9cd328e71b272c42d6723ebeabb51fef3,
# megatron/core/tensor_parallel/mappings.py lines 22-39:
#     if group.size() == 1:
#         return input_
#     input_ = input_.contiguous()
#     torch.distributed.all_reduce(input_, group=group)
#     return input_
# Before: NVIDIA/Megatron-LM @ adfe9e11d93f803eaac097c5cc09ea88e45e5a0d,
# tp-reduce-noncontig-before-5338.sc (all_reduce(input_.contiguous()),
# return input_).
#
# The transpose step stands for the caller handing over a transposed view.
# `require s >= 2 and h >= 2` keeps the pair on the same cases (the fix is
# correct for every size; without the require it passes too). World 1 (the
# early return) is the identity. Left out: the autograd.Function wrappers
# and the `assert group is not None`.
#
# Expected PASS (500 cases; exhaustive world 1..3, dims <= 3: 144 cases).
#
# Confirmed on gloo (torch 1.13.0a0 and torch 2.11.0+cu130):
# `_reduce` verbatim from both
# commits, worlds 2, 3, 4, 56 cases each: "after: 56 cases, 0 differ" for
# every world and torch version (before: 36 of 56 differ, all with
# s, h >= 2, smallest s=2 h=2).
pipeline megatron-tp-reduce-noncontig-5338
dims s h
input partial sum
output replicate as h s
require s >= 2 and h >= 2
expect pass
tensor x = input
x = transpose x 0 1
x = contiguous x
x = all_reduce x sum
