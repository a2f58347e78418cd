# planted: the slice indexed by the global rank instead of the tp coordinate
dims s h
mesh dp=D tp=T
input dp:shard s
output dp:shard s tp:shard s
require s % (D*T) == 0
narrow 0 (rank%T if D == 1 else rank//D)*(size(0)//T) size(0)//T
expect fail
