# A pipeline's activations passed stage to stage (first stage receives
# nothing, last sends nothing): after P-1 hops the last stage holds what
# the first one held
dims s h
input replicate
output replicate only P-1
sendrecv to=(rank+1 if rank<P-1 else none) from=(rank-1 if rank>0 else none)
