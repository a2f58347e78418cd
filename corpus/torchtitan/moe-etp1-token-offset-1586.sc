# torchtitan's MoE with expert tensor parallel degree 1, after the fix
# (the layout and the buggy version: moe-etp1-token-offset-before-1586.sc).
# pytorch/torchtitan @ 9233d831882677fca37c45766be55808d43918da (PR #1586,
# "[EP] bug fixes"), torchtitan/distributed/expert_parallel.py,
# ReordererSequenceParallel:
#   _prepare_inputput_fn: self.num_tokens = top_scores.shape[0]   (before the split)
#       assert self.num_tokens % device_mesh.size() == 0
#   _prepare_output_fn:
#       local_rank = device_mesh.get_local_rank()
#       token_indices_experts_sorted += (self.num_tokens // device_mesh.size() * local_rank)
# TokenReorderer and MoE.forward as before. Expected PASS. The classes at
# this commit on TP 2, 3 and 4 gloo ranks (the same 18 cases each as the
# buggy version's): the reduced output is x in every case.
pipeline torchtitan-moe-etp1-token-offset-1586
dims n h
routes R[n] 0..3
require n % P == 0
input replicate
output partial sum
expect pass
tensor x = input
a = narrow x 0 n//P*rank n//P
a = sort_by a R dim=0 start=rank*(n//P)
b = unsort_by a R dim=0 start=rank*(n//P)
out = zeros x [size(0), size(1)]
out = write out b dim=0 start=n//P*rank
