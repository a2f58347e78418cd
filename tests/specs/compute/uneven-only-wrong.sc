# uneven-only.sc checked on ranks 0 and 1: rank 1's copy was scaled, so the
# check must fail, at two ranks (rank 1 holds an empty chunk when h=1, and
# its gathered copy is still wrong).
pipeline uneven-only-wrong
dims b h
tensor x [b, h] shard h chunk
tensor w [b, h] shard h chunk
output y [b, h] replicate only rank < 2

reference
y = mul x w

program
y = mul x w
y: all_gather dim=1
y = scale y 2 when rank > 0
