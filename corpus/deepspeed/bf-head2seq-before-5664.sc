# The pre-5664 single_all_to_all, heads -> sequence, on a batch-first tensor
# [b, s, h, d] (scatter_idx=1, gather_idx=2):
#   input_t = input.reshape([P, s/P] + [h/P, d]).contiguous()
# drops the batch dim: PyTorch raises "shape '[...]' is invalid for input of
# size ..." whenever b > 1 (a runtime failure, minimal at b 2). The 5664
# change (transpose(0, 2) after the collective) does not touch this reshape.
pipeline deepspeed-bf-head2seq-before-5664
dims b s h d
input shard h
output shard s
expect fail
reshape [P, s/P, h/P, d]
contiguous
all_to_all_single
transpose 0 1
contiguous
reshape [b, s/P, h, d]
contiguous
