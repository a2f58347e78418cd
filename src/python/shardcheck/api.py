"""check_layout: trace a function and check the spec in one call, for a
user's own tests.

    import shardcheck
    shardcheck.check_layout(my_head_to_seq, dims="s,b,h,d",
                            input="shard h", output="shard s")

raises LayoutError (an AssertionError) with the minimal case, the first
wrong elements and the replay command when the function's layout is
wrong; the spec and the case files are kept (report_dir)."""
import functools
import inspect
import json
import os
import tempfile
import types

from . import runner
from .cli import trace_to_text
from .record import TraceError


class LayoutError(AssertionError):
    """The layout is wrong: .spec, .report_dir, .case_files, .seed, .output."""


def _inner(fn):
    """The Python function behind fn: through functools.partial,
    functools.wraps, bound methods and callable objects."""
    seen = 0
    while seen < 20:
        seen += 1
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        elif hasattr(fn, "__func__"):
            fn = fn.__func__
        elif not hasattr(fn, "__code__") and callable(fn) and hasattr(type(fn), "__call__"):
            fn = type(fn).__call__
        else:
            break
    if not hasattr(fn, "__code__"):
        raise TraceError("usage", "", f"{fn!r} is not a Python function (nothing to trace)",
                         "pass the function, a functools.partial of it, or a callable object")
    return fn


def _name(fn):
    return getattr(_inner(fn), "__name__", "function")


def _invoker(fn, call_args):
    if call_args is not None:
        return lambda x, group, groups, dims: fn(*call_args(x, group, groups))
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    if len(params) >= 2:
        return lambda x, group, groups, dims: fn(x, group)
    return lambda x, group, groups, dims: fn(x)


def trace_function(fn, dims, input, output, mesh="", require=(), name=None, call_args=None, reference=()):
    """The spec (text) of fn: called as fn(X) or fn(X, GROUP), or as
    fn(*call_args(X, GROUP, GROUPS))."""
    code = _inner(fn).__code__
    args = types.SimpleNamespace(
        file=os.path.relpath(code.co_filename), call=f"{_name(fn)}(X{', GROUP' if call_args is None else ', ...'})",
        dims=[d for d in dims.replace(",", " ").split() if d] if isinstance(dims, str) else list(dims),
        input=input, output=output, mesh=mesh, require=list(require), reference=list(reference),
        name=name or _name(fn).replace("_", "-"), out="")
    return trace_to_text(args, _invoker(fn, call_args))


def check_layout(fn, dims, input, output, mesh="", require=(), seed=None, cases=1000, world=None,
                 report_dir=None, call_args=None, name=None, reference=()):
    """Traces fn, checks its spec; returns the report (a dict) when every
    property holds, raises LayoutError otherwise (TraceError when fn cannot
    be traced)."""
    __tracebackhide__ = True    # pytest shows the caller's line, not this module's
    text = trace_function(fn, dims, input, output, mesh, require, name, call_args, reference)
    report_dir = report_dir or tempfile.mkdtemp(prefix="shardcheck-")
    os.makedirs(report_dir, exist_ok=True)
    spec = os.path.join(report_dir, (name or _name(fn)) + ".sc")
    with open(spec, "w") as f:
        f.write(text)
    extra = ["--cases", str(cases), "--report", report_dir, "-q"]
    if seed is not None:
        extra += ["--seed", str(seed)]
    if world is not None:
        extra += ["--world", str(world)]
    rc, out = runner.check(spec, extra, capture=True)
    report = {}
    try:
        with open(os.path.join(report_dir, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError):
        pass
    if rc == 0:
        return report
    if rc != 1:
        raise TraceError("check", "", f"shardcheck check {spec} exited {rc}:\n{out}")
    cases_written = sorted(os.path.join(report_dir, "failures", f)
                           for f in os.listdir(os.path.join(report_dir, "failures")) if f.endswith(".case")) \
        if os.path.isdir(os.path.join(report_dir, "failures")) else []
    err = LayoutError(f"{_name(fn)}: the layout is wrong (input {input}, output {output}, seed "
                      f"{report.get('seed', seed)})\n{out.rstrip()}\n"
                      f"spec: {spec}\ncase files: {' '.join(cases_written) or '(none)'}")
    err.spec, err.report_dir, err.case_files, err.seed, err.output = \
        spec, report_dir, cases_written, report.get("seed", seed), out
    raise err
