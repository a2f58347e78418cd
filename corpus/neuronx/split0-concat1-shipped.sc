# transformers-neuronx hlo.all_to_all(tensor, split_dim=0, concat_dim=1,
# tp_degree) as shipped (issue 108). XLA AllToAll(split 0, concat 1): each
# rank holds X[:, r*m/P:(r+1)*m/P] and must end with X[r*n/P:(r+1)*n/P, :].
#   shape_flat = [n * m/P];           reshape
#   AllToAll(dimensions=[0])          (= all_to_all_single on dim 0)
#   shape_new = [m/P * P, n/P];       reshape   (sizes swapped, not the data)
#   transpose(0, 1)
# Wrong whenever n/P > 1 and m/P > 1.
pipeline neuronx-108-split0-concat1-shipped
dims n m
input shard m
output shard n
expect fail
reshape [n * (m/P)]
all_to_all_single
reshape [m, n/P]
transpose 0 1
