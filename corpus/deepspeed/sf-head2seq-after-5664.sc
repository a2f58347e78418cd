# DeepSpeed Ulysses, second all-to-all (heads -> sequence), seq-first layout,
# after PR 5664 (post_all2all in deepspeed/sequence/layer.py):
#   output = output.transpose(0, 2).contiguous()
#   output.reshape([s/P, b, h, d])
# Finding: the PR's fix is itself wrong for this layout. transpose(0, 2) of
# [P, s/P, b, h/P, d] gives [b, s/P, P, h/P, d]; reshaping that to
# [s/P, b, h, d] swaps the roles of b and s/P, so it is only right when
# b == 1 or s/P == 1 (the report's example had batch 1). It fails even at
# world 1 (minimal: world 1, s 2, b 2, h 1, d 1). The later batch_dim_idx
# code (sf-head2seq-batchdim.sc) permutes (1, 2, 0, 3, 4) and is correct.
pipeline deepspeed-sf-head2seq-after-5664
dims s b h d
input shard h
output shard s
expect fail
reshape [P, s/P, b, h/P, d]
contiguous
all_to_all_single
transpose 0 2
contiguous
reshape [s/P, b, h, d]
