# Megatron-Bridge's Gemma3-VL under context parallelism x sequence
# parallelism (BSHD, no packing), as PR #2932 ("fix: VLM packed sequence
# padding and SP scatter ordering for CP+SP") fixes it: the merged
# embeddings of the whole sequence are cut for CP first
# (slice_batch_for_context_parallel -> get_batch_on_this_cp_rank, like the
# labels and positions), then scattered over the TP group along the
# sequence: rank (cp, tp) holds the TP chunk of its CP zigzag pair.
# NVIDIA-NeMo/Megatron-Bridge @ aba4fb2bfeb15b4138685dd78c46f2e24cd85a64 (parent
# 2b6f7ee6064a50c787a4b943abe7ca5ed9cca581):
# src/megatron/bridge/models/gemma_vl/modeling_gemma3_vl.py, Gemma3VLModel.forward:
#   L157      inputs_embeds = inputs_embeds.transpose(1, 0).contiguous()  # (B, T, D) -> (T, B, D)
#   L165-173  inputs_embeds, labels, loss_mask, position_ids, attention_mask = slice_batch_for_context_parallel(...)
#   L179-180  if self.config.sequence_parallel and inputs_embeds is not None:
#                 inputs_embeds = scatter_to_sequence_parallel_region(inputs_embeds)
# src/megatron/bridge/utils/common_utils.py L294-385, slice_batch_for_context_parallel
# (unchanged by the fix): L333 transpose(0, 1), L364-373 get_batch_on_this_cp_rank, L383 transpose(0, 1).
# NVIDIA/Megatron-LM @ 9e2810417315a7ee93b41d4e234454abd3c16af5 (Bridge's
# 3rdparty/Megatron-LM): megatron/core/utils.py L1972-2016
# get_batch_on_this_cp_rank, megatron/core/tensor_parallel/mappings.py
# L56-77 _split_along_first_dim (see the before spec for the lines).
# Mesh (cp, tp), tp fastest; X is the merged inputs_embeds [b, s, h]; the
# output is the decoder_input rank (cp, tp) must hand the language model.
# The buggy version is gemma3-vl-sp-scatter-cp-slice-before-2932.sc; the
# same order in Megatron Core's own embedding path is
# corpus/megatron/cp-tp-get-batch-zigzag-seqpar-scatter.sc.
# Expected PASS.
# Confirmed on gloo (torch 2.11.0 and 1.13): a script
# (see the before spec) execs this commit's forward lines 157-181 and the
# same helpers on (cp, tp) gloo meshes, 20 cases at each of the nine
# meshes: "after (aba4fb2bfe, forward lines 157-181): 180 cases, 0 differ
# (0 with the tp-gathered embeddings off their position_ids)".
pipeline bridge-gemma3-vl-sp-scatter-cp-slice-2932
mesh cp=C tp=T
dims b s h
input replicate                                # the merged inputs_embeds (B, T, D) on every rank
output cp,tp:shard s as s b h                  # decoder_input [s/(C*T), b, h]: zigzag over cp, then the cp piece split over tp
require s % (2*C*T) == 0
reference
take 1 2*C [k//2 if k % 2 == 0 else 2*C-1-k//2 for k]   # Y: the zigzag blocks in rank order (0, 2C-1, 1, 2C-2, ...)
end
expect pass
transpose 0 1                                  # modeling_gemma3_vl.py:157 inputs_embeds.transpose(1, 0)
contiguous                                     # .contiguous()
transpose 0 1                                  # common_utils.py:333 inputs_embeds.transpose(0, 1)
contiguous                                     # .contiguous()
view [b, 2*C, size(1)//(2*C), h]               # get_batch_on_this_cp_rank: val.view(..., 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), ...)
take 1 2*C [cp, 2*C-cp-1]                      # val.index_select(seq_dim, [cp_rank, 2 * cp_size - cp_rank - 1])
view [b, -1, h]                                # val.view(*val.shape[0:seq_dim], -1, ...)
transpose 0 1                                  # common_utils.py:383 inputs_embeds.transpose(0, 1)
contiguous                                     # .contiguous()
narrow 0 tp*(size(0)//T) size(0)//T            # modeling_gemma3_vl.py:180 scatter_to_sequence_parallel_region: input_[dim_offset : dim_offset + local_dim_size]
contiguous                                     # .contiguous()
