# torch.distributed._functional_collectives (torch 2.x) traced as itself:
# the tracer simulates funcol's all_gather_tensor, reduce_scatter_tensor,
# all_reduce and all_to_all_single (and their _autograd twins), so code that
# calls them is traced unchanged, DTensor's own included.
#
# DTensor's Shard(0)._to_replicate_tensor, the installed torch's own code
# (torch/distributed/tensor/placement_types.py, Shard._to_replicate_tensor:
# _maybe_pad_tensor, funcol.all_gather_tensor over (mesh, mesh_dim),
# _maybe_unpad_tensor), not a transcription: its verdict and minimal case
# must be those of corpus/pytorch/dtensor-shard0-to-replicate.sc, as the
# transcription's in dtensor.py are. The mesh is MESH: the trace's
# one-dim DeviceMesh over the world, a real init_device_mesh("cpu", (P,))
# on gloo. GatherNewStyle is a Function in torch 2.x's form
# (setup_context), traced forward and with --backward.
#
# Torch 1.13 has no functional collectives: no case here then.
import torch

try:
    import torch.distributed._functional_collectives as funcol
    from torch.distributed.tensor.placement_types import Shard
except ImportError:
    funcol = Shard = None


def real_shard0_to_replicate(x, mesh, logical_shape):
    return Shard(0)._to_replicate_tensor(x, mesh, 0, logical_shape)


def gather_dim1(x, group):
    return funcol.all_gather_tensor(x.contiguous(), 1, group)


def gather_dim1_autograd(x, mesh):
    return funcol.all_gather_tensor_autograd(x.contiguous(), 1, (mesh, 0))


class GatherNewStyle(torch.autograd.Function if funcol else object):
    """torch 2.x's form of a Function: forward without ctx, then
    setup_context; traced forward and --backward."""

    @staticmethod
    def forward(x, group):
        return funcol.all_gather_tensor(x.contiguous(), 0, group)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.group = inputs[1]

    @staticmethod
    def backward(ctx, grad):
        return funcol.reduce_scatter_tensor(grad.contiguous(), "sum", 0, ctx.group), None


def a2a_twice(x, group):
    y = funcol.all_to_all_single(x, None, None, group)
    return funcol.wait_tensor(funcol.all_to_all_single(y, None, None, group))


def a2a_once(x, group):
    return funcol.all_to_all_single(x, None, None, group)


def reduce_scatter_dim1(x, group):
    return funcol.reduce_scatter_tensor(x.contiguous(), "sum", 1, group)


def all_reduce(x, group):
    return funcol.all_reduce(x, "sum", group)


CASES = [] if funcol is None else [
    dict(name="funcol-dtensor-shard0-to-replicate",
         call="real_shard0_to_replicate(X, MESH, [DIMS['s'], DIMS['h']])",
         dims="s,h", input="shard s chunk", output="replicate",
         corpus="corpus/pytorch/dtensor-shard0-to-replicate.sc", require=[]),
    dict(name="funcol-all-gather-dim1", call="gather_dim1(X, GROUP)",
         dims="s,h", input="shard h", output="replicate", expect="pass", require=[]),
    dict(name="funcol-all-gather-autograd-mesh", call="gather_dim1_autograd(X, MESH)",
         dims="s,h", input="shard h", output="replicate", expect="pass", require=[]),
    dict(name="funcol-all-to-all-twice", call="a2a_twice(X, GROUP)",
         dims="s,h", input="shard s", output="shard s", expect="pass", require=["s % (P*P) == 0"]),
    dict(name="funcol-all-to-all-once", call="a2a_once(X, GROUP)",
         dims="s,h", input="shard s", output="shard s", expect="fail", require=["s % (P*P) == 0"]),
    dict(name="funcol-reduce-scatter-dim1", call="reduce_scatter_dim1(X, GROUP)",
         dims="s,h", input="partial sum", output="shard h", expect="pass", require=[]),
    dict(name="funcol-new-style-function", call="GatherNewStyle.apply(X, GROUP)",
         dims="s,h", input="shard s", output="replicate", expect="pass", require=[]),
    dict(name="funcol-new-style-function-backward", call="GatherNewStyle.apply(X, GROUP)", backward=True,
         dims="s,h", input="partial sum", output="shard s", expect="pass", require=["s % P == 0"]),
    dict(name="funcol-all-reduce", call="all_reduce(X, GROUP)",
         dims="s,h", input="partial sum", output="replicate", expect="pass", require=[]),
]
