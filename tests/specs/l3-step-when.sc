# `when` after a local step: it runs on the ranks where the condition
# holds, the others keep their tensor. The last rank stores its block of
# the sequence reversed (as code that keeps a pipeline's last stage in
# another order might) and turns it back before the gather; a named
# result is its source on the ranks that skip the step.
pipeline l3-step-when
dims s h
input shard s
output replicate
expect pass
tensor x = input
y = flip x 0 when rank == P-1
y = flip y 0 when rank == P-1
z = all_gather_into_tensor y
