# Ring attention's zigzag shards gathered and put back in order: the
# all_gather leaves blocks 0, 2P-1, 1, 2P-2, ...; index_select by chunk ids.
dims s h
input shard s zigzag
output replicate
all_gather dim=0
take 0 2*P [2*k if k < P else 4*P-1-2*k for k]
