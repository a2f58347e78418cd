# Horovod's allgather_object after the fix: piece i of the gathered bytes
# starts at the prefix sum of the ranks' sizes.
# horovod/horovod @ a0df7ca4ab851daa79fd73f16012f065947d41ca (PR #2204,
# "Fixed computation of the offset when using allgather_object"):
# horovod/torch/functions.py L229-262, allgather_object, select:
#   start = sum(sizes[:i])
#   end = start + sizes[i]
#   return gathered[start:end]
# The rest as in allgather-object-offset-before-2204.sc.
# Expected PASS (--exhaustive, world 1..4, each dim <= 8: 130 cases).
# Confirmed on gloo (torch 2.11.0, cloudpickle 3.1.3) as the version before
# it: every rank gets every rank's object back in all 180 cases at 2, 3 and
# 4 ranks, and [10, 11, 12] in the minimal case's shape
#.
pipeline horovod-allgather-object-offset-2204
dims n
sequences L[P..P] n 1..4
dtypes u8
input shard n sizes=L(r)
output replicate
expect pass
tensor t = input
g = all_gather t dim=0
y = narrow g 0 0 0
for i in 0..P-1
  s = narrow g 0 sum(L(q) for q in 0..i-1) L(i)
  y = cat y s dim=0
end
