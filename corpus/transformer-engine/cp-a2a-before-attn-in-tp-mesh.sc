# TransformerEngine context parallelism with cp_comm_type "a2a" (Ulysses
# style) inside tensor parallelism: q/k/v arrive with their heads already
# TP-sharded (Megatron's column-parallel QKV, tp rank t holds heads
# [t*h/T, (t+1)*h/T)) and the sequence in the CP zigzag layout; the
# all-to-all runs in the CP group (the ranks of one tp rank) and splits each
# rank's local heads again, then the 2*cp half-chunks are put back in order.
# Megatron's rank order "tp-cp-ep-dp-pp" (tp fastest) makes the mesh (cp, tp),
# so the heads end sharded tp-major: `tp,cp:shard h` (written order).
# NVIDIA/TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b,
# transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py
# flash_attn_a2a_communicate (before_attn), L387-482:
#   x = x.view(*x.shape[:head_dim], cp_size, x.shape[head_dim] // cp_size, *x.shape[head_dim + 1 :])
#   a2a_inputs[i] = x.movedim(head_dim, 0).contiguous()
#   a2a_reqs[i - 1] = torch.distributed.all_to_all_single(
#       a2a_outputs[i - 1], a2a_inputs[i - 1], group=cp_group, async_op=True)
#   x = reorder_seq_chunks_for_a2a_before_attn(x, chunk_ids_for_a2a, seq_dim, cp_size)
#   a2a_outputs[i - 2] = x.view(*x.shape[:seq_dim], -1, *x.shape[(seq_dim + 2) :])
# L271-282, reorder_seq_chunks_for_a2a_before_attn:
#   x = x.movedim(0, seq_dim).contiguous()
#   x = x.view(*x.shape[:seq_dim], cp_size * 2, -1, *x.shape[(seq_dim + 2) :])
#   x = torch.index_select(x, dim=seq_dim, index=chunk_ids_for_a2a)
# L236-251, get_seq_chunk_ids_for_reordering_before_attn:
#   chunk_ids[rank] = 2 * rank; chunk_ids[rank + cp_size] = 2 * cp_size - 2 * rank - 1
# L4213 cp_size = get_distributed_world_size(cp_group); L4339 the call with cp_group.
# NVIDIA/Megatron-LM core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133)
# megatron/core/parallel_state.py L481: order: str = "tp-cp-ep-dp-pp".
# The 1-D version (no TP) is corpus/transformer-engine/cp-a2a-before-attn.sc.
# Simulated: these lines replayed with plain torch on simulated ranks
pipeline te-cp-a2a-before-attn-in-tp-mesh
mesh cp=C tp=T
dims b s h d
input cp:shard s zigzag tp:shard h     # [b, s/C, h/T, d]
output tp,cp:shard h                   # [b, s, h/(T*C), d]
expect pass
view [b, size(1), C, h/(T*C), d]       # x.view(..., cp_size, x.shape[head_dim] // cp_size, ...)
movedim 2 0                            # x.movedim(head_dim, 0): [cp, b, s_local, h/(T*C), d]
contiguous
all_to_all_single group=cp             # torch.distributed.all_to_all_single(..., group=cp_group)
movedim 0 1                            # reorder: x.movedim(0, seq_dim)
contiguous
view [b, 2*C, -1, h/(T*C), d]          # x.view(*x.shape[:seq_dim], cp_size * 2, -1, ...)
take 1 2*C [2*k if k < C else 2*C-2*(k-C)-1 for k]   # torch.index_select(x, dim=seq_dim, index=chunk_ids_for_a2a)
view [b, -1, h/(T*C), d]               # x.view(*x.shape[:seq_dim], -1, *x.shape[(seq_dim + 2):])
