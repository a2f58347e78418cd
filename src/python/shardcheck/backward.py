"""`trace --backward`: the backward of the autograd Function a call applies
(and, without it, a Function's forward traced as plain code: `functions`).

The call runs once, untraced in effect, on a tensor shaped like the
Function's input (the local shape --output gives, since the gradient of
an input has the input's shape): every torch.autograd.Function.apply runs
the Function's forward with a plain context, and the first one is kept
(the Function, its context, its arguments, its output). Then its backward
runs on X, the gradient of that output, and is what the trace records;
an apply inside the backward (Megatron's _AllToAll calls itself with the
split sizes swapped) runs that Function's forward, traced.

The call must hand X to the Function unchanged and return the Function's
output (`Fn.apply(X, ...)`, or a wrapper that does no more): steps before
or after it would have backward steps of their own, which torch's
autograd computes and this trace does not.
"""
import contextlib

import torch

from .record import Recorder, TraceError
from .simdist import Groups, SimDist, activate


class Ctx:
    """A Function's ctx as the trace runs forward and backward."""

    def __init__(self, args):
        self.saved_tensors = ()
        self.needs_input_grad = tuple(isinstance(a, torch.Tensor) for a in args)

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass


@contextlib.contextmanager
def functions(kept):
    """Function.apply runs forward with a Ctx; kept (a list, or None) takes
    the first (Function, ctx, args, output)."""
    F = torch.autograd.Function
    saved = F.__dict__.get("apply")

    base_setup = getattr(F, "setup_context", None)

    def apply(cls, *args, **kwargs):
        ctx = Ctx(args)
        setup = getattr(cls, "setup_context", None)
        if setup is not None and setup is not base_setup:   # torch 2.x: forward without ctx, then setup_context
            out = cls.forward(*args, **kwargs)
            setup(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
        if kept is not None and not kept:
            kept.append((cls, ctx, args, out))
        return out
    F.apply = classmethod(apply)
    try:
        yield
    finally:
        if saved is None:
            del F.apply
        else:
            F.apply = saved


def run(invoke, x, fwd, env, sim, rec, groups, dims):
    """The gradient of the Function's input: its backward on x, traced in
    rec (sim's recorder); fwd: a tensor shaped like its input."""
    rec_f = Recorder(dict(env))
    rec_f.track(fwd)
    sim_f = SimDist(rec_f, sim.world, sim.mesh_groups, sim.partitions, sim.mesh)
    kept = []
    with functions(kept), activate(sim_f), rec_f:
        out = invoke(fwd, sim.world, Groups(groups, sim.mesh), dims)
    if not kept:
        raise TraceError("usage", "", "--backward: the call applies no torch.autograd.Function",
                         "call the Function (Fn.apply(X, ...)) or a wrapper that returns what it gives")
    cls, ctx, args, fout = kept[0]
    name = getattr(cls, "__name__", "the Function")
    if out is not fout:
        raise TraceError("usage", "", f"--backward: the call returns something other than {name}'s output",
                         "steps after the Function have backward steps of their own: call the Function itself")
    at = [i for i, a in enumerate(args) if a is fwd]
    if len(at) != 1:
        raise TraceError("usage", "", f"--backward: X is not one argument of {name}.apply as it is",
                         "pass X to the Function unchanged: steps before it have backward steps of their own")
    if not isinstance(fout, torch.Tensor) or tuple(fout.shape) != tuple(x.shape):
        shape = list(fout.shape) if isinstance(fout, torch.Tensor) else type(fout).__name__
        raise TraceError("usage", "", f"--backward: X, the gradient of {name}'s output, has shape {list(x.shape)}, "
                         f"the output {shape}",
                         "--input is the placement of the output's gradient, --output that of the input's")
    with functions(None), activate(sim), rec:
        grads = cls.backward(ctx, x)
    grads = grads if isinstance(grads, tuple) else (grads,)
    if at[0] >= len(grads) or not isinstance(grads[at[0]], torch.Tensor):
        raise TraceError("usage", "", f"--backward: {name}.backward gives no gradient for X (argument {at[0]})")
    return grads[at[0]]
