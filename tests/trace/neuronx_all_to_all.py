# transformers-neuronx `hlo.all_to_all` / `hlo._all_to_all`, the HLO builder
# code transcribed into the PyTorch ops with the same tensor semantics, line by
# line; each original line is kept as a comment above its PyTorch equivalent.
#
# Shipped ("before #108"):
#   aws-neuron/transformers-neuronx @ 1ade6d74224a89fb6366ded52153e2f32781e20d
#   ("Sync internal repo to external Dec 12 2024 (#103)", newest main in the
#   snapshot), src/transformers_neuronx/hlo.py L1258-1295 (_all_to_all) and
#   L1298-1306 (all_to_all); the helpers it calls: transpose L2015-2022,
#   reshape L2693-, squeeze L1309-1314, unsqueeze L1317-1322.
#   Callers: layers/attention.py L146-148 (active_q/k/v, split_dim=0,
#   concat_dim=1) and L696-697, L781 (split_dim=1, concat_dim=0).
# "After #108": aws-neuron/transformers-neuronx pull request #108
#   ("Incorrect all-to-all layout transformation implementation",
#   kahfizulkifli, 2025-06-17, closed unmerged). Its diff is NOT available here
#   (the repository snapshot has no refs/pull/108, and the fork
#   kahfizulkifli/transformers-neuronx branch fix-all-to-all cannot be fetched),
#   so `_all_to_all_fixed` below is not the PR's code: like
#   corpus/neuronx/*-fixed.sc it is derived from XLA AllToAll semantics (split
#   the split axis by tp_degree and put the rank axis where the collective
#   splits / where the concat needs it), kept in the shape of the original.
#
# Semantics used for the transcription:
#   hlo.reshape(t, shape)        -> t.reshape(shape)  (XLA Reshape is row-major, as torch)
#   hlo.transpose(t, src, dst)   -> t.transpose(src, dst)  (Transpose swapping the two dims)
#   dtype[shape].AllToAll(t, dimensions=[0], replica_groups=[list(range(tp_degree))])
#       -> all_to_all_single on dim 0 over the tp_degree ranks (split_dimension =
#          concat_dimension = 0, split_count = tp_degree: chunk j of dim 0 goes to
#          rank j, received chunks concatenated in source-rank order on dim 0)
#   hlo.unsqueeze / hlo.squeeze  -> t.unsqueeze(dim) / t.squeeze(dim)
# `group` is added (the HLO addresses the ranks by replica_groups); tp_degree is
# its size.
import torch
import torch.distributed as dist


# src/transformers_neuronx/hlo.py L1258-1295 @ 1ade6d74224a89fb6366ded52153e2f32781e20d
def _all_to_all(tensor, split_dim, concat_dim, tp_degree, group=None):
    # Add extra reshape (and potentially transpose) before and after all-to-all CC, due to
    # 1) hlo_to_mlir_hlo would assume split_dim == concat_dim
    # 2) split_count is taken from first replica_group
    # 3) we can only split/concat outer most dimension
    # shape = list(tensor.sizes)
    shape = list(tensor.shape)
    # dtype = tensor.dtype
    dtype = tensor.dtype
    # assert (split_dim == 0 and concat_dim == 1) or (split_dim == 1 and concat_dim == 0), \
    #     f"invalid input dimensions: split_dim={split_dim}, concat_dim={concat_dim}"
    assert (split_dim == 0 and concat_dim == 1) or (split_dim == 1 and concat_dim == 0), \
        f"invalid input dimensions: split_dim={split_dim}, concat_dim={concat_dim}"
    # assert shape[split_dim] >= tp_degree and shape[split_dim] % tp_degree == 0, \
    #     f"invalid split size ({shape[split_dim]}) and tp_degree ({tp_degree})"
    assert shape[split_dim] >= tp_degree and shape[split_dim] % tp_degree == 0, \
        f"invalid split size ({shape[split_dim]}) and tp_degree ({tp_degree})"
    # shape_flat = shape[1:].copy()
    shape_flat = shape[1:].copy()
    # shape_flat[0] *= shape[0]
    shape_flat[0] *= shape[0]

    # Assume input_shape = [N,M]
    # split_dim == 0 and concat_dim == 1, new shape = [M*tp_degree, N/tp_degree]
    # concat_dim == 0 and split_dim == 1, new shape = [N*tp_degree, M/tp_degree]
    # shape_new = shape.copy()
    shape_new = shape.copy()
    # shape_new[split_dim] = shape_new[split_dim] // tp_degree
    shape_new[split_dim] = shape_new[split_dim] // tp_degree
    # shape_new[concat_dim] *= tp_degree
    shape_new[concat_dim] *= tp_degree
    # if split_dim == 0:
    if split_dim == 0:
        # assert concat_dim == 1
        assert concat_dim == 1
        # shape_new[1], shape_new[0] = shape_new[0], shape_new[1]
        shape_new[1], shape_new[0] = shape_new[0], shape_new[1]

    # if split_dim == 1:
    if split_dim == 1:
        # assert concat_dim == 0
        assert concat_dim == 0
        # tensor = transpose(tensor, 0, 1)
        tensor = tensor.transpose(0, 1)
    # tensor = reshape(tensor, shape_flat)
    tensor = tensor.reshape(shape_flat)
    # tensor = dtype[shape_flat].AllToAll(
    #     tensor,
    #     dimensions=[0],
    #     replica_groups=[list(range(tp_degree))],
    # )
    output = torch.empty(shape_flat, dtype=dtype)
    dist.all_to_all_single(output, tensor, group=group)
    tensor = output
    # tensor = reshape(tensor, shape_new)
    tensor = tensor.reshape(shape_new)
    # if split_dim == 0:
    if split_dim == 0:
        # assert concat_dim == 1
        assert concat_dim == 1
        # tensor = transpose(tensor, 0, 1)
        tensor = tensor.transpose(0, 1)
    # return tensor
    return tensor


# src/transformers_neuronx/hlo.py L1298-1306 @ 1ade6d74224a89fb6366ded52153e2f32781e20d
def all_to_all(tensor, split_dim, concat_dim, tp_degree, group=None):
    # # Handle the case when split_dim==0 and concat_dim=0
    # if split_dim == 0 and concat_dim == 0:
    if split_dim == 0 and concat_dim == 0:
        # tensor = hlo.unsqueeze(tensor, dim=0)
        tensor = tensor.unsqueeze(0)
        # tensor = _all_to_all(tensor, split_dim=1, concat_dim=0, tp_degree=tp_degree)
        tensor = _all_to_all(tensor, split_dim=1, concat_dim=0, tp_degree=tp_degree, group=group)
        # tensor = hlo.squeeze(tensor, dim=1)
        tensor = tensor.squeeze(1)
    # else:
    else:
        # tensor = _all_to_all(tensor, split_dim, concat_dim, tp_degree)
        tensor = _all_to_all(tensor, split_dim, concat_dim, tp_degree, group=group)
    # return tensor
    return tensor


# NOT from PR #108 (its diff is not available here): a correct _all_to_all
# for XLA AllToAll(split_dim, concat_dim) semantics on a 2-D [N, M] tensor,
# derived as corpus/neuronx/split*-fixed.sc are, written in the original's
# shape (a reshape that splits the split axis by tp_degree, a transpose that
# puts the rank axis first before / next to the concat axis after the collective).
def _all_to_all_fixed(tensor, split_dim, concat_dim, tp_degree, group=None):
    shape = list(tensor.shape)
    dtype = tensor.dtype
    assert (split_dim == 0 and concat_dim == 1) or (split_dim == 1 and concat_dim == 0), \
        f"invalid input dimensions: split_dim={split_dim}, concat_dim={concat_dim}"
    assert shape[split_dim] >= tp_degree and shape[split_dim] % tp_degree == 0, \
        f"invalid split size ({shape[split_dim]}) and tp_degree ({tp_degree})"
    # the result shape, as XLA AllToAll gives it
    shape_new = shape.copy()
    shape_new[split_dim] = shape_new[split_dim] // tp_degree
    shape_new[concat_dim] *= tp_degree

    if split_dim == 0:
        # [N, M/P] -> [P, N/P, M/P]: chunk j of the split axis is block j of dim 0
        tensor = tensor.reshape([tp_degree, shape[0] // tp_degree, shape[1]])
    else:
        # [N/P, M] -> [N/P, P, M/P] -> [P, N/P, M/P]: the split axis's chunks to the front
        tensor = tensor.reshape([shape[0], tp_degree, shape[1] // tp_degree])
        tensor = tensor.transpose(0, 1).contiguous()
    output = torch.empty_like(tensor)
    dist.all_to_all_single(output, tensor, group=group)
    tensor = output
    if split_dim == 0:
        # [P(source rank), N/P, M/P] -> [N/P, P, M/P] -> [N/P, M]: sources in concat order
        tensor = tensor.transpose(0, 1)
    # split_dim == 1: [P(source rank), N/P, M/P] is already [N, M/P] in concat order
    tensor = tensor.reshape(shape_new)
    return tensor


CASES = [
    # attention.py L146-148: hlo.all_to_all(active_q, split_dim=0, concat_dim=1, tp_degree=tp_degree)
    dict(name="neuronx-split0-concat1-shipped",
         call="all_to_all(X, 0, 1, dist.get_world_size(GROUP), GROUP)",
         dims="n,m", input="shard m", output="shard n",
         corpus="corpus/neuronx/split0-concat1-shipped.sc", require=[]),
    # attention.py L696-697, L781: hlo.all_to_all(output, split_dim=1, concat_dim=0, tp_degree=tp_degree)
    dict(name="neuronx-split1-concat0-shipped",
         call="all_to_all(X, 1, 0, dist.get_world_size(GROUP), GROUP)",
         dims="n,m", input="shard n", output="shard m",
         corpus="corpus/neuronx/split1-concat0-shipped.sc", require=[]),
    dict(name="neuronx-split0-concat1-fixed",
         call="_all_to_all_fixed(X, 0, 1, dist.get_world_size(GROUP), GROUP)",
         dims="n,m", input="shard m", output="shard n",
         corpus="corpus/neuronx/split0-concat1-fixed.sc", require=[]),
    dict(name="neuronx-split1-concat0-fixed",
         call="_all_to_all_fixed(X, 1, 0, dist.get_world_size(GROUP), GROUP)",
         dims="n,m", input="shard n", output="shard m",
         corpus="corpus/neuronx/split1-concat0-fixed.sc", require=[]),
]
