# DeepSpeed Ulysses DistributedAttention, seq-first layout (batch_dim_idx=1):
# the q/k/v all-to-all, the local attention, and the output all-to-all with
# the reshape target fixed (the fix).
# deepspeedai/DeepSpeed @ aa22cbbb7cb78524021a32c8b5bc95ef60aeb8c9
# (refs/pull/7868/head, "fix: correct DistributedAttention output shape and
# pad uneven sequence lengths"; parent 1752c2ab64e789341af6a15bb4af8466edad7c22,
# see seqfirst-a2a-res-shape-before-8317.sc). The same line is what PR #8317
# ("Fix the seq-first Ulysses all2all output layout", merged 2026-08) states
# as its fix: "the result should be [global_seq_len // seq_world_size, bs,
# seq_world_size * num_local_head, head_dim]"; #8317's commit is not in the
# stored mirror, #7868's head is, so that is the code run and transcribed.
# deepspeed/sequence/layer.py @ aa22cbbb, _generate_layout_params L21-61:
#         if scatter_idx < 2:
#             global_seq_len, bs, num_local_head, head_dim = input.shape
#             pre_all2all_inp_shape = [seq_world_size, global_seq_len // seq_world_size, bs, num_local_head, head_dim]
#             pre_all2all_permute_idx = None
#             post_all2all_permute_idx = (1, 2, 0, 3, 4)
#             post_all2all_res_shape = [global_seq_len // seq_world_size, bs, seq_world_size * num_local_head, head_dim]
# single_all_to_all L226-263, post_all2all L64-76, DistributedAttention.forward
# L387-487. #7868 also pads Q/K/V when the ranks' local sequence lengths
# differ (_get_max_local_seq_len, an all-reduce max): with `input shard s`
# every rank holds s/P rows, needs_pad is False and the padding is a no-op,
# so it is left out. Left out as in the before spec: rotary embeddings, the
# overlap streams, the uneven-heads path (`require h % P == 0`).
# Expected PASS.
# Confirmed on gloo (torch 2.11.0):
# the real DistributedAttention.forward of both commits on worlds 1-4:
# "before: 288 cases, 264 differ; after: 288 cases, 0 differ".
pipeline deepspeed-seqfirst-a2a-res-shape-8317
dims s b h d
require h % P == 0
input shard s                      # query: [s/P, b, h, d] per rank
output shard s
expect pass
# _SeqAllToAll(query, scatter_idx=2, gather_idx=0, batch_dim_idx=1)
reshape [s/P, b, P, h/P, d]        # input.reshape(pre_all2all_inp_shape)
contiguous
permute 2 0 1 3 4                  # input_t.permute((2, 0, 1, 3, 4))
contiguous
all_to_all_single                  # dist.all_to_all_single(output, input_t, group=group)
reshape [s, b, h/P, d]             # output.reshape([local_seq_len * seq_world_size, bs, ...])
contiguous
# context_layer = self.local_attn(query_layer, key_layer, value_layer): v
# _SeqAllToAll(context, scatter_idx=0, gather_idx=2, batch_dim_idx=1)
reshape [P, s/P, b, h/P, d]        # input.reshape([seq_world_size, global_seq_len // seq_world_size, bs, ...])
contiguous
all_to_all_single
permute 1 2 0 3 4                  # post_all2all: input.permute((1, 2, 0, 3, 4)).contiguous()
contiguous
reshape [s/P, b, P*(h/P), d]       # reshape([global_seq_len // seq_world_size, bs, seq_world_size * num_local_head, head_dim])
contiguous
