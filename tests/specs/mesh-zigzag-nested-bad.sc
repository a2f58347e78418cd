# The same layout with yunchang's indices before PR 57 (rank // U and
# rank % U over the whole mesh, dp included): it must fail where the
# reference-block spec corpus/yunchang/zigzag-extract-local-before-57.sc
# fails, at the same minimal case.
pipeline mesh-zigzag-nested-bad
mesh dp=D rp=R up=U
dims b s h d
input dp:shard b
output dp:shard b rp:shard s zigzag up:shard s
require s % (2*R*U) == 0
expect fail
take 1 2*R [rank//U, 2*R-rank//U-1]
take 1 U rank%U
reshape [size(0), s/(R*U), h, d]
contiguous
