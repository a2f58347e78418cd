# The same with the block turned back on the first rank instead: from
# world 2 the last rank's block stays reversed (and the first rank's is
# reversed), wrong where a block holds two rows.
pipeline l3-step-when-wrong
dims s h
input shard s
output replicate
expect fail
tensor x = input
y = flip x 0 when rank == P-1
y = flip y 0 when rank == 0
z = all_gather_into_tensor y
