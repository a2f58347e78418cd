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
# Before the fix, deepspeedai/DeepSpeed @ 7a31fe66b18b242a75d1bb2f35b863d11ff3bbe7,
# sharded_moe.py MOELayer.forward L632-708:
#   L639 dispatched_input = self._tutel_dispatcher.encode(reshaped_input)   # flat [E*C, M]
#   L659 dispatched_input = drop_tokens(dispatched_input, dim=1)            # dim 1 is M here
#   L664 dispatched_input = dispatched_input.contiguous()                   # ep_size 1, no all-to-all
#   L677 dispatched_input = dispatched_input.reshape(self.ep_size, self.num_local_experts, -1, d_model)
#   L680 expert_output = expert_output.reshape(self.ep_size * self.num_local_experts, -1, d_model)
#   L703 expert_output = gather_tokens(expert_output, dim=1)
#   L706 combined_output = self._tutel_dispatcher.decode(expert_output.view(E * C, M))
# The flat buffer is cut along the model dim, [E*C, M/P], and the reshape
# reads that memory as [E, C/P, M] (no error: E*C*M/P elements make C/P rows
# of M per expert), so the experts run on a model-dim slice taken as
# capacity rows and the gather puts it back along capacity. Left out: the
# gate (top1gating's Tutel indices/locations: the routing, not the layout;
# the spec starts from the filled buffer), Tutel's encode/decode kernels
# themselves (a row copy into and out of the buffer), the experts
# (identity), timers; ep_size > 1 (the all-to-all of the equal [E*C/EP]
# row blocks, legacy consecutive ep groups) is not needed for the bug.
# With enable_expert_tensor_parallelism=True the same code gathers dim 1
# right after the cut (L670-674) and is right (written as a spec, that
# path passes 500 cases and --exhaustive).
# Expected FAIL, minimal case world 2, e=1 c=2 m=2: the one expert's 2x2
# block comes back transposed (dims c and m swapped): rank r keeps column r
# of the two slots and the gather lays the columns out as rows.
# Confirmed on gloo (torch 2.11.0 and 1.13.0): a script
# runs MOELayer.forward and mappings.py of both commits (exec'd from `git
# show` extracts) on 2, 3 and 4 gloo ranks forming the TP group, with a CPU
# stand-in for Tutel's fast_dispatcher (encode: zeros([E*C, M]), row
# idx*C+loc += x[s]; decode: the gate-weighted row back), the gate replaced
# by drawn top-1 routes in each commit's Tutel form (lists before, stacked
# int32 after), identity experts, gates 1; expected: each token back where
# its route was kept, zeros where dropped. enable_expert_tensor_parallelism
# False, worlds 2-4: before: 219 cases, 219 differ; after: 219 cases, 0
# differ; smallest differing world 2, E=1, C=2, M=2, one token. With it True:
# 219 cases each, 0 differ before and after. This spec's minimal case on
# gloo: tokens [[1,2],[3,4]] both to expert 0 come back [[1,3],[2,4]] on
# both ranks before the fix, [[1,2],[3,4]] after.
pipeline deepspeed-tutel-tp-drop-capacity-before-8195
dims e c m
require c % P == 0 and m % P == 0
input replicate
output replicate
expect fail
tensor x = input
b = reshape x [e*c, m]           # encode(reshaped_input): the flat [E*C, M] buffer
b = narrow b 1 rank*(m/P) m/P    # drop_tokens(dispatched_input, dim=1): the model dim
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
