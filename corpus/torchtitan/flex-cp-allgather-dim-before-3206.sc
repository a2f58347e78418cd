# torchtitan's context parallelism for FlexAttention: the sequence is
# sharded over the CP ranks (after the load balancer's reordering, which X
# here already is: X is k in the order the CP ranks hold it), and each
# inner attention module's forward is wrapped so that it all-gathers the
# full K and V along the sequence before calling flex_attention with its
# local Q. The inner attention module receives q/k/v in model layout
# (bs, seq, heads, dim) (#2761, "refactor inner attention module") and only
# transposes to (bs, heads, seq, dim) inside FlexAttention.forward; the
# CP wrapper (added with #2963) gathered on dim 2, the heads, as if k were
# already transposed: every rank gets [bs, seq/P, P*heads, dim] built from
# all ranks' sequence blocks, not the full [bs, seq, heads, dim].
# pytorch/torchtitan @ 60650551648c67c866e109413617e2e182b27925 (the parent
# of PR #3206, "CP AllGather on the wrong dimension"):
# torchtitan/distributed/context_parallel.py L57-72, apply_cp_to_forward:
#     def cp_forward(q, k, v, **kwargs):
#         k = k.contiguous()
#         v = v.contiguous()
#         global_k, global_v = flex_cp_allgather(k, v, 2, pg_name)
#         return orig_fn(q, global_k, global_v, **kwargs)
# torchtitan/models/common/attention.py L225-226, FlexAttention.forward:
#     # Transpose to (bs, heads, seq, dim) for flex_attention
#     q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
# flex_cp_allgather is PyTorch's custom op (torch 2.11,
# torch/distributed/tensor/experimental/_context_parallel/_cp_custom_ops.py
# L8-20): k.contiguous(); funcol.all_gather_tensor(k, seq_dim, pg_name),
# which is all_gather_into_tensor on dim 0 then, for gather_dim != 0,
# torch.cat(res.chunk(group_size, 0), dim=gather_dim)
# (_functional_collectives.py L199-215).
# Left out: v (the same steps as k), q (stays local), the flex_attention
# call itself and its block mask; the spec stops at global_k as handed to
# orig_fn. Expected FAIL.
# The fixed version: flex-cp-allgather-dim-3206.sc. World 1 gathers nothing
# and passes; every world >= 2 fails on shape.
# Minimal case (shardcheck, random and --exhaustive --world 1..3 --max-dim 3):
# world=2 b=1 s=2 h=1 d=1: rank 0's global_k has shape [1, 1, 2, 1], the
# output placement needs [1, 2, 1, 1] (flex_attention would then see a
# [bs, heads*P, seq/P, dim] key: P times the heads, 1/P of the sequence).
# Confirmed on gloo (torch 2.11.0): a script runs
# apply_cp_to_forward exec'd verbatim from both commits' context_parallel.py
# (git show), with torch's real flex_cp_allgather
# on a CPU gloo DeviceMesh, the FlexAttention module stubbed to record the
# k/v it is handed; worlds 2, 3, 4, 40 distinct (b, s, h, d) cases each:
# "before (6065055...): 120 cases, 120 differ", "after (179d9e1...): 120
# cases, 0 differ"; smallest differing case world 2 b=1 s=2 h=1 d=1,
# global_k shape (1, 1, 2, 1), expected (1, 2, 1, 1): the same as here.
pipeline torchtitan-flex-cp-allgather-dim-before-3206
dims b s h d
input shard s
output replicate
expect fail
contiguous                 # context_parallel.py:65  k = k.contiguous()
contiguous                 # _cp_custom_ops.py:12  k = k.contiguous()
all_gather_into_tensor     # _functional_collectives.py:203  all_gather_into_tensor(self, group_size, group_name)
chunk_cat chunk=0 cat=2    # _functional_collectives.py:214  gather_dim = 2 (flex_cp_allgather(k, v, 2, pg_name))
