# planted: the unshard written with P (every rank of the mesh) for the cp
# group's size
dims b s h
mesh dp=D cp=C tp=T
input dp:shard b cp:shard s zigzag tp:shard h
output dp:shard b tp:shard h
all_gather dim=1 group=cp
take 1 2*P [2*k if k < P else 4*P-1-2*k for k]
expect fail
