# JAX lax.ppermute under vmap: the batching rule that runs the collective
# permutation when the named axis is a vmapped (batch) axis instead of pmap
# devices. ppermute(x, 'i', perm), perm a list of (source_index,
# destination_index) pairs, must give index dst the slice of index src
# (jax/_src/lax/parallel.py L204-228, ppermute's docstring; what pmap does).
# Written here with the vmapped axis as the ranks: rank r holds slice r
# (block r of X), and perm is the ring shift by K, [(i, (i+K) % P)], so
# rank r must end with block (r-K) % P.
# REPORTED BUG (buggy version): jax-ml/jax PR #8601 (mattjj:fix-vmap-ppermute,
# commit 2cb235809a "make vmap ppermute consistent with pmap/docstring":
# "This was a bad bug! ... permutations on size-two axes are either
# trivial or not. The simplest test might have a size-three axis.").
# Buggy: jax-ml/jax @ 606ca26e050cdb853695a1bee6fb76bc4e15ba36 (the parent of
# 2cb235809aeb0ee5b42ef129f7a6179d74905034),
# jax/_src/lax/parallel.py L784-799, _ppermute_batcher:
#   assert len(perm) == axis_size, "Permutation doesn't match the axis size!"
#   perm_indices = np.zeros(axis_size, dtype=int)
#   for src, dst in perm:
#     perm_indices[src] = dst
#   return lax_numpy.take(v, perm_indices, d), d
# take(v, perm_indices, d) gives batch index i the slice perm_indices[i]:
# here index src receives from dst, the inverse permutation. Per rank:
# rank i receives from perm_indices[i] = (i+K) % P, so rank r's slice goes
# to the rank that reads it, (r-K) % P. Left out: the multi-axis branches
# (axis_size == 1 with remaining axes, NotImplementedError) and the
# asserts, which a single vmapped axis with a full permutation passes.
# Expected FAIL. Minimal case: world=3 s=3 h=1 K=1 (the ring 0->1->2->0):
# rank 0 receives block 1 instead of block 2.
# Confirmed on gloo (torch 2.11, numpy 2.4.6; JAX not installed):
# a script execs this commit's _ppermute_batcher, copied out
# of `git show` (L784-799, verbatim; np = numpy, lax_numpy.take =
# numpy.take), on the batched operand all-gathered from 2, 3 and 4 gloo
# ranks, and compares index r of its result with what rank r receives from
# the collective permutation run on the ranks (batch_isend_irecv of each
# (src, dst) pair). Shift perms, K = 0..P-1, s = P and 2P, h = 1, 2:
# "before (shift perms): 36 cases, 16 differ" (worlds 3 and 4, every K
# with 2K % P != 0), smallest "world=3 s=3 h=1 K=1 perm=[(0, 1), (1, 2),
# (2, 0)]: rank 0 got [1], expected [2]": shardcheck's minimal case, the
# same element; `shardcheck eval` of this spec agrees on 36/36 cases.
# Random full permutations (not in the spec): 72 cases, 32 differ.
pipeline jax-vmap-ppermute-before-8601
dims s h
param K 0..P-1                           # perm = [(i, (i+K) % P) for i in range(P)]
input shard s                            # batch index r of the vmapped axis: block r
output shard s                           # of Y: rank r holds X's block (r-K) % P
reference
take 0 P [(k-K)%P for k]                 # ppermute semantics: index dst holds index src's slice
end
expect fail
sendrecv to=(rank-K)%P from=(rank+K)%P   # take(v, perm_indices, d): index i reads perm_indices[i] = (i+K) % P
