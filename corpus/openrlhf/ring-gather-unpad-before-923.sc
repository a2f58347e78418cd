# OpenRLHF's ring attention (packing_samples + ring_attn_size > 1) unpads a
# batch into one packed stream of n tokens (1, n), pads it with
# ring_attn_pad_len = (P - n % P) % P tokens so that it splits evenly, and
# gives rank r the r-th of P equal slices; after the model, the per-token
# outputs (log-probs, values) are all-gathered and the padding is cut off
# before pad_input scatters them back to (batch, seqlen). The cut kept the
# padding and dropped the tokens. X is the packed stream (1, n) on one
# device; every rank must end with all of X.
# OpenRLHF/OpenRLHF @ 1298b4aa25409372f741e5e95c1561fc9b1222f9 (the parent
# of the fix 2dcf1ad26c40df2ab5f8e5b67561afe7a2a32bc6, "fix remove pading
# for ring attention", a commit of PR #923 "refactor data packing and fix
# loss scale", squash-merged as 9673a87cf208fffe2363eed4c84977f299a346e7:
# the buggy line lived on the PR branch only, never on main),
# openrlhf/models/ring_attn_utils.py:
#   unpad_and_slice_tensor, lines 106-121 (pad at 110-112, slice at 117):
#     ring_attn_pad_len = (ring_attn_size - seqlen % ring_attn_size) % ring_attn_size
#     sequences = torch.nn.functional.pad(sequences, (0, ring_attn_pad_len), value=pad_attn_mask_id)
#     ... convert_ring_attn_params -> get_slice_in_this_ring_attn_rank (lines 62-68):
#     local_seq_len = total_seq_len // ring_attn_size
#     start, end = ring_attn_rank * local_seq_len, (ring_attn_rank + 1) * local_seq_len
#     sequences = sequences[:, start:end]
#   gather_and_pad_tensor, lines 140-142:
#     tensor = all_gather(tensor.transpose(0, 1), ring_attn_group).transpose(0, 1)  # (1, total_seqs)
#     tensor = tensor[:, -ring_attn_pad_len:]
#     tensor = pad_input(tensor.transpose(0, 1), indices, batch, seqlen).squeeze(-1)
# all_gather is flash_attn.utils.distributed's (all_gather_into_tensor of
# input_.contiguous() along dim 0). tensor[:, -k:] keeps the last k columns
# for k > 0 and, as -0 == 0, all of them for k == 0: right only when n is a
# multiple of P. Left out: unpad_input / pad_input (the same index
# gather / scatter by the attention mask at both commits: X is the stream
# between them), the model (identity per token), the labels and
# position_ids sliced alongside, update_ring_attn_params (kernel
# arguments). The sequences line only draws the packed batch (n is the
# sum of the sequences' lengths, as unpad_input makes it); the steps do not
# read L. The pad value (pad_attn_mask_id) is written as padding.
# Expected FAIL. Minimal case: world 2, one sequence of 1 token (n=1, one
# padding token): every rank gets the padding token in X[0, 0]'s place
# (shardcheck: rank 0 [0, 0] holds padding, expected X[0, 0]).
# Confirmed on gloo (torch 2.11.0): a script
# runs unpad_and_slice_tensor and gather_and_pad_tensor of this commit and
# of the fix, verbatim (git show extracts; flash_attn's all_gather
# verbatim, its bert_padding helpers by CPU equivalents without einops;
# update_ring_attn_params a no-op; torch.cuda.current_device -> cpu) on
# 2, 3 and 4 gloo ranks, 60 left-padded batches each (1-3 rows, seqlen
# 1-6), the model the identity: before: world 2 60 cases, 39 differ;
# world 3 60, 48; world 4 60, 50 -- exactly the cases with n % P != 0
# (21, 12, 10 with n % P == 0 all right). Smallest: world 2, n=1: every
# rank gets [0, 0, 0, 2] (2 = pad_attn_mask_id broadcast by pad_input)
# instead of [0, 0, 0, 93]; with 2 or more padding tokens pad_input raises
# "shape mismatch: value tensor of shape [2, 1] cannot be broadcast to
# indexing result of shape [1, 1]". Under torch 1.13 gloo has no
# _allgather_base ("no support for _allgather_base in Gloo process
# group"): that run proves nothing either way.
pipeline openrlhf-ring-gather-unpad-before-923
dims b n
sizes b=1..1
sequences L[1..3] n 1..P+1
input replicate
output replicate
expect fail
pad 1 0 (P-n%P)%P                          # F.pad(sequences, (0, ring_attn_pad_len))
narrow 1 rank*(size(1)//P) size(1)//P     # sequences[:, start:end], local_seq_len = numel // P
transpose 0 1
contiguous                                  # all_gather(tensor.transpose(0, 1)): input_.contiguous()
all_gather_into_tensor                      # all_gather_into_tensor along dim 0
transpose 0 1
narrow 1 (size(1)-(P-n%P)%P if (P-n%P)%P>0 else 0) ((P-n%P)%P if (P-n%P)%P>0 else size(1))  # tensor[:, -ring_attn_pad_len:]
