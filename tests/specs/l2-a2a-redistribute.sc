# Uneven redistribute with all_to_all_single split sizes: torch.chunk shards
# become tensor_split shards; rank src sends dst the rows their ranges share.
dims t h
input shard t chunk
output shard t split
all_to_all_single splits=max(0,min(min((src+1)*cdiv(t,P),t),dst*(t//P)+min(dst,t%P)+t//P+(1 if dst<t%P else 0))-max(min(src*cdiv(t,P),t),dst*(t//P)+min(dst,t%P)))
