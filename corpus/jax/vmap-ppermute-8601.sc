# REPORTED BUG (fixed version) of vmap-ppermute-before-8601.sc: jax-ml/jax
# PR #8601, commit 2cb235809a ("make vmap ppermute consistent with
# pmap/docstring"), merged as 3ee76a8089dfbcda14ca17e128d70a749dc85c21.
# Fixed: jax-ml/jax @ 2cb235809aeb0ee5b42ef129f7a6179d74905034,
# jax/_src/lax/parallel.py L784-799, _ppermute_batcher:
#   perm_indices = np.zeros(axis_size, dtype=int)
#   for src, dst in perm:
#     perm_indices[dst] = src
#   return lax_numpy.take(v, perm_indices, d), d
# Batch index dst now reads index src's slice, as pmap's CollectivePermute
# does. Per rank, with perm the ring shift by K, [(i, (i+K) % P)]: rank i
# receives from perm_indices[i] = (i-K) % P and rank r's slice goes to
# (r+K) % P (the same exchange as `shift K`). The PR also corrected
# tests/batching_test.py, whose expectation x - x[perm] had encoded the
# bug (now x - x[np.argsort(perm)]). Left out: as in the buggy version.
# The rule is unchanged in the mirror's HEAD (jax/_src/lax/parallel.py
# L1236-1239: perm_indices[dst] = src; return v.take(perm_indices, d), d).
# Expected PASS.
# Confirmed on gloo (torch 2.11, numpy 2.4.6; JAX not installed): the
# same script with this commit's _ppermute_batcher (L784-799, verbatim):
# "after (shift perms): 36 cases, 0 differ", `shardcheck eval` agrees on
# 36/36; random full permutations: 72 cases, 0 differ.
pipeline jax-vmap-ppermute-8601
dims s h
param K 0..P-1                           # perm = [(i, (i+K) % P) for i in range(P)]
input shard s                            # batch index r of the vmapped axis: block r
output shard s                           # of Y: rank r holds X's block (r-K) % P
reference
take 0 P [(k-K)%P for k]                 # ppermute semantics: index dst holds index src's slice
end
expect pass
sendrecv to=(rank+K)%P from=(rank-K)%P   # take(v, perm_indices, d): index i reads perm_indices[i] = (i-K) % P
