"""Mesh placements against PyTorch itself (docs/language.md, "Meshes"): on
random cases (a 2-D or 3-D mesh dp x tp [x cp] of sizes 1..3, 1 x N and
N x 1 among them; 1-3 dims of sizes 1..9, a `sizes=` dim's size the sum of
its E and so possibly 0; dtype i32 mostly, any other now and then), every
rank's local input written by `shardcheck eval --dump` must be, bit for bit
(shape and values), what DTensor's placement semantics give, written here
from torch's own ops:

  - `m:shard NAME` (even) and `chunk`: torch.chunk of the piece over the
    group (trailing ranks empty, as DTensor's Shard), `split`:
    torch.tensor_split, `zigzag`: blocks r and 2G-1-r of
    torch.chunk(piece, 2G), `sizes=E`: torch.split by E(r); a mesh dim no
    entry names (or `m:replicate`) replicates;
  - entries sharding one dim nest in mesh order: the piece of the first
    mesh dim is cut again over the next (DTensor's [Shard(0), Shard(0)]),
    any rules mixed (chunk then split, even then zigzag, ...), and one
    even entry inside a zigzag one (torch.chunk of the cat of its two
    blocks: USP's ring zigzag, then Ulysses);
  - `dp,tp:shard a`: one torch.chunk over D*T pieces at dp*T+tp, and
    `tp,dp:shard a`: at tp*D+dp (FSDP2 + TP's _StridedShard), 3-D groups
    in any order too; `m:shard (a b)`: X.flatten(a, b) cut as a whole;
  - an `as` layout after the entries: Tensor.permute, then a run of dims
    merged by reshape;
  - `m:partial OP`: the spec (partial in and out) passes `--property
    semantics`; each rank's summand is the other entries' placement of the
    summand a partial-only spec dumps for its group index; the reduction
    (torch.sum / amax / amin / prod) over each partial group of the dumped
    inputs is the other entries' placement of X_red, which is the
    reduction of the partial-only spec's summands and the rank's dumped
    `expected` tensor.

Where a case is also a DTensor placement list (single-mesh-dim Shard
entries with even or chunk rules, even flat groups as one Shard per mesh
dim, an even two-dim `tp,dp` group alone on its dim as [_StridedShard(d,
split_factor=T), Shard(d)]; Partial entries place nothing), every rank is
also compared with that list applied left to right as distribute_tensor
does: with DTensor's own Shard._split_tensor and _StridedShard._split_tensor
when the installed torch has torch.distributed.tensor (or ._tensor), else
with a transcription of them in torch ops. Debian's python3-torch (1.13.0,
the torch this was written on and the one ctest runs) has no DTensor: there
the transcription is used, and the run says so. Run by hand with torch
2.6.0 from PyPI, DTensor's own code was used and agreed on every case
(torch 2.6's _StridedShard itself refuses uneven sizes).

X itself is the dump of a plain replicated spec at world 1 with the same
seed and dtype: values depend only on the seed, the dtype and the global
index. Checked here: a mesh spec's replicated input equals it on every rank
of the case's mesh and on a 1 x 1 mesh.

A case whose even (or zigzag) piece is not divisible by its group must be
refused by eval (exit 2, "not valid"); the model here decides which, and
the two must agree. Known refusals are checked by name too. The count of
cases compared (at least two thirds of them: 100 of the default 150) is
printed.

Not modelled (the doc leaves it open): nesting a group entry whose mesh
dims interleave with another entry's on the same dim (`dp,cp:shard a
tp:shard a`); such cases are not drawn. Uneven `tp,dp:shard a chunk` is
torch.chunk over the tp-major flattened group as documented; DTensor's
_StridedShard refuses uneven sizes (torch 2.6) or chunks each tp piece
(later versions), so the DTensor comparison takes strided groups in the
even case only.
Usage: test_torch_mesh.py PATH/TO/shardcheck [CASES]"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch

MESH = [("dp", "D"), ("tp", "T"), ("cp", "Q")]
DIMS = ["a", "b", "c"]
SIZES_FORMS = [("r+1", lambda r: r + 1), ("(2 if r%2==0 else 0)", lambda r: 2 if r % 2 == 0 else 0),
               ("r%2", lambda r: r % 2), ("(1 if r==0 else 3)", lambda r: 1 if r == 0 else 3)]
OPS = {"sum": lambda t: t.sum(0), "max": lambda t: t.amax(0), "min": lambda t: t.amin(0),
       "prod": lambda t: t.prod(0)}


TORCH_DTYPE = {"i8": torch.int8, "u8": torch.uint8, "i32": torch.int32, "u32": torch.int32, "i64": torch.int64,
               "u64": torch.int64, "f32": torch.float32, "f64": torch.float64, "f16": torch.int16,
               "bf16": torch.int16}  # as the dumps load (unsigned and 16-bit floats: their bits)


class Invalid(Exception):
    """The case is one eval must refuse (a piece not divisible by its group)."""


# ---------------------------------------------------------------- DTensor

def _dtensor_classes():
    for mod in ("torch.distributed.tensor.placement_types", "torch.distributed._tensor.placement_types"):
        try:
            m = __import__(mod, fromlist=["Shard", "_StridedShard"])
            return mod, m.Shard, m._StridedShard
        except (ImportError, AttributeError):
            continue
    return None, None, None


def _shard_split(t, d, n):
    """Shard(d)._split_tensor(t, n, with_padding=False): torch.chunk, empty
    tensors filled in for the trailing shards."""
    parts = list(torch.chunk(t, n, d)) if t.shape[d] else []
    return parts + [t.narrow(d, t.shape[d], 0)] * (n - len(parts))


def _strided_split(t, d, n, sf):
    """_StridedShard(d, split_factor=sf)._split_tensor(t, n): split into sf
    first, each of those into n, shard i the i-th of each, concatenated."""
    second = [_shard_split(s, d, n) for s in _shard_split(t, d, sf)]
    return [torch.cat([second[j][i] for j in range(sf)], d) for i in range(n)]


class DTensorModel:
    def __init__(self):
        self.module, self.shard, self.strided = _dtensor_classes()
        self.native = False
        if self.module:  # DTensor's own code, once it gives its docstring's example
            try:
                t = torch.arange(8).view(8, 1)
                got = [g.view(-1).tolist() for g in self.native_split(("SS", 0, 2), t, 2)]
                self.native = got == [[0, 1, 4, 5], [2, 3, 6, 7]]
                if not self.native:
                    print(f"note: {self.module}: _StridedShard(0, split_factor=2) splits arange(8) into {got}")
            except Exception as ex:  # an API this test does not know
                print(f"note: {self.module} found but not usable ({type(ex).__name__}: {ex})")

    def describe(self):
        if self.native:
            return f"DTensor's own Shard/_StridedShard._split_tensor ({self.module})"
        return "a transcription of DTensor's Shard/_StridedShard._split_tensor (no DTensor in this torch)"

    def native_split(self, p, t, n):
        pl = self.shard(p[1]) if p[0] == "S" else self.strided(p[1], split_factor=p[2])
        return pl._split_tensor(t, n, with_padding=False, contiguous=True)[0]

    def split(self, p, t, n):
        if self.native:
            return self.native_split(p, t, n)
        return _shard_split(t, p[1], n) if p[0] == "S" else _strided_split(t, p[1], n, p[2])

    def place(self, X, placements, coords, S):
        """distribute_tensor: each mesh dim's placement, left to right."""
        t = X
        for m, p in enumerate(placements):
            if p[0] in ("S", "SS"):
                t = self.split(p, t, S[m])[coords[m]]
        return t


# ---------------------------------------------------------------- the case

class Entry:
    def __init__(self, mesh, kind, dim=None, rule=None, form=None, merged=False, op=None):
        self.mesh, self.kind, self.dim, self.rule = mesh, kind, dim, rule
        self.form, self.merged, self.op = form, merged, op

    def text(self):
        pre = ",".join(MESH[m][0] for m in self.mesh) + ":"
        if self.kind == "replicate":
            return pre + "replicate"
        if self.kind == "partial":
            return pre + "partial " + self.op
        name = f"({DIMS[self.dim]} {DIMS[self.dim + 1]})" if self.merged else DIMS[self.dim]
        rule = "" if self.rule == "even" else " sizes=" + self.form[0] if self.rule == "sizes" else " " + self.rule
        return pre + "shard " + name + rule

    def covers(self, d):
        return self.dim == d or (self.merged and self.dim + 1 == d)


def group_size(e, S):
    g = 1
    for m in e.mesh:
        g *= S[m]
    return g


def group_index(e, S, coords):
    i = 0
    for m in e.mesh:  # flattened in the order written
        i = i * S[m] + coords[m]
    return i


def coords_of(rank, S):
    c = []
    for m in reversed(range(len(S))):
        c.append(rank % S[m])
        rank //= S[m]
    return c[::-1]


def nest_order(entries):
    """Shard entries in mesh order (by their first mesh dim)."""
    return sorted((e for e in entries if e.kind == "shard"), key=lambda e: min(e.mesh))


def draw_case(rng):
    nm = rng.choice([2, 2, 3])
    shape = rng.random()
    if nm == 2 and shape < 0.15:
        S = [1, rng.randint(2, 3)]
    elif nm == 2 and shape < 0.30:
        S = [rng.randint(2, 3), 1]
    elif shape < 0.40:
        S = [3] * nm
    else:
        S = [rng.randint(1, 3) for _ in range(nm)]
    nd = rng.randint(1, 3)
    # mesh dims into entries: one group of 2 (or 3) in a random order now and then
    order = list(range(nm))
    rng.shuffle(order)
    units = []
    if rng.random() < 0.4:
        k = 3 if nm == 3 and rng.random() < 0.3 else 2
        units.append(order[:k])
        order = order[k:]
    units += [[m] for m in order]
    rng.shuffle(units)
    entries = []
    op = rng.choice(list(OPS)) if rng.random() < 0.3 else None
    last = None
    for u in units:
        x = rng.random()
        if op and (x < 0.15 or not any(e.kind == "partial" for e in entries)):
            entries.append(Entry(u, "partial", op=op))
            continue
        if x < 0.12:
            continue  # not named: replicated over it
        if x < 0.2:
            entries.append(Entry(u, "replicate"))
            continue
        d = last if last is not None and rng.random() < 0.6 else rng.randrange(nd)
        rule = rng.choice(["even", "even", "chunk", "chunk", "split", "zigzag"] + ["even"] * 2 * (len(u) > 1))
        y = rng.random()
        if y < 0.08:
            entries.append(Entry(u, "shard", d, "sizes", rng.choice(SIZES_FORMS)))
        elif y < 0.16 and nd >= 2:
            d = rng.randrange(nd - 1)
            entries.append(Entry(u, "shard", d, rng.choice(["chunk", "split"]), merged=True))
        else:
            entries.append(Entry(u, "shard", d, rule))
        last = d
    # what the language admits and this test models
    sh = [e for e in entries if e.kind == "shard"]
    for e in sh:
        for o in sh:
            if o is e or not any(o.covers(d) for d in range(nd) if e.covers(d)):
                continue
            if e.merged or o.merged or e.rule == "sizes" or o.rule == "sizes":
                return None  # alone on their dims
            if not (max(e.mesh) < min(o.mesh) or max(o.mesh) < min(e.mesh)):
                return None  # interleaved mesh dims: nesting order left open
    for d in range(nd):
        on = [e for e in nest_order(entries) if e.covers(d)]
        zi = [i for i, e in enumerate(on) if e.rule == "zigzag"]
        if zi and zi[0] < len(on) - 1 and not (zi[0] == len(on) - 2 and on[-1].rule == "even"):
            return None  # inside a zigzag only one even shard nests
    merged = next((e for e in sh if e.merged), None)
    # the `as` layout: units (dims, or the merged group) permuted, a run merged
    units_d = [[d] for d in range(nd)]
    if merged:
        units_d = [u for u in units_d if u[0] not in (merged.dim, merged.dim + 1)]
        units_d.append([merged.dim, merged.dim + 1])
        units_d.sort()
    layout = None
    if merged or rng.random() < 0.7:
        rng.shuffle(units_d)
        run = None
        if not merged and len(units_d) >= 2 and rng.random() < 0.5:
            i = rng.randrange(len(units_d) - 1)
            run = (i, rng.randrange(i + 1, len(units_d)))
        layout = (units_d, run)
    dtype = "i32" if op or rng.random() < 0.7 else rng.choice(["i8", "u8", "i64", "u32", "u64", "f32", "f64",
                                                                 "f16", "bf16"])
    if op and rng.random() < 0.3:
        dtype = rng.choice(["i8", "i64"])
    fixed = rng.randrange(nm) if rng.random() < 0.15 else None  # `tp=2`: a mesh size written as a number
    if fixed is not None:
        S[fixed] = 2
    return {"S": S, "nd": nd, "entries": entries, "layout": layout, "dtype": dtype, "op": op, "fixed": fixed}


def draw_sizes(rng, case):
    S, nd = case["S"], case["nd"]
    sizes = [rng.randint(1, 9) for _ in range(nd)]
    for d in range(nd):
        on = [e for e in nest_order(case["entries"]) if e.covers(d)]
        if on and on[0].rule == "sizes":
            e = on[0]
            sizes[d] = sum(e.form[1](r) for r in range(group_size(e, S)))
            continue
        gran = 1
        for e in on:  # even and zigzag pieces down to the first uneven rule
            if e.rule == "even":
                gran *= group_size(e, S)
            elif e.rule == "zigzag":
                gran *= 2 * group_size(e, S)
            else:
                break
        if gran > 1 and rng.random() < 0.9:
            sizes[d] = gran * rng.randint(1, max(1, 9 // gran))
    return sizes


def spec_text(case, entries=None, replicate=False):
    entries = case["entries"] if entries is None else entries
    mesh = " ".join(f"{MESH[m][0]}={2 if m == case['fixed'] else MESH[m][1]}" for m in range(len(case["S"])))
    head = f"dims {' '.join(DIMS[:case['nd']])}\nmesh {mesh}\n"
    if replicate:
        return head + "input replicate\noutput replicate\n"
    place = " ".join(e.text() for e in entries) or "replicate"
    if case["layout"]:
        units, run = case["layout"]
        toks = []
        for k, u in enumerate(units):
            t = f"({' '.join(DIMS[d] for d in u)})" if len(u) > 1 else DIMS[u[0]]
            if run and k == run[0]:
                t = "(" + t
            if run and k == run[1]:
                t += ")"
            toks.append(t)
        place += " as " + " ".join(toks)
    return head + f"input {place}\noutput {place}\n"


def size_arg(case, sizes, S=None):
    S = case["S"] if S is None else S
    kv = [(MESH[m][1], S[m]) for m in range(len(S)) if m != case["fixed"]]
    kv += [(DIMS[d], sizes[d]) for d in range(case["nd"])]
    return ",".join(f"{k}={v}" for k, v in kv)


# ---------------------------------------------------------------- the model

def apply_rule(t, u, e, G, idx):
    L = t.shape[u]
    if e.rule == "even" and L % G:
        raise Invalid(f"piece {L} not divisible by {G}")
    if e.rule == "zigzag" and L % (2 * G):
        raise Invalid(f"zigzag piece {L} not divisible by {2 * G}")
    if L == 0:
        return t
    if e.rule in ("even", "chunk"):
        pieces = torch.chunk(t, G, u)
        return pieces[idx] if idx < len(pieces) else t.narrow(u, L, 0)
    if e.rule == "split":
        return torch.tensor_split(t, G, u)[idx]
    if e.rule == "zigzag":  # blocks idx and 2G-1-idx
        blocks = torch.chunk(t, 2 * G, u)
        return torch.cat([blocks[idx], blocks[2 * G - 1 - idx]], u)
    return torch.split(t, [e.form[1](r) for r in range(G)], u)[idx]  # sizes=E


def arrange(case, t, d_of_unit):
    """The `as` layout: units permuted, then a run merged (reshape)."""
    if not case["layout"]:
        return t
    units, run = case["layout"]
    perm = [d_of_unit.index(u[0]) for u in units]
    t = t.permute(perm)
    if run:
        i, j = run
        shape = list(t.shape[:i]) + [int(np.prod(t.shape[i:j + 1]))] + list(t.shape[j + 1:])
        t = t.reshape(shape)
    return t


def place(case, X, coords, entries=None):
    """Rank's local tensor under the entries (partial ones place nothing)."""
    S = case["S"]
    entries = case["entries"] if entries is None else entries
    t = X
    d_of_unit = list(range(case["nd"]))  # the first dim of each unit of t
    merged = next((e for e in entries if e.kind == "shard" and e.merged), None)
    if merged:
        t = t.flatten(merged.dim, merged.dim + 1)
        del d_of_unit[merged.dim + 1]
    for e in nest_order(entries):
        t = apply_rule(t, d_of_unit.index(e.dim), e, group_size(e, S), group_index(e, S, coords))
    return arrange(case, t, d_of_unit)


def dtensor_placements(case):
    """The case as a DTensor placement list per mesh dim, or None."""
    S, nd = case["S"], case["nd"]
    pl = [("R",)] * len(S)
    sh = [e for e in case["entries"] if e.kind == "shard"]
    for e in sh:
        if e.merged or e.rule not in ("even", "chunk"):
            return None
        if len(e.mesh) == 1:
            pl[e.mesh[0]] = ("S", e.dim)
        elif e.rule != "even":
            return None  # a flat chunk over the group is not nested chunks
        elif e.mesh == sorted(e.mesh):
            for m in e.mesh:
                pl[m] = ("S", e.dim)
        elif len(e.mesh) == 2 and sum(o.dim == e.dim for o in sh) == 1:
            hi, lo = e.mesh  # `tp,dp`: FSDP2's dp cut of tp's piece
            pl[lo] = ("SS", e.dim, S[hi])
            pl[hi] = ("S", e.dim)
        else:
            return None
    return pl if nd else None


# ---------------------------------------------------------------- running

def run_eval(sc, tmp, text, world, arg, dtype, prop=None):
    out = tempfile.mkdtemp(dir=tmp)
    spec = os.path.join(out, "s.sc")
    with open(spec, "w") as f:
        f.write(text)
    cmd = [sc, "eval", spec, "--world", str(world), "--sizes", arg, "--seed", "7", "--dtype", dtype, "--dump", out]
    if prop:
        cmd += ["--property", prop]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r, out


def load(out, world, what="input"):
    res = []
    for k in range(world):
        a = np.load(os.path.join(out, f"rank{k}.{what}.npy"))
        if a.dtype.kind == "u" and a.itemsize > 1:  # torch has no uint16/32/64: the same bits signed
            a = a.view(f"<i{a.itemsize}")
        res.append(torch.from_numpy(a))
    return res


def same(a, b):
    return list(a.shape) == list(b.shape) and (a.numel() == 0 or
                                               a.contiguous().numpy().tobytes() == b.contiguous().numpy().tobytes())


def first_diff(got, want):
    if list(got.shape) != list(want.shape):
        return f"holds shape {list(got.shape)}, torch gives {list(want.shape)}"
    g, w = got.reshape(-1), want.reshape(-1)
    k = next(i for i in range(g.numel()) if g[i:i + 1].numpy().tobytes() != w[i:i + 1].numpy().tobytes())
    idx = np.unravel_index(k, tuple(got.shape))
    return f"shape {list(got.shape)}: at {list(map(int, idx))} got {g[k].item()!r}, want {w[k].item()!r}"


class Checker:
    def __init__(self, sc, tmp):
        self.sc, self.tmp = sc, tmp
        self.fails = 0

    def fail(self, msg):
        self.fails += 1
        print("FAILED " + msg)

    def must(self, r, text, arg, what):
        if r.returncode != 0 or not r.stdout.startswith("pass"):
            self.fail(f"{what}: eval exit {r.returncode} for --sizes {arg}:\n{text}{r.stdout}{r.stderr}")
            return False
        return True

    def ranks(self, label, case, sizes, got, want):
        """Rank by rank: got[k] == want[k]; the first rank that differs is named."""
        for k, (g, w) in enumerate(zip(got, want)):
            if not same(g, w):
                c = coords_of(k, case["S"])
                co = ", ".join(f"{MESH[m][0]} {c[m]}" for m in range(len(c)))
                self.fail(f"{label}: --sizes {size_arg(case, sizes)} dtype {case['dtype']}: rank {k} = ({co}) "
                          f"{first_diff(g, w)}\n{spec_text(case)}")
                return False
        return True


def refusals(ck):
    """Cases eval must refuse by name (exit 2 and why)."""
    cases = [
        ("dims a b\nmesh dp=D tp=T\ninput dp:shard a tp:shard a\noutput dp:shard a tp:shard a\n",
         4, "D=2,T=2,a=6,b=1", "not divisible by 4"),  # 6/2 = 3 rows, not a multiple of 2
        ("dims a\nmesh dp=D tp=T\ninput dp:shard a chunk tp:shard a\noutput dp:shard a chunk tp:shard a\n",
         4, "D=2,T=2,a=5", "piece of 'a' (3) is not divisible by 2"),
        ("dims a\nmesh dp=D tp=T\ninput dp:shard a tp:shard a zigzag\noutput replicate\n",
         4, "D=2,T=2,a=4", "not divisible by 8"),
        ("dims a\nmesh dp=D tp=T\ninput dp:shard a zigzag tp:shard a chunk\noutput replicate\n",
         4, "D=2,T=2,a=8", "only one even shard nests"),
        ("dims a\nmesh dp=D tp=T\ninput dp:shard a zigzag tp:shard a\noutput replicate\n",
         6, "D=2,T=3,a=8", "not divisible by 12"),  # the zigzag piece (2 blocks of 2 rows) by 3
    ]
    bad = 0
    for text, world, arg, why in cases:
        r, _ = run_eval(ck.sc, ck.tmp, text, world, arg, "i32")
        if r.returncode != 2 or why not in r.stderr:
            bad += 1
            ck.fail(f"refusal: expected exit 2 and '{why}' for --sizes {arg}, got exit {r.returncode}:\n"
                    f"{text}{r.stdout}{r.stderr}")
    return len(cases), bad


def run_case(ck, case, sizes, dt, n):
    """One drawn case; returns 'compared', 'refused' or 'failed'."""
    S, nd, dtype = case["S"], case["nd"], case["dtype"]
    W = int(np.prod(S))
    text, arg = spec_text(case), size_arg(case, sizes)
    fails0 = ck.fails
    empty = 0 in sizes  # a sizes= dim of size 0: X has no values (and a plain dim cannot be 0)
    if empty:
        X = torch.empty(sizes, dtype=TORCH_DTYPE[dtype])
    else:
        r, xout = run_eval(ck.sc, ck.tmp, f"dims {' '.join(DIMS[:nd])}\ninput replicate\noutput replicate\n", 1,
                           ",".join(f"{DIMS[d]}={sizes[d]}" for d in range(nd)), dtype)
        if not ck.must(r, "(plain replicate)\n", arg, f"case {n}: X"):
            return "failed"
        X = load(xout, 1)[0]
    coords = [coords_of(k, S) for k in range(W)]
    try:
        want = [place(case, X, c) for c in coords]
        why = None
    except Invalid as ex:
        want, why = None, str(ex)
    prop = "semantics" if case["op"] else None
    r, out = run_eval(ck.sc, ck.tmp, text, W, arg, dtype, prop)
    if why:
        if r.returncode != 2 or "not valid" not in r.stderr:
            ck.fail(f"case {n}: the model refuses ({why}) but eval exits {r.returncode} for --sizes {arg}:\n"
                    f"{text}{r.stdout}{r.stderr}")
            return "failed"
        return "refused"
    if not ck.must(r, text, arg, f"case {n}") and r.returncode != 1:
        return "failed"  # a failing check (exit 1) still dumps: the placements are compared all the same
    got = load(out, W)
    # the assumption X rests on: a mesh spec's replicated input is X on every rank
    r, rout = (None, None) if empty else run_eval(ck.sc, ck.tmp, spec_text(case, replicate=True), W, arg, dtype)
    if r and ck.must(r, spec_text(case, replicate=True), arg, f"case {n}: mesh replicate"):
        ck.ranks(f"case {n}: mesh replicate is not X", case, sizes, load(rout, W), [X] * W)
    if n % 10 == 0 and case["fixed"] is None and not empty:
        one = [1] * len(S)
        r, rout = run_eval(ck.sc, ck.tmp, spec_text(case, replicate=True), 1, size_arg(case, sizes, one), dtype)
        if ck.must(r, spec_text(case, replicate=True), arg, f"case {n}: 1x1 mesh replicate"):
            ck.ranks(f"case {n}: 1x1 mesh replicate is not X", case, sizes, load(rout, 1), [X])
    pl = dtensor_placements(case)
    if not case["op"]:
        ck.ranks(f"case {n}: torch", case, sizes, got, want)
        ck.ranks(f"case {n}: expected.npy", case, sizes, load(out, W, "expected"), want)
        if pl:
            ck.ranks(f"case {n}: DTensor {pl}", case, sizes, got,
                     [arrange(case, dt.place(X, pl, c, S), list(range(nd))) for c in coords])
        return "compared" if ck.fails == fails0 else "failed"
    if empty:  # no values: the shapes alone (a partial-only spec cannot have the empty dim)
        ck.ranks(f"case {n}: torch", case, sizes, got, want)
        return "compared" if ck.fails == fails0 else "failed"
    # partial: the summands and their reduction
    part = [e for e in case["entries"] if e.kind == "partial"]
    ftext = spec_text(dict(case, layout=None), entries=part)
    r, fout = run_eval(ck.sc, ck.tmp, ftext, W, arg, dtype, "semantics")
    if not ck.must(r, ftext, arg, f"case {n}: partial-only"):
        return "failed"
    summand = load(fout, W)
    red_x = load(fout, 1, "expected")[0]
    pdims = sorted(m for e in part for m in e.mesh)
    groups = {}
    for k in range(W):
        groups.setdefault(tuple(c for m, c in enumerate(coords[k]) if m not in pdims), []).append(k)
    for key, ks in groups.items():
        red = OPS[case["op"]](torch.stack([summand[k] for k in ks])).to(red_x.dtype)
        if not same(red, red_x):
            ck.fail(f"case {n}: {case['op']} of the partial-only summands over group {ks} is not its expected X "
                    f"({first_diff(red, red_x)})\n{ftext}")
            return "failed"
    ck.ranks(f"case {n}: partial summand placed", case, sizes, got, [place(case, summand[k], coords[k])
                                                                      for k in range(W)])
    wantr = [place(case, red_x, c) for c in coords]
    ck.ranks(f"case {n}: expected.npy", case, sizes, load(out, W, "expected"), wantr)
    reduced = [None] * W
    for ks in groups.values():
        red = OPS[case["op"]](torch.stack([got[k] for k in ks])).to(red_x.dtype)
        for k in ks:
            reduced[k] = red
    ck.ranks(f"case {n}: {case['op']} over the partial group", case, sizes, reduced, wantr)
    if pl:
        ck.ranks(f"case {n}: DTensor {pl} + Partial", case, sizes, got,
                 [arrange(case, dt.place(summand[k], pl, coords[k], S), list(range(nd))) for k in range(W)])
    return "compared" if ck.fails == fails0 else "failed"


def main():
    sc = sys.argv[1]
    ncases = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261125")))  # another seed: more cases
    dt = DTensorModel()
    print(f"torch {torch.__version__}; DTensor placements: {dt.describe()}")
    counts = {"compared": 0, "refused": 0, "failed": 0}
    npartial = ndtensor = nstrided = 0
    shapes = {"1xN": 0, "Nx1": 0, "2-D": 0, "3-D": 0}
    with tempfile.TemporaryDirectory() as tmp:
        ck = Checker(sc, tmp)
        nref, badref = refusals(ck)
        for n in range(ncases):
            case = None
            while case is None:
                case = draw_case(rng)
            sizes = None
            for _ in range(8):  # mostly valid sizes; an invalid draw is a refusal to check
                sizes = draw_sizes(rng, case)
                try:
                    [place(case, torch.zeros(sizes), coords_of(k, case["S"])) for k in range(int(np.prod(case["S"])))]
                    break
                except Invalid:
                    continue
            res = run_case(ck, case, sizes, dt, n)
            counts[res] += 1
            if res == "compared":
                npartial += bool(case["op"])
                ndtensor += dtensor_placements(case) is not None
                nstrided += any(e.kind == "shard" and len(e.mesh) > 1 and e.mesh != sorted(e.mesh)
                                for e in case["entries"])
                S = case["S"]
                shapes["3-D" if len(S) == 3 else "1xN" if S[0] == 1 < S[1] else "Nx1" if S[1] == 1 < S[0]
                       else "2-D"] += 1
    print(f"{counts['compared']} cases compared ({npartial} partial, {ndtensor} also as DTensor placements, "
          f"{nstrided} with a strided group; meshes {shapes}), {counts['refused']} refused as the model says")
    need = min(100, ncases * 2 // 3)
    fails = counts["failed"] + badref
    if counts["compared"] < need:
        print(f"FAILED: only {counts['compared']} cases compared, fewer than {need}")
        fails += 1
    print(f"{ncases + nref - counts['failed'] - badref} passed, {fails} failed")
    return 1 if fails or ck.fails else 0


if __name__ == "__main__":
    sys.exit(main())
