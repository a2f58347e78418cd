# TransformerEngine context parallelism with cp_comm_type "a2a" (Ulysses
# style): q/k/v arrive in the zigzag layout along the sequence with all
# heads; one all_to_all_single trades heads for sequence, then the 2cp
# half-chunks are index_selected back into sequence order; bshd format
# ([b, s, h, d]: seq_dim 1, head_dim 2).
# NVIDIA/TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b,
# transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py
# flash_attn_a2a_communicate (before_attn), L387-482:
#   x = x.view(
#       *x.shape[:head_dim],
#       cp_size,
#       x.shape[head_dim] // cp_size,
#       *x.shape[head_dim + 1 :],
#   )
#   a2a_inputs[i] = x.movedim(head_dim, 0).contiguous()
#   a2a_reqs[i - 1] = torch.distributed.all_to_all_single(
#       a2a_outputs[i - 1], a2a_inputs[i - 1], group=cp_group, async_op=True
#   )
#   x = reorder_seq_chunks_for_a2a_before_attn(
#       x, chunk_ids_for_a2a, seq_dim, cp_size
#   )
#   a2a_outputs[i - 2] = x.view(
#       *x.shape[:seq_dim], -1, *x.shape[(seq_dim + 2) :]
#   )
# L271-282, reorder_seq_chunks_for_a2a_before_attn:
#   x = x.movedim(0, seq_dim).contiguous()
#   x = x.view(*x.shape[:seq_dim], cp_size * 2, -1, *x.shape[(seq_dim + 2) :])
#   x = torch.index_select(x, dim=seq_dim, index=chunk_ids_for_a2a)
# AttnFuncWithCPAndQKVOA2A.forward, L4338: chunk_ids_for_a2a =
#   get_seq_chunk_ids_for_reordering_before_attn(cp_size, q.device)  (L236-251):
#   chunk_ids[rank] = 2 * rank
#   chunk_ids[rank + cp_size] = 2 * cp_size - 2 * rank - 1
pipeline te-cp-a2a-before-attn
dims b s h d
input shard s zigzag          # [b, 2*s/(2cp), h, d]
output shard h                # [b, s, h/cp, d]
expect pass
view [b, size(1), P, h/P, d]  # x.view(..., cp_size, x.shape[head_dim] // cp_size, ...)
movedim 2 0                   # x.movedim(head_dim, 0): [cp, b, s_local, h/cp, d]
contiguous
all_to_all_single
movedim 0 1                   # reorder: x.movedim(0, seq_dim): [b, cp, s_local, h/cp, d]
contiguous
view [b, 2*P, -1, h/P, d]     # x.view(*x.shape[:seq_dim], cp_size * 2, -1, ...)
take 1 2*P [2*k if k < P else 2*P-2*(k-P)-1 for k]   # torch.index_select(x, dim=seq_dim, index=chunk_ids_for_a2a)
view [b, -1, h/P, d]          # x.view(*x.shape[:seq_dim], -1, *x.shape[(seq_dim + 2):])
