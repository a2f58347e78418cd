# The list all_gather takes tensors that differ along its dim (torch's
# all_gather with a list of differently sized outputs): correct.
dims n m
input shard n chunk
output replicate
all_gather dim=0 sizes=min(cdiv(n,P), n-min(n,src*cdiv(n,P)))
