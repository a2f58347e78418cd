# Planted: a step that fails on some ranks only, before a collective. On
# several processes every process must learn it (none may wait in the
# collective alone): the failure is the one a single process reports.
dims s h
input shard s
output shard s
assert rank == 0
all_reduce sum
narrow 0 0 s/P
