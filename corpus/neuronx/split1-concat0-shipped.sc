# transformers-neuronx hlo.all_to_all(tensor, split_dim=1, concat_dim=0,
# tp_degree) as shipped (issue 108). XLA AllToAll(split 1, concat 0): each
# rank holds X[r*n/P:(r+1)*n/P, :] and must end with X[:, r*m/P:(r+1)*m/P].
#   transpose(0, 1); reshape [m * n/P]; AllToAll(dimensions=[0]);
#   reshape [n/P * P, m/P]
# Wrong whenever n/P > 1 and m/P > 1.
pipeline neuronx-108-split1-concat0-shipped
dims n m
input shard n
output shard m
expect fail
transpose 0 1
reshape [m * (n/P)]
all_to_all_single
reshape [n, m/P]
