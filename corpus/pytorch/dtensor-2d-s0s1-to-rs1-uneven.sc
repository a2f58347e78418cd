# DTensor 2-D redistribute [Shard(0), Shard(1)] -> [Replicate(), Shard(1)]
# with sizes the mesh does not divide (DTensor's torch.chunk shards): the
# dp all-gather pads every rank's rows to the full chunk first. Same code as
# dtensor-2d-s0s1-to-rs1.sc, now through the padding branch:
# pytorch/pytorch v2.5.1 = a8d6afb511a69687bbb2b7e88a3cf67917e1697e (torch 2.5.1 wheel):
# torch/distributed/tensor/placement_types.py L218-252, Shard._to_replicate_tensor:
#   logical_dim_size = current_logical_shape[self.dim]
#   is_padded = logical_dim_size % num_chunks != 0
#   if is_padded:
#       full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
#       pad_size = full_chunk_size - local_shape[self.dim]
#       local_tensor = pad_tensor(local_tensor, self.dim, pad_size)
#   if not local_tensor.is_contiguous(): local_tensor = local_tensor.contiguous()
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   if is_padded:
#       unpad_size = full_chunk_size * num_chunks - logical_dim_size
#       result = unpad_tensor(result, self.dim, unpad_size)
# _collective_utils.py L170-175, pad_tensor:
#   if pad_size == 0: return tensor
#   pad = [0, 0] * (tensor.ndim - pad_dim)
#   pad[-1] = pad_size
#   return torch.nn.functional.pad(tensor, pad)
# L178-185 unpad_tensor: tensor.narrow(pad_dim, start=0, length=tensor.size(pad_dim) - pad_size)
# Expected FAIL, found by simulation (not a reported issue): pad_tensor's F.pad
# list covers dim 1 as well (with zero widths), and F.pad (constant_pad_nd)
# refuses any covered dim of size 0. World 4 (D=2 T=2), a=1, b=1: rank 3
# (dp 1, tp 1) holds [0, 0], must pad 1 row, and raises "The input size 0,
# plus negative padding 0 and 0 resulted in a negative output size, which is
# invalid. Check dimension 1 of your input." Real torch 2.5.1:
# a run on gloo ranks (D=2 T=2 a=1 b=1). torch 2.4.0 does
# not fail there: its _gen_transform_infos decomposed Shard(1)->Shard(1) on
# mesh dim 1 into Shard(1)->Replicate->Shard(1) and gathered dim 1 first.
# Real torch 2.9.1 (git 5811a8d7da87, the same _to_replicate_tensor at
# placement_types.py L229-262) on gloo ranks, D=2 T=2: rank 3 raises in
# _to_replicate_tensor (L248) -> pad_tensor -> F.pad at a=1 b=1 and a=3 b=1;
# every other (a <= 3, b <= 2) is equal to torch.chunk(X, 2, 1)[tp].
# The failure is F.pad's (aten constant_pad_nd's) rule up to torch 2.9; from
# 2.10 F.pad pads an empty tensor (docs/language.md, "Torch versions"), so
# the spec names the version it transcribes.
pipeline dtensor-2d-s0s1-to-rs1-uneven
mesh dp=D tp=T
dims a b
input dp:shard a chunk tp:shard b chunk
output tp:shard b chunk
expect fail
torch 2.5                         # the version transcribed: F.pad's pad-empty rule of torch 2.9 and older
pad 0 0 cdiv(a,D)-size(0)         # pad_tensor(local_tensor, 0, full_chunk_size - local_shape[0]) (F.pad [0, 0, 0, pad])
contiguous                        # if not local_tensor.is_contiguous()
all_gather_into_tensor group=dp   # funcol.all_gather_tensor(local_tensor, gather_dim=0, group=(mesh, 0))
narrow 0 0 a                      # unpad_tensor(result, 0, full_chunk_size * num_chunks - logical_dim_size)
