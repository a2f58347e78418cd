# Megatron Core's GatedDeltaNet output norm's weight gradient all-reduced
# (SUM) over the TP group, as finalize_model_grads treats the weights it
# selects (sequence-parallel norms, q_layernorm / k_layernorm):
# NVIDIA/Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553,
# megatron/core/distributed/finalize_model_grads.py L451-454, L470-474
# (the coalesced all_reduce with ReduceOp.SUM over the TP group). Issue
# #7452 (finding 11) is open with no fix: this is the reduction the
# missing selection would give; the buggy version is
# gdn-out-norm-wgrad-not-reduced.sc.
pipeline megatron-gdn-out-norm-wgrad-allreduce
dims s n d
tensor x [s, n, d] shard n
tensor ag [s, n, d] shard n
tensor dy [s, n, d] shard n
output dw [d] replicate
sizes s=1..4 n=P..2*P d=2..16
expect pass

reference
xh = rmsnorm x
g = mul dy ag
g = mul g xh
g = sum g dim=0
dw = sum g dim=0

program
xh = rmsnorm x
g = mul dy ag
g = mul g xh
g = sum g dim=0
dw = sum g dim=0
dw: all_reduce sum               # the finalizer's coalesced SUM over TP
