# Planted: rank 0 pre-sizes every source's rows as cdiv(t, P), the first
# chunk's size; a later chunk is shorter (or empty), and the gather would
# hang or corrupt
dims t h
input shard t chunk
output replicate only 0
gather dim=0 dst=0 sizes=cdiv(t,P)
