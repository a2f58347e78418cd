# Megatron-LM context parallel x tensor parallel (sequence parallel): the
# batch is cut to this CP rank's zigzag pair of chunks (get_batch), the
# embedding output is moved to [s, b, h] and scattered along the sequence
# over the TP group (sequence parallelism). Ranks are ordered "tp-cp-ep-dp-pp"
# (tp fastest), so the mesh is (cp, tp) and each rank holds, along s, a tp
# chunk of its cp zigzag piece: nested in mesh order.
# NVIDIA/Megatron-LM tag core_v0.14.0 = 23e00ed0963c35382dfe8a5a94fb3cda4d21e133:
# megatron/core/utils.py L1803-1833, get_batch_on_this_cp_rank:
#   cp_rank = parallel_state.get_context_parallel_rank()
#   val = val.view(*val.shape[0:seq_dim], 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), *val.shape[(seq_dim + 1):])
#   index[0].fill_(cp_rank); index[1].fill_(2 * cp_size - cp_rank - 1)
#   val = val.index_select(seq_dim, index)
#   val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2):])
# megatron/core/models/common/embeddings/language_model_embedding.py L99-150, forward:
#   embeddings = embeddings.transpose(0, 1).contiguous()          # [b s h] --> [s b h]
#   if self.config.sequence_parallel:
#       embeddings = tensor_parallel.scatter_to_sequence_parallel_region(embeddings, group=self.tp_group)
#       if self.config.clone_scatter_output_in_embedding ...: embeddings = embeddings.clone()
# megatron/core/tensor_parallel/mappings.py L56-77, _split_along_first_dim:
#   world_size = group.size(); dim_size = input_.size()[0]
#   local_dim_size = dim_size // world_size
#   rank = group.rank(); dim_offset = rank * local_dim_size
#   output = input_[dim_offset : dim_offset + local_dim_size].contiguous()
# megatron/core/parallel_state.py L481: order: str = "tp-cp-ep-dp-pp".
# X is the embedding output of the whole batch, [b, s, h]: get_batch really
# cuts the token ids [b, s] before the lookup, which is per token, so cutting
# X along s is the same thing . The word embedding is taken as
# replicated over tp (VocabParallelEmbedding all-reduces it; not
# reduce_scatter_embeddings).
# Real code (get_batch_on_this_cp_rank and _split_along_first_dim exec'd from
# this tag with a stub parallel_state / group): a run of the real code on gloo ranks
pipeline megatron-cp-tp-get-batch-zigzag-seqpar-scatter
mesh cp=C tp=T
dims b s h
input replicate                                # the batch on every rank of the (cp, tp) block
output cp,tp:shard s as s b h                  # [s/(C*T), b, h]: zigzag over cp, then the cp piece split over tp
require s % (2*C*T) == 0                       # (the output places Y: X's divisibility stated)
reference
take 1 2*C [k//2 if k % 2 == 0 else 2*C-1-k//2 for k]   # Y: the zigzag blocks in rank order (0, 2C-1, 1, 2C-2, ...)
end
expect pass
view [b, 2*C, s/(2*C), h]                      # val.view(..., 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), ...)
take 1 2*C [cp, 2*C-cp-1]                      # index_select(seq_dim, [cp_rank, 2 * cp_size - cp_rank - 1])
view [b, -1, h]                                # val.view(*val.shape[0:seq_dim], -1, ...)
transpose 0 1                                  # embeddings.transpose(0, 1)
contiguous                                     # .contiguous()
narrow 0 tp*(size(0)//T) size(0)//T            # _split_along_first_dim(input_, group=tp_group): input_[dim_offset : dim_offset + local_dim_size]
contiguous                                     # .contiguous()
