"""Recording one rank's run of a function as steps of the spec language.

The input tensor and every tensor computed from it are tracked; each
PyTorch operation on a tracked tensor goes through Recorder.__torch_function__
(PyTorch's TorchFunctionMode), which finds the operation's row in HANDLERS
and appends a Step. Operations on untracked tensors (output buffers, index
arithmetic) run as they are. A piece of torch.chunk / split stays a piece
(not yet a step) until it is used, so that torch.cat of the pieces can
become one step (chunk_cat, take with a list, all_gather).
"""
import linecache
import os
import sys

import torch
from torch.overrides import TorchFunctionMode

_HERE = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


class TraceError(Exception):
    """Why a function cannot be traced; where is 'file:line' of the user's code."""

    def __init__(self, kind, where, message, hint=""):
        super().__init__(message)
        self.kind, self.where, self.message, self.hint = kind, where, message, hint

    def __str__(self):
        s = f"{self.where}: {self.message}" if self.where else self.message
        return s + (f"\n  {self.hint}" if self.hint else "")


def user_line():
    """file:line of the innermost frame outside torch and this package."""
    f = sys._getframe(1)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_HERE) and not fn.startswith(_TORCH) and not fn.startswith("<"):
            return f"{os.path.relpath(fn)}:{f.f_lineno}", fn, f.f_lineno
        f = f.f_back
    return "", "", 0


def source_text(path, line):
    return linecache.getline(path, line).strip() if path else ""


class Step:
    """One step of one trace.

    kind: the step's row in emit.FORMS; ins/outs: node ids; consts: what
    must be the same in every trace (dims, ops, list lengths); sizes: one
    entry per size argument, each a list of (extra names, value) pairs
    (usually one pair with no extra names; `take ... [E for k]` gives one
    per k); group: the mesh dims of a grouped step, or "[listed]" for a
    group of listed ranks, whose ranks (as the code listed them) are in
    listed, one entry each, solved like sizes."""

    def __init__(self, kind, ins, consts=(), sizes=(), group=None):
        self.kind, self.ins, self.consts = kind, tuple(ins), tuple(consts)
        self.sizes = [s if isinstance(s, list) else [({}, int(s))] for s in sizes]
        # a listed group of every rank is the world's (group None) unless
        # other runs list fewer at this line (trace.merge decides)
        world = getattr(group, "world", False)
        self.group = None if group is None or world else str(group)
        self.listed = [[({}, int(r))] for r in getattr(group, "ranks", ())]
        self.outs = ()
        self.where, self.path, self.line = user_line()
        self.in_shape = ()
        self.failed = None

    def signature(self):
        return (self.kind, self.ins, self.outs, self.consts, self.group, len(self.sizes), self.where)


class Piece:
    """torch.chunk(src, n, dim)[k] (mode 'chunk'), tensor_split (mode
    'split'), or rows [start, start+length) of torch.split (mode 'narrow')."""

    def __init__(self, src, dim, mode, n, k, start=0, length=0):
        self.src, self.dim, self.mode, self.n, self.k = src, dim, mode, n, k
        self.start, self.length = start, length
        self.at = user_line()       # where the code split the tensor
        self.src_shape = ()
        self.contig = None          # where .contiguous() was applied to the piece


class GatherPiece:
    """Rank k's tensor in the list an all_gather filled."""

    def __init__(self, step, k, n):
        self.step, self.k, self.n = step, k, n


class Recorder(TorchFunctionMode):
    """Tracks tensors computed from the input on one simulated rank."""

    def __init__(self, env):
        super().__init__()
        self.env = env              # names and their values on this rank (dims, P, rank, ...)
        self.steps = []
        self.nodes = {}             # id(tensor) -> node id
        self.pieces = {}            # id(tensor) -> Piece | GatherPiece
        self.keep = []              # tracked tensors, so that ids are not reused
        self.paused = 0
        self.next_node = 1
        self.failed_step = None     # a step PyTorch refused (the run must end there)
        self.stale = {}             # id(tensor) -> where an in-place collective changed what it views
        self.dtype_read = None      # where the code read a tracked tensor's dtype
        self.buffers = {}           # id(buffer) -> (kind, where): torch.zeros & co., tracked once written
        self.written = {}           # id(buffer) -> True: a buffer tracked since a write

    # tracking ---------------------------------------------------------
    def track(self, t, node=None):
        if node is None:
            node = self.next_node
            self.next_node += 1
        self.nodes[id(t)] = node
        self.pieces.pop(id(t), None)
        self.keep.append(t)
        return node

    def add_piece(self, t, piece):
        self.pieces[id(t)] = piece
        self.nodes.pop(id(t), None)
        self.keep.append(t)

    def known(self, t):
        return isinstance(t, torch.Tensor) and (id(t) in self.nodes or id(t) in self.pieces)

    def node_of(self, t):
        """The node of a tracked tensor; a piece becomes a step here."""
        if id(t) in self.nodes:
            return self.nodes[id(t)]
        p = self.pieces[id(t)]
        if isinstance(p, GatherPiece):
            raise TraceError("unsupported", user_line()[0],
                             "one rank's tensor of an all_gather list is used alone",
                             "shardcheck's all_gather concatenates the list (torch.cat(tensor_list, dim=i)); "
                             "write the code that way, or use all_gather_into_tensor")
        if p.mode == "narrow":
            st = Step("narrow", [p.src], [p.dim], [p.start, p.length])
        else:
            st = Step("take", [p.src], [p.dim, p.mode], [p.n, p.k])
        st.where, st.path, st.line = p.at
        if p.contig is None:
            return self.emit(st, t, in_shape=p.src_shape)
        st.in_shape, st.outs = p.src_shape, (self.next_node,)     # the piece, then its .contiguous()
        self.next_node += 1
        self.steps.append(st)
        c = Step("contiguous", st.outs)
        c.where, c.path, c.line = p.contig
        return self.emit(c, t, in_shape=tuple(t.shape))

    def emit(self, st, out, in_shape=None):
        """Appends a step whose result is the tensor out (or several)."""
        outs = out if isinstance(out, (list, tuple)) else [out]
        st.outs = tuple(self.track(o) for o in outs)
        if in_shape is not None:
            st.in_shape = tuple(in_shape)
        self.steps.append(st)
        return st.outs[0]

    def begin(self, st, t):
        """A step recorded before it runs: a PyTorch error in it ends the
        trace there (the spec's step fails in the same case)."""
        st.in_shape = tuple(t.shape)
        self.steps.append(st)
        return st

    def done(self, st, out):
        outs = out if isinstance(out, (list, tuple)) else [out]
        st.outs = tuple(self.track(o) for o in outs)
        return out

    # interception -----------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.paused:
            return func(*args, **kwargs)
        ts = list(_tensors(args, kwargs))
        for a in ts:
            if id(a) in self.stale:
                raise TraceError("unsupported", user_line()[0],
                                 "uses a view that shares memory with a tensor an in-place collective "
                                 f"changed at {self.stale[id(a)]}",
                                 "use the tensor the collective wrote (or make the view after it)")
        tracked = [a for a in ts if self.known(a)]
        name = op_name(func)
        if name in BUFFER_FACTORIES:                     # a buffer the code allocates: tracked once written
            out = func(*args, **kwargs)
            self.new_buffer(out, BUFFER_FACTORIES[name])
            return out
        if not tracked:
            return func(*args, **kwargs)
        if name in (".dtype", "element_size", "type") and self.dtype_read is None:
            self.dtype_read = user_line()[0]
        handler = HANDLERS.get(name)
        if handler is None:
            raise unsupported(name)
        self.paused += 1
        try:
            return handler(self, func, args, kwargs)
        finally:
            self.paused -= 1

    # buffers the code allocated ----------------------------------------
    def new_buffer(self, t, kind):
        """t, made by a factory (zeros: padding; empty: nothing written),
        becomes a tracked node at its first write from a tracked tensor."""
        if isinstance(t, torch.Tensor) and not self.known(t):
            self.buffers[id(t)] = (kind, user_line())
            self.keep.append(t)

    def buffer_of(self, v):
        """The buffer (registered or tracked as one) v is, or views; None."""
        for b in (v, v._base):
            if b is not None and (id(b) in self.buffers or id(b) in self.written):
                return b
        return None

    def whole(self, v):
        """v is a registered buffer, or a view of all of one: an output buffer
        written whole (a copy, or a collective's result), as before: no
        buffer step. Its registration ends."""
        buf = self.buffer_of(v)
        if buf is None or id(buf) not in self.buffers:
            return False
        if v is buf or (tuple(v.shape) == tuple(buf.shape) and v.stride() == buf.stride()
                        and v.storage_offset() == buf.storage_offset()):
            self.buffers.pop(id(buf))
            return True
        return False

    def write(self, v, src_node, src):
        """The tracked tensor src_node (shaped as src) was written into view v
        of a buffer: the buffer's node becomes `write BUF SRC dim=d start=s`
        (made first, as zeros or empty, at its first write)."""
        buf = self.buffer_of(v)
        where = user_line()
        if buf.dim() != v.dim() or buf.stride() != v.stride() or not buf.is_contiguous():
            raise TraceError("unsupported", where[0], "a write into a view of a buffer that is not a slice of one dim",
                             "write into buf.narrow(d, start, n) (buf[a:b] on one dim) of a contiguous buffer")
        diff = [d for d in range(buf.dim()) if buf.shape[d] != v.shape[d]]
        if len(diff) > 1:
            raise TraceError("unsupported", where[0], "a write into a view of a buffer narrowed on several dims",
                             "write a slice of one dim at a time")
        d = diff[0] if diff else 0
        off = v.storage_offset() - buf.storage_offset()
        start = off // buf.stride(d) if buf.stride(d) else 0
        if buf.stride(d) and off % buf.stride(d):
            raise TraceError("unsupported", where[0], "a write into a view of a buffer that is not a slice of one dim")
        if id(buf) in self.buffers:                     # its first write: the buffer itself
            kind, at = self.buffers.pop(id(buf))
            st = Step(kind, [src_node], (), list(buf.shape))
            st.where, st.path, st.line = at
            self.emit(st, buf, in_shape=tuple(src.shape))
            self.written[id(buf)] = True
        st = Step("write", [self.node_of(buf), src_node], [d], [start])
        st.where, st.path, st.line = where
        self.emit(st, buf, in_shape=tuple(buf.shape))
        for u in self.keep:                             # views made before the write read old values
            if u is not buf and u is not v and self.known(u) and _storage(u) == _storage(buf):
                self.nodes.pop(id(u), None)
                self.pieces.pop(id(u), None)
                self.stale[id(u)] = where[0]

    def written_in_place(self, t, where):
        """t was written by an in-place collective: every other tracked
        tensor on its memory (a view of it, its base) is stale now."""
        ptr = _storage(t)
        for u in self.keep:
            if u is not t and self.known(u) and _storage(u) == ptr:
                self.nodes.pop(id(u), None)
                self.pieces.pop(id(u), None)
                self.stale[id(u)] = where

    def run_step(self, st, t, func, args, kwargs):
        """Records st with input t, runs the operation, tracks its result."""
        self.begin(st, t)
        try:
            out = func(*args, **kwargs)
        except Exception as ex:  # PyTorch refused: the trace ends here
            self.failed_step = st
            raise step_failed(st, ex) from ex
        return self.done(st, out)

    def chain(self, pairs, t, func, args, kwargs):
        """Several steps for one operation (t[1:, 0], flip of two dims), each
        run by its own function so that each has its input's shape."""
        if not pairs:
            out = func(*args, **kwargs)
            self.track(out, self.node_of(t))
            return out
        cur = t
        for st, fn in pairs:
            st.ins = (self.node_of(cur),)
            cur = self.run_step(st, cur, fn, (cur,), {})
        return cur


# factories of buffers, and the step each becomes (zeros: padding; empty:
# nothing written; ones/full/rand: values the language has no words for)
BUFFER_FACTORIES = {"zeros": "zeros", "zeros_like": "zeros", "new_zeros": "zeros",
                    "empty": "empty", "empty_like": "empty", "new_empty": "empty"}


class StepFailed(Exception):
    """A step PyTorch refused: the run ends there. Raised as a subclass of
    the error PyTorch raised too (step_failed), so that the traced code's
    own `except RuntimeError` sees it; a run that catches it is refused
    (the recorder remembers the failure)."""

    def __init__(self, st):
        super().__init__(st.failed)
        self.step = st


def step_failed(st, ex):
    """The exception to raise for step st that PyTorch refused with ex."""
    st.failed = f"{type(ex).__name__}: {str(ex).splitlines()[0] if str(ex) else ''}"
    try:
        cls = type("StepFailed", (StepFailed, type(ex)), {})
        err = cls.__new__(cls)
        StepFailed.__init__(err, st)
        return err
    except TypeError:
        return StepFailed(st)


def _tensors(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, torch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, torch.Tensor):
                    yield b


def _storage(t):
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:      # PyTorch before 2.0
        return t.storage().data_ptr()


def op_name(func):
    name = getattr(func, "__name__", str(func))
    if name == "__get__":
        owner = getattr(func, "__self__", None)
        return "." + getattr(owner, "__name__", "?")
    return name


def unsupported(name, hint=None):
    where = user_line()[0]
    if name in DATA_DEPENDENT:
        return TraceError("data", where,
                          f"data-dependent value: `{name.lstrip('.')}` reads a tracked tensor's contents",
                          "a size or a branch read from the data cannot be a spec: sizes must follow from the "
                          "shapes, the world size and the rank (for token counts, write the spec by hand "
                          "with `counts`)")
    if hint is None:
        hint = ARITHMETIC_HINT if name.strip("_") in ARITHMETIC else (
            "rewrite it with the language's steps (docs/language.md, Steps), or write this part of the "
            "spec by hand; see `shardcheck trace --help` for what is traced")
    label = name.lstrip(".")
    return TraceError("unsupported", where, f"`{label}` has no step in shardcheck's language", hint)


ARITHMETIC = {"add", "sub", "mul", "div", "true_divide", "floor_divide", "neg", "matmul", "mm", "bmm", "pow",
              "exp", "log", "sum", "mean", "max", "min", "softmax", "relu", "gelu", "linear", "rsub",
              "radd", "rmul", "iadd", "isub", "imul", "idiv", "addmm", "einsum", "square", "sqrt"}
ARITHMETIC_HINT = ("arithmetic on the values: a layout spec moves data and does not compute; for the "
                   "arithmetic around collectives write a compute spec (docs/language.md, Compute specs)")
DATA_DEPENDENT = {"item", "tolist", "__int__", "__index__", "__bool__", "__float__", "numpy", "nonzero",
                  "unique", "masked_select", "__array__", "argwhere", "bincount"}

from .handlers import HANDLERS  # noqa: E402  (the table needs the classes above)
