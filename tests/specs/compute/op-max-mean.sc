# max and mean over a sharded dim: the partial results all-reduced (max,
# and sum of means scaled by 1/P)
pipeline op-max-mean
dims b h
tensor x [b, h] shard h
output y [b] replicate
sizes b=1..4 h=P..16*P

reference
m = max x dim=-1
a = mean x dim=-1
y = sub m a

program
m = max x dim=-1
m: all_reduce max
a = mean x dim=-1
a: all_reduce sum
a = scale a 1/P
y = sub m a
