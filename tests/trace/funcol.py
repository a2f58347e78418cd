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
# transcription's in dtensor.py are. The mesh is a DeviceMesh made from the
# group on gloo (DeviceMesh.from_group) and a one-dim stand-in in the trace
# (size and get_group: what the method and funcol's group resolution use).
#
# Torch 1.13 has no functional collectives: no case here then.
import torch
import torch.distributed as dist

try:
    import torch.distributed._functional_collectives as funcol
    from torch.distributed.tensor.placement_types import Shard
except ImportError:
    funcol = Shard = None


class _Mesh1D:
    """A one-dim DeviceMesh as _to_replicate_tensor and funcol use it."""

    def __init__(self, group):
        self.group = group

    def size(self, mesh_dim=None):
        return dist.get_world_size(self.group)

    def get_group(self, mesh_dim=None):
        return self.group


def _mesh(group):
    if isinstance(group, dist.ProcessGroup):  # on gloo: a real DeviceMesh
        from torch.distributed.device_mesh import DeviceMesh
        return DeviceMesh.from_group(group, "cpu")
    return _Mesh1D(group)


def real_shard0_to_replicate(x, group, logical_shape):
    return Shard(0)._to_replicate_tensor(x, _mesh(group), 0, logical_shape)


def gather_dim1(x, group):
    return funcol.all_gather_tensor(x.contiguous(), 1, group)


def gather_dim1_autograd(x, group):
    return funcol.all_gather_tensor_autograd(x.contiguous(), 1, (_mesh(group), 0))


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
         call="real_shard0_to_replicate(X, GROUP, [DIMS['s'], DIMS['h']])",
         dims="s,h", input="shard s chunk", output="replicate",
         corpus="corpus/pytorch/dtensor-shard0-to-replicate.sc", require=[]),
    dict(name="funcol-all-gather-dim1", call="gather_dim1(X, GROUP)",
         dims="s,h", input="shard h", output="replicate", expect="pass", require=[]),
    dict(name="funcol-all-gather-autograd-mesh", call="gather_dim1_autograd(X, GROUP)",
         dims="s,h", input="shard h", output="replicate", expect="pass", require=[]),
    dict(name="funcol-all-to-all-twice", call="a2a_twice(X, GROUP)",
         dims="s,h", input="shard s", output="shard s", expect="pass", require=["s % (P*P) == 0"]),
    dict(name="funcol-all-to-all-once", call="a2a_once(X, GROUP)",
         dims="s,h", input="shard s", output="shard s", expect="fail", require=["s % (P*P) == 0"]),
    dict(name="funcol-reduce-scatter-dim1", call="reduce_scatter_dim1(X, GROUP)",
         dims="s,h", input="partial sum", output="shard h", expect="pass", require=[]),
    dict(name="funcol-all-reduce", call="all_reduce(X, GROUP)",
         dims="s,h", input="partial sum", output="replicate", expect="pass", require=[]),
]
