# xDiT CogVideoX pipeline, the end of __call__: the sequence-parallel ranks
# gather their latents back into the whole video (REAL BUG, buggy version).
# xdit-project/xDiT @ 9e35ef722934ededa3ef0562f7d031139dd988fc (parent of the
# fix fb291adc5f425c0fe0ea8842b1da4edb88268c73, PR #314 "fix bugs in
# cogvideo allgather"),
# xfuser/model_executor/pipelines/pipeline_cogvideox.py L345-361:
#     sp_latents_list = get_sp_group().all_gather(latents, separate_tensors=True)
#     for pp_patch_idx in range(get_runtime_state().num_pipeline_patch):
#         latents_list += [
#             sp_latents_list[sp_patch_idx][
#                 :,
#                 :,
#                 get_runtime_state()
#                 .pp_patches_start_idx_local[pp_patch_idx] : get_runtime_state()
#                 .pp_patches_start_idx_local[pp_patch_idx + 1],
#                 :,
#             ]
#             for sp_patch_idx in range(sp_degree)
#         ]
#     latents = torch.cat(latents_list, dim=-2)
# The per-piece slice was copied from the image pipelines, whose latents are
# [b, c, h, w]; CogVideoX's are [b, f, c, h, w] (prepare_latents), so the
# four-index slice cuts the CHANNELS (dim 2) to the local height range
# instead of the height. pp_patches_start_idx_local is [0, h/P] (runtime_state.py
# L367-474, _calc_cogvideox_patches_metadata, with num_pipeline_patch = 1),
# so each piece keeps min(c, h/P) channels: harmless while h/P >= c (the old
# examples/run_cogvideo.sh, sp 2: 60/2 = 30 >= 16), wrong once h/P < c (the
# new one, ulysses 2 x ring 3: 60/6 = 10 < 16 channels kept).
# The gather is GroupCoordinator.all_gather (group_coordinator.py L212-250):
#     output_tensor = torch.empty((world_size,) + input_size, ...)
#     torch.distributed.all_gather_into_tensor(output_tensor, input_, group=self.device_group)
#     tensor_list = [output_tensor.view(-1).narrow(0, input_.numel() * i, input_.numel()).view_as(input_)
#                    for i in range(world_size)]
# Left out: the denoising loop (the transformer and the scheduler keep the
# latents' local shape and place). The input placement is what
# _init_video_sync_pipeline (base_pipeline.py L362-369) makes of the full
# latents with one pipeline patch: latents[:, :, :, r*h/P:(r+1)*h/P, :], i.e.
# `shard h`. num_pipeline_patch is 1 because CogVideoX runs without
# PipeFusion (pp_degree 1 forces num_pipeline_patch = 1, config.py), so the
# pp loop is one iteration and the list is the P gathered pieces.
# _calc_cogvideox_patches_metadata raises unless h is a multiple of
# patch_size * P (patch_size 2): `require h % (2*P) == 0`. The block runs
# only when get_sequence_parallel_world_size() > 1: `require P >= 2`.
# Expected FAIL. Minimal case: world 2, b=1 f=1 c=3 h=4 w=1: each piece keeps
# channels 0:2 of 3, `rank 0 output has shape [1, 1, 2, 4, 1], but the
# output placement needs [1, 1, 3, 4, 1]`.
# Confirmed on gloo (torch 2.11.0):
# runs the functions above verbatim (ast extracts of `git show` at both
# commits; all_gather_into_tensor given NCCL's semantics over dist.all_gather,
# as gloo refuses the (P,)+input_size buffer) on worlds 2, 3, 4 (a grid of
# 144 sizes each, h in {2P, 4P, 6P}, c in 1..6, b, f in {1, 2}, w in {1, 3})
# plus run_cogvideo.sh's latents [1, 3, 16, 60, 90] at worlds 2 and 6:
# "before: 434 cases, 145 differ; after: 434 cases, 0 differ"; smallest
# differing case world=2 b=1 f=1 c=3 h=4 w=1, shape [1, 1, 2, 4, 1] vs
# [1, 1, 3, 4, 1] on every rank; world 6 real latents: [1, 3, 10, 60, 90]
# (world 2: ok). The spec's condition (wrong iff h/P < c) held on every case.
# shardcheck --exhaustive --world 1..3 --max-dim 6 (10368 cases): the same
# minimal case; the fixed spec passes all of them.
pipeline xdit-cogvideo-sp-allgather-before-314
dims b f c h w
require P >= 2 and h % (2*P) == 0
input shard h
output replicate
expect fail
tensor x = input
# GroupCoordinator.all_gather(latents, separate_tensors=True)
g = unsqueeze x 0                  # output_tensor = torch.empty((world_size,) + input_size)
g = all_gather_into_tensor g       # all_gather_into_tensor(output_tensor, input_)
g = view g [-1]                    # output_tensor.view(-1)
acc = narrow x 2 0 min(c,h/P)      # (an empty start for the cat)
acc = narrow acc 3 0 0
for j in 0..P-1                    # for sp_patch_idx in range(sp_degree)  (pp loop: one patch)
  p = narrow g 0 j*(b*f*c*(h/P)*w) b*f*c*(h/P)*w   # .narrow(0, input_.numel() * i, input_.numel())
  p = view p [b, f, c, h/P, w]                     # .view_as(input_)
  p = narrow p 2 0 min(c,h/P)      # [:, :, start_idx_local[0]:start_idx_local[1], :]  <- dim 2 = channels
  acc = cat acc p dim=3            # torch.cat(latents_list, dim=-2)
end
