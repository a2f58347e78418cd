# planted: the combine reuses the dispatch's splits
dims t h
mesh ep=E tp=T
counts C 0..3 group=ep
input ep:shard t sizes=rowsum(C,r) tp:shard h
output ep:shard t sizes=rowsum(C,r) tp:shard h
all_to_all_single in=C(src,dst) out=C(src,dst) group=ep
all_to_all_single in=C(src,dst) out=C(src,dst) group=ep
expect fail
