# Megatron-Bridge training with a standalone multi-token-prediction stage
# (embedding and decoder first, MTP alone on stage A-2, the loss alone on
# stage A-1) and tied embeddings: the word embedding's copies are stage
# 0's input embedding, the MTP stage's embedding and the last stage's
# output layer, and finalize_model_grads all-reduces their gradients in
# the embedding group. As fixed by PR #5380 ("fix(training): include MTP
# stages in embedding groups"):
# NVIDIA-NeMo/Megatron-Bridge @ d4dd7a314707128b7e1f5053cc25db0e78c5a8cb,
# src/megatron/bridge/training/setup.py:
#   L75-95  def _get_embedding_ranks(pp_ranks, pipeline_model_parallel_size=None, *, model_config):
#               embedding_ranks = [pp_ranks[0]]
#               if len(pp_ranks) > 1:
#                   if model_config.share_embeddings_and_output_weights:
#                       embedding_ranks.append(pp_ranks[-1])
#                   ...
#                   mtp_ranks = get_mtp_ranks(pp_ranks, transformer_config)
#                   embedding_ranks.extend(mtp_ranks)
#               embedding_ranks = list(set(embedding_ranks))
#               embedding_ranks = sorted(embedding_ranks)
#   L281    get_embedding_ranks = _resolve_embedding_ranks_fn(cfg.model, get_embedding_ranks)
# NVIDIA/Megatron-LM @ 6513e3e23d6b5eda6a1c934990b15e804237732b (unchanged):
# multi_token_prediction.py L834-847 get_mtp_ranks, parallel_state.py
# L1269-1278 (one group per PP group), finalize_model_grads.py L146-147,
# L233-258 (all_reduce(grad, group=embd_group)). Tied: the group is
# [stage 0, MTP stage, last stage] (group=pp[0, A-2, A-1] on a mesh pp=A
# dp=B). g[b, a, v, h]: row (dp, pp) is stage pp's gradient of its copy;
# every holder must hold g[:, 0] + g[:, A-2] + g[:, A-1]. Left out:
# TP/CP/EP (1), DDP wrappers, DTensor paths.
# Expected PASS. The bug: corpus/megatron-bridge/mtp-embedding-group-tied-before-5380.sc.
# Confirmed on gloo (torch 2.11.0):
# (Bridge's _get_embedding_ranks and Megatron's get_mtp_ranks verbatim),
# worlds 3, 4, 6: "tied after: 12 cases, 0 differ".
pipeline megatron-bridge-mtp-embedding-group-tied-5380
dims b a v h
mesh pp=A dp=B
require A >= 3 and a == A and b == B
sizes A=3..4 a=A..A b=B..B     # (each stage one row of a, each dp rank one of b: drawn so)
tensor g [b, a, v, h] dp:shard b pp:shard a   # each stage's gradient of its copy
output y [b, v, h] dp:shard b only pp == 0 or pp == A-2 or pp == A-1
dtypes f32
expect pass
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
y: all_reduce sum group=pp[0, A-2, A-1]   # embedding group sorted({pp_ranks[0], pp_ranks[-1]} | mtp_ranks)
y: squeeze 1
