# BigScience Megatron-DeepSpeed's attention scores with ALiBi under tensor
# parallelism, before the fix: every rank builds the ALiBi biases of all
# h heads, repeated over the micro-batch ([b*h, 1, L], row r head r % h),
# and takes its first b*(h/P) rows with no rank offset, so rank r adds the
# biases of heads 0..h/P-1 (with b > 1, of heads (bi*h/P + j) % h) to the
# scores of its own heads r*h/P + j.
# bigscience-workshop/Megatron-DeepSpeed dfb5d6873a0825ddbfecda009b2ac1f493f09a97
# (file identical at 7ab5c05a, which issue #227 links), megatron/model/transformer.py:
#   L608-611 (_build_alibi_tensor):
#     slopes = torch.Tensor(get_slopes(num_attention_heads))
#     alibi = slopes.unsqueeze(1).unsqueeze(1) * torch.arange(max_seq_len).unsqueeze(0).unsqueeze(0).expand(
#         num_attention_heads, -1, -1)
#     alibi = alibi.repeat(batch_size, 1, 1)
#   L291 (ParallelAttention.forward):
#     matmul_result = alibi[:output_size[0]*output_size[1], :, :output_size[3]]
#   L322-326 (beta 1.0 without apply_query_key_layer_scaling):
#     matmul_result = torch.baddbmm(matmul_result, query_layer.transpose(0, 1),
#         key_layer.transpose(0, 1).transpose(1, 2), beta=beta, alpha=(1.0 / self.norm_factor))
#   L147-148, L173: norm_factor = sqrt(hidden_size_per_attention_head)
# Issue #227 ("Likely bug in Alibi positional embeddings together with
# Tensor Parallelism."), fixed by PR #244 (alibi-tp-after-244.sc). The
# biases are drawn values standing for slope_k * j (which rows a rank
# takes is the bug, not their values); q and k are [b, heads, seq, hn].
pipeline bigscience-alibi-tp-before-244
dims b h s t d
tensor q [b, h, s, d] shard h        # the rank's h/P heads (num_attention_heads_per_partition)
tensor k [b, h, t, d] shard h
tensor alibi [h, t] replicate        # slope of head k times key position j, every head on every rank
output p [b, h, s, t] shard h        # attention probabilities of the rank's heads
sizes b=1..3 h=P..4*P s=1..4 t=1..4 d=1..4
expect fail

reference
kt = k
kt: transpose 2 3
sc = matmul q kt
sc = scale sc 1/sqrt(d)              # alpha = 1 / norm_factor
a = alibi
a: unsqueeze 1                       # [h, 1, t]: head k's biases
sc = add sc a
p = softmax sc dim=-1

program
kt = k
kt: transpose 2 3
sc = matmul q kt
sc = scale sc 1/sqrt(d)
a = alibi
a: unsqueeze 0
a: repeat_interleave b 0             # alibi.repeat(batch_size, 1, 1): [b, h, t]
a: reshape [b*h, t]                  # row r: head r % h
a: narrow 0 0 b*(h/P)                # alibi[:b*np]: no rank offset
a: reshape [b, h/P, 1, t]            # matmul_result.view(b, np, sq, sk)
sc = add sc a                        # baddbmm's beta * input
p = softmax sc dim=-1
