# DeepSpeed Ulysses, second all-to-all (heads -> sequence), seq-first layout,
# as shipped before PR 5664: single_all_to_all(scatter_idx=0, gather_idx=2)
#   input_t = input.reshape([P, s/P, b, h/P, d]).contiguous()
#   dist.all_to_all_single(output, input_t)
#   output = output.transpose(0, 1).contiguous()      # the bug
#   output.reshape([s/P, b, h, d]).contiguous()
# The transpose leaves [s/P, P, b, ...]: P and b interleave wrongly whenever
# P > 1 and b > 1 (minimal: world 2, s 2, b 2, h 2, d 1).
pipeline deepspeed-sf-head2seq-before-5664
dims s b h d
input shard h
output shard s
expect fail
reshape [P, s/P, b, h/P, d]
contiguous
all_to_all_single
transpose 0 1
contiguous
reshape [s/P, b, h, d]
contiguous
