# planted: the slice by tp's coordinate
dims s h
mesh dp=D tp=T
input tp:shard h
output dp:shard s tp:shard h
take 0 D min(tp,D-1)
