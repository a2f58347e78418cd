# xDiT CogVideoX pipeline, the end of __call__: the sequence-parallel ranks
# gather their latents back into the whole video (the fix).
# xdit-project/xDiT @ fb291adc5f425c0fe0ea8842b1da4edb88268c73 (PR #314 "fix
# bugs in cogvideo allgather"; parent 9e35ef722934ededa3ef0562f7d031139dd988fc,
# see cogvideo-sp-allgather-before-314.sc),
# xfuser/model_executor/pipelines/pipeline_cogvideox.py L345-346:
#     if get_sequence_parallel_world_size() > 1:
#         latents = get_sp_group().all_gather(latents, dim=-2)
# GroupCoordinator.all_gather (xfuser/core/distributed/group_coordinator.py
# L212-250, unchanged by the fix):
#     if dim < 0: dim += input_.dim()                       # -2 -> 3
#     output_tensor = torch.empty((world_size,) + input_size, ...)
#     torch.distributed.all_gather_into_tensor(output_tensor, input_, group=self.device_group)
#     if dim != 0: output_tensor = output_tensor.movedim(0, dim)
#     input_size[dim] = input_size[dim] * world_size
#     output_tensor = output_tensor.reshape(input_size)
# Latents are [b, f, c, h, w] (CogVideoX prepare_latents); the input
# placement is what _init_video_sync_pipeline (base_pipeline.py L362-369)
# makes of them with one pipeline patch, `shard h` (CogVideoX runs without
# PipeFusion: pp_degree 1 forces num_pipeline_patch = 1). Left out: the
# denoising loop (local shape and place unchanged). Requires as in the
# before spec: the block runs for P >= 2 and the metadata code needs h a
# multiple of patch_size * P (patch_size 2).
# Expected PASS.
# Confirmed on gloo (torch 2.11.0):
# (the real functions of both commits, verbatim): "before: 434 cases, 145
# differ; after: 434 cases, 0 differ", worlds 2, 3, 4 and worlds 2 and 6 at
# run_cogvideo.sh's latents [1, 3, 16, 60, 90]. shardcheck --exhaustive
# --world 1..3 --max-dim 6: pass on all 10368 cases.
pipeline xdit-cogvideo-sp-allgather-314
dims b f c h w
require P >= 2 and h % (2*P) == 0
input shard h
output replicate
expect pass
unsqueeze 0                # output_tensor = torch.empty((world_size,) + input_size)
all_gather_into_tensor     # all_gather_into_tensor(output_tensor, input_)
movedim 0 3                # output_tensor.movedim(0, dim), dim = -2 + 5
reshape [b, f, c, h, w]    # input_size[dim] *= world_size; output_tensor.reshape(input_size)
