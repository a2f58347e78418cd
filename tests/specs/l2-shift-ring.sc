# A ring step and its inverse (batch_isend_irecv to rank+1, then to rank-1).
dims s h
input shard s
output shard s
shift 1
shift P-1
