# planted: the all-reduce over dp leaves tp's partial sums
dims s h
mesh dp=D tp=T
input dp:shard s tp:partial sum
output dp:shard s
all_reduce sum group=dp
expect fail
