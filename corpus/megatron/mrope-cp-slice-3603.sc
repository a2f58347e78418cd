# Megatron-LM's multimodal RoPE (mrope, Qwen2-VL) under context
# parallelism, as merge request ADLR/megatron-lm!3603 ("Fix mrope with
# context parallel") fixes it: MultimodalRotaryEmbedding.forward builds
# the whole sequence's emb [s, b, 1, 2*dim] and keeps this CP rank's zigzag
# pair of sequence chunks (cp_rank and 2*cp-1-cp_rank) along dim 0, the
# sequence dim, passing the CP group.
# NVIDIA/Megatron-LM @ 28778d1283b4c74f47b7337397be2780bd051377 (the fix;
# parent efcabfc66365ee90520922a5d9a74a93dba386fd),
# megatron/core/models/common/embeddings/rotary_pos_embedding.py L276-319,
# MultimodalRotaryEmbedding.forward:
#   L313  # shape (seq_length, bs, 1, 2 * dim)
#   L314  emb = emb[..., None, :].transpose(0, 1).contiguous()
#   L315  if parallel_state.get_context_parallel_world_size() > 1:
#   L318      emb = get_pos_emb_on_this_cp_rank(emb, 0, parallel_state.get_context_parallel_group())
# (was `get_pos_emb_on_this_cp_rank(emb, 1)`),
# megatron/core/models/common/embeddings/rope_utils.py L44-66,
# get_pos_emb_on_this_cp_rank(pos_emb, seq_dim, cp_group):
#   cp_size = cp_group.size(); cp_rank = cp_group.rank()
#   cp_idx = torch.tensor([cp_rank, (2 * cp_size - cp_rank - 1)], device="cpu", pin_memory=True).cuda(non_blocking=True)
#   pos_emb = pos_emb.view(*pos_emb.shape[:seq_dim], 2 * cp_size, -1, *pos_emb.shape[(seq_dim + 1) :])
#   pos_emb = pos_emb.index_select(seq_dim, cp_idx)
#   pos_emb = pos_emb.view(*pos_emb.shape[:seq_dim], -1, *pos_emb.shape[(seq_dim + 2) :])
# X is the whole emb [s, b, o, e] (o = 1, e = 2*dim) every CP rank computes;
# the cos/sin arithmetic before it is left out (per element). `require
# P >= 2` is the `cp world size > 1` guard. The buggy version is
# mrope-cp-slice-before-3603.sc; the same slice of a batch tensor is
# corpus/megatron/cp-get-batch-zigzag.sc.
# Expected PASS.
# Confirmed on gloo (torch 2.11.0 and 1.13; see
# the before spec): a script runs this commit's MultimodalRotaryEmbedding.forward and
# get_pos_emb_on_this_cp_rank on cp 2, 3 and 4 gloo ranks, 40 drawn cases
# each: "after (28778d1283): 120 cases, 0 differ" (every rank's emb equals
# the no-CP emb's rows at sequence chunks r and 2cp-1-r).
pipeline megatron-mrope-cp-slice-3603
dims s b o e
input replicate
output shard s zigzag
require P >= 2
sizes o=1..1
expect pass
view [2*P, -1, b, o, e]           # pos_emb.view(2 * cp_size, -1, *pos_emb.shape[1:])
take 0 2*P [rank, 2*P-rank-1]     # pos_emb.index_select(0, cp_idx)
view [-1, b, o, e]                # pos_emb.view(-1, *pos_emb.shape[2:])
