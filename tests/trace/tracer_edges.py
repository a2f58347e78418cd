"""Functions that the tracer once turned into specs that did not behave
like them (each is checked against the corpus-free expectation and run
on gloo against its traced spec by tests/test_trace.py)."""
import torch
import torch.distributed as dist

_WS = None


def _world():
    global _WS              # a world size cached in a module global (Megatron's parallel_state)
    if _WS is None:
        _WS = dist.get_world_size()
    return _WS


def split_first_cached(x, group):
    """Each rank's rows of a replicated tensor, the world size cached: the
    module is loaded afresh per simulated rank, as each process loads it."""
    P = _world()
    n = x.shape[0] // P
    return x.narrow(0, dist.get_rank() * n, n)


def two_blocks(x, group):
    """2*(s//P) rows: the solver's text once read (2*s)//P."""
    n = x.shape[0] // dist.get_world_size(group)
    return x.narrow(0, 0, 2 * n)


def dead_view(x, group):
    """A view that raises unless a dim is 1, its result unused: it still
    fails the function (the step was once dropped as dead)."""
    flat = x.transpose(0, 1).view(-1)  # noqa: F841
    return x.transpose(0, 1).contiguous().transpose(0, 1)


def slice_then_gather(x, group):
    """t[a:b] (a non-tuple index), then the list all_gather along dim 1."""
    P = dist.get_world_size(group)
    y = x[: x.shape[0] // 2 * 2]
    parts = [torch.empty_like(y) for _ in range(P)]
    dist.all_gather(parts, y.contiguous(), group=group)
    return torch.cat(parts, dim=1)


CASES = [
    dict(name="edge-split-first-cached", call="split_first_cached(X, GROUP)", dims="s,h",
         input="replicate", output="shard s", corpus=None, expect="pass"),
    dict(name="edge-two-blocks", call="two_blocks(X, GROUP)", dims="s,h",
         input="replicate", output="replicate", corpus=None, expect="fail"),
    dict(name="edge-dead-view", call="dead_view(X, GROUP)", dims="s,h",
         input="replicate", output="replicate", corpus=None, expect="fail"),
    dict(name="edge-slice-then-gather", call="slice_then_gather(X, GROUP)", dims="s,h",
         input="shard h", output="replicate", corpus=None, expect="fail"),
]


def gather_into_slice(x, group):
    """A buffer one row longer than the gather, written at its front by
    all_gather_into_tensor(buf[:n], x), then that slice returned."""
    P = dist.get_world_size(group)
    buf = torch.zeros(x.shape[0] * P + 1, *x.shape[1:], dtype=x.dtype)
    dist.all_gather_into_tensor(buf[: x.shape[0] * P], x, group=group)
    return buf[: x.shape[0] * P]


def pad_and_gather(x, group, total):
    """Uneven shards padded to cdiv(total, P) rows in a torch.empty buffer
    (buf[:n] = x), all-gathered, the first `total` rows kept: right for
    torch.chunk's shards (only the last ranks are short), wrong for
    tensor_split's (a short rank's padding lands among the rows kept)."""
    P = dist.get_world_size(group)
    n = (total + P - 1) // P
    padded = torch.empty((n, *x.shape[1:]), dtype=x.dtype)
    padded[: x.shape[0]] = x
    out = torch.empty((n * P, *x.shape[1:]), dtype=x.dtype)
    dist.all_gather_into_tensor(out, padded, group=group)
    return out[:total]


CASES += [
    dict(name="edge-gather-into-slice", call="gather_into_slice(X, GROUP)", dims="s,h",
         input="shard s", output="replicate", corpus=None, expect="pass"),
    dict(name="edge-pad-gather-chunk", call="pad_and_gather(X, GROUP, DIMS['s'])", dims="s,h",
         input="shard s chunk", output="replicate", corpus=None, expect="pass"),
    dict(name="edge-pad-gather-split", call="pad_and_gather(X, GROUP, DIMS['s'])", dims="s,h",
         input="shard s split", output="replicate", corpus=None, expect="fail"),
]
