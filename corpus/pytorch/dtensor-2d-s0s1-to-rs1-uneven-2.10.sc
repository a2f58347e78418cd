# The same DTensor 2-D redistribute as dtensor-2d-s0s1-to-rs1-uneven.sc,
# [Shard(0), Shard(1)] -> [Replicate(), Shard(1)] with sizes the mesh does
# not divide, on torch 2.10, where F.pad (aten constant_pad_nd) pads a tensor
# whose covered dims are empty (docs/language.md, "Torch versions": pad-empty).
# pytorch/pytorch v2.10.0 = 449b1768410104d3ed79d3bcfe4ba1d65c7f22c0 (torch 2.10.0 wheel):
# torch/distributed/tensor/placement_types.py L292-318, Shard._to_replicate_tensor:
#   num_chunks = mesh.size(mesh_dim=mesh_dim)
#   logical_dim_size = current_logical_shape[self.dim]
#   local_tensor = self._maybe_pad_tensor(local_tensor, logical_dim_size, num_chunks)
#   result = funcol.all_gather_tensor(local_tensor, gather_dim=self.dim, group=(mesh, mesh_dim))
#   result = self._maybe_unpad_tensor(result, logical_dim_size, num_chunks)
# L258-274 _maybe_pad_tensor:
#   is_padded = logical_dim_size % num_chunks != 0
#   if is_padded:
#       full_chunk_size = (logical_dim_size + num_chunks - 1) // num_chunks
#       pad_size = full_chunk_size - local_tensor.size(self.dim)
#       local_tensor = pad_tensor(local_tensor, self.dim, pad_size)
#   if not local_tensor.is_contiguous(): local_tensor = local_tensor.contiguous()
# L276-290 _maybe_unpad_tensor: if is_padded:
#   unpad_size = full_chunk_size * num_chunks - logical_dim_size; unpad_tensor(local_tensor, self.dim, unpad_size)
# _collective_utils.py L175-180 pad_tensor (unchanged since 2.5.1):
#   pad = [0, 0] * (tensor.ndim - pad_dim); pad[-1] = pad_size; torch.nn.functional.pad(tensor, pad)
# L184-191 unpad_tensor: tensor.narrow(pad_dim, start=0, length=tensor.size(pad_dim) - pad_size)
# Real torch 2.10.0 on gloo ranks, D=2 T=2: equal to torch.chunk(X, 2, 1)[tp]
# on every rank for a = 1..3, b = 1..2, including a=1 b=1 and a=3 b=1, where
# 2.9.1 raised (rank 3 pads a [0, 0] tensor).
pipeline dtensor-2d-s0s1-to-rs1-uneven-2.10
mesh dp=D tp=T
dims a b
input dp:shard a chunk tp:shard b chunk
output tp:shard b chunk
expect pass
torch 2.10                        # F.pad pads the empty [0, 0] tensor (pad-empty, from 2.10)
pad 0 0 cdiv(a,D)-size(0)         # _maybe_pad_tensor: pad_tensor(local_tensor, 0, full_chunk_size - local size) (F.pad [0, 0, 0, pad])
contiguous                        # if not local_tensor.is_contiguous()
all_gather_into_tensor group=dp   # funcol.all_gather_tensor(local_tensor, gather_dim=0, group=(mesh, 0))
narrow 0 0 a                      # _maybe_unpad_tensor: unpad_tensor(result, 0, full_chunk_size * num_chunks - logical_dim_size)
