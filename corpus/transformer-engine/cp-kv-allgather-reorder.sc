# TransformerEngine context parallelism with cp_comm_type "all_gather": each
# rank holds k (and v) in the zigzag layout (chunks rank and 2cp-1-rank of
# 2cp) and all-gathers them, then index_selects the 2cp half-chunks back
# into sequence order; bshd format ([b, s, h, d], seq_dim_qkv = 1).
# NVIDIA/TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b,
# transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py
# AttnFuncWithCPAndKVAllGather.forward, L3199-3232:
#   k, v = [x.movedim(seq_dim_qkv, 0).contiguous() for x in [k, v]]
#   k_ag, _ = gather_along_first_dim(k, cp_group)
#   k_ag = k_ag.view(2 * cp_size, k.shape[0] // 2, *k.shape[1:])
#   chunk_ids_for_kv_ag = get_seq_chunk_ids_for_reordering_before_attn(cp_size, k.device)
#   k_ag = torch.index_select(k_ag, dim=0, index=chunk_ids_for_kv_ag)
#   k_ag = k_ag.view(-1, *k.shape[1:])
# L236-251, get_seq_chunk_ids_for_reordering_before_attn:
#   for rank in range(cp_size):
#       chunk_ids[rank] = 2 * rank
#       chunk_ids[rank + cp_size] = 2 * cp_size - 2 * rank - 1
# transformer_engine/pytorch/distributed.py L1668-1831, gather_along_first_dim
# (plain tensors): torch.distributed.all_gather_into_tensor(output_tensor, inp.contiguous(), ...)
pipeline te-cp-kv-allgather-reorder
dims b s h d
input shard s zigzag          # k: [b, 2*s/(2cp), h, d]
output replicate as s b h d   # k_ag: [s, b, h, d], sequence in order
expect pass
movedim 1 0                   # k.movedim(seq_dim_qkv, 0)
contiguous
all_gather_into_tensor        # gather_along_first_dim(k, cp_group)
view [2*P, s/P//2, b, h, d]   # k_ag.view(2 * cp_size, k.shape[0] // 2, *k.shape[1:])
take 0 2*P [2*k if k < P else 2*P-2*(k-P)-1 for k]   # index_select(dim=0, index=chunk_ids_for_kv_ag)
view [-1, b, h, d]            # k_ag.view(-1, *k.shape[1:])
