# Uneven shards (torch.chunk's) of compute tensors, multiplied, gathered
# (all_gather of pieces that differ along the dim), and checked on rank 0
# only: the other ranks scale their copy, which is not the output.
pipeline uneven-only
dims b h
tensor x [b, h] shard h chunk
tensor w [b, h] shard h chunk
output y [b, h] replicate only 0

reference
y = mul x w

program
y = mul x w
y: all_gather dim=1
y = scale y 2 when rank > 0
