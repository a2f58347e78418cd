"""`shardcheck trace`: from a PyTorch function to a spec.

The function runs on every rank of several simulated worlds and shapes
(record.Recorder sees its tensor operations, simdist.SimDist its
collectives). The runs must take the same steps; each size argument is
then solved as one expression over every run (solve.py), and the spec is
written with one step per operation and its source line as a comment.
"""
import ast
import importlib.util
import itertools
import os
import re
import sys

import numpy as np
import torch

from . import runner
from .record import Recorder, StepFailed, TraceError, source_text
from .simdist import Group, Groups, SimDist, activate, installed
from .solve import Bank, solve

# dim values of the two shapes traced per world (times what divisibility needs)
# (the third has even and odd values where the others are odd, so that a
# branch on a size's parity is seen)
BASES = ([5, 3, 7, 2, 11, 13, 3, 5], [3, 7, 2, 5, 13, 11, 5, 3], [2, 5, 4, 3, 2, 3, 2, 5])
WORLDS = (1, 2, 3, 4)


def mesh_shapes(k):
    """Sizes of k free mesh dims traced: every combination of 1..3 with at
    most 6 ranks (k <= 2), of 1..2 (k > 2)."""
    vals = (1, 2, 3) if k <= 2 else (1, 2)
    return [c for c in itertools.product(vals, repeat=k) if eval("*".join(map(str, c)) or "1") <= 8]


class Config:
    """One world (or mesh) and one shape: the sizes of a case."""

    def __init__(self, world, mesh, sizes):
        self.world, self.mesh, self.sizes = world, mesh, sizes     # mesh: [(name, sym, size)]

    def sizes_arg(self):
        items = [(sym, n) for _, sym, n in self.mesh if sym] + list(self.sizes.items())
        return ",".join(f"{k}={v}" for k, v in items)

    def text(self):
        m = " ".join(f"{name}={n}" for name, _, n in self.mesh)
        return (f"world {self.world}" + (f" ({m})" if m else "") + ", "
                + " ".join(f"{k}={v}" for k, v in self.sizes.items()))


class Run:
    """One rank's run of the function at one config."""

    def __init__(self, cfg, rank, rec, out_node, failed):
        self.cfg, self.rank, self.rec, self.out_node, self.failed = cfg, rank, rec, out_node, failed


def parse_mesh(text):
    """'dp=D,tp=2' -> [(dp, 'D', None), (tp, '', 2)]"""
    out = []
    for item in text.replace(",", " ").split():
        name, _, size = item.partition("=")
        if not name or not size:
            raise TraceError("usage", "", f"--mesh: '{item}' is not NAME=SIZE")
        out.append((name, "" if size.isdigit() else size, int(size) if size.isdigit() else None))
    return out


def skeleton(args, name, mesh):
    lines = [f"pipeline {name}", "dims " + " ".join(args.dims)]
    if mesh:
        lines.append("mesh " + " ".join(f"{n}={sym or size}" for n, sym, size in mesh))
    lines += [f"input {args.input}", f"output {args.output}"]
    lines += [f"require {r}" for r in args.require]
    return lines


def load_function_module(path):
    spec = importlib.util.spec_from_file_location("_shardcheck_traced", path)
    if spec is None:
        raise TraceError("usage", "", f"{path}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(mod)
    return mod


def _configs(args, mesh, skel_path, tmp):
    """Worlds and shapes that the spec admits, found by asking `eval`."""
    worlds = []
    if mesh:
        syms = [(n, sym, size) for n, sym, size in mesh]
        free = [m for m in syms if m[1]]
        for combo in mesh_shapes(len(free)):
            it = iter(combo)
            worlds.append([(n, sym, next(it) if sym else size) for n, sym, size in syms])
    else:
        worlds = [[] for _ in WORLDS]
    out = []
    for wi, m in enumerate(worlds):
        P = WORLDS[wi] if not mesh else eval("*".join(str(x[2]) for x in m) or "1")
        for b, base in enumerate(BASES):
            if P == 1 and b:
                continue
            cfg = _admitted(args, m, P, base, skel_path, tmp)
            if cfg is not None:
                out.append(cfg)
    return out


_DIM_RE = re.compile(r"'([A-Za-z_]\w*)' \((\d+)\)[^0-9]*(\d+)")


def _admitted(args, m, P, base, skel_path, tmp):
    sizes = {d: base[i % len(base)] for i, d in enumerate(args.dims)}
    for attempt in range(12):
        cfg = Config(P, m, dict(sizes))
        rc, err = runner.eval_dump(skel_path, cfg, os.path.join(tmp, "probe"))
        if rc != 2 or "not valid" not in err:
            return cfg if rc != 2 else _fail_eval(err)
        mm = _DIM_RE.search(err)
        if mm and mm.group(1) in sizes:
            d, div = mm.group(1), int(mm.group(3))
            sizes[d] *= div // _gcd(sizes[d], div) if div > 1 else 1
            continue
        if attempt < 4:     # a require: other multiples of the world
            sizes = {d: v * (P if attempt % 2 == 0 else 2) for d, v in sizes.items()}
            continue
        return None
    return None


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def _fail_eval(err):
    raise TraceError("usage", "", "the spec's declarations do not parse:\n" + err.strip())


def run_all(args, invoke, configs, tmp):
    runs = []
    for cfg in configs:
        d = os.path.join(tmp, "inputs")
        rc, err = runner.eval_dump(args.skel, cfg, d)
        for r in range(cfg.world):
            path = os.path.join(d, f"rank{r}.input.npy")
            if not os.path.exists(path):
                raise TraceError("internal", "", f"`shardcheck eval` wrote no input at {cfg.text()}:\n{err}")
            x = torch.from_numpy(np.load(path).copy())
            runs.append(run_one(invoke, cfg, r, x))
    return runs


def _groups(cfg, r):
    world = Group(range(cfg.world), r)
    if not cfg.mesh:
        return world, {}, {}, {}
    names = [n for n, _, _ in cfg.mesh]
    shape = [s for _, _, s in cfg.mesh]
    coords = []
    rem = r
    for s in reversed(shape):
        coords.insert(0, rem % s)
        rem //= s
    groups, by_members = {}, {}
    for k in range(1, len(names) + 1):
        for dims in itertools.combinations(range(len(names)), k):
            members = []
            for vals in itertools.product(*[range(shape[i]) for i in dims]):
                c = list(coords)
                for i, v in zip(dims, vals):
                    c[i] = v
                idx = 0
                for i, s in enumerate(shape):
                    idx = idx * s + c[i]
                members.append(idx)
            g = Group(members, r, tuple(names[i] for i in dims)) if k < len(names) else world
            if k == 1:
                groups[names[dims[0]]] = g
            by_members[frozenset(members)] = g
    return world, groups, by_members, dict(zip(names, coords))


def run_one(invoke, cfg, r, x):
    env = dict(cfg.sizes)
    env["P"], env["rank"] = cfg.world, r
    world, groups, by_members, coords = _groups(cfg, r)
    env.update({sym: size for _, sym, size in cfg.mesh if sym})
    env.update(coords)
    rec = Recorder(env)
    rec.track(x)
    sim = SimDist(rec, world, by_members, groups)
    failed = None
    try:
        with activate(sim), rec:
            result = invoke(x, world, Groups(groups))
    except StepFailed as ex:
        failed = ex.step
        result = None
    except TraceError as ex:
        ex.at = cfg.text() + f", rank {r}"
        raise
    except Exception as ex:
        where = _frame_of(ex)
        raise TraceError("raised", where, f"the function raised {type(ex).__name__}: {ex} "
                         f"(traced at {cfg.text()}, rank {r})",
                         "the spec cannot say that code rejects a shape: bound the shapes with --require "
                         "(e.g. --require 'h % P == 0')")
    out_node = None
    if failed is None:
        if not isinstance(result, torch.Tensor):
            raise TraceError("usage", "", f"--call returned {type(result).__name__}, not a tensor",
                             "pick the tensor: --call 'f(X)[0]'")
        if not rec.known(result):
            raise TraceError("usage", "", "the tensor --call returned is not computed from X")
        rec.paused += 1
        out_node = rec.node_of(result)
        rec.paused -= 1
    return Run(cfg, r, rec, out_node, failed)


def _frame_of(ex):
    tb = ex.__traceback__
    where = ""
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if "shardcheck" not in os.path.abspath(fn) and "/torch/" not in fn and not fn.startswith("<"):
            where = f"{os.path.relpath(fn)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _sig(run):
    steps = run.rec.steps
    n = len(steps) if run.failed is None else steps.index(run.failed) + 1
    return [s.signature() for s in steps[:n]]


def merge(runs):
    """The runs' common steps: every complete run takes the same ones, a
    run that failed in a step takes a prefix of them. Runs at world 1
    that take others are set aside (returned second)."""
    complete = [r for r in runs if r.failed is None and r.cfg.world > 1] or \
        [r for r in runs if r.failed is None] or runs
    ref = max(complete, key=lambda r: len(r.rec.steps))
    want = _sig(ref)
    kept, p1 = [], []
    for r in runs:
        sig = _sig(r)
        ok = sig == want if r.failed is None else sig == want[:len(sig)] and r.failed.signature() == want[len(sig) - 1]
        if ok and (r.failed is not None or r.out_node == ref.out_node or r is ref):
            kept.append(r)
            continue
        if r.cfg.world == 1 and ref.cfg.world > 1:
            p1.append(r)
            continue
        raise TraceError("paths", "", "the function takes different steps at different shapes: "
                         + _diff(ref, r),
                         "shardcheck traces straight-line layout code; a branch on the shape or the world "
                         "size that changes the steps needs a spec per branch (bound each with --require)")
    return ref, kept, p1


def _diff(a, b):
    sa, sb = _sig(a), _sig(b)
    for i in range(max(len(sa), len(sb))):
        x = a.rec.steps[i] if i < len(sa) else None
        y = b.rec.steps[i] if i < len(sb) else None
        if x is None or y is None or x.signature() != y.signature():
            def desc(s):
                return "nothing" if s is None else f"{s.kind} at {s.where}"
            return (f"at {a.cfg.text()} rank {a.rank} step {i + 1} is {desc(x)}, "
                    f"at {b.cfg.text()} rank {b.rank} it is {desc(y)}")
    return f"the result is another tensor at {b.cfg.text()} rank {b.rank}"
