# vocab-parallel lookups: embedding rows and picked logits, masked outside
# the rank's rows and all-reduced
pipeline op-embedding-pick
dims b v h
tensor ids [b] replicate index v
tensor tab [v, h] shard v
tensor lg [b, v] shard v
output y [b, h] replicate
sizes b=1..4 v=P..4*P h=1..8

reference
e = embedding ids tab
p = pick lg ids
p: unsqueeze -1
y = add e p

program
e = embedding ids tab start=rank*(v/P)
e: all_reduce sum
p = pick lg ids start=rank*(v/P)
p: all_reduce sum
p: unsqueeze -1
y = add e p
