"""A user's test of their Ulysses head<->sequence all-to-all with shardcheck's
pytest plugin: the fixed function passes, the buggy one (DeepSpeed's
post_all2all before PR 5664: transpose(0, 1) where (1, 2, 0, 3, 4) is
needed) fails with its minimal case.

    pytest examples/pytest/test_ulysses_layout.py
"""
import torch
import torch.distributed as dist


def head_to_seq(x, group, fixed):
    """[s, b, h/P, d] (heads sharded) -> [s/P, b, h, d] (sequence sharded)."""
    P = dist.get_world_size(group)
    s, b, hp, d = x.shape
    t = x.reshape(P, s // P, b, hp, d).contiguous()
    out = torch.empty_like(t)
    dist.all_to_all_single(out, t, group=group)
    if fixed:
        out = out.permute(1, 2, 0, 3, 4).contiguous()
    else:
        out = out.transpose(0, 1).contiguous()
    return out.reshape(s // P, b, hp * P, d)


def head_to_seq_fixed(x, group):
    return head_to_seq(x, group, True)


def head_to_seq_buggy(x, group):
    return head_to_seq(x, group, False)


def test_head_to_seq_fixed(check_layout):
    check_layout(head_to_seq_fixed, dims="s,b,h,d", input="shard h", output="shard s")


def test_head_to_seq_buggy(check_layout):
    check_layout(head_to_seq_buggy, dims="s,b,h,d", input="shard h", output="shard s")
