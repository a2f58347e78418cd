# The MoE all-to-all combine written with the dispatch's split lists in
# the dispatch's order (the swap of token_combine forgotten):
#   all_to_all(self.ep_group, hidden_states, self.output_splits, self.input_splits)
# in place of Megatron's (NVIDIA/Megatron-LM core_v0.14.0,
# megatron/core/transformer/moe/token_dispatcher.py L746-772, token_combine):
#   all_to_all(self.ep_group, hidden_states, self.input_splits, self.output_splits)
# A rank then sends back what it had sent rather than what it received: the
# sizes disagree with what it holds as soon as one rank routes a token to
# another. Minimal counterexample: world 2, one token, rank 1 routes it to
# rank 0 (C = 0:0/1:0):
#   line 22 `all_to_all_single in=C(src,dst) out=C(src,dst)`: on rank 0: Split
#   sizes doesn't match total dim 0 size (the input split sizes sum to 0, dim 0 is 1)
pipeline megatron-moe-a2a-combine-reuses-dispatch-splits
dims t h
counts C 0..3
input shard t sizes=rowsum(C,r)
output shard t sizes=rowsum(C,r)
expect fail
# dispatch, as Megatron does
all_to_all_single in=C(src,dst) out=C(src,dst)
# combine with the dispatch's lists
all_to_all_single in=C(src,dst) out=C(src,dst)
