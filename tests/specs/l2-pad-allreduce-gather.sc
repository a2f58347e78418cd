# A gather written as zero-fill, copy at the rank's offset, all_reduce sum
# (SGLang's dp attention gather): padding and one element reduce to that
# element, so this is a correct all-gather of tensor_split shards.
dims t h
input shard t split
output replicate
pad 0 rank*(t//P)+min(rank,t%P) t-(rank*(t//P)+min(rank,t%P))-size(0)
all_reduce sum
