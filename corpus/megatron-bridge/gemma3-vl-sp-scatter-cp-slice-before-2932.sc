# Megatron-Bridge's Gemma3-VL under context parallelism x sequence
# parallelism (BSHD, no packing), before PR #2932 ("fix: VLM packed sequence
# padding and SP scatter ordering for CP+SP"): Gemma3VLModel.forward merges
# the image features into the embeddings of the whole sequence, scatters
# them over the TP group along the sequence (sequence parallelism), and only
# then cuts them for CP with get_batch_on_this_cp_rank, while labels,
# loss_mask and position_ids are cut for CP from the whole sequence. Each
# rank ends up with the zigzag pair of its TP chunk, not the TP chunk of its
# CP zigzag pair: the hidden states no longer line up with the labels and
# positions (silently, wherever 2*C*T divides the sequence).
# NVIDIA-NeMo/Megatron-Bridge @ 2b6f7ee6064a50c787a4b943abe7ca5ed9cca581 (the
# parent of the fix aba4fb2bfeb15b4138685dd78c46f2e24cd85a64):
# src/megatron/bridge/models/gemma_vl/modeling_gemma3_vl.py, Gemma3VLModel.forward:
#   L157      inputs_embeds = inputs_embeds.transpose(1, 0).contiguous()  # (B, T, D) -> (T, B, D)
#   L160-161  if self.config.sequence_parallel:
#                 inputs_embeds = scatter_to_sequence_parallel_region(inputs_embeds)
#   L169-177  inputs_embeds, labels, loss_mask, position_ids, attention_mask = slice_batch_for_context_parallel(
#                 inputs_embeds=inputs_embeds, labels=labels, ..., pg_collection=self.config._pg_collection)
# src/megatron/bridge/utils/common_utils.py L294-385, slice_batch_for_context_parallel (BSHD branch):
#   L333      inputs_embeds = inputs_embeds.transpose(0, 1).contiguous()    # (T, B, D) -> (B, T, D)
#   L364-373  cp_batch = get_batch_on_this_cp_rank({"decoder_input": inputs_embeds, "labels": labels, ...}, cp_group=cp_group)
#   L383      inputs_embeds = inputs_embeds.transpose(0, 1).contiguous()
# NVIDIA/Megatron-LM @ 9e2810417315a7ee93b41d4e234454abd3c16af5 (Bridge's
# 3rdparty/Megatron-LM at both commits):
#   megatron/core/utils.py L1972-2016, get_batch_on_this_cp_rank (seq_dim 1 for decoder_input):
#     val = val.view(*val.shape[0:seq_dim], 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), *val.shape[(seq_dim + 1) :])
#     index[0].fill_(cp_rank); index[1].fill_(2 * cp_size - cp_rank - 1)
#     val = val.index_select(seq_dim, index)
#     val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2) :])
#   megatron/core/tensor_parallel/mappings.py L56-77 _split_along_first_dim (via
#   scatter_to_sequence_parallel_region L493-496 with the TP group):
#     local_dim_size = dim_size // world_size; dim_offset = rank * local_dim_size
#     output = input_[dim_offset : dim_offset + local_dim_size].contiguous()
# Megatron's rank order "tp-cp-ep-dp-pp" (tp fastest) makes the mesh (cp, tp).
# X is the merged inputs_embeds [b, s, h] (B, T, D) that every rank
# computes (Gemma3VLModelProvider sets scatter_embedding_sequence_parallel
# False, so the embedding lookup does not scatter); the output is what the
# language model must receive as decoder_input on rank (cp, tp): the TP
# chunk of the CP zigzag pair, the rows whose positions get_batch gives the
# rank's position_ids and labels (Megatron's LLaVA order, and
# corpus/megatron/cp-tp-get-batch-zigzag-seqpar-scatter.sc). The vision
# merge (per token) and the THD branch are left out.
# Expected FAIL. Minimal case: world=4 C=2 T=2 b=1 s=8 h=1: rank 0 = (cp 0,
# tp 0) [1, 0, 0] holds X[0, 3, 0], expected X[0, 1, 0] (6 wrong elements).
# Confirmed on gloo (torch 2.11.0 and 1.13): a script
# execs Gemma3VLModel.forward's lines 157-178 at this commit verbatim (from
# the transpose to the language model call), slice_batch_for_context_parallel,
# and Megatron-LM's get_batch_on_this_cp_rank, get_pg_size/rank,
# _split_along_first_dim and scatter_to_sequence_parallel_region (git show),
# on gloo ranks in a (cp, tp) mesh with real cp and tp groups, B = 1..2,
# s = 2CT..6CT, D = 1..2, 20 cases each at (C, T) = (2,1), (1,2), (3,1),
# (1,3), (2,2), (4,1), (1,4), (2,3), (3,2), against the embedding of the
# rank's expected rows; it also all-gathers decoder_input over tp (what
# sequence parallelism does before the output layer) and compares it with
# the position_ids the same call returned: "before (2b6f7ee606, forward
# lines 157-178): 180 cases, 60 differ (60 with the tp-gathered embeddings
# off their position_ids)": every case at C=2 T=2, C=2 T=3 and C=3 T=2,
# none where C or T is 1 (shardcheck agrees: C=2 T=1 and C=1 T=2 pass,
# C=3 T=2 and C=2 T=3 at s=12 fail). Smallest differing case C=2 T=2 B=1
# s=8 D=1: rank 0 (cp 0, tp 0) holds positions [0, 3], expected [0, 1];
# tp-gathered [0, 3, 4, 7] vs its position_ids [0, 1, 6, 7]: the minimal
# case above.
pipeline bridge-gemma3-vl-sp-scatter-cp-slice-before-2932
mesh cp=C tp=T
dims b s h
input replicate                                # the merged inputs_embeds (B, T, D) on every rank
output cp,tp:shard s as s b h                  # decoder_input [s/(C*T), b, h]: zigzag over cp, then the cp piece split over tp
require s % (2*C*T) == 0
reference
take 1 2*C [k//2 if k % 2 == 0 else 2*C-1-k//2 for k]   # Y: the zigzag blocks in rank order (0, 2C-1, 1, 2C-2, ...)
end
expect fail
transpose 0 1                                  # modeling_gemma3_vl.py:157 inputs_embeds.transpose(1, 0)
contiguous                                     # .contiguous()
narrow 0 tp*(size(0)//T) size(0)//T            # modeling_gemma3_vl.py:161 scatter_to_sequence_parallel_region: input_[dim_offset : dim_offset + local_dim_size]
contiguous                                     # .contiguous()
transpose 0 1                                  # common_utils.py:333 inputs_embeds.transpose(0, 1)
contiguous                                     # .contiguous()
view [b, 2*C, size(1)//(2*C), h]               # get_batch_on_this_cp_rank: val.view(..., 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), ...)
take 1 2*C [cp, 2*C-cp-1]                      # val.index_select(seq_dim, [cp_rank, 2 * cp_size - cp_rank - 1])
view [b, -1, h]                                # val.view(*val.shape[0:seq_dim], -1, ...)
transpose 0 1                                  # common_utils.py:383 inputs_embeds.transpose(0, 1)
contiguous                                     # .contiguous()
