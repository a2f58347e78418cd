# DeepSpeed MoE (deepspeed/moe/sharded_moe.py, MOELayer.forward) with Tutel
# (use_tutel=True) and a tensor-parallel non-expert part (groups.mpu, TP
# size P > 1), experts not tensor-parallel (enable_expert_tensor_parallelism
# False, the default: groups._get_expert_model_parallel_world_size() == 1),
# ep_size 1 (PR #8195's own test, TestMOETensorParallelTutel: world 2,
# ep_size=1). The TP ranks hold the same tokens, so before the experts each
# drops all but its 1/P of the dispatch buffer (drop_tokens) and after them
# gathers the pieces back (gather_tokens), ahead of Tutel's decode. Here X
# is the dispatch buffer Tutel's encode() fills, [E, C, M] (experts,
# capacity slots, model dim; encode returns it flat, [E*C, M], row
# e*C + location), the same on every TP rank; with identity experts the
# buffer handed to decode() must be X again on every rank.
# deepspeed/moe/mappings.py (the same at both commits):
#   _drop_tokens L56-68: chunk_size = input_.shape[dim] // total_chunks
#     return torch.narrow(input_, dim, this_chunk * chunk_size, chunk_size)
#   _gather_tokens L30-51: deepspeed.comm.all_gather_into_tensor(gather_buffer, input_, ...)
#     tensor_list = [gather_buffer.narrow(0, input_.numel() * i, input_.numel()).view_as(input_) ...]
#     output = torch.cat(tensor_list, dim=dim).contiguous()
# The fix, deepspeedai/DeepSpeed @ 619e3199df0ee4c3601de760a1002470d48ce20c
# (PR #8195, "MoE dispatch: fix silent Tutel + TP corruption, speed up
# native and Tutel paths", change 2, "Shard the Tutel dispatch buffer along
# capacity under tensor parallelism"), sharded_moe.py MOELayer.forward
# L688-766:
#   L697 dispatched_input = self._tutel_dispatcher.encode(reshaped_input).view(E, C, M)
#   L717 dispatched_input = drop_tokens(dispatched_input, dim=1)            # dim 1 is C now
#   L722 dispatched_input = dispatched_input.contiguous()
#   L735 dispatched_input = dispatched_input.reshape(self.ep_size, self.num_local_experts, -1, d_model)
#   L738 expert_output = expert_output.reshape(self.ep_size * self.num_local_experts, -1, d_model)
#   L761 expert_output = gather_tokens(expert_output, dim=1)
#   L764 combined_output = self._tutel_dispatcher.decode(expert_output.view(E * C, M))
# Each TP rank keeps C/P capacity slots of every expert and the gather puts
# them back in order. Left out as in tutel-tp-drop-capacity-before-8195.sc.
# Expected PASS. Confirmed on gloo (torch 2.11.0 and 1.13.0), see
# tutel-tp-drop-capacity-before-8195.sc: after the fix 219 cases on 2, 3
# and 4 ranks, 0 differ.
pipeline deepspeed-tutel-tp-drop-capacity-8195
dims e c m
require c % P == 0 and m % P == 0
input replicate
output replicate
expect pass
tensor x = input
b = reshape x [e, c, m]          # encode(reshaped_input).view(E, C, M)
b = narrow b 1 rank*(c/P) c/P    # drop_tokens(dispatched_input, dim=1): the capacity dim
b = contiguous b                 # ep_size 1: dispatched_input.contiguous()
b = reshape b [1, e, -1, m]      # reshape(self.ep_size, self.num_local_experts, -1, d_model)
b = reshape b [e, -1, m]         # experts (identity); reshape(ep_size*num_local_experts, -1, d_model)
b = contiguous b                 # ep_size 1: expert_output.contiguous()
g = all_gather_into_tensor b     # gather_tokens(expert_output, dim=1): gather_buffer of P*numel ...
y = narrow g 0 0 e
y = narrow y 1 0 0
for i in 0..P-1                  # ... narrow(0, numel*i, numel).view_as(input_), cat on dim 1
  a = narrow g 0 i*e e
  y = cat y a dim=1
end
y = reshape y [e*c, m]           # decode(expert_output.view(E * C, M))
y = view y [e, c, m]
