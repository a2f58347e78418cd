# DTensor's Shard -> Replicate over an uneven torch.chunk shard
# (torch/distributed/tensor/placement_types.py, Shard._to_replicate_tensor):
# pad each shard to the largest, all_gather_into_tensor, cut the padding
# off the end. Planted: tensor_split puts the short shards last too, but
# pads them in the middle of the gathered rows.
dims s h
input shard s split
output replicate
pad 0 0 cdiv(s,P)-size(0)
all_gather_into_tensor
narrow 0 0 s
