"""Functions `shardcheck trace` must refuse, each with the reason and its
line (tests/test_trace.py, ERRORS)."""
import torch
import torch.distributed as dist


def uses_expand(x):
    return x.unsqueeze(0).expand(2, -1, -1)          # no step repeats a tensor this way


def adds(x):
    return x + 1                                      # arithmetic: a compute spec's business


def sizes_from_data(x, group):
    counts = torch.tensor([x.shape[0]] * dist.get_world_size(group))
    splits = counts.tolist()                          # not tracked: fine
    n = x[0, 0].tolist()                              # a value read from the data
    return x.narrow(0, 0, min(n, splits[0]))


def branch_on_size(x, group):
    if x.shape[0] % 2 == 0:                           # other steps on odd sizes
        return x.contiguous()
    return x.transpose(0, 1).transpose(0, 1)


def returns_tuple(x):
    return x.reshape(-1), x


def rejects(x, group):
    assert x.shape[1] % 3 == 0, "h must be a multiple of 3"
    return x.contiguous()


def rejects_twice(x, group):
    assert x.shape[1] % 3 == 0, "h must be a multiple of 3"
    if x.shape[0] % 2:
        raise ValueError("s must be even")
    return x.contiguous()


def rejects_sums(x, group):
    assert (x.shape[0] + x.shape[1]) % 5 != 1, "no condition of one or two dims says this"
    return x.contiguous()


def reduce_a_view(x, group):
    v = x.view(-1)
    dist.all_reduce(v, group=group)                   # in place, through a view
    return x.transpose(0, 1)                          # x changed under its old name


def catches_view_error(x, group):
    y = x.transpose(0, 1)
    try:
        return y.view(-1)
    except RuntimeError:                              # recovers from a step's error
        return y.reshape(-1)


def contiguous_if_needed(x, group):
    y = x.transpose(0, 1)
    if not y.is_contiguous():       # with a dim of size 1 it already is: no step at those shapes
        y = y.contiguous()
    return y.transpose(0, 1)


def splits_the_local_shard(x, group):
    P = dist.get_world_size(group)
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x.contiguous(), group=group)   # raises unless the local s divides by P
    return out.reshape(P, x.shape[0] // P, -1).transpose(0, 1).contiguous()


def send_then_recv(x, group):
    P, r = dist.get_world_size(group), dist.get_rank(group)
    out = torch.empty_like(x)
    req = dist.isend(x.contiguous(), (r + 1) % P, group=group)
    dist.recv(out, (r - 1) % P, group=group)
    req.wait()
    return out


def recv_then_send(x, group):
    P, r = dist.get_world_size(group), dist.get_rank(group)
    out = torch.empty_like(x)
    req = dist.irecv(out, (r + P - 1) % P, group=group)
    dist.send(x.contiguous(), (r + 1) % P, group=group)
    req.wait()
    return out


def sends_only(x, group):
    P, r = dist.get_world_size(group), dist.get_rank(group)
    dist.send(x.contiguous(), (r + 1) % P, group=group)
    return x


def copies_into_ones(x):
    buf = torch.ones_like(x)                          # ones: no step makes them; only zeros/empty buffers are traced
    buf.copy_(x)
    return buf


def writes_a_strided_view(x):
    buf = torch.zeros(x.shape[0] * 2, x.shape[1], dtype=x.dtype)
    buf[::2] = x                                      # every other row: not a slice of one dim
    return buf


class Transposes(torch.autograd.Function):
    """A Function for --backward's refusals: forward swaps dims 0 and 1."""

    @staticmethod
    def forward(ctx, x):
        return x.transpose(0, 1).contiguous()

    @staticmethod
    def backward(ctx, g):
        return g.transpose(0, 1).contiguous()


def applies_to_a_view(x):
    return Transposes.apply(x.contiguous().view(x.shape))   # not X itself: its own backward step is lost


def steps_after_the_function(x):
    return Transposes.apply(x).flatten()              # the flatten's backward is not the Function's


def no_function(x):
    return x.transpose(0, 1).contiguous()             # no autograd Function: --backward has nothing to trace


def even_ranks(x):
    world = dist.get_world_size()
    g = dist.new_group(list(range(0, world, 2)))      # 1, 1, 2, 2 ranks at worlds 1..4: no fixed list
    if dist.get_rank() % 2 == 0:
        dist.all_reduce(x, group=g)
    return x
