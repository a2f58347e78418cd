# USP's layout (yunchang's extract_local after PR 57) written with a zigzag
# entry and an even one nested inside it, in place of the reference block
# of corpus/yunchang/zigzag-extract-local-after-57.sc: each ring rank's
# zigzag pair of blocks, then its Ulysses chunk of that pair.
pipeline mesh-zigzag-nested
mesh dp=D rp=R up=U
dims b s h d
input dp:shard b
output dp:shard b rp:shard s zigzag up:shard s
require s % (2*R*U) == 0
expect pass
take 1 2*R [rp, 2*R-rp-1]
take 1 U up
reshape [size(0), s/(R*U), h, d]
contiguous
