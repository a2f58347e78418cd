# rmsnorm over h of a sequence-sharded input, with and without a weight
pipeline op-rmsnorm
dims s h
tensor x [s, h] shard s
tensor w [h] replicate
output y [s, h] replicate
sizes s=P..4*P h=1..32

reference
t = rmsnorm x eps=1e-6
y = rmsnorm t w

program
t = rmsnorm x eps=1e-6
y = rmsnorm t w
y: all_gather dim=0
