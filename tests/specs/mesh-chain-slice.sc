# its second half: back to [Shard(0), Shard(1)] by slicing (no communication)
dims s h
mesh dp=D tp=T
input tp:shard h
output dp:shard s tp:shard h
take 0 D dp
