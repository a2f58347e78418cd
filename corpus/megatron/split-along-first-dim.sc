# Megatron-LM sequence parallelism: scatter to the sequence-parallel region
# is a rank-indexed slice of a replicated activation, no communication.
# NVIDIA/Megatron-LM @ core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133),
# megatron/core/tensor_parallel/mappings.py L56-77, _split_along_first_dim
# (forward of _ScatterToSequenceParallelRegion, L276-293):
#   dim_size = input_.size()[0]
#   assert (
#       dim_size % world_size == 0
#   ), "First dimension of the tensor should be divisible by tensor parallel size"
#   local_dim_size = dim_size // world_size
#   rank = group.rank()
#   dim_offset = rank * local_dim_size
#   output = input_[dim_offset : dim_offset + local_dim_size].contiguous()
pipeline megatron-split-along-first-dim
dims s b h
input replicate
output shard s
expect pass
assert size(0) % P == 0                       # dim_size % world_size == 0
narrow 0 rank*(size(0)//P) size(0)//P         # input_[dim_offset : dim_offset + local_dim_size]
contiguous
