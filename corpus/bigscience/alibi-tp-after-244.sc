# BigScience Megatron-DeepSpeed's attention scores with ALiBi under tensor
# parallelism, as PR #244 fixes them: the [h, 1, L] biases are reshaped to
# [P, h/P, 1, L] and indexed by the rank before the repeat over the
# micro-batch, so rank r adds the biases of its own heads r*h/P + j.
# bigscience-workshop/Megatron-DeepSpeed 40e8b2a086f98920de692ebc4081bf4229bfa81a
# ("Alibi Tensor Parallel Fix (#244)", fixing issue #227),
# megatron/model/transformer.py L608-618 (_build_alibi_tensor):
#   slopes = torch.Tensor(get_slopes(num_attention_heads))
#   alibi = slopes.unsqueeze(1).unsqueeze(1) * torch.arange(max_seq_len).unsqueeze(0).unsqueeze(0).expand(
#       num_attention_heads, -1, -1)
#   #Select the part of the tensor that corresponds to our tensor parallel index.
#   tp_world_size = mpu.get_tensor_model_parallel_world_size()
#   tp_index = mpu.get_tensor_model_parallel_rank()
#   alibi = alibi.reshape((tp_world_size, -1, *alibi.shape[1:]))[tp_index]
#   alibi = alibi.repeat(batch_size, 1, 1)
# ParallelAttention.forward unchanged (L291 alibi[:b*np], L322-326 baddbmm
# with alpha = 1/norm_factor, norm_factor = sqrt(hn)); the buggy version is
# alibi-tp-before-244.sc.
pipeline bigscience-alibi-tp-after-244
dims b h s t d
tensor q [b, h, s, d] shard h        # the rank's h/P heads (num_attention_heads_per_partition)
tensor k [b, h, t, d] shard h
tensor alibi [h, t] replicate        # slope of head k times key position j, every head on every rank
output p [b, h, s, t] shard h        # attention probabilities of the rank's heads
sizes b=1..3 h=P..4*P s=1..4 t=1..4 d=1..4
expect pass

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
a: reshape [P, h/P, t]               # alibi.reshape((tp_world_size, -1, ...))
a: narrow 0 rank 1                   # [tp_index]
a: repeat_interleave b 0             # alibi.repeat(batch_size, 1, 1): [b, h/P, t]
a: reshape [b*(h/P), t]
a: narrow 0 0 b*(h/P)                # alibi[:b*np]: now all of it
a: reshape [b, h/P, 1, t]            # matmul_result.view(b, np, sq, sk)
sc = add sc a                        # baddbmm's beta * input
p = softmax sc dim=-1
