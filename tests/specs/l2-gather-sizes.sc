# torch.chunk shards gathered to rank 0, which pre-sizes each source's rows
# as the chunk rule gives them (the sizes a padded gather trims back to)
dims t h
input shard t chunk
output replicate only 0
gather dim=0 dst=0 sizes=min(cdiv(t,P),max(0,t-src*cdiv(t,P)))
