"""`shardcheck trace`: from a PyTorch function to a spec.

The function runs on every rank of several simulated worlds and shapes
(record.Recorder sees its tensor operations, simdist.SimDist its
collectives). The runs must take the same steps; each size argument is
then solved as one expression over every run (solve.py), and the spec is
written with one step per operation and its source line as a comment.
"""
import copy
import importlib.util
import itertools
import math
import os
import re
import sys

import numpy as np
import torch

from . import backward, runner
from .record import Recorder, StepFailed, TraceError
from .simdist import Group, Groups, Mesh, SimDist, activate

# dim values of the shapes traced per world (times what divisibility
# needs); the third has even values where the others are odd, so that a
# branch on a size's parity is seen
BASES = ([5, 3, 7, 2, 11, 13, 3, 5], [3, 7, 2, 5, 13, 11, 5, 3], [2, 5, 4, 3, 2, 3, 2, 5])
PRIMES = [2, 3, 5, 7, 11, 13, 2, 3]


def ones_base(j, wi):
    """Shapes with 1s (where code that refuses larger sizes, a view of a
    transposed tensor, runs to its end), the dims set to 1 changing with the
    world so that no two dims are 1 together in every run."""
    shift = wi % 3
    return [1 if ((i >> shift) & 1) == j else PRIMES[(i + wi) % len(PRIMES)] for i in range(8)]


WORLDS = (1, 2, 3, 4)


def mesh_shapes(k):
    """Sizes of k free mesh dims traced: every combination of 1..3 (k <= 2)
    or of 1..2 (k > 2) with at most 8 ranks."""
    vals = (1, 2, 3) if k <= 2 else (1, 2)
    return [c for c in itertools.product(vals, repeat=k) if math.prod(c) <= 8]


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
    ref = getattr(args, "reference", None) or []
    if ref:
        lines += ["reference"] + list(ref) + ["end"]
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
        P = WORLDS[wi] if not mesh else math.prod(x[2] for x in m)
        for b, base in enumerate(BASES + ([], [], None)):
            if P == 1 and b:
                continue
            # rotated by the world, so that every dim takes several values
            # among the runs of one base; the last: every dim a multiple of
            # P (code that pads only uneven shards, say, runs unpadded)
            if base is None:
                base = [v * P for v in BASES[1][wi + 1:] + BASES[1][:wi + 1]]
            else:
                base = base[wi:] + base[:wi] if base else ones_base(b - len(BASES), wi)
            cfg = _admitted(args, m, P, base, skel_path, tmp)
            if cfg is not None:
                out.append(cfg)
    if len({c.world for c in out if c.world > 1}) < 2:
        raise TraceError("usage", "", "the spec's declarations admit too few of the worlds and shapes traced "
                         f"(only {', '.join(c.text() for c in out) or 'none'}): the sizes could not be solved",
                         "check --dims, the placements and --require")
    return out


# "sharded dim 's' (7) not divisible by 2 * world 2": the dim and what divides it
_DIM_RE = re.compile(r"'([A-Za-z_]\w*)' \((\d+)\).*? by ([^()\n]*)")


MAX_ELEMS = 1 << 18     # elements of a traced case: small tensors, quick runs


def _admitted(args, m, P, base, skel_path, tmp):
    """The config of world P with dims from base, made valid for the spec
    (a sharded dim multiplied by what divides it, the dims a failing
    `require` names by 2 and by P); None where that does not succeed."""
    sizes = {d: base[i % len(base)] for i, d in enumerate(args.dims)}
    for attempt in range(12):
        n = P
        for v in sizes.values():
            n *= v
        if n > MAX_ELEMS:
            return None
        cfg = Config(P, m, dict(sizes))
        rc, err = runner.eval_dump(skel_path, cfg, os.path.join(tmp, "probe"))
        if rc != 2:
            return cfg
        if re.search(r"skeleton\.sc:\d+", err) and "does not hold" not in err:
            _fail_eval(err)     # the declarations themselves do not parse
        if "not valid" not in err:
            return None         # too big for a case, say: another shape will do
        mm = _DIM_RE.search(err)
        if mm and mm.group(1) in sizes:
            d, div = mm.group(1), 1
            for n in re.findall(r"\d+", mm.group(3)):
                div *= int(n)
            if sizes[d] % div:
                sizes[d] *= div // _gcd(sizes[d], div)
                continue
        cond = err.split("does not hold", 1)[-1]
        named = [d for d in sizes if re.search(r"\b%s\b" % re.escape(d), cond)]
        if "does not hold" in err and named and attempt < 6:
            # a require: multiples of 2, of the world, and of the numbers it names
            steps = [2, P] + [int(k) for k in re.findall(r"\b\d+\b", cond) if int(k) > 2]
            for d in named:
                sizes[d] *= steps[attempt % len(steps)]
            continue
        return None
    return None


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def _fail_eval(err):
    raise TraceError("usage", "", "the spec's declarations do not parse:\n" + err.strip())


def run_all(args, invoke, configs, tmp, raised=None):
    """Every rank of every config. A config where the function raises
    (kind "raised": the user's code rejects the shape) stops the trace, or,
    with a list `raised`, is left out and appended to it as (cfg, error)."""
    runs = []
    for cfg in configs:
        d = os.path.join(tmp, "inputs")
        rc, err = runner.eval_dump(args.skel, cfg, d)
        mine = []
        try:
            for r in range(cfg.world):
                path = os.path.join(d, f"rank{r}.input.npy")
                if not os.path.exists(path):
                    raise TraceError("internal", "", f"`shardcheck eval` wrote no input at {cfg.text()}:\n{err}")
                x = torch.from_numpy(np.load(path).copy())
                fwd = None
                if getattr(args, "backward", False):   # the Function's input: shaped as --output places it
                    fwd = torch.zeros(np.load(os.path.join(d, f"rank{r}.expected.npy")).shape, dtype=x.dtype)
                mine.append(run_one(invoke, cfg, r, x, fwd))
        except TraceError as ex:
            if raised is None or ex.kind != "raised":
                raise
            raised.append((cfg, ex))
            continue
        runs += mine
    return runs


# Conditions a `require` learnt from the code may take, simplest first:
# over one dim (divisible by the world, by a small number, at least the
# world or a small number), then over two.
def _conditions(dims):
    for k in range(2, 5):   # the world alone: new_group([0, P-1]) raises at world 1
        yield f"P >= {k}"
    for d in dims:
        yield f"{d} % P == 0"
    for d in dims:
        for k in range(2, 9):
            yield f"{d} % {k} == 0"
    for d in dims:
        yield f"{d} % (2 * P) == 0"
        yield f"{d} >= P"
    for d in dims:
        for k in range(2, 5):
            yield f"{d} >= {k}"
    for a, b in itertools.permutations(dims, 2):
        yield f"{a} % {b} == 0"
    for a, b in itertools.combinations(dims, 2):
        yield f"({a} * {b}) % P == 0"
        yield f"{a} >= {b}"
        yield f"{b} >= {a}"


def _holds(cond, cfg):
    env = dict(cfg.sizes)
    env["P"] = cfg.world
    return bool(eval(cond, {"__builtins__": {}}, env))  # noqa: S307 -- our own expressions, over ints


def learn_require(args, passed, raised):
    """The simplest condition over the dims and P that holds at every shape
    that ran and fails at every shape where the first raising line raised:
    (condition, that error, how many shapes raised there); None when no
    condition of _conditions separates them."""
    where = raised[0][1].where
    bad = [cfg for cfg, ex in raised if ex.where == where]
    ok = {id(c): c for c in passed}.values()
    for cond in _conditions(args.dims):
        if all(_holds(cond, c) for c in ok) and not any(_holds(cond, c) for c in bad):
            return cond, raised[0][1], len(bad)
    return None


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


def run_one(invoke, cfg, r, x, fwd=None):
    env = dict(cfg.sizes)
    env["P"], env["rank"] = cfg.world, r
    world, groups, by_members, coords = _groups(cfg, r)
    env.update({sym: size for _, sym, size in cfg.mesh if sym})
    env.update(coords)
    rec = Recorder(env)
    rec.track(x)
    if cfg.mesh:
        names = [n for n, _, _ in cfg.mesh]
        mesh = Mesh(names, [s for _, _, s in cfg.mesh], [coords[n] for n in names], [groups[n] for n in names], r)
    else:
        mesh = Mesh([None], [cfg.world], [r], [world], r)
    sim = SimDist(rec, world, by_members, groups, mesh)
    failed = None
    try:
        if fwd is None:   # an autograd Function's apply runs its forward, traced as plain code
            with backward.functions(None), activate(sim), rec:
                result = invoke(x, world, Groups(groups, mesh), dict(cfg.sizes))
        else:   # --backward: x is the gradient of the output of the Function the call applies
            result = backward.run(invoke, x, fwd, env, sim, rec, groups, dict(cfg.sizes))
    except StepFailed as ex:
        failed = ex.step
        result = None
    except TraceError as ex:
        ex.at = cfg.text() + f", rank {r}"
        raise
    except Exception as ex:
        if rec.failed_step is not None:
            raise _caught(rec.failed_step)
        tb = ex.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        if tb.tb_frame.f_code.co_filename == "--call":
            raise TraceError("usage", "", f"--call: {type(ex).__name__}: {ex}",
                             "--call is evaluated in FILE's namespace with X, GROUP, GROUPS, MESH and DIMS")
        where = _frame_of(ex)
        raise TraceError("raised", where, f"the function raised {type(ex).__name__}: {ex} "
                         f"(traced at {cfg.text()}, rank {r})",
                         "the spec cannot say that code rejects a shape: bound the shapes with --require "
                         "(e.g. --require 'h % P == 0')")
    out_node = None
    if failed is None and rec.failed_step is not None:
        raise _caught(rec.failed_step)
    if failed is None and sim.pending is not None:
        kind, _, peer, _, where = sim.pending
        raise TraceError("unsupported", where, f"a {kind} ({'to' if kind == 'send' else 'from'} rank {peer}) with no "
                         f"{'receive' if kind == 'send' else 'send'} on this rank (traced at {cfg.text()}, rank {r})",
                         "a rank that sends one tensor and receives one is traced; a send or a receive alone "
                         "is not")
    if failed is None:
        if not isinstance(result, torch.Tensor):
            raise TraceError("usage", "", f"--call returned {type(result).__name__}, not a tensor",
                             "pick the tensor: --call 'f(X)[0]'")
        if id(result) in rec.stale:
            raise TraceError("unsupported", "", "the result shares memory with a tensor an in-place collective "
                             f"changed at {rec.stale[id(result)]}",
                             "return the tensor the collective wrote (or a view made after it)")
        if not rec.known(result):
            raise TraceError("usage", "", "the tensor --call returned is not computed from X")
        rec.paused += 1
        out_node = rec.node_of(result)
        rec.paused -= 1
    run = Run(cfg, r, rec, out_node, failed)
    run.out_shape = tuple(result.shape) if failed is None else None
    return run


def _caught(st):
    return TraceError("unsupported", st.where, f"the code catches the error `{st.kind}` raised ({st.failed}) "
                      "and goes on", "a spec's step that fails fails the case: shardcheck does not trace "
                      "code that recovers from a PyTorch error (take the branch with --require)")


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
    # a group of listed ranks that is every rank at some worlds
    # (new_group([0, P-1]) at world 2) is the same group=[...] there
    listed_at = {st.where for r in runs for st in r.rec.steps if st.group == "[listed]"}
    for r in runs:
        for st in r.rec.steps:
            if st.group is None and st.listed and st.where in listed_at:
                st.group = "[listed]"
    complete = [r for r in runs if r.failed is None and r.cfg.world > 1] or \
        [r for r in runs if r.failed is None]
    if not complete:
        st = runs[0].failed
        raise TraceError("raised", st.where, f"`{st.kind}` raises in every run ({st.failed}), so the steps "
                         "after it are never seen",
                         "if the code is meant to run, fix it or trace shapes where it runs (--require); "
                         "shardcheck does not guess the rest")
    ref = max(complete, key=lambda r: len(r.rec.steps))
    want = _sig(ref)
    # the members of each group of listed ranks, by world and source line: a
    # run whose rank is not one of them skips the step (and keeps its tensor)
    members = {}
    for r in runs:
        for st in r.rec.steps:
            if st.group == "[listed]":
                members.setdefault((r.cfg.text(), st.where), set()).update(v for ((_, v),) in st.listed)
    kept, p1 = [], []
    for r in runs:
        sig = _sig(r)
        # a run that failed in a step has no result for it: compare the step without its outputs
        ok = sig == want if r.failed is None else \
            sig[:-1] == want[:len(sig) - 1] and len(sig) <= len(want) and _no_out(sig[-1]) == _no_out(want[len(sig) - 1])
        if ok and (r.failed is not None or r.out_node == ref.out_node or r is ref):
            kept.append(r)
            continue
        if r.failed is None and _align(ref, r, members):
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


def _align(ref, run, members=None):
    """Code that skips a pad or a narrow where it would change nothing
    (`if pad_size == 0: return tensor`), or a contiguous where the tensor
    already is (`if not x.is_contiguous()`: with a dim of size 1, a
    transposed tensor is): the run gets that step with zero widths (a
    narrow of everything), or the contiguous, which moves no value, where
    ref has it, and ref's node ids. A rank outside a group of listed ranks
    (members: by world and line) skips its collective: the step is the
    spec's too, and that rank keeps its tensor. True when every other step
    matches."""
    rs, m, out, j = run.rec.steps, {1: 1}, [], 0
    for st in ref.rec.steps:
        if j < len(rs):
            c = rs[j]
            if (c.kind, c.consts, c.group, c.where, len(c.sizes)) == (st.kind, st.consts, st.group, st.where,
                                                                      len(st.sizes)) \
                    and tuple(m.get(x) for x in c.ins) == st.ins and len(c.outs) == len(st.outs):
                for a, b in zip(c.outs, st.outs):
                    m[a] = b
                c2 = copy.copy(c)
                c2.ins, c2.outs = st.ins, st.outs
                out.append(c2)
                j += 1
                continue
        src = [k for k, v in m.items() if v == st.ins[0]] if len(st.ins) == 1 else []
        nxt = rs[j] if j < len(rs) else None
        if st.group == "[listed]" and src and len(st.outs) == 1 and \
                run.rank not in (members or {}).get((run.cfg.text(), st.where), {run.rank}):
            m[src[0]] = st.outs[0]           # not a member: the spec's step leaves its tensor as it is
            skip = copy.copy(st)
            skip.listed, skip.in_shape = [], ()  # (its ranks are solved over the members' runs)
            out.append(skip)
            continue
        if st.kind not in ("pad", "narrow", "contiguous") or not src:
            return False
        if nxt is not None and src[0] in nxt.ins and len(nxt.ins) == 1:
            shape = nxt.in_shape            # the shape of the tensor the step would take
        elif nxt is None and src[0] == run.out_node:
            shape = run.out_shape
        else:
            return False
        ident = copy.copy(st)
        if st.kind == "pad":
            ident.sizes = [[({}, 0)], [({}, 0)]]
        elif st.kind == "contiguous":
            pass
        else:
            d = st.consts[0]
            ident.sizes = [[({}, 0)], [({}, shape[d])]]
        ident.in_shape, ident.failed = tuple(shape), None
        m[src[0]] = st.outs[0]
        out.append(ident)
    if j != len(rs) or m.get(run.out_node) != ref.out_node:
        return False
    run.rec.steps, run.out_node = out, ref.out_node
    return True


def _no_out(sig):
    return sig[:2] + sig[3:]


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
