# Uneven pieces (rank r holds 1 + r % 2 rows: sizes drawn per rank, as a
# variable-length batch is), all-gathered, then each rank narrows its own
# piece back at its offset: the prefix sum of the earlier ranks' sizes
dims t h
input shard t sizes=1+r%2
output shard t sizes=1+r%2
all_gather dim=0
narrow 0 sum(1+j%2 for j in 0..rank-1) 1+rank%2
