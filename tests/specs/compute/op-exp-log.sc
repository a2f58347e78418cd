# exp, log, pow with a fractional exponent: (log(sum exp(x)) + 2)^1.5 over
# h-shards
pipeline op-exp-log
dims b h
tensor x [b, h] shard h
output y [b] replicate
sizes b=1..4 h=P..16*P

reference
e = exp x
s = sum e dim=1
l = log s
l = add l 2
y = pow l 1.5

program
e = exp x
s = sum e dim=1
s: all_reduce sum
l = log s
l = add l 2
y = pow l 1.5
