# xDiT's USP attention with joint tensors (text tokens attended jointly with
# the image tokens, joint_strategy="rear"), ring only (Ulysses degree 1):
# each rank holds a sequence shard of q, k, v; the joint key and value are
# replicated on every rank.
# xdit-project/xDiT @ 3a15df460f332bd6a21089ecfe7674cc55fd5d4d (the parent
# of PR #611, 77e8b781c590f062bda65a9fa6f28688cca3142c "Add fix for ring
# attention with rear joint tensors"):
# xfuser/model_executor/layers/usp.py L195-248, USP:
#   if joint_strategy:
#       key = _concat_joint_tensor(key, joint_key, joint_strategy, dim=2)
#       value = _concat_joint_tensor(value, joint_value, joint_strategy, dim=2)
#   ...
#   elif get_ulysses_parallel_world_size() == 1: # Ring only
#       out = ring_attn(attention_function, query, key, value, dropout_p=dropout_p, is_causal=is_causal)
# L159-170, _concat_joint_tensor ("rear": torch.cat([tensor, joint_tensor], dim=dim));
# L28-54, ring_attn: _templated_ring_attention(PROCESS_GROUP.RING_PG, 1, attention_function, query, key, value, ...).
# The joint key and value are appended to every rank's local block before
# the ring, so they travel with it and are attended once per ring step:
# P times in all.
# Transcription: one attention head, q, k, v as [s, d] (the [b, h, s, d]
# of the code, attention being per batch and head), the joint key and
# value [j, d] replicated (after _preprocess_joint_tensors, which with
# Ulysses degree 1 keeps every head). The ring (ring degree P, Ulysses 1;
# PyTorch's _templated_ring_attention, torch 2.11.0,
# torch/distributed/tensor/experimental/_context_parallel/_attention.py
# L309-478, with the default _AllGatherRotater L266-292) all-gathers
# cat([key.flatten(), value.flatten()]) once and at step i = 0..P-1
# attends to chunk(P)[rank - i], merging the blocks' (out, lse) with
# _SDPAMerger (L138-...: out - sigmoid(block_lse - lse) * (out - block_out)).
# Compute programs take no `for` (`expected NAME = OP ... or NAME: STEP
# ...` at the loop line) and an unrolled ring exceeds 64 statements from
# three steps, so the program writes the ring as what it computes: the one
# all_gather (k and v each, as the packed buffer is gathered alike), then
# attention over the union of the P blocks, which the merger's result
# equals (every chunk visited once, in any order). Left out: the joint
# query rows (query = _concat_joint_tensor(query, joint_query, ...): each
# rank's output also holds them, replicated, wrong the same way before the
# fix; the output here is the image rows), dropout (0), causal (False).
# Expected FAIL. Minimal case: world=2 s=2 j=1 d=1 (f32): rank 0's
# output 0.0788 where attention over [K; JK] gives -0.0248 (the joint
# token counts twice in the softmax). One rank, or no joint token, is
# right either way.
# Confirmed on gloo (torch 2.11.0): a script runs this
# commit's usp.py (exec'ed verbatim) on 2, 3 and 4 ranks, 10 drawn
# [b, h, s/P, j, jq, d] each, with PyTorch's ring and xDiT's SDPA_FLASH
# backend (the CPU flash kernel for the CUDA one), against
# F.scaled_dot_product_attention on one device: "30 cases, 17 differ in
# the image rows": all 17 with j >= 1, none of the 13 with j = 0; the
# smallest is world=2 b=1 h=1 s=2 j=1 d=1. shardcheck eval (f64) of this
# spec at the same world, s, j, d gives the same verdict in 17/17.
pipeline xdit-usp-ring-joint-rear-before-611
dims s j d
tensor q [s, d] shard s
tensor k [s, d] shard s
tensor v [s, d] shard s
tensor jk [j, d] replicate
tensor jv [j, d] replicate
output y [s, d] shard s
dtypes f32 f64
expect fail

reference
kk = cat k jk dim=0
vv = cat v jv dim=0
kk: transpose 0 1
a = matmul q kk
a = scale a 1/sqrt(d)
a = softmax a dim=-1
y = matmul a vv

program
kk = cat k jk dim=0
vv = cat v jv dim=0
kk: all_gather dim=0
vv: all_gather dim=0
kk: transpose 0 1
a = matmul q kk
a = scale a 1/sqrt(d)
a = softmax a dim=-1
y = matmul a vv
