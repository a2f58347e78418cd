# Megatron-LM MoE all-to-all token dispatcher with expert tensor parallelism
# (tp > 1): dispatch = all-to-all over the EP group, then an uneven
# all-gather over the (expert) TP group; combine = uneven reduce-scatter over
# TP, then the all-to-all back over EP. One local expert (no sort_chunks), the
# experts as identity. Rank order "tp-ep-dp-pp" (tp fastest): mesh (ep, tp).
# The tp = 1 version is corpus/megatron/moe-a2a-dispatch-combine.sc.
# NVIDIA/Megatron-LM tag core_v0.14.0 = 23e00ed0963c35382dfe8a5a94fb3cda4d21e133,
# megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher:
#   L64-71: self.ep_group = model_comm_pgs.ep; self.tp_group = model_comm_pgs.expt_tp
#   preprocess L484-520:
#     self.input_splits = num_local_tokens_per_expert.reshape(self.ep_size, self.num_local_experts).sum(axis=1)
#     num_global_tokens_per_expert = gather_from_sequence_parallel_region(
#         num_local_tokens_per_expert, group=self.tp_ep_group).reshape(self.ep_size, self.tp_size, self.num_experts).transpose(0, 1)
#     self.output_splits = num_global_tokens_per_rank[self.tp_rank]
#     self.output_splits_tp = num_global_tokens_per_rank.sum(axis=1)
#   token_dispatch L606-632:
#     global_input_tokens = all_to_all(self.ep_group, permutated_local_input_tokens, self.output_splits, self.input_splits)
#   dispatch_postprocess L634-703:
#     if self.tp_size > 1:
#         output_split_sizes = self.output_splits_tp.tolist()
#         global_input_tokens = gather_from_sequence_parallel_region(
#             global_input_tokens, group=self.tp_group, output_split_sizes=output_split_sizes)
#   combine_preprocess L705-744:
#     if self.tp_size > 1:
#         input_split_sizes = self.output_splits_tp.tolist()
#         hidden_states = reduce_scatter_to_sequence_parallel_region(
#             hidden_states.to(self.probs.dtype), group=self.tp_group, input_split_sizes=input_split_sizes)
#   token_combine L746-772:
#     permutated_local_input_tokens = all_to_all(self.ep_group, hidden_states, self.input_splits, self.output_splits)
# megatron/core/tensor_parallel/mappings.py L114-152 _gather_along_first_dim (output_split_sizes:
#   output_tensor_list = list(torch.split(output, output_split_sizes, dim=0));
#   torch.distributed.all_gather(output_tensor_list, input_, group=group)),
#   L155-194 _reduce_scatter_along_first_dim (input_split_sizes:
#   torch.distributed.reduce_scatter(output, list(torch.split(input_, input_split_sizes)), group=group)).
# parallel_state.py L708-716: the expert RankGenerator(tp=expert_tensor_parallel_size, ep=..., order=order).
# C(src, dst): tokens that EP rank src routes to EP rank dst, drawn per EP group
# (`counts ... group=ep`); permutation 1 has grouped each rank's tokens by
# destination. ASSUMPTION (a limit of the language): every EP group has the same
# matrix, so output_splits_tp[t] = colsum(C, ep) for every t. Two liberties,
# marked: the reduce-scatter's op is max, not sum (identity experts leave T
# equal copies where the real experts leave T partial sums; max of equal
# copies is the value, and the split sizes, which are what is checked, are
# the code's); X's row order is world-rank order.
# Simulated with distinct per-group routing (these lines replayed on simulated ranks).
pipeline megatron-moe-a2a-ep-tp-dispatch-combine
mesh ep=E tp=T
dims t h
counts C 0..3 group=ep
input ep:shard t sizes=T*rowsum(C,r) tp:shard t     # rank (e, tp) holds rowsum(C, e) tokens, sorted by destination
output ep:shard t sizes=T*rowsum(C,r) tp:shard t
expect pass
all_to_all_single in=C(src,dst) out=C(src,dst) group=ep   # token_dispatch: all_to_all(ep_group, tokens, output_splits, input_splits)
all_gather dim=0 sizes=colsum(C,ep) group=tp              # dispatch_postprocess: gather_from_sequence_parallel_region(tp_group, output_split_sizes=output_splits_tp)
# experts: identity (one local expert, no sort_chunks_by_idxs)
reduce_scatter dim=0 op=max sizes=colsum(C,ep) group=tp   # combine_preprocess: reduce_scatter_to_sequence_parallel_region(tp_group, input_split_sizes=output_splits_tp) [op: see header]
all_to_all_single in=C(dst,src) out=C(dst,src) group=ep   # token_combine: all_to_all(ep_group, hidden_states, input_splits, output_splits)
