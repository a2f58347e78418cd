# Megatron-Bridge training with a standalone multi-token-prediction stage
# (a custom pipeline layout: embedding and decoder first, MTP alone on stage
# A-2, the loss alone on stage A-1) and tied embeddings
# (share_embeddings_and_output_weights). The word embedding has three
# copies: stage 0's input embedding, the MTP stage's embedding and the last
# stage's output layer; finalize_model_grads all-reduces their gradients in
# the embedding group, one group per PP group, built from a list of ranks.
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
#   L233-258  ... torch.distributed.all_reduce(grad, group=embd_group)
# So the group is [stage 0, stage A-1] (group=pp[0, A-1] on a mesh pp=A
# dp=B, Megatron's order tp-cp-ep-dp-pp with tp = cp = ep = 1): the MTP
# stage's copy is neither summed in nor updated. g[b, a, v, h]: row (dp,
# pp) is the gradient stage pp of DP replica dp computed for its copy; the
# word embedding's gradient is g[:, 0] + g[:, A-2] + g[:, A-1], and all
# three holders must hold it. Left out: TP/CP/EP (1), DDP/FSDP wrappers,
# DTensor paths (not taken), the position-embedding group.
# Expected FAIL, minimal case A=3 B=1 (world 3): stages 0 and 2 hold
# g0 + g2, the MTP stage its own g1.
# Confirmed on gloo (torch 2.11.0):
# runs default_embedding_ranks, the group loop, _allreduce_word_embedding_grads,
# _allreduce_embedding_grad, _get_shared_word_embedding_weight and
# shared_embedding_or_output_weight verbatim (cut with ast from the files
# at these commits) on worlds 3, 4, 6 (A=3 B=1, A=4 B=1, A=3 B=2, A=6 B=1;
# v x h in 1x1, 2x3, 3x2): "tied before: 12 cases, 12 differ", smallest
# world=3 A=3 B=1 v=1 h=1: ranks 0 and 2 hold [53.0], rank 1 (MTP) [1.0],
# expected [54.0] on all three.
# The fix: corpus/megatron-bridge/mtp-embedding-group-tied-5380.sc.
pipeline megatron-bridge-mtp-embedding-group-tied-before-5380
dims b a v h
mesh pp=A dp=B
require A >= 3 and a == A and b == B
sizes A=3..4 a=A..A b=B..B     # (each stage one row of a, each dp rank one of b: drawn so)
tensor g [b, a, v, h] dp:shard b pp:shard a   # each stage's gradient of its copy
output y [b, v, h] dp:shard b only pp == 0 or pp == A-2 or pp == A-1
dtypes f32
expect fail
reference
e = g
e: narrow 1 0 1            # stage 0's input embedding
m = g
m: narrow 1 A-2 1          # the MTP stage's embedding
l = g
l: narrow 1 A-1 1          # the last stage's output layer (tied)
y = add e m
y = add y l
y: squeeze 1
program
y = g
y: all_reduce sum group=pp[0, A-1]   # embedding group [pp_ranks[0], pp_ranks[-1]]
y: squeeze 1
