# DeepSpeed Ulysses, heads -> sequence, batch-first ([b, s, h, d],
# batch_dim_idx=0, scatter_idx=1):
#   input_t = input.reshape([b, P, s/P, h/P, d]).contiguous()
#   input_t = input_t.permute(1, 0, 2, 3, 4).contiguous()
#   all_to_all_single
#   output = input.permute(1, 2, 0, 3, 4).contiguous()
#   output.reshape(b, s/P, P * h/P, d).contiguous()
pipeline deepspeed-bf-head2seq-batchdim
dims b s h d
input shard h
output shard s
expect pass
reshape [b, P, s/P, h/P, d]
contiguous
permute 1 0 2 3 4
contiguous
all_to_all_single
permute 1 2 0 3 4
contiguous
reshape [b, s/P, h, d]
contiguous
