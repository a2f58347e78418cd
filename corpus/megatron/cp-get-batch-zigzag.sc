# Megatron-LM context parallelism: get_batch_on_this_cp_rank cuts the
# sequence into 2*cp chunks and keeps chunks cp_rank and 2*cp-1-cp_rank
# (the load-balanced zigzag layout for causal attention), on a batch
# tensor such as tokens, labels or position_ids [b, s] (seq_dim 1).
# NVIDIA/Megatron-LM @ core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133),
# megatron/core/utils.py L1803-1833, get_batch_on_this_cp_rank:
#   seq_dim = 1 if key != "attention_mask" else 2
#   val = val.view(
#       *val.shape[0:seq_dim],
#       2 * cp_size,
#       val.shape[seq_dim] // (2 * cp_size),
#       *val.shape[(seq_dim + 1) :],
#   )
#   index = torch.zeros(2, dtype=torch.int64, device=val.device)
#   index[0].fill_(cp_rank)
#   index[1].fill_(2 * cp_size - cp_rank - 1)
#   val = val.index_select(seq_dim, index)
#   val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2) :])
# (the same code is in megatron/training/utils.py L232-262 at core_v0.9.0,
# 1afee592e85ac7994887eb5f4ef3998f76384333). index_select over a dim of
# 2*cp entries is `take 1 2*P [...]` with chunks of one entry.
pipeline megatron-cp-get-batch-zigzag
dims b s
input replicate               # the whole micro-batch on every CP rank
output shard s zigzag
expect pass
view [b, 2*P, s//(2*P)]
take 1 2*P [rank, 2*P-rank-1] # val.index_select(seq_dim, index)
view [b, -1]
