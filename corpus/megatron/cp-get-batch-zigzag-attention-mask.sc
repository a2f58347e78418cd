# Megatron-LM context parallelism: get_batch_on_this_cp_rank on the
# attention mask [b, 1, s_q, s_k], whose sequence dim is 2 (the query
# rows); the key dim stays whole.
# NVIDIA/Megatron-LM @ core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133),
# megatron/core/utils.py L1803-1833, get_batch_on_this_cp_rank:
#   seq_dim = 1 if key != "attention_mask" else 2
#   val = val.view(
#       *val.shape[0:seq_dim],
#       2 * cp_size,
#       val.shape[seq_dim] // (2 * cp_size),
#       *val.shape[(seq_dim + 1) :],
#   )
#   index[0].fill_(cp_rank)
#   index[1].fill_(2 * cp_size - cp_rank - 1)
#   val = val.index_select(seq_dim, index)
#   val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2) :])
pipeline megatron-cp-get-batch-zigzag-attention-mask
dims b o q k
input replicate
output shard q zigzag
sizes o=1..1
expect pass
view [b, o, 2*P, q//(2*P), k]
take 2 2*P [rank, 2*P-rank-1] # val.index_select(seq_dim, index)
view [b, o, -1, k]
