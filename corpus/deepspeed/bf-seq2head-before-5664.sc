# The pre-5664 single_all_to_all called on a batch-first tensor [b, s, h, d]
# (scatter_idx=2, gather_idx=1, as a batch-first caller passes them):
#   input_t = input.reshape([-1, P, h/P, d]).transpose(0, 1).contiguous()
#   all_to_all_single
#   output.reshape([b, s, h/P, d])
# The received chunks are rank-major ([P, b, s/P]) but the reshape reads them
# as [b, P * s/P]: wrong whenever b > 1 and P > 1.
pipeline deepspeed-bf-seq2head-before-5664
dims b s h d
input shard s
output shard h
expect fail
reshape [-1, P, h/P, d]
transpose 0 1
contiguous
all_to_all_single
reshape [b, s, h/P, d]
contiguous
