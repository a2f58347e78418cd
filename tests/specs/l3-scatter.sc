# Rank 0 scatters its tensor's chunks along the hidden dim
# (dist.scatter(out, list(w.chunk(P, 1)), src=0)): rank r holds chunk r
dims s h
require h % P == 0
input replicate
output shard h
scatter dim=1 src=0
