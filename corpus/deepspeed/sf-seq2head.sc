# DeepSpeed Ulysses, first all-to-all (sequence -> heads), seq-first layout
# [s, b, h, d]: single_all_to_all(input, scatter_idx=2, gather_idx=0) in
# deepspeed/sequence/layer.py, identical before and after PR 5664:
#   input_t = input.reshape([-1, P, h/P, d]).transpose(0, 1).contiguous()
#   dist.all_to_all_single(output, input_t)
#   output.reshape([s, b, h/P, d]).contiguous()
pipeline deepspeed-sf-seq2head
dims s b h d
input shard s
output shard h
expect pass
reshape [-1, P, h/P, d]
transpose 0 1
contiguous
all_to_all_single
reshape [s, b, h/P, d]
contiguous
