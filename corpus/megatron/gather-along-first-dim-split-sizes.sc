# Megatron-LM _gather_along_first_dim with output_split_sizes: the uneven
# all-gather of the MoE all-to-all token dispatcher over the TP group
# (output_split_sizes = output_splits_tp, per-rank token counts).
# NVIDIA/Megatron-LM @ core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133),
# megatron/core/tensor_parallel/mappings.py L114-152, _gather_along_first_dim:
#   else:
#       dim_size[0] = sum(output_split_sizes)
#       output = torch.empty(dim_size, dtype=input_.dtype, device=torch.cuda.current_device())
#       output_tensor_list = list(torch.split(output, output_split_sizes, dim=0))
#       torch.distributed.all_gather(output_tensor_list, input_, group=group)
# (called from megatron/core/transformer/moe/token_dispatcher.py L634-703, dispatch_postprocess:
#   global_input_tokens = gather_from_sequence_parallel_region(
#       global_input_tokens, group=self.tp_group, output_split_sizes=output_split_sizes
#   ))
# The counts are data-dependent; the language has no placement with drawn
# per-rank sizes, so the spec takes the counts torch.tensor_split would give
# (first s % P ranks one row more) and states that each receiver sizes
# rank src's slot for exactly the rows rank src holds.
pipeline megatron-gather-along-first-dim-split-sizes
dims s h
input shard s split
output replicate
expect pass
all_gather dim=0 sizes=s//P+(1 if src < s%P else 0)   # torch.split(output, output_split_sizes) + list all_gather
