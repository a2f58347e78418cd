# xDiT's USP attention with joint tensors (text tokens attended jointly with
# the image tokens, joint_strategy="rear"), ring only (Ulysses degree 1),
# as fixed by PR #611: the joint key and value are no longer appended to
# the local block before the ring; the attention function is wrapped so
# that they are appended to the block of one ring step only, the last.
# xdit-project/xDiT @ 77e8b781c590f062bda65a9fa6f28688cca3142c (PR #611 "Add
# fix for ring attention with rear joint tensors"; parent 3a15df46, see
# usp-ring-joint-rear-before-611.sc):
# xfuser/model_executor/layers/usp.py L197-223, concat_joint_tensors_decorator:
#   step = joint_attn_kwargs.get("step", 0)
#   total_steps = joint_attn_kwargs.get("total_steps", 1)
#   if (joint_strategy == "front" and step == 0) or (joint_strategy == "rear" and step == total_steps - 1):
#       key = _concat_joint_tensor(key, joint_key, joint_strategy, dim=2)
#       value = _concat_joint_tensor(value, joint_value, joint_strategy, dim=2)
#   joint_attn_kwargs["step"] = step + 1 # In place increment step
# L187-195, _get_attention_function: return concat_joint_tensors_decorator(func)
# L225-285, USP: joint_attn_kwargs = {..., "step": 0, "total_steps": get_ring_parallel_world_size()}
#   out = ring_attn(attention_function, query, key, value, ..., joint_attn_kwargs=joint_attn_kwargs)
# L29-56, ring_attn: passes joint_attn_kwargs to the op through _templated_ring_attention.
# The ring calls the op once per step (not causal: no step skipped), so
# the joint key and value join the block of step P-1 only: once in all.
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
# Expected PASS (exhaustive up to world 3, dims <= 3; 500 drawn cases).
# Confirmed on gloo (torch 2.11.0): a script runs this
# commit's usp.py (exec'ed verbatim) as for the parent: "30 cases, 0
# differ in the image rows, 0 differ in the joint-query rows";
# shardcheck eval (f64) of this spec gives the same verdict in 17/17
# cases with j >= 1.
pipeline xdit-usp-ring-joint-rear-611
dims s j d
tensor q [s, d] shard s
tensor k [s, d] shard s
tensor v [s, d] shard s
tensor jk [j, d] replicate
tensor jv [j, d] replicate
output y [s, d] shard s
dtypes f32 f64
expect pass

reference
kk = cat k jk dim=0
vv = cat v jv dim=0
kk: transpose 0 1
a = matmul q kk
a = scale a 1/sqrt(d)
a = softmax a dim=-1
y = matmul a vv

program
kk = k
vv = v
kk: all_gather dim=0
vv: all_gather dim=0
kk = cat kk jk dim=0
vv = cat vv jv dim=0
kk: transpose 0 1
a = matmul q kk
a = scale a 1/sqrt(d)
a = softmax a dim=-1
y = matmul a vv
