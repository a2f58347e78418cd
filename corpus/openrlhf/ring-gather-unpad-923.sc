# OpenRLHF's ring attention: the packed stream (1, n) padded to a multiple
# of P, sliced evenly across the ring group, and after the model gathered
# and cut back to n tokens, after the fix of the cut (the buggy version and
# the layout: ring-gather-unpad-before-923.sc). X is the packed stream on
# one device; every rank must end with all of X.
# OpenRLHF/OpenRLHF @ 2dcf1ad26c40df2ab5f8e5b67561afe7a2a32bc6 ("fix remove
# pading for ring attention", a commit of PR #923, squash-merged as
# 9673a87cf208fffe2363eed4c84977f299a346e7, whose file has the same lines at 73-81 and 143-145),
# openrlhf/models/ring_attn_utils.py:
#   get_tensor_in_current_ring_attn_rank, lines 73-81:
#     ring_attn_pad_len = (ring_attn_size - seqlen % ring_attn_size) % ring_attn_size
#     tensor = torch.nn.functional.pad(tensor, (0, ring_attn_pad_len), value=pad_id)
#     local_seq_len = tensor.numel() // ring_attn_size
#     start, end = ring_attn_rank * local_seq_len, (ring_attn_rank + 1) * local_seq_len
#     tensor = tensor[:, start:end]
#   (called from unpad_and_slice_tensor, lines 115-119), and
#   gather_and_pad_tensor, lines 137-140:
#     tensor = all_gather(tensor.transpose(0, 1), ring_attn_group).transpose(0, 1)  # (1, total_seqs)
#     if ring_attn_pad_len > 0:
#         tensor = tensor[:, :-ring_attn_pad_len]
# Left out, as in the buggy spec: unpad_input / pad_input, the model
# (identity), the other tensors sliced alongside, update_ring_attn_params.
# Expected PASS.
# Confirmed on gloo (torch 2.11.0):
# the same 60 batches on each of 2, 3 and 4 gloo ranks: after: 60 cases,
# 0 differ at every world (before: 39, 48 and 50 differ).
pipeline openrlhf-ring-gather-unpad-923
dims b n
sizes b=1..1
sequences L[1..3] n 1..P+1
input replicate
output replicate
expect pass
pad 1 0 (P-n%P)%P                          # F.pad(sequences, (0, ring_attn_pad_len))
narrow 1 rank*(size(1)//P) size(1)//P     # sequences[:, start:end], local_seq_len = numel // P
transpose 0 1
contiguous                                  # all_gather(tensor.transpose(0, 1)): input_.contiguous()
all_gather_into_tensor                      # all_gather_into_tensor along dim 0
transpose 0 1
narrow 1 0 (size(1)-(P-n%P)%P if (P-n%P)%P>0 else size(1))  # if ring_attn_pad_len > 0: tensor[:, :-ring_attn_pad_len]
