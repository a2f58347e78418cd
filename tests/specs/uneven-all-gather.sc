# Planted: see tests/test_cli.sh (uneven placements). The tensor form
# needs one shape on every rank, as torch's all_gather_into_tensor does.
dims n m
input shard n chunk
output replicate
all_gather_into_tensor
