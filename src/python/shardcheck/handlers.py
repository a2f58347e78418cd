"""The table of PyTorch operations on tracked tensors: each row turns one
operation into steps of the spec language (docs/language.md, Steps), or
lets it through when it only reads the shape. An operation with no row
stops the trace (record.unsupported)."""
import copy

import torch

from .record import GatherPiece, Piece, Step, TraceError, step_failed, unsupported, user_line


def _ints(vals, what):
    out = []
    for v in vals:
        if isinstance(v, torch.Tensor):
            raise unsupported("item")
        try:
            out.append(int(v))
        except TypeError:
            raise TraceError("unsupported", user_line()[0], f"{what}: {v!r} is not an integer")
    return out


def _shape_args(args, kwargs, key="shape"):
    shape = args[1:] if len(args) > 1 else kwargs.get(key, kwargs.get("size", ()))
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, torch.Size)):
        shape = shape[0]
    return shape


def passthrough(rec, func, args, kwargs):
    return func(*args, **kwargs)


def same_node(rec, func, args, kwargs):
    """An operation that leaves the values and strides as they are."""
    t = args[0]
    node = rec.node_of(t)
    out = func(*args, **kwargs)
    if out is t:
        return out
    rec.track(out, node)
    return out


def simple(kind, nconst):
    """A step whose arguments are nconst integers (dims) after the tensor."""
    def h(rec, func, args, kwargs):
        t = args[0]
        vals = list(args[1:1 + nconst])
        vals += [kwargs[k] for k in ("dim", "dim0", "dim1", "source", "destination", "start_dim", "end_dim")
                 if k in kwargs][:nconst - len(vals)]
        st = Step(kind, [rec.node_of(t)], _ints(vals, kind))
        return rec.run_step(st, t, func, args, kwargs)
    return h


def h_reshape(kind):
    def h(rec, func, args, kwargs):
        t = args[0]
        shape = _shape_args(args, kwargs)
        if kind == "view" and len(shape) == 1 and isinstance(shape[0], torch.dtype):
            raise unsupported("view", "view(dtype) reinterprets the bytes: no step does that")
        sizes = _ints(shape, kind)
        st = Step(kind, [rec.node_of(t)], [len(sizes)], sizes)
        return rec.run_step(st, t, func, args, kwargs)
    return h


def h_as(kind):
    def h(rec, func, args, kwargs):
        t, other = args[0], args[1]
        sizes = list(other.shape)
        st = Step(kind, [rec.node_of(t)], [len(sizes)], sizes)
        return rec.run_step(st, t, func, args, kwargs)
    return h


def h_unflatten(rec, func, args, kwargs):
    t = args[0]
    src = rec.node_of(t)
    out = None
    st = Step("view", [src], [0], [])
    rec.begin(st, t)
    try:
        out = func(*args, **kwargs)
    except Exception as ex:
        rec.failed_step = st
        raise step_failed(st, ex) from ex
    st.consts = (out.dim(),)
    st.sizes = [[({}, int(v))] for v in out.shape]
    return rec.done(st, out)


def h_flatten(rec, func, args, kwargs):
    t = args[0]
    a = args[1] if len(args) > 1 else kwargs.get("start_dim", 0)
    b = args[2] if len(args) > 2 else kwargs.get("end_dim", -1)
    st = Step("flatten", [rec.node_of(t)], _ints([a, b], "flatten"))
    return rec.run_step(st, t, func, args, kwargs)


def h_squeeze(rec, func, args, kwargs):
    if len(args) < 2 and "dim" not in kwargs:
        raise unsupported("squeeze", "squeeze() without a dim removes every size-1 dim, which depends on "
                          "the shape: name the dim (squeeze(i))")
    return simple("squeeze", 1)(rec, func, args, kwargs)


def h_movedim(rec, func, args, kwargs):
    a = args[1] if len(args) > 1 else kwargs.get("source")
    if isinstance(a, (list, tuple)):
        raise unsupported("movedim", "movedim of several dims: write one movedim per dim, or a permute")
    return simple("movedim", 2)(rec, func, args, kwargs)


def h_permute(rec, func, args, kwargs):
    t = args[0]
    dims = _shape_args(args, kwargs, "dims")
    st = Step("permute", [rec.node_of(t)], _ints(dims, "permute"))
    return rec.run_step(st, t, func, args, kwargs)


def h_t(rec, func, args, kwargs):
    t = args[0]
    if t.dim() < 2:
        return same_node(rec, func, args, kwargs)
    st = Step("transpose", [rec.node_of(t)], [0, 1])
    return rec.run_step(st, t, func, args, kwargs)


def h_T(rec, func, args, kwargs):
    t = args[0]
    st = Step("permute", [rec.node_of(t)], list(range(t.dim() - 1, -1, -1)))
    return rec.run_step(st, t, func, args, kwargs)


def h_contiguous(rec, func, args, kwargs):
    t = args[0]
    fmt = kwargs.get("memory_format", args[1] if len(args) > 1 else torch.contiguous_format)
    if fmt is not torch.contiguous_format:
        raise unsupported("contiguous", "only the default memory format has a step (`contiguous`)")
    p = rec.pieces.get(id(t))
    if p is not None and not isinstance(p, GatherPiece):
        out = func(*args, **kwargs)     # a piece stays a piece: cat or a list collective may take it
        q = copy.copy(p)
        q.contig = user_line()
        rec.add_piece(out, q)
        return out
    st = Step("contiguous", [rec.node_of(t)])
    return rec.run_step(st, t, func, args, kwargs)


def h_clone(rec, func, args, kwargs):
    t = args[0]
    if kwargs.get("memory_format", torch.preserve_format) is torch.contiguous_format:
        return h_contiguous(rec, func, (t,), {})
    if not t.is_contiguous():
        raise unsupported("clone", "clone() of a non-contiguous tensor keeps its strides only where they are "
                          "dense: write .contiguous() (the `contiguous` step)")
    return same_node(rec, func, args, kwargs)


def h_to(rec, func, args, kwargs):
    t = args[0]
    out = func(*args, **kwargs)
    if out.dtype != t.dtype:
        raise unsupported("to", "a change of dtype has no step: a layout spec keeps the element type "
                          "(spec dtypes are drawn with `dtypes`)")
    if out is not t:
        rec.track(out, rec.node_of(t))
    return out


def h_narrow(rec, func, args, kwargs):
    t = args[0]
    d, start, length = (list(args[1:4]) + [kwargs.get(k) for k in ("dim", "start", "length")][len(args) - 1:])[:3]
    st = Step("narrow", [rec.node_of(t)], _ints([d], "narrow"), _ints([start, length], "narrow"))
    return rec.run_step(st, t, func, args, kwargs)


def _pieces(rec, t, out, dim, mode, n):
    src = rec.node_of(t)
    start = 0
    for k, o in enumerate(out):
        if mode in ("chunk", "split"):
            p = Piece(src, dim, mode, n, k)
        else:
            p = Piece(src, dim, "narrow", 0, 0, start, o.shape[dim])
            start += o.shape[dim]
        p.src_shape = tuple(t.shape)
        rec.add_piece(o, p)
    return out


def h_chunk(rec, func, args, kwargs):
    t = args[0]
    n = args[1] if len(args) > 1 else kwargs["chunks"]
    dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
    n, dim = _ints([n, dim], "chunk")
    return _pieces(rec, t, func(*args, **kwargs), dim, "chunk", n)


def h_tensor_split(rec, func, args, kwargs):
    t = args[0]
    ind = args[1] if len(args) > 1 else kwargs.get("sections", kwargs.get("indices"))
    dim = _ints([args[2] if len(args) > 2 else kwargs.get("dim", 0)], "tensor_split")[0]
    out = func(*args, **kwargs)
    if isinstance(ind, int):
        return _pieces(rec, t, out, dim, "split", ind)
    return _pieces(rec, t, out, dim, "narrow", 0)


def h_split(rec, func, args, kwargs):
    t = args[0]
    dim = _ints([args[2] if len(args) > 2 else kwargs.get("dim", 0)], "split")[0]
    size = args[1] if len(args) > 1 else kwargs.get("split_size_or_sections", kwargs.get("split_size"))
    out = func(*args, **kwargs)
    if isinstance(size, int) and size > 0 and t.shape[dim] % size == 0:
        # equal pieces: torch.chunk's, so that torch.cat of them is one step
        return _pieces(rec, t, out, dim, "chunk", t.shape[dim] // size)
    return _pieces(rec, t, out, dim, "narrow", 0)


def h_getitem(rec, func, args, kwargs):
    t, idx = args[0], args[1]
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(isinstance(i, torch.Tensor) or isinstance(i, (list, bool)) for i in idx):
        raise unsupported("__getitem__", "indexing by a tensor or a list (advanced indexing) has no step; "
                          "slices, integers, None and ... are traced")
    nspec = sum(1 for i in idx if i is not None and i is not Ellipsis)
    full = []
    for i in idx:
        if i is Ellipsis:
            full += [slice(None)] * (t.dim() - nspec)
        else:
            full.append(i)
    steps, d, shape = [], 0, list(t.shape)
    for i in full:
        if i is None:
            steps.append((Step("unsqueeze", [0], [d]), lambda x, d=d: x.unsqueeze(d)))
            shape.insert(d, 1)
            d += 1
        elif isinstance(i, slice):
            if i.step not in (None, 1):
                raise unsupported("__getitem__", "a slice with a step has no step in the language")
            if i.start is not None or i.stop is not None:
                a, b, _ = i.indices(shape[d])
                n = max(0, b - a)
                steps.append((Step("narrow", [0], [d], _ints([a, n], "slice")),
                              lambda x, d=d, a=a, n=n: x.narrow(d, a, n)))
                shape[d] = n
            d += 1
        else:
            k = _ints([i], "index")[0]
            steps.append((Step("narrow", [0], [d], [k, 1]), lambda x, d=d, k=k: x.narrow(d, k, 1)))
            steps.append((Step("squeeze", [0], [d]), lambda x, d=d: x.squeeze(d)))
            shape.pop(d)
    return rec.chain(steps, t, func, args, kwargs)


def h_cat(rec, func, args, kwargs):
    ts = list(args[0] if args else kwargs["tensors"])
    dim = _ints([args[1] if len(args) > 1 else kwargs.get("dim", 0)], "cat")[0]
    if not all(rec.known(x) for x in ts):
        raise unsupported("cat", "cat of a tracked tensor with one not computed from the input (zeros, "
                          "padding): use F.pad for zeros (the `pad` step)")
    nd = ts[0].dim()
    ps = [rec.pieces.get(id(x)) for x in ts]
    if all(isinstance(p, GatherPiece) for p in ps) and len({id(p.step) for p in ps}) == 1 \
            and [p.k for p in ps] == list(range(ps[0].n)):
        st = ps[0].step
        st.consts = (dim,)
        # how many rows along dim the code sized each source's buffer for
        st.sizes = [[({"src": k}, int(b[dim])) for k, b in enumerate(st.buffers)]]
        out = func(*args, **kwargs)
        return rec.done(st, out)
    if all(isinstance(p, Piece) and p.mode in ("chunk", "split") for p in ps) and ps \
            and len({(p.src, p.dim % nd, p.mode, p.n) for p in ps}) == 1:
        p0 = ps[0]
        if p0.dim % nd == dim % nd:
            ks = [({"k": j}, p.k) for j, p in enumerate(ps)]
            st = Step("take_list", [p0.src], [p0.dim, p0.mode], [[({}, p0.n)], ks])
            return rec.run_step(st, ts[0], func, args, kwargs)
        if p0.mode == "chunk" and [p.k for p in ps] == list(range(p0.n)) and p0.n == rec.env["P"]:
            st = Step("chunk_cat", [p0.src], [p0.dim, dim])
            return rec.run_step(st, ts[0], func, args, kwargs)
    nodes = [rec.node_of(x) for x in ts]
    st = Step("cat", nodes, [dim, len(nodes)])
    return rec.run_step(st, ts[0], func, args, kwargs)


def h_index_select(rec, func, args, kwargs):
    """t.index_select(d, idx) with idx a tensor the code built (not read from
    the data): the rows idx of d, as `take d size(d) [i0, i1, ...]`."""
    t = args[0]
    dim = _ints([args[1] if len(args) > 1 else kwargs["dim"]], "index_select")[0]
    idx = args[2] if len(args) > 2 else kwargs["index"]
    if rec.known(idx):
        raise unsupported("item")
    ks = [({"k": j}, int(v)) for j, v in enumerate(idx.reshape(-1).tolist())]
    st = Step("take_list", [rec.node_of(t)], [dim, "chunk"], [[({}, t.shape[dim])], ks])
    return rec.run_step(st, t, func, args, kwargs)


def h_flip(rec, func, args, kwargs):
    t = args[0]
    dims = _shape_args(args, kwargs, "dims")
    steps = [(Step("flip", [0], [d]), lambda x, d=d: torch.flip(x, [d])) for d in _ints(dims, "flip")]
    return rec.chain(steps, t, func, args, kwargs)


def h_pad(rec, func, args, kwargs):
    t = args[0]
    pad = _ints(args[1] if len(args) > 1 else kwargs["pad"], "pad")
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    value = args[3] if len(args) > 3 else kwargs.get("value", None)
    if mode != "constant" or value not in (None, 0, 0.0):
        raise unsupported("pad", "only constant zero padding has a step (`pad`)")
    m = len(pad) // 2
    if any(pad[:2 * m - 2]):
        raise unsupported("pad", "F.pad of more than one dim: write one F.pad per dim (the `pad` step pads "
                          "the first dim its list covers)")
    st = Step("pad", [rec.node_of(t)], [t.dim() - m], pad[2 * m - 2:])
    return rec.run_step(st, t, func, args, kwargs)


def h_repeat_interleave(rec, func, args, kwargs):
    t = args[0]
    rep = args[1] if len(args) > 1 else kwargs.get("repeats")
    dim = args[2] if len(args) > 2 else kwargs.get("dim")
    if dim is None or isinstance(rep, torch.Tensor):
        raise unsupported("repeat_interleave", "repeat_interleave needs an integer count and a dim")
    st = Step("repeat_interleave", [rec.node_of(t)], _ints([dim], "repeat_interleave"), _ints([rep], "repeats"))
    return rec.run_step(st, t, func, args, kwargs)


def h_copy(rec, func, args, kwargs, dst=None, src=None):
    """dst.copy_(src) into a buffer the code allocated, or a slice of one:
    `write` (a buffer written whole too, so that the steps do not change
    with the shapes)."""
    if dst is None:
        dst, src = args[0], args[1]
    if not rec.known(src):
        raise TraceError("unsupported", user_line()[0], "copies a tensor not computed from X into a buffer",
                         "only copies of traced tensors into buffers are traced")
    if rec.buffer_of(dst) is None:
        raise unsupported("copy_", "copy_ is traced into a buffer the function allocated (torch.zeros, "
                          "torch.empty, new_zeros, empty_like ...) or a slice of one")
    node = rec.node_of(src)
    out = func(*args, **kwargs)
    rec.write(dst, node, src)  # whole or a slice alike: the steps must not depend on the shapes
    return out


def h_setitem(rec, func, args, kwargs):
    """buf[index] = t: t copied into that view of a buffer the code allocated
    (buf[:n] = x, as a padded all-gather's input is made)."""
    buf, index, value = args[0], args[1], args[2]
    if not isinstance(value, torch.Tensor) or rec.buffer_of(buf) is None:
        raise unsupported("__setitem__", "an assignment into a slice is traced into a buffer the function "
                          "allocated (torch.empty, torch.zeros, new_empty ...), from a traced tensor")
    view = buf[index]
    if tuple(view.shape) != tuple(value.shape):
        raise TraceError("unsupported", user_line()[0], f"buf[...] = t with t of shape {tuple(value.shape)} "
                         f"broadcast into {tuple(view.shape)}", "assign a tensor of the slice's shape")
    return h_copy(rec, lambda *a, **k: func(*args, **kwargs), (), {}, dst=view, src=value)


SHAPE_READS = ["size", "dim", "numel", "stride", "is_contiguous", "element_size", "nelement", "ndimension",
               "__len__", "get_device", "is_floating_point", "is_complex", "storage_offset", "data_ptr",
               "__repr__", "__format__", "__str__", "__hash__", "type", "requires_grad_",
               ".shape", ".dtype", ".device", ".ndim", ".is_cuda", ".requires_grad", ".layout", ".grad_fn",
               ".names", ".is_leaf", ".is_sparse", ".is_quantized", ".is_meta", ".grad", "storage",
               "untyped_storage", "_typed_storage"]
NEW_BUFFERS = ["empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "new_empty",
               "new_zeros", "new_ones", "new_full", "empty_strided"]

HANDLERS = {
    **{n: passthrough for n in SHAPE_READS},
    **{n: passthrough for n in NEW_BUFFERS},     # an output buffer shaped like X: not tracked
    "reshape": h_reshape("reshape"), "view": h_reshape("view"),
    "view_as": h_as("view"), "reshape_as": h_as("reshape"), "unflatten": h_unflatten,
    "flatten": h_flatten, "unsqueeze": simple("unsqueeze", 1), "squeeze": h_squeeze,
    "movedim": h_movedim, "moveaxis": h_movedim,
    "transpose": simple("transpose", 2), "swapaxes": simple("transpose", 2), "swapdims": simple("transpose", 2),
    "permute": h_permute, "t": h_t, ".T": h_T,
    "contiguous": h_contiguous, "clone": h_clone,
    "to": h_to, "detach": same_node, "float": h_to, "half": h_to, "bfloat16": h_to, "int": h_to, "long": h_to,
    "narrow": h_narrow, "chunk": h_chunk, "tensor_split": h_tensor_split,
    "split": h_split, "split_with_sizes": h_split,
    "__getitem__": h_getitem,
    "cat": h_cat, "concat": h_cat, "concatenate": h_cat,
    "flip": h_flip, "index_select": h_index_select, "pad": h_pad, "constant_pad_nd": h_pad,
    "repeat_interleave": h_repeat_interleave,
    "copy_": h_copy,
    "__setitem__": h_setitem,
}
