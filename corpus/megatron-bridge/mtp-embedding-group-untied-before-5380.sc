# Megatron-Bridge training with a standalone multi-token-prediction stage
# (a custom pipeline layout: embedding and decoder first, MTP alone on stage
# A-2, the loss alone on stage A-1) and untied embeddings. The word
# embedding lives on stage 0 (input) and on the MTP stage (MTP embeds its
# own input); finalize_model_grads all-reduces the copies' gradients in the
# embedding group, one group per PP group, built from a list of ranks.
# NVIDIA-NeMo/Megatron-Bridge @ e1464874749fbdf0e9127f36f392623fa8c8435d (the
# parent of PR #5380 "fix(training): include MTP stages in embedding
# groups"): src/megatron/bridge/training/setup.py L189, L246 pass
# get_embedding_ranks=None, and initialize.py L805-818 hands it to
# parallel_state.initialize_model_parallel, so Megatron's default is used.
# NVIDIA/Megatron-LM @ 6513e3e23d6b5eda6a1c934990b15e804237732b (Bridge's
# 3rdparty/Megatron-LM at both commits), megatron/core/parallel_state.py:
#   L560-566  def default_embedding_ranks(pp_ranks): ... return [pp_ranks[0], pp_ranks[-1]]
#   L793-794  if get_embedding_ranks is None: get_embedding_ranks = default_embedding_ranks
#   L1269-1278 embedding_ranks = get_embedding_ranks(ranks); group = create_group(embedding_ranks, ...)
# megatron/core/distributed/finalize_model_grads.py:
#   L146-147  if model_module.share_embeddings_and_output_weights or getattr(config, 'mtp_num_layers', 0):
#                 return model_module.shared_embedding_or_output_weight()
#   L233-258  first stage: model[0]; last stage: model[-1]; ...
#             torch.distributed.all_reduce(grad, group=embd_group)
# megatron/core/models/common/language_module/language_module.py L346-356:
#   if self.pre_process or getattr(self, 'mtp_process', False): return self.embedding.word_embeddings.weight
#   elif self.post_process: return self.output_layer.weight
# So the group is [stage 0, stage A-1] of each PP group (group=pp[0, A-1]
# on a mesh pp=A dp=B, Megatron's order tp-cp-ep-dp-pp with tp = cp = ep
# = 1): the MTP stage is left out, and the loss stage, which holds no word
# embedding, all-reduces its untied output layer's gradient into stage 0's
# embedding gradient. g[b, a, v, h]: row (dp, pp) is the gradient stage pp
# of DP replica dp computed for its copy (the output layer's on the last
# stage); the word embedding's gradient is g[:, 0] + g[:, A-2]; stage 0
# and the MTP stage must hold it. Not checked here: the last stage's
# output-layer gradient, which the all-reduce also overwrites (the gloo
# script checks it). Left out: TP/CP/EP (1), DDP/FSDP wrappers, DTensor
# paths (not taken), the position-embedding group (no MTP role).
# Expected FAIL, minimal case A=3 B=1 (world 3): stage 0 holds
# g0 + g2 (an output-layer gradient), the MTP stage its own g1.
# Confirmed on gloo (torch 2.11.0):
# runs default_embedding_ranks, the group loop, _allreduce_word_embedding_grads,
# _allreduce_embedding_grad, _get_shared_word_embedding_weight and
# shared_embedding_or_output_weight verbatim (cut with ast from the files
# at these commits) on worlds 3, 4, 6 (A=3 B=1, A=4 B=1, A=3 B=2, A=6 B=1;
# v x h in 1x1, 2x3, 3x2): "untied before: 12 cases, 12 differ", smallest
# world=3 A=3 B=1 v=1 h=1: rank 0 word_embeddings.main_grad [-17.0],
# expected [-1.0]; rank 1 (MTP) [42.0], expected [-1.0]; rank 2
# output_layer.main_grad [-17.0], expected its own [26.0].
# The fix: corpus/megatron-bridge/mtp-embedding-group-untied-5380.sc.
pipeline megatron-bridge-mtp-embedding-group-untied-before-5380
dims b a v h
mesh pp=A dp=B
require A >= 3 and a == A and b == B
sizes A=3..4 a=A..A b=B..B     # (each stage one row of a, each dp rank one of b: drawn so)
tensor g [b, a, v, h] dp:shard b pp:shard a   # each stage's gradient of its copy
output y [b, v, h] dp:shard b only pp == 0 or pp == A-2
dtypes f32
expect fail
reference
e = g
e: narrow 1 0 1            # stage 0's input embedding
m = g
m: narrow 1 A-2 1          # the MTP stage's embedding
y = add e m
y: squeeze 1
program
y = g
y: all_reduce sum group=pp[0, A-1]   # embedding group [pp_ranks[0], pp_ranks[-1]]
y: squeeze 1
