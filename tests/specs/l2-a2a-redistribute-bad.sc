# Planted: the receivers size their output splits for torch.chunk's rows
# (what they would expect if the output were chunked too).
dims t h
input shard t chunk
output shard t split
all_to_all_single in=max(0,min(min((src+1)*cdiv(t,P),t),dst*(t//P)+min(dst,t%P)+t//P+(1 if dst<t%P else 0))-max(min(src*cdiv(t,P),t),dst*(t//P)+min(dst,t%P))) out=(min((src+1)*cdiv(t,P),t)-min(src*cdiv(t,P),t) if src==dst else 0)
