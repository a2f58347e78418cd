# axonn-ai/yalis' tensor-parallel RMSNorm before its fix: the weight and
# the hidden dim are sharded over the inner TP group, but the mean of
# squares is taken over the rank's slice only, so each rank normalizes by
# its own slice's RMS.
# axonn-ai/yalis @ 5ae8675f08b6f182e58ff6549ca281b002fa3979,
# yalis/tensor_parallel/rms_norm.py L99-106, TPRMSNorm.forward:
#   x = x.float()
#   norm_x = torch.mean(x * x, dim=self.dim, keepdim=True)
#   x_normed = x * torch.rsqrt(norm_x + self.eps)
#   return (x_normed * weight.float()).to(dtype=dtype)
# Fixed by axonn-ai/yalis#36 ("AllReduce in TP RMS Norm for correctness",
# rmsnorm-tp-after-36.sc). eps is the module's; 1e-6 here.
pipeline yalis-rmsnorm-tp-before-36
dims t h
tensor x [t, h] shard h        # the activations' hidden dim is sharded with the weight
tensor w [h] shard h           # local_size = size // inner_group_size
output y [t, h] shard h
sizes t=1..4 h=P..8*P
expect fail

reference
a = cast x f32
q = mul a a
q = mean q dim=-1 keepdim
q = add q 1e-6
r = rsqrt q
a = mul a r
wf = cast w f32
y = mul a wf

program
a = cast x f32                 # x = x.float()
q = mul a a
q = mean q dim=-1 keepdim      # torch.mean(x * x, dim=self.dim, keepdim=True)
q = add q 1e-6
r = rsqrt q                    # torch.rsqrt(norm_x + self.eps)
a = mul a r
wf = cast w f32
y = mul a wf                   # x_normed * weight.float() (the .to(dtype) left out: the output is compared in f32)
