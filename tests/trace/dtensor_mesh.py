# DTensor's own redistribution code on a DeviceMesh (torch 2.x), traced
# with MESH: the installed torch's Shard._to_replicate_tensor and
# Shard._to_new_shard_dim (torch/distributed/tensor/placement_types.py;
# the second through _collective_utils.shard_dim_alltoall, which on a
# "cpu" mesh is an all-gather and a chunk), called as DTensor's
# redistribute calls them, not transcribed. In the trace MESH is the
# simulated mesh of --mesh (or one dim over the world); on gloo it is a
# real DeviceMesh from init_device_mesh("cpu", ...).
#
# mesh_gather is not framework code: it makes its mesh with
# init_device_mesh inside the call and gathers over mesh["tp"]'s group,
# the way torchtitan-style code reaches a sub-mesh's process group; over
# mesh["dp"] (where X is replicated) it is wrong, and the trace says so.
#
# Torch 1.13 has no DeviceMesh: no case here then.
import torch
import torch.distributed as dist

try:
    from torch.distributed.device_mesh import init_device_mesh  # noqa: F401
    from torch.distributed.tensor.placement_types import Shard
except ImportError:
    Shard = None


def shard_to_replicate(x, mesh, mesh_dim, logical_shape):
    return Shard(0)._to_replicate_tensor(x, mesh, mesh_dim, logical_shape)


def shard0_to_shard1(x, mesh, mesh_dim, logical_shape):
    return Shard(0)._to_new_shard_dim(x, mesh, mesh_dim, logical_shape, 1)


def mesh_gather(x, shape, dim="tp"):
    # imported here: the trace replaces init_device_mesh while it runs
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cpu", tuple(shape), mesh_dim_names=("dp", "tp"))
    tp = mesh[dim]
    out = x.new_empty((tp.size() * x.shape[0],) + tuple(x.shape[1:]))
    dist.all_gather_into_tensor(out, x.contiguous(), group=tp.get_group())
    return out


CASES = [] if Shard is None else [
    dict(name="dtensor-mesh-tp-shard0-to-replicate",
         call="shard_to_replicate(X, MESH, 1, [DIMS['s'], DIMS['h']])",
         dims="s,h", mesh="dp=D,tp=T", input="tp:shard s chunk", output="replicate", expect="pass", require=[]),
    dict(name="dtensor-mesh-tp-shard0-to-shard1",
         call="shard0_to_shard1(X, MESH, 1, [DIMS['s'], DIMS['h']])",
         dims="s,h", mesh="dp=D,tp=T", input="tp:shard s chunk", output="tp:shard h chunk", expect="pass",
         require=[]),
    dict(name="dtensor-mesh-1d-shard0-to-shard1",
         call="shard0_to_shard1(X, MESH, 0, [DIMS['s'], DIMS['h']])",
         dims="s,h", input="shard s chunk", output="shard h chunk", expect="pass", require=[]),
    dict(name="dtensor-mesh-init-submesh-gather",
         call="mesh_gather(X, MESH.shape)",
         dims="s,h", mesh="dp=D,tp=T", input="tp:shard s", output="replicate", expect="pass", require=[]),
    dict(name="dtensor-mesh-init-submesh-gather-wrong-dim",
         call="mesh_gather(X, MESH.shape, 'dp')",
         dims="s,h", mesh="dp=D,tp=T", input="tp:shard s", output="replicate", expect="fail", require=[]),
]
