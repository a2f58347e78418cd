# row-parallel linear's output: partial over tp, then all-reduced over tp
dims s h
mesh dp=D tp=T
input dp:shard s tp:partial sum
output dp:shard s
all_reduce sum group=tp
expect pass
