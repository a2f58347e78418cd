# A correct transformers-neuronx all_to_all(split_dim=1, concat_dim=0) with
# XLA's AllToAll semantics (derived; issue 108's PR was closed unmerged):
# split the split axis by tp_degree and move that axis to the front before
# the collective; the received rank-major blocks are then the concat order.
pipeline neuronx-108-split1-concat0-fixed
dims n m
input shard n
output shard m
expect pass
reshape [n/P, P, m/P]
permute 1 0 2
contiguous
all_to_all_single
reshape [n, m/P]
