# Planted: the output is read on rank 0, but the gather went to the last rank
dims s h
input shard s
output replicate only rank == 0
gather dim=0 dst=P-1
