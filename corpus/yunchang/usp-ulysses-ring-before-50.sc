# yunchang (USP) LongContextAttention, Ulysses x ring with data parallelism
# (REPORTED BUG, buggy version): before PR #50 ("set_seq_parallel_pg
# compatible with DP process group"), set_seq_parallel_pg built the ring
# groups over the whole world, so with dp > 1 a ring group strides across dp
# replicas and k/v blocks of another replica's sequence enter the attention.
# feifeibear/long-context-attention @ 2e7dd75c84c0079a190ab674c4edc6062dc6203b
# (parent of the fix bdef8783dbafd5220767ec0dea3a68d8381166a2):
# yunchang/globals.py L17-53, set_seq_parallel_pg (use_ulysses_low=True):
#   num_ulysses_pgs = world_size // sp_ulysses_degree
#   num_ring_pgs = world_size // sp_ring_degree
#   for i in range(num_ulysses_pgs):
#       ulysses_ranks = list(range(i * sp_ulysses_degree, (i + 1) * sp_ulysses_degree))
#   for i in range(num_ring_pgs):
#       ring_ranks = list(range(i, world_size, num_ring_pgs))
# With world = D*2*U (dp x ring=2 x ulysses) a ring group is {i, i + D*U}; for
# D = 2 that is {i, i + 2U}: same rp and up, the two dp replicas, i.e. the dp
# mesh dim. So the mesh is fixed at dp=2, rp=2 and the ring runs with
# group=dp (exact for D = 2 only; other D give groups that are no mesh dim:
# the language has no groups from rank lists).
# The layer code is unchanged by the fix (all_to_all.py, attn_layer.py,
# ring_flash_attn.py and ring/utils.py are the same at both commits): see
# usp-ulysses-ring-after-50.sc for the quoted lines.
# Expected FAIL: world 4 (U=1), b=2, s=2, h=1, d=1: rank 0 (dp 0) receives the
# block of rank 2 (dp 1, the other sample) as the second half of its sequence.
# Real code: a run on gloo ranks, commit 2e7dd75c: D=2 R=2 U=1 ring groups
# [0, 2], [1, 3], every rank not ok; D=1 ok.
pipeline yunchang-usp-ulysses-ring-before-50
mesh dp=2 rp=2 up=U
dims b s h d
input dp:shard b rp,up:shard s
output dp:shard b up:shard h
expect fail
tensor key = input
# all_to_all_4D(key, scatter_idx=2, gather_idx=1, group=ULYSSES_PG): the Ulysses groups are right
key = reshape key [size(0), size(1), U, h/U, d]   # input.reshape(bs, shard_seqlen, seq_world_size, shard_hc, hs)
key = transpose key 0 2                           # .transpose(0, 2)
key = contiguous key                              # .contiguous()
key = all_to_all_single key group=up              # dist.all_to_all_single(output, input_t, group=group)
key = reshape key [size(0)*size(1), size(2), h/U, d]   # output.reshape(seqlen, bs, shard_hc, hs)
key = transpose key 0 1                           # output.transpose(0, 1)
key = contiguous key                              # .contiguous()
key = reshape key [size(0), size(1), h/U, d]      # .reshape(bs, seqlen, shard_hc, hs)
# ring_flash_attn_forward over RING_PG = range(i, world_size, world_size // 2): the dp pair
nkey = shift key 1 group=dp                       # next_k = comm.send_recv(k) in the wrong ring
blocks = cat key nkey dim=1                       # step 0 attends key, step 1 attends next_k
take 1 2 [(dp-k)%2 for k]                         # check only: order by the rank in RING_PG (= dp here)
