# Planted: receivers pre-size the gather for tensor_split's counts, but the
# shards are torch.chunk's: a sender/receiver disagreement.
dims n m
input shard n chunk
output replicate
all_gather dim=0 sizes=n//P+(1 if src<n%P else 0)
