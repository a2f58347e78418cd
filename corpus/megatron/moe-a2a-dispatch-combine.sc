# Megatron-LM MoE all-to-all token dispatcher: dispatch to the expert
# ranks, then combine back (the experts as identity), on one EP group
# (tp = 1). NVIDIA/Megatron-LM tag core_v0.14.0 =
# 23e00ed0963c35382dfe8a5a94fb3cda4d21e133,
# megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher:
#   preprocess (L428-549): input_splits = num_local_tokens_per_expert.reshape(
#       self.ep_size, self.num_local_experts).sum(axis=1)   # rows to each EP rank
#     output_splits = num_global_tokens_per_rank[self.tp_rank]  # rows from each EP rank
#   token_dispatch (L606-632):
#     global_input_tokens = all_to_all(
#         self.ep_group, permutated_local_input_tokens, self.output_splits, self.input_splits)
#   token_combine (L746-772):
#     permutated_local_input_tokens = all_to_all(
#         self.ep_group, hidden_states, self.input_splits, self.output_splits)
# megatron/core/tensor_parallel/mappings.py L420-461, _AllToAll.forward(ctx, group,
#   input, output_split_sizes, input_split_sizes) -> all_to_all_single.
# C(src, dst) is how many of rank src's tokens its router sends to the
# experts of rank dst (drawn per case): src's input_splits are row src of C,
# dst's output_splits column dst. permutation 1 has sorted each rank's
# tokens by expert, so rank r holds rowsum(C, r) tokens, grouped by
# destination. Combine swaps the split lists: each rank sends back what it
# received, and every token returns to its place.
pipeline megatron-moe-a2a-dispatch-combine
dims t h
counts C 0..3
input shard t sizes=rowsum(C,r)
output shard t sizes=rowsum(C,r)
expect pass
# dispatch: input_split_sizes = input_splits, output_split_sizes = output_splits
all_to_all_single in=C(src,dst) out=C(src,dst)
# combine: input_split_sizes = output_splits (what dst received from src), and back
all_to_all_single in=C(dst,src) out=C(dst,src)
