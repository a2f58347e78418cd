# axonn-ai/yalis' tensor-parallel RMSNorm as PR #36 fixes it: the local
# mean of squares is all-reduced over the inner TP group and divided by
# its size, giving the mean over the whole hidden dim.
# axonn-ai/yalis @ dceaa167ee32d2c3697c9b9d7cfe47a6535aa689,
# yalis/tensor_parallel/rms_norm.py L102-111, TPRMSNorm.forward:
#   norm_x = torch.mean(x * x, dim=self.dim, keepdim=True)
#   if self.dim == -1:
#       norm_x = self.all_reduce(norm_x) / self.inner_group_size
#   x_normed = x * torch.rsqrt(norm_x + self.eps)
pipeline yalis-rmsnorm-tp-after-36
dims t h
tensor x [t, h] shard h        # the activations' hidden dim is sharded with the weight
tensor w [h] shard h           # local_size = size // inner_group_size
output y [t, h] shard h
sizes t=1..4 h=P..8*P
expect pass

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
q: all_reduce sum              # self.all_reduce(norm_x)
q = scale q 1/P                #   / self.inner_group_size
q = add q 1e-6
r = rsqrt q                    # torch.rsqrt(norm_x + self.eps)
a = mul a r
wf = cast w f32
y = mul a wf                   # x_normed * weight.float() (the .to(dtype) left out: the output is compared in f32)
