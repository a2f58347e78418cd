# layernorm over h of a sequence-sharded input, weight and bias replicated
pipeline op-layernorm
dims s h
tensor x [s, h] shard s
tensor w [h] replicate
tensor c [h] replicate
output y [s, h] replicate
sizes s=P..4*P h=1..32

reference
y = layernorm x w c eps=1e-5

program
y = layernorm x w c eps=1e-5
y: all_gather dim=0
