# DeepSpeed Ulysses, heads -> sequence, seq-first ([s, b, h, d],
# batch_dim_idx=1), as in the later single_all_to_all/post_all2all with
# batch_dim_idx:
#   input_t = input.reshape([P, s/P, b, h/P, d]).contiguous()
#   all_to_all_single
#   output = input.permute(1, 2, 0, 3, 4).contiguous()
#   output.reshape(s/P, b, P * h/P, d).contiguous()
pipeline deepspeed-sf-head2seq-batchdim
dims s b h d
input shard h
output shard s
expect pass
reshape [P, s/P, b, h/P, d]
contiguous
all_to_all_single
permute 1 2 0 3 4
contiguous
reshape [s/P, b, h, d]
contiguous
