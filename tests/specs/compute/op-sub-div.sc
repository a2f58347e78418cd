# sub, div and constants: (x - w) / (z*z + 0.5) on h-shards, then gathered
pipeline op-sub-div
dims b h
tensor x [b, h] shard h
tensor w [h] shard h
tensor z [b, h] shard h
output y [b, h] replicate
sizes b=1..4 h=P..8*P

reference
d = sub x w
q = mul z z
q = add q 0.5
y = div d q

program
d = sub x w
q = mul z z
q = add q 0.5
y = div d q
y: all_gather dim=1
