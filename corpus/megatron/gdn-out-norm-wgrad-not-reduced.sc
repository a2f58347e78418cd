# Megatron Core's GatedDeltaNet under tensor parallelism without sequence
# parallelism: the output norm (one weight [value_head_dim], applied to
# every value head) is replicated on the TP ranks while the value heads are
# split over them, so each rank's weight gradient sums over its own heads
# only; finalize_model_grads all-reduces a replicated weight over TP only
# when it carries `sequence_parallel` (set by TENorm from
# config.sequence_parallel) or is named q_layernorm / k_layernorm, so
# out_norm's gradient stays each rank's partial sum and the replicas drift.
# NVIDIA/Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553,
# megatron/core/ssm/gated_delta_net/common.py:
#   L186      self.num_v_heads_local_tp = self.num_value_heads // self.tp_size
#   L263-268  self.out_norm = build_module(submodules.out_norm, config=self.config,
#                 hidden_size=self.value_head_dim, eps=self.config.layernorm_epsilon)
#   L371-380  def _apply_gated_norm(self, x, gate):
#                 x = x.reshape(-1, x.shape[-1])
#                 y = self.out_norm(x)
#                 gate = gate.reshape(-1, gate.shape[-1])
#                 y = y * self.act_fn(gate.float())
# megatron/core/models/hybrid/hybrid_layer_specs.py L129 (out_norm=TENorm),
# megatron/core/distributed/finalize_model_grads.py L451-454 (the
# selection by `sequence_parallel` or the q/k_layernorm names).
# Reported in NVIDIA/Megatron-LM issue #7452 ("Silent numerical-correctness
# bugs in Megatron Core parallelism composition", finding 11: "GatedDeltaNet's
# shared out_norm weight is replicated across TP but its gradient is a
# per-rank partial sum; the finalizer only all-reduces it when
# sequence_parallel is on"), open, no fix yet; gdn-out-norm-wgrad-allreduce.sc
# is the SUM the finalizer gives the q/k layernorm weights.
# The norm is RMSNorm (config.normalization); the backward program is its
# weight gradient written out, the gate's activation drawn as its value.
pipeline megatron-gdn-out-norm-wgrad-not-reduced
dims s n d
tensor x [s, n, d] shard n       # the norm's input: every token, the rank's value heads
tensor ag [s, n, d] shard n      # act_fn(gate), the factor after the norm
tensor dy [s, n, d] shard n      # the gradient of the gated output
output dw [d] replicate          # out_norm.weight's gradient, as the optimizer sees it
sizes s=1..4 n=P..2*P d=2..16
expect fail

reference
xh = rmsnorm x                   # x / rms(x)
g = mul dy ag                    # the gate's factor, through the product
g = mul g xh
g = sum g dim=0
dw = sum g dim=0

program
xh = rmsnorm x
g = mul dy ag
g = mul g xh
g = sum g dim=0
dw = sum g dim=0                 # not selected by the finalizer: never all-reduced
