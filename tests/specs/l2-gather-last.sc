# gather to the last rank; only its output is the whole tensor
dims s h
input shard s
output replicate only P-1
gather dim=0 dst=P-1
