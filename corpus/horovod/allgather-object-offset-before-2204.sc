# Horovod's allgather_object: every rank pickles its object into a byte
# tensor of its own length, the lengths and the bytes are all-gathered
# (horovod's allgather concatenates the ranks' tensors along dim 0, which
# may differ), and every rank cuts the gathered bytes back into one piece
# per rank and unpickles each: piece i must start at the sum of the sizes
# of the ranks before i.
# horovod/horovod @ 4fb0db29942314297f7d8b6c3a6f60e258109113 (the parent of
# the fix, PR #2204 "Fixed computation of the offset when using
# allgather_object", a0df7ca4ab85):
# horovod/torch/functions.py L229-262, allgather_object:
#   t = torch.ByteTensor(bytearray(b.getvalue()))
#   sz = torch.IntTensor([t.shape[0]])
#   sizes = allgather(sz, name=name + '.sz').numpy()
#   gathered = allgather(t, name=name + '.t').numpy()
#   def select(i):
#       start = sizes[i - 1] if i > 0 else 0
#       end = start + sizes[i]
#       return gathered[start:end]
#   return [load(select(i)) for i in range(size())]
# (horovod/tensorflow/functions.py and horovod/mxnet/functions.py had the
# same select and the same fix.) Piece i starts at the size of piece i-1
# alone, not at the sum of the sizes before it: right for i <= 1, wrong
# from the third rank on unless every piece before the one before i is
# empty (a pickle never is).
# Here the bytes are n, rank r's L(r) of them (the sizes all-gathered are
# the vector L, the same on every rank: `sequences L[P..P]`, one length a
# rank, at least 1); the gathered pieces, in list order, must be X: the
# list of every rank's object. Left out: pickling and unpickling (bytes
# in, bytes out).
# Expected FAIL. Minimal case: world=3 n=3 L=1:1:1: every rank's piece 2
# is byte 1 ("rank 0 [2] holds X[1], expected X[2]"); world 2 never fails.
# (`check` and `--exhaustive --world 1..4 --max-dim 8` both report it.)
# Confirmed on gloo (torch 2.11.0, cloudpickle 3.1.3): this commit's
# allgather_object, taken out of horovod/torch/functions.py and run
# verbatim, with horovod's allgather as an uneven all-gather on gloo
# (sizes gathered, pieces padded to the largest, all_gather, trimmed,
# concatenated) and size() the world size, each rank's object a drawn list,
# string or dict: 120 of 180 cases differ, none of the 60 at 2 ranks and
# all 60 at 3 and all 60 at 4 ranks (unpickling raises or gives another
# rank's object), exactly the cases where sizes[i-1] != sum(sizes[:i]) for
# some i; the smallest, 3 ranks, pickles of 20, 5 and 15 bytes. The
# minimal case's shape, 3 ranks with objects 10, 11, 12 (pickles of 5 bytes
# each): every rank gets [10, 11, 11]
#.
pipeline horovod-allgather-object-offset-before-2204
dims n
sequences L[P..P] n 1..4
dtypes u8
input shard n sizes=L(r)
output replicate
expect fail
tensor t = input
g = all_gather t dim=0
y = narrow g 0 0 0
for i in 0..P-1
  s = narrow g 0 (L(i-1) if i > 0 else 0) L(i)
  y = cat y s dim=0
end
