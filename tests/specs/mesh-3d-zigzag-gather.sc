# a 3-D mesh: each cp group's zigzag shard of s gathered and put back in
# order (ring attention's unshard), with b sharded over dp and h over tp
dims b s h
mesh dp=D cp=C tp=T
input dp:shard b cp:shard s zigzag tp:shard h
output dp:shard b tp:shard h
all_gather dim=1 group=cp
take 1 2*C [2*k if k < C else 4*C-1-2*k for k]
expect pass
