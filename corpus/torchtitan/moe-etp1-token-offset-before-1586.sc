# torchtitan's MoE with expert tensor parallel degree 1 (EP borrows the TP
# ranks): x stays replicated over the TP ranks, the routing results are
# split along the tokens (bs*slen), each rank sorts its own tokens by
# expert and must add its first token's global index before it gathers
# rows of x and scatter-adds the experts' outputs back. The experts are
# left out (identity): what is checked is which rows each rank gathers and
# where it writes them; the module's output is a partial sum over the TP
# ranks (reduced by the next redistribute).
# pytorch/torchtitan @ 72b16b13abc88ba08f3e1796e5caee09abd94554 (the parent of
# the fix, PR #1586; introduced in PR #1555, aeb3a4ba):
# torchtitan/distributed/expert_parallel.py L367-402, ReordererSequenceParallel:
#   _prepare_inputput_fn: assert top_scores.shape[0] % device_mesh.size() == 0
#       selected_experts_indices = selected_experts_indices.redistribute(device_mesh, (Shard(0),)).to_local()
#   _prepare_output_fn:
#       num_tokens = top_scores.shape[0]
#       local_rank = device_mesh.get_local_rank()
#       token_indices_experts_sorted += num_tokens // device_mesh.size() * local_rank
# torchtitan/models/moe.py L290-305, TokenReorderer.forward (top_k = 1):
#   token_indices_experts_sorted = torch.argsort(selected_experts_indices.view(-1), stable=True)
#   top_scores_experts_sorted = top_scores.view(-1)[token_indices_experts_sorted]
# MoE.forward: routed_input = torch.gather(x, dim=0, index=token_indices_experts_sorted)
#   routed_output = self.experts(routed_input, num_tokens_per_expert)
#   out = torch.zeros_like(x)   (no shared experts)
#   out = out.scatter_add(dim=0, index=token_indices_experts_sorted, src=routed_output)
# gather by argsort + offset: rows offset.. of x in the rank's experts'
# order (sort_by R ... start=: the keys are the rank's own tokens' routes);
# scatter_add into zeros at the same indices: unsort_by, then a write.
# Expected FAIL: top_scores here is the reorderer's output (the rank's
# tokens only), so the offset divides by the TP size twice. Minimal case:
# TP 2, two tokens: rank 1 gathers and writes row 0; row 0 sums two copies
# of x[0], row 1 holds nothing.
# The classes themselves (their source at this commit: TokenReorderer,
# ReordererSequenceParallel's input and output functions on a gloo
# DeviceMesh), then MoE.forward's gather and scatter_add with identity
# experts and the partial sums reduced, on TP 2, 3 and 4 (2 to 12 tokens,
# 1, 2 or 4 experts, routes all to expert 0 or drawn): the reduced output
# differs from x in every case (14, 15 and 15 distinct ones), at TP 2 from
# two tokens; torch.histc counted on floats (CPU takes no integers).
pipeline torchtitan-moe-etp1-token-offset-before-1586
dims n h
routes R[n] 0..3
require n % P == 0
input replicate
output partial sum
expect fail
tensor x = input
a = narrow x 0 (n//P)//P*rank n//P
a = sort_by a R dim=0 start=rank*(n//P)
b = unsort_by a R dim=0 start=rank*(n//P)
out = zeros x [size(0), size(1)]
out = write out b dim=0 start=(n//P)//P*rank
