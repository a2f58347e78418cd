# Megatron-LM's multimodal RoPE (mrope, Qwen2-VL) under context
# parallelism: MultimodalRotaryEmbedding.forward builds the rotary
# embedding of the whole sequence, emb [s, b, 1, 2*dim], and must keep this
# CP rank's zigzag pair of sequence chunks (cp_rank and 2*cp-1-cp_rank, the
# chunks get_batch_on_this_cp_rank gives the rank's tokens). It passes
# seq_dim 1, which is the batch dim: the batch is cut into 2*cp chunks
# instead of the sequence.
# NVIDIA/Megatron-LM @ 49f463c96100f8ac3661fd49c49f4e511eb1de01 (merge
# request ADLR/megatron-lm!2718, "add MultimodalRotaryEmbedding for
# multimodal models", which introduced the line),
# megatron/core/models/common/embeddings/rotary_pos_embedding.py L267-310,
# MultimodalRotaryEmbedding.forward:
#   L302  emb = torch.cat([m[i % 3] for i, m in enumerate(emb.split(mrope_section, dim=-1))], dim=-1)
#   L304  # shape (seq_length, bs, 1, 2 * dim)
#   L305  emb = emb[..., None, :].transpose(0, 1).contiguous()
#   L306  if parallel_state.get_context_parallel_world_size() > 1:
#   L309      emb = get_pos_emb_on_this_cp_rank(emb, 1)
# megatron/core/models/common/embeddings/rope_utils.py L49-66,
# get_pos_emb_on_this_cp_rank(pos_emb, seq_dim):
#   cp_idx = torch.tensor([cp_rank, (2 * cp_size - cp_rank - 1)], device="cpu", pin_memory=True).cuda(non_blocking=True)
#   pos_emb = pos_emb.view(*pos_emb.shape[:seq_dim], 2 * cp_size, -1, *pos_emb.shape[(seq_dim + 1) :])
#   pos_emb = pos_emb.index_select(seq_dim, cp_idx)
#   pos_emb = pos_emb.view(*pos_emb.shape[:seq_dim], -1, *pos_emb.shape[(seq_dim + 2) :])
# The line is unchanged up to the fix's parent
# (efcabfc66365ee90520922a5d9a74a93dba386fd), where get_pos_emb_on_this_cp_rank
# has meanwhile gained a required cp_group argument (!2927,
# 069d52fb3a), so there the call raises TypeError before any slicing; the
# layout bug is transcribed at 49f463c9, where the two files agree.
# X is the whole emb [s, b, o, e] (o = 1, e = 2*dim) that every CP rank
# computes from the whole sequence's position_ids (as the fix's slicing
# along s implies); the cos/sin arithmetic before it is left out (it is
# per element). `require P >= 2` is the `cp world size > 1` guard.
# Expected FAIL: the view splits b into 2*P chunks, so it raises unless
# 2*P divides b, and where it does the rank holds [s, b/P, 1, e] in place
# of [s/P, b, 1, e]. Minimal case: world=2 s=4 b=1 o=1 e=1: line 60
# `view [s, 2*P, -1, o, e]`: shape '[4, 4, -1, 1, 1]' is invalid for input
# of size 4 (with b=4: rank 0 output has shape [4, 2, 1, 1], but the output
# placement needs [2, 4, 1, 1]).
# Confirmed on gloo (torch 2.11.0 and 1.13): a script runs
# MultimodalRotaryEmbedding.forward and get_pos_emb_on_this_cp_rank, their
# source taken by git show at this commit, at the fix's parent and at the
# fix (CPU substitutions only: .cuda(non_blocking=True) dropped,
# pin_memory=False, inv_freq on cpu; cp rank and size from the gloo WORLD
# group), kv_channels 8, mrope_section [2, 1, 1], on cp 2, 3 and 4, 40
# drawn cases each (s = 2cp..8cp, b = 1..4cp, random position_ids), against
# the no-CP emb's rows at chunks r and 2cp-1-r: "before (49f463c961): 120
# cases, 120 differ" (99 RuntimeError from the view, 21 wrong shape with no
# error, where 2cp divides b); "parent (efcabfc663): 120 cases, 120 differ"
# (TypeError: get_pos_emb_on_this_cp_rank() missing 1 required positional
# argument: 'cp_group'); smallest differing case cp=2 s=4 b=1: rank 0:
# RuntimeError: shape '[4, 4, -1, 1, 8]' is invalid for input of size 32,
# the minimal case above with e = 8.
pipeline megatron-mrope-cp-slice-before-3603
dims s b o e
input replicate
output shard s zigzag
require P >= 2
sizes o=1..1
expect fail
view [s, 2*P, -1, o, e]           # pos_emb.view(*pos_emb.shape[:1], 2 * cp_size, -1, *pos_emb.shape[2:])
take 1 2*P [rank, 2*P-rank-1]     # pos_emb.index_select(1, cp_idx)
view [s, -1, o, e]                # pos_emb.view(*pos_emb.shape[:1], -1, *pos_emb.shape[3:])
