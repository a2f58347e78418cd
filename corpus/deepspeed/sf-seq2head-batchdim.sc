# DeepSpeed Ulysses, sequence -> heads, seq-first ([s, b, h, d],
# batch_dim_idx=1, scatter_idx=2) in the batch_dim_idx version:
#   input_t = input.reshape([s/P, b, P, h/P, d]).contiguous()
#   input_t = input_t.permute(2, 0, 1, 3, 4).contiguous()
#   all_to_all_single
#   input.reshape(s/P * P, b, h/P, d).contiguous()
pipeline deepspeed-sf-seq2head-batchdim
dims s b h d
input shard s
output shard h
expect pass
reshape [s/P, b, P, h/P, d]
contiguous
permute 2 0 1 3 4
contiguous
all_to_all_single
reshape [s, b, h/P, d]
contiguous
