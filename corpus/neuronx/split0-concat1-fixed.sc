# A correct transformers-neuronx all_to_all(split_dim=0, concat_dim=1) with
# XLA's AllToAll semantics (the fix proposed in issue 108 was never merged;
# this is derived from the semantics): split the split axis by tp_degree
# before the collective so the chunks sent are contiguous row blocks, and
# bring the source-rank axis next to the concat axis after it.
pipeline neuronx-108-split0-concat1-fixed
dims n m
input shard m
output shard n
expect pass
reshape [P, n/P, m/P]
all_to_all_single
permute 1 0 2
reshape [n/P, m]
