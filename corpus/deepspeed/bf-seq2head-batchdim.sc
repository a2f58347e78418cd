# DeepSpeed Ulysses, sequence -> heads, batch-first ([b, s, h, d],
# batch_dim_idx=0, scatter_idx=2):
#   input_t = input.reshape([b, s/P, P, h/P, d]).contiguous()
#   input_t = input_t.permute(2, 0, 1, 3, 4).contiguous()
#   all_to_all_single
#   output = input.permute(1, 0, 2, 3, 4).contiguous()
#   output.reshape(b, P * s/P, h/P, d).contiguous()
pipeline deepspeed-bf-seq2head-batchdim
dims b s h d
input shard s
output shard h
expect pass
reshape [b, s/P, P, h/P, d]
contiguous
permute 2 0 1 3 4
contiguous
all_to_all_single
permute 1 0 2 3 4
contiguous
reshape [b, s, h/P, d]
contiguous
