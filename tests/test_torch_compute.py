"""The compute ops against PyTorch itself. Random compute specs (world 1,
dims b s h v of sizes 1..6, a random dtype among bf16, f16, f32, f64 and a
random value seed) chain one to five ops on a first input (or on an
embedding's rows): matmul (plain and batched), linear (with and without
bias), add, sub, mul, div (a tensor, a broadcast one, a 0-d one or a
constant), scale, pow, sqrt, rsqrt, exp, log, gelu tanh|erf, relu, silu,
cast, sum, mean, max (keepdim, negative dims), softmax, layernorm (no, w, w
and b; eps), rmsnorm (with and without w), embedding and pick (with and
without start=), cat of two or three tensors (negative dims), tril and triu (diagonal=, fill=; a -10000
fill straight into a softmax, a causal attention mask), copies; constants are numbers and expressions of the dims
(1/sqrt(h), (s+1)/2, 1/P). sqrt, rsqrt, log, fractional or negative pow and
divisors first go through `mul t t` and `add t C` so that they stay in
their domain. A few operands are drawn deliberately wrong (another dim, an
index over a longer dim, a dim out of range) so that both sides must
refuse them. Every statement's prefix runs as its own program through
sc_computedump, which dumps the inputs, the reference (ref, ref_e) and the
program (prog, prog_e) as float64; then:

1. semantics: the same statements in torch, in float64 on the dumped inputs
   (casts are the identity there, as in the exact reference; layernorm's
   value is its two-pass definition, F.layer_norm still checking the
   operands), give ref.npy: the same shape, values within 1e-9 relative
   (+1e-12). shardcheck answers
   `runtime:` exactly when torch raises, in float64 or in the case's dtype
   (mixed dtypes in matmul, linear or layer_norm, say);
2. the bound covers PyTorch's own arithmetic where PyTorch's CPU computes
   as the model says (f32 and f64: every op in its own dtype): the
   statements run by torch in the case's dtype give T with
   |T - ref| <= prog_e + ref_e for every element; and shardcheck's own
   claim |prog - ref| <= prog_e + ref_e holds for every dtype. On bf16 and
   f16 torch's CPU kernels round some intermediates to the dtype (1.13:
   matmul's running sum, mean's sum, silu's and gelu's steps, layer_norm's
   statistics) where the model, as the GPU kernels, keeps them in f32:
   their ratios are printed, not asserted;
3. the bound is not loose: the largest |T - ref| / (prog_e + ref_e) per op
   (the op of the prefix's last statement) and dtype is printed as a table.

shardcheck is stricter than torch on a few shapes, as docs/language.md
says: pick's index has the tensor's shape without its last dim (gather
also takes smaller leading dims), matmul's batch dims are equal (no
broadcasting), linear's weight is 2-d. Where shardcheck refuses one of
these and torch runs, it counts as agreement.

A failure prints the spec, sizes, dtype, seed and the worst element; the
first failing prefix of a program is the one reported.
Usage: test_torch_compute.py PATH/TO/sc_computedump [PROGRAMS]"""
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

DIMS = ["b", "s", "h", "v"]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64}
WRONG = 0.06  # how often an operand is drawn deliberately wrong
# shardcheck's documented shape rules that are stricter than torch's
STRICTER = ("pick: the index must have", "matmul: batch dims differ", "linear: the weight must be 2-d",
            "linear needs a [..., k] and a 2-d")
MAGMAX = 64.0  # a bound on |values| the generator keeps to (no overflow in f16)


def sz(z, expr):
    """An expression of the dims' sizes, as the spec's constants evaluate it."""
    return float(eval(expr, {"sqrt": math.sqrt}, dict(z, P=1)))


# constants (add, sub, mul, div, scale); the text is the spec's, evaluated by sz()
CONSTS = ["0.5", "3", "2.5e-1", "-1.5", "1/sqrt(h)", "1/P", "h", "(s+1)/2", ".125", "1/3", "sqrt(2)",
          "2*v-1", "1e-3", "-0.75", "1e-6"]
SHIFTS = ["0.5", "1", "2.5e-1", "1/h", "1/sqrt(s)", "1e-3"]  # t*t + C > 0
POW_K = ["2", "3", "-1", "-2", "0.5", "-0.5", "1.5", "1.3", "0.7", "1/3", "2.5", "1/h", "4", "1", "0"]
EPS = [None, "1e-5", "1e-6", "1e-3", "1/(h*100)"]
STARTS = ["2", "1", "-1", "{d}//2", "{d}-1"]  # {d}: the index's dim
FAMILIES = ["matmul", "linear", "add", "sub", "mul", "div", "scale", "pow", "sqrt", "rsqrt", "exp", "log",
            "gelu tanh", "gelu erf", "relu", "silu", "cast", "sum", "mean", "max", "softmax", "layernorm",
            "rmsnorm", "embedding", "pick", "cat", "tril", "triu", "copy"]
DIAGONALS = ["0", "1", "-1", "2", "-3", "s-2", "1-h", "v//2"]  # tril, triu: diagonal=E
FILLS = ["0.5", "-1.5", "-1/h", "3", "1/3"]  # and -10000 right before a softmax (Megatron's mask value)


# ---- torch's meaning of a statement ----

def masked(ids, rows, start):
    """start=E: index i names row i - E; those outside [E, E + rows) give zeros
    (Megatron's VocabParallelEmbedding and vocab-parallel cross-entropy)."""
    if start is None:
        return ids, None
    mask = (ids < start) | (ids >= start + rows)
    return torch.where(mask, torch.zeros_like(ids), ids - start), mask


def rmsnorm(a, w, eps):
    """Llama's / Megatron's RMSNorm in the accumulation type (f32; f64 for f64)."""
    x = a.to(torch.float64 if a.dtype == torch.float64 else torch.float32)
    y = (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)).to(a.dtype)
    return y if w is None else y * w


def layernorm(a, w, b, eps, exact):
    """F.layer_norm over the last dim (its checks, and its result in the case's
    dtype); in float64 its definition, two-pass: the kernel's x*rstd - mean*rstd
    leaves ~1e-17*rstd on a one-element row, which a later rmsnorm scales by
    1/sqrt(eps), while the exact reference holds 0 there."""
    y = F.layer_norm(a, (a.shape[-1],), w, b, eps)
    if not exact:
        return y
    xc = a - a.mean(-1, keepdim=True)
    y = xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + eps)
    y = y * w if w is not None else y
    return y + b if b is not None else y


BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
UNARY = {"sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "exp": torch.exp, "log": torch.log, "relu": torch.relu,
         "silu": F.silu}


def torch_op(st, env, exact):
    """Statement st on the tensors of env; exact: float64, casts the identity."""
    op = st["op"]
    a, b, c = (env[n] if n else None for n in (st["a"], st["b"], st["c"]))
    k = st["const"][1] if st["const"] else None
    if op == "copy":
        return a
    if op == "cat":
        return torch.cat([x for x in (a, b, c) if x is not None], st["dim"])
    if op in ("tril", "triu"):
        diag = int(st["diag"][1]) if st["diag"] else 0
        if st["fill"] is None:
            return getattr(torch, op)(a, diag)
        if a.dim() < 2:
            getattr(torch, op)(a, diag)  # raises as torch.tril does
        keep = getattr(torch, op)(torch.ones(a.shape[-2:], dtype=torch.bool), diag)
        return a.masked_fill(~keep, st["fill"][1])
    if op == "matmul":
        return torch.matmul(a, b)
    if op == "linear":
        return F.linear(a, b, c)
    if op in BINARY:
        return BINARY[op](a, b if b is not None else k)
    if op == "scale":
        return a * k
    if op == "pow":
        return torch.pow(a, k)
    if op in UNARY:
        return UNARY[op](a)
    if op == "gelu":
        return F.gelu(a, approximate="tanh" if st["form"] == "tanh" else "none")
    if op == "cast":
        return a if exact else a.to(DTYPES[st["dtype"]])
    if op == "sum":
        return a.sum(dim=st["dim"], keepdim=st["keepdim"])
    if op == "mean":
        return a.mean(dim=st["dim"], keepdim=st["keepdim"])
    if op == "max":
        return a.amax(dim=st["dim"], keepdim=st["keepdim"])
    if op == "softmax":
        return torch.softmax(a, st["dim"])
    eps = st["eps"][1] if st["eps"] else 1e-5
    if op == "layernorm":
        return layernorm(a, b, c, eps, exact)
    if op == "rmsnorm":
        return rmsnorm(a, b, eps)
    start = int(st["start"][1]) if st["start"] else None
    if op == "embedding":
        ids, mask = masked(a, b.shape[0], start)
        y = F.embedding(ids, b)
        return y if mask is None else y.masked_fill(mask.unsqueeze(-1), 0)
    assert op == "pick"
    ids, mask = masked(b, a.shape[-1], start)
    y = torch.gather(a, -1, ids.unsqueeze(-1)).squeeze(-1)
    return y if mask is None else y.masked_fill(mask, 0)


def spec_line(st, dst):
    if st["op"] == "copy":
        return f"{dst} = {st['a']}"
    words = [dst, "=", st["op"]] + [n for n in (st["a"], st["b"], st["c"]) if n]
    if st["const"]:
        words.append(st["const"][0])
    words += [x for x in (st["form"], st["dtype"]) if x]
    if st["dim"] is not None:
        words.append(f"dim={st['dim']}")
    if st["keepdim"]:
        words.append("keepdim")
    if st["eps"]:
        words.append(f"eps={st['eps'][0]}")
    if st["start"]:
        words.append(f"start={st['start'][0]}")
    if st["diag"]:
        words.append(f"diagonal={st['diag'][0]}")
    if st["fill"]:
        words.append(f"fill={st['fill'][0]}")
    return " ".join(words)


def family(st):
    return f"gelu {st['form']}" if st["op"] == "gelu" else st["op"]


# ---- random programs ----

class Program:
    """A chain of statements on the current tensor `cur`, whose axes carry
    dim names (None: a size-1 axis no dim names), a positive lower bound on
    its values (lo, or None) and a bound on their magnitude (mag). Shapes
    come from torch itself, run on zeros."""

    def __init__(self, rng, sizes, dtype, seed):
        self.rng, self.z, self.dtype, self.seed = rng, sizes, dtype, seed
        self.decls, self.stmts, self.zero = [], [], {}
        self.cur, self.names, self.lo, self.mag = None, [], None, 1.0
        self.broken = False  # torch refused a statement on zeros: the chain ends

    def tensor(self, dims, index=None):
        name = f"{'i' if index else 'w'}{len(self.decls)}"
        self.decls.append((name, list(dims), index))
        shape = [self.z[d] for d in dims]
        self.zero[name] = torch.zeros(shape, dtype=torch.long if index else torch.float64)
        return name

    def emit(self, op, a, b=None, c=None, const=None, dim=None, keepdim=False, eps=None, start=None, form=None,
             dtype=None, diag=None, fill=None):
        """Appends tN = OP ...; returns tN, or None when torch refuses it."""
        val = lambda t: (t, sz(self.z, t)) if t else None
        st = dict(dst=f"t{len(self.stmts) + 1}", op=op, a=a, b=b, c=c, const=val(const), dim=dim, keepdim=keepdim,
                  eps=val(eps), start=val(start), form=form, dtype=dtype, diag=val(diag), fill=val(fill))
        self.stmts.append(st)
        try:
            self.zero[st["dst"]] = torch_op(st, self.zero, True)
        except (RuntimeError, IndexError, ValueError):
            self.broken = True
            return None
        return st["dst"]

    def names_of(self, shape, guess):
        """Dim names for the axes of shape: the guess where the sizes agree."""
        guess = list(guess) if len(guess) == len(shape) else [None] * len(shape)
        out = []
        for n, g in zip(shape, guess):
            if g is None or self.z[g] != n or g in out:
                g = next((d for d in DIMS if self.z[d] == n and d not in out and d not in guess), None)
            out.append(g)
        return out

    def advance(self, t, guess, lo, mag):
        if t is None:
            return True
        self.cur, self.lo, self.mag = t, lo, mag
        self.names = self.names_of(list(self.zero[t].shape), guess)
        return True

    def fill(self, names):
        """names with each None (a size-1 axis) replaced by a dim of size 1
        (or, failing that, any unused dim: the operand then broadcasts)."""
        out = [n for n in names if n]
        for i, n in enumerate(names):
            if n is None:
                free = [d for d in DIMS if d not in out]
                one = [d for d in free if self.z[d] == 1]
                out.insert(i, (one or free or [None])[0])
        return [n for n in out if n]

    def rand_dims(self, lo, hi):
        return self.rng.sample(DIMS, self.rng.randint(lo, hi))

    def maybe(self, p):
        return self.rng.random() < p

    def pos(self, t, lo, mag, shifts=SHIFTS):
        """t * t + C, with C > 0: (name, lo, mag), or None when too large."""
        if lo is not None and lo >= 1e-3:
            return t, lo, mag
        if mag * mag > MAGMAX:
            return None
        c = self.rng.choice(shifts)
        t = self.emit("mul", t, t)
        t = t and self.emit("add", t, const=c)
        return t, 0.99 * sz(self.z, c), mag * mag + sz(self.z, c)

    def need_pos(self, shifts=SHIFTS):
        r = self.pos(self.cur, self.lo, self.mag, shifts)
        if r is None:
            return False
        t, lo, mag = r
        return self.advance(t, self.names, lo, mag) and not self.broken

    def operand(self):
        """A float input broadcastable against cur, usually."""
        nm = self.fill(self.names)
        r = self.rng.random()
        if r < WRONG:
            return self.tensor(self.rand_dims(1, 3))
        if r < 0.5 or not nm:
            return self.tensor(nm)
        if r < 0.8:  # a suffix, maybe 0-d
            return self.tensor(nm[self.rng.randint(0, len(nm)):])
        free = [d for d in DIMS if d not in nm]
        return self.tensor(([self.rng.choice(free)] if free else []) + nm)  # one more leading dim

    # each op_*: emits its statements (and the inputs they need); False when it does not apply here

    def op_matmul(self):
        nd, nm = len(self.names), self.names
        k = nm[-1] if nd else None
        if k is None or self.maybe(WRONG):
            dims = self.rand_dims(1, 3)
        else:
            batch = nm[:-2] if nd >= 3 and None not in nm[:-2] and self.maybe(0.7) else []
            dims = batch + [k, self.rng.choice([d for d in DIMS if d not in batch + [k]])]
        mag = self.mag * self.z[dims[0] if len(dims) < 3 else dims[-2]]
        if mag > MAGMAX:
            return False
        w = self.tensor(dims)
        return self.advance(self.emit("matmul", self.cur, w), nm[:-1] + dims[-1:], None, mag)

    def op_linear(self):
        nm = self.names
        k = nm[-1] if nm else None
        n = self.rng.choice([d for d in DIMS if d != k])
        dims = [n, k] if k and not self.maybe(WRONG) else self.rand_dims(1, 2)
        mag = self.mag * self.z[dims[-1]] + 1
        if mag > MAGMAX:
            return False
        w = self.tensor(dims)
        bias = None
        if self.maybe(0.5):
            bias = self.tensor([dims[0]] if not self.maybe(WRONG) else self.rand_dims(0, 1))
        return self.advance(self.emit("linear", self.cur, w, bias), nm[:-1] + dims[:1], None, mag)

    def op_binary(self, op):
        r = self.rng.random()
        if r < 0.35:  # a constant
            c = self.rng.choice(CONSTS)
            v = sz(self.z, c)
            mag = self.mag + abs(v) if op != "mul" else self.mag * abs(v)
            lo = (self.lo + v if op == "add" and v > 0 else self.lo * v if op == "mul" and v > 0 else None) \
                if self.lo else None
            if mag > MAGMAX:
                return False
            return self.advance(self.emit(op, self.cur, const=c), self.names, lo, mag)
        if r < 0.45:  # t op t
            mag = 2 * self.mag if op != "mul" else self.mag ** 2
            lo = (2 * self.lo if op == "add" else self.lo ** 2 if op == "mul" else None) if self.lo else None
            if mag > MAGMAX:
                return False
            return self.advance(self.emit(op, self.cur, self.cur), self.names, lo, mag)
        mag = self.mag + 1 if op != "mul" else self.mag
        w = self.operand()
        a, b = (w, self.cur) if self.maybe(0.3) else (self.cur, w)
        return self.advance(self.emit(op, a, b), self.names, None, mag)

    def op_add(self):
        return self.op_binary("add")

    def op_sub(self):
        return self.op_binary("sub")

    def op_mul(self):
        return self.op_binary("mul")

    def op_div(self):
        shifts = [s for s in SHIFTS if sz(self.z, s) >= 0.1]
        r = self.rng.random()
        if r < 0.35:  # by a constant
            c = self.rng.choice([c for c in CONSTS if abs(sz(self.z, c)) >= 0.1])
            v = sz(self.z, c)
            lo = self.lo / v if self.lo and v > 0 else None
            return self.advance(self.emit("div", self.cur, const=c), self.names, lo, self.mag / abs(v))
        if r < 0.7:  # by an input, made positive
            p = self.pos(self.operand(), None, 1.0, shifts)
            if p is None or self.broken:
                return self.broken
            d, dlo, _ = p
            mag = self.mag / dlo
            if mag > MAGMAX:
                return False
            return self.advance(self.emit("div", self.cur, d), self.names, None, mag)
        if not self.need_pos(shifts):  # an input by cur, made positive
            return self.broken
        if 1 / self.lo > MAGMAX:
            return False
        return self.advance(self.emit("div", self.operand(), self.cur), self.names, None, 1 / self.lo)

    def op_scale(self):
        c = self.rng.choice(CONSTS)
        v = sz(self.z, c)
        if self.mag * abs(v) > MAGMAX:
            return False
        lo = self.lo * v if self.lo and v > 0 else None
        return self.advance(self.emit("scale", self.cur, const=c), self.names, lo, self.mag * abs(v))

    def op_pow(self):
        k = self.rng.choice(POW_K)
        K = sz(self.z, k)
        if (K != int(K) or K < 0) and not self.need_pos():
            return self.broken
        if K < 0:
            mag, lo = self.lo ** K, self.mag ** K
        else:
            mag, lo = self.mag ** K, (self.lo ** K if self.lo else 1.0 if K == 0 else None)
        if mag > MAGMAX:
            return False
        return self.advance(self.emit("pow", self.cur, const=k), self.names, lo, mag)

    def op_unary(self, op):
        if op in ("sqrt", "rsqrt", "log") and not self.need_pos():
            return self.broken
        lo, mag = self.lo, self.mag
        if op == "exp" and mag > 4:
            return False
        new = {"sqrt": lambda: (math.sqrt(lo), math.sqrt(mag)),
               "rsqrt": lambda: (1 / math.sqrt(mag), 1 / math.sqrt(lo)),
               "log": lambda: (math.log(lo) if lo > 1.01 else None, max(abs(math.log(lo)), abs(math.log(mag)))),
               "exp": lambda: (math.exp(-mag), math.exp(mag))}.get(op, lambda: (None, mag))
        lo, mag = new()
        if mag > MAGMAX:
            return False
        return self.advance(self.emit(op, self.cur), self.names, lo, mag)

    def op_sqrt(self):
        return self.op_unary("sqrt")

    def op_rsqrt(self):
        return self.op_unary("rsqrt")

    def op_exp(self):
        return self.op_unary("exp")

    def op_log(self):
        return self.op_unary("log")

    def op_relu(self):
        return self.op_unary("relu")

    def op_silu(self):
        return self.op_unary("silu")

    def op_gelu(self, form):
        return self.advance(self.emit("gelu", self.cur, form=form), self.names, None, self.mag)

    def op_cast(self):
        dt = self.rng.choice(list(DTYPES))
        return self.advance(self.emit("cast", self.cur, dtype=dt), self.names, self.lo and 0.99 * self.lo, self.mag)

    def red_dim(self):
        nd = len(self.names)
        if self.maybe(WRONG / 2):
            return self.rng.choice([max(nd, 1), -max(nd, 1) - 1])  # out of range
        return self.rng.randint(-nd, nd - 1) if nd else self.rng.choice([0, -1])

    def op_reduce(self, op):
        d, keep = self.red_dim(), self.maybe(0.4)
        nd = len(self.names)
        k = self.z[self.names[d]] if nd and -nd <= d < nd and self.names[d] else 1
        mag = self.mag * k if op == "sum" else self.mag
        if mag > MAGMAX:
            return False
        guess = list(self.names)
        if nd and -nd <= d < nd:
            if keep:
                guess[d] = None
            else:
                del guess[d]
        return self.advance(self.emit(op, self.cur, dim=d, keepdim=keep), guess, self.lo, mag)

    def op_sum(self):
        return self.op_reduce("sum")

    def op_mean(self):
        return self.op_reduce("mean")

    def op_max(self):
        return self.op_reduce("max")

    def op_softmax(self):
        d = self.red_dim()
        lo = math.exp(-2 * self.mag) / 6
        return self.advance(self.emit("softmax", self.cur, dim=d), self.names, lo if lo > 1e-4 else None, 1.0)

    def norm_params(self, n):
        nm = self.names
        last = [nm[-1]] if nm and nm[-1] else self.fill([None])
        return [self.tensor(last if not self.maybe(WRONG) else self.rand_dims(0, 1)) for _ in range(n)]

    def op_layernorm(self):
        p = self.norm_params(self.rng.randint(0, 2))
        h = self.z[self.names[-1]] if self.names and self.names[-1] else 1
        t = self.emit("layernorm", self.cur, *p, eps=self.rng.choice(EPS))
        return self.advance(t, self.names, None, math.sqrt(h) + 1)

    def op_rmsnorm(self):
        if not self.names:
            return False  # torch's mean(-1) takes a 0-d tensor; not a norm's input
        p = self.norm_params(self.rng.randint(0, 1))
        h = self.z[self.names[-1]] if self.names[-1] else 1
        t = self.emit("rmsnorm", self.cur, *p, eps=self.rng.choice(EPS))
        return self.advance(t, self.names, None, math.sqrt(h))

    def start_of(self, d):
        return self.rng.choice(STARTS).format(d=d) if self.maybe(0.5) else None

    def lookup(self, ids_dims, hdim):
        """e = embedding ids tab [start=E], tab [R, hdim]: (e, its dims)."""
        rows = self.rng.choice([d for d in DIMS if d != hdim])
        index = rows if not self.maybe(WRONG * 2) else self.rng.choice(DIMS)
        ids = self.tensor(ids_dims, index)
        tab = self.tensor([rows, hdim])
        return self.emit("embedding", ids, tab, start=self.start_of(index)), ids_dims + [hdim]

    def first_embedding(self):
        dims = self.rand_dims(1, 3)
        e, dims = self.lookup(dims[:-1], dims[-1])
        return self.advance(e, dims, None, 1.0)

    def op_embedding(self):
        if not self.names or self.mag + 1 > MAGMAX:
            return False
        nm = self.fill(self.names)
        e, _ = self.lookup(nm[:-1], nm[-1])
        return self.advance(e and self.emit("add", self.cur, e), self.names, None, self.mag + 1)

    def op_pick(self):
        nm = self.names
        if not nm:
            return False
        lead = self.fill(nm[:-1])
        index = nm[-1] or self.rng.choice(DIMS)
        if self.maybe(WRONG):
            index = self.rng.choice(DIMS)
        if self.maybe(WRONG) and lead:
            lead[self.rng.randrange(len(lead))] = self.rng.choice([d for d in DIMS if d not in lead])
        ids = self.tensor(lead, index)
        start = self.start_of(index)
        return self.advance(self.emit("pick", self.cur, ids, start=start), nm[:-1],
                            None if start else self.lo, self.mag)

    def op_cat(self):
        """cat cur w [cur] dim=d (or w first): w has cur's dims but at d."""
        nm = self.names
        dims = self.fill(nm)
        if not nm or len(dims) != len(nm):
            return False
        d = self.rng.randrange(len(nm))
        other = list(dims)
        other[d] = self.rng.choice([x for x in DIMS if x not in dims or x == dims[d]])
        if self.maybe(WRONG):
            other = self.rand_dims(1, 3)
        w = self.tensor(other)
        dd = d - len(nm) if self.maybe(0.3) else d
        r = self.rng.random()
        args = (self.cur, w, self.cur) if r < 0.3 else (w, self.cur) if r < 0.6 else (self.cur, w)
        guess = list(nm)
        guess[d] = None
        return self.advance(self.emit("cat", *args, dim=dd), guess, None, max(self.mag, 1.0))

    def op_tri(self, op):
        """tril/triu over the last two dims, maybe a diagonal and a fill; a
        -10000 fill goes straight into a softmax over the last dim (a
        causal attention mask)."""
        if len(self.names) < 2 and not self.maybe(WRONG):
            return False
        diag = self.rng.choice(DIAGONALS) if self.maybe(0.6) else None
        if len(self.names) >= 2 and self.maybe(0.3):
            t = self.emit(op, self.cur, diag=diag, fill=self.rng.choice(["-10000", "-1e4"]))
            return self.advance(t and self.emit("softmax", t, dim=-1), self.names, None, 1.0)
        fill = self.rng.choice(FILLS) if self.maybe(0.6) else None
        mag = max(self.mag, abs(sz(self.z, fill))) if fill else self.mag
        return self.advance(self.emit(op, self.cur, diag=diag, fill=fill), self.names, None, mag)

    def op_tril(self):
        return self.op_tri("tril")

    def op_triu(self):
        return self.op_tri("triu")

    def op_copy(self):
        return self.advance(self.emit("copy", self.cur), self.names, self.lo, self.mag)

    def step(self, fam):
        if fam.startswith("gelu"):
            return self.op_gelu(fam.split()[1])
        return getattr(self, "op_" + fam)()

    def spec(self, k):
        """The spec of the first k statements, the k-th assigning y."""
        out = self.zero.get(self.stmts[k - 1]["dst"])
        shape = list(out.shape) if out is not None else []
        onames = self.fill(self.names_of(shape, [None] * len(shape)))
        lines = [f"dims {' '.join(DIMS)}"]
        for name, dims, index in self.decls:
            lines.append(f"tensor {name} [{', '.join(dims)}] replicate" + (f" index {index}" if index else ""))
        lines.append(f"output y [{', '.join(onames)}] replicate")
        body = [spec_line(st, "y" if i == k - 1 else st["dst"]) for i, st in enumerate(self.stmts[:k])]
        return "\n".join(lines + ["reference"] + body + ["program"] + body) + "\n"

    def probe(self):
        """A spec that only copies the first float input: the inputs' dump."""
        name, dims, _ = next(d for d in self.decls if not d[2])
        head = [f"dims {' '.join(DIMS)}"] + [
            f"tensor {n} [{', '.join(ds)}] replicate" + (f" index {ix}" if ix else "") for n, ds, ix in self.decls]
        return "\n".join(head + [f"output y [{', '.join(dims)}] replicate", "reference", f"y = {name}",
                                 "program", f"y = {name}"]) + "\n"


def generate(rng):
    sizes = {d: 1 if rng.random() < 0.2 else rng.randint(1, 6) for d in DIMS}
    p = Program(rng, sizes, rng.choice(list(DTYPES)), rng.randrange(1 << 31))
    nops = rng.randint(1, 5)
    if rng.random() < 0.12:
        p.first_embedding()
        nops -= 1
    else:
        dims = [] if rng.random() < 0.03 else p.rand_dims(1, 3)
        p.advance(p.tensor(dims), dims, None, 1.0)
    tries = 0
    while nops > 0 and not p.broken and tries < 100:
        tries += 1
        if p.step(rng.choice(FAMILIES)):
            nops -= 1
    return p


# ---- running both sides ----

def dump(sc, spec, p, tmp):
    """sc_computedump on spec: (rc, stdout + stderr, {file: array})."""
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    path = os.path.join(tmp, "s.sc")
    with open(path, "w") as f:
        f.write(spec)
    r = subprocess.run([sc, path, p.dtype, str(p.seed), tmp] + [str(p.z[d]) for d in DIMS],
                       capture_output=True, text=True)
    arrays = {f[:-4]: np.load(os.path.join(tmp, f)) for f in os.listdir(tmp) if f.endswith(".npy")}
    return r.returncode, (r.stdout + r.stderr).strip(), arrays


def trace(p, ins, exact):
    """Every statement's torch result, up to the first that raises: (results, exception)."""
    env = {}
    for name, _, index in p.decls:
        t = torch.from_numpy(ins[name])
        env[name] = t.long() if index else t if exact else t.to(DTYPES[p.dtype])
    out = []
    for st in p.stmts:
        try:
            env[st["dst"]] = torch_op(st, env, exact)
        except (RuntimeError, IndexError, ValueError) as ex:
            return out, ex
        out.append(env[st["dst"]])
    return out, None


def unsupported(ex):
    """torch's CPU has no kernel for this dtype (f16 exp, matmul, softmax ... in torch 1.13)."""
    return ex is not None and "not implemented for '" in str(ex)


def worst(err, bound):
    """The largest err / bound and where; a NaN anywhere (a bound of NaN: 0 * inf) counts as infinite."""
    ratio = np.where(bound > 0, err / np.where(bound > 0, bound, 1), np.where(err > 0, np.inf, 0.0))
    ratio = np.where(np.isnan(ratio) | np.isnan(bound) | np.isnan(err), np.inf, ratio)
    i = int(np.argmax(ratio)) if ratio.size else 0
    return (float(ratio.reshape(-1)[i]) if ratio.size else 0.0), np.unravel_index(i, ratio.shape) if ratio.size else ()


class Stats:
    def __init__(self):
        self.fails = {"semantics": 0, "torch": 0, "shardcheck": 0}
        self.torch = {}  # (family, dtype) -> the largest |T - ref| / bound
        self.own = {}  # family -> the largest |prog - ref| / bound
        self.drawn = {}  # family -> prefixes run
        self.skipped = 0  # prefixes torch has no kernel for in the dtype
        self.prefixes = 0
        self.features = dict.fromkeys(["keepdim", "negative dim", "constant expression", "layernorm", "layernorm w",
                                       "layernorm w b", "rmsnorm", "rmsnorm w", "embedding", "embedding start",
                                       "pick", "pick start", "batched matmul", "linear bias", "both raise"], 0)

    def note(self, st, p):
        f = self.features
        fam = family(st)
        self.drawn[fam] = self.drawn.get(fam, 0) + 1
        f["keepdim"] += st["keepdim"]
        f["negative dim"] += st["dim"] is not None and st["dim"] < 0
        f["constant expression"] += bool(st["const"]) and any(ch.isalpha() or ch in "/(" for ch in st["const"][0])
        nargs = len([n for n in (st["b"], st["c"]) if n])
        if st["op"] == "layernorm":
            f[["layernorm", "layernorm w", "layernorm w b"][nargs]] += 1
        if st["op"] == "rmsnorm":
            f[["rmsnorm", "rmsnorm w"][nargs]] += 1
        if st["op"] in ("embedding", "pick"):
            f[st["op"] + (" start" if st["start"] else "")] += 1
        f["batched matmul"] += st["op"] == "matmul" and p.zero.get(st["b"], torch.zeros(0)).dim() > 2
        f["linear bias"] += st["op"] == "linear" and st["c"] is not None


def describe(p, spec, k, why):
    sizes = " ".join(f"{d}={p.z[d]}" for d in DIMS)
    return f"FAILED: {sizes} dtype={p.dtype} seed={p.seed} (statement {k}, {family(p.stmts[k - 1])}): {why}\n{spec}"


def check_prefix(sc, p, k, ins, t64, tdt, tmp, stats):
    """Prefix k of program p; returns False when the program stops here."""
    st = p.stmts[k - 1]
    spec = p.spec(k)
    rc, out, arr = dump(sc, spec, p, tmp)
    stats.prefixes += 1
    stats.note(st, p)
    if rc != 0 or not (out == "ok" or out.startswith("runtime:")):
        stats.fails["semantics"] += 1
        print(describe(p, spec, k, f"sc_computedump exited {rc}: {out}"))
        return False
    (r64, ex64), (rdt, exdt) = t64, tdt
    raised = ex64 if len(r64) < k else exdt if len(rdt) < k and not unsupported(exdt) else None
    if out.startswith("runtime:") or raised is not None:
        if raised is None and any(m in out for m in STRICTER):
            stats.features["both raise"] += 1
        elif raised is None and "same dtype" in out and unsupported(exdt):
            stats.skipped += 1  # torch's CPU has no kernel to say whether it would refuse the mix
            return False
        elif not out.startswith("runtime:") or raised is None:
            stats.fails["semantics"] += 1
            torch_says = f"raises: {raised}" if raised else "runs"
            print(describe(p, spec, k, f"shardcheck says '{out}', torch {torch_says}"))
        else:
            stats.features["both raise"] += 1
        return False
    for name, _, _ in p.decls:  # the inputs depend on the declarations only
        if not np.array_equal(arr[name], ins[name]):
            stats.fails["semantics"] += 1
            print(describe(p, spec, k, f"input {name} differs from the probe's"))
            return False
    ref, ref_e, prog, prog_e = arr["ref"], arr["ref_e"], arr["prog"], arr["prog_e"]
    want = r64[k - 1].numpy()
    if want.shape != ref.shape or prog.shape != ref.shape:
        stats.fails["semantics"] += 1
        print(describe(p, spec, k, f"shapes: ref {list(ref.shape)}, prog {list(prog.shape)}, torch {list(want.shape)}"))
        return False
    close = (np.abs(ref - want) <= 1e-9 * np.abs(want) + 1e-12) | (ref == want)
    if not close.all():
        i = np.unravel_index(int(np.argmin(close)), close.shape) if close.ndim else ()
        stats.fails["semantics"] += 1
        print(describe(p, spec, k, f"ref{list(i)} = {ref[i]!r}, torch float64 gives {want[i]!r}"))
        return False
    bound = prog_e + ref_e
    fam = family(st)
    ok = True
    r, i = worst(np.abs(prog - ref), bound)
    stats.own[fam] = max(stats.own.get(fam, 0.0), r)
    if not r <= 1:
        stats.fails["shardcheck"] += 1
        ok = False
        print(describe(p, spec, k, f"shardcheck's own bound: prog{list(i)} = {prog[i]!r}, ref {ref[i]!r}, "
                                   f"error {abs(prog[i] - ref[i]):.4g} > bound {bound[i]:.4g} (ratio {r:.4g})"))
    if len(rdt) < k:  # no kernel for the dtype
        stats.skipped += 1
        return ok
    T = rdt[k - 1].double().numpy()
    if T.shape != ref.shape:
        stats.fails["semantics"] += 1
        print(describe(p, spec, k, f"shapes: ref {list(ref.shape)}, torch {p.dtype} {list(T.shape)}"))
        return False
    r, i = worst(np.abs(T - ref), bound)
    key = (fam, p.dtype)
    stats.torch[key] = max(stats.torch.get(key, 0.0), r)
    if not r <= 1 and p.dtype in ("f32", "f64"):
        stats.fails["torch"] += 1
        print(describe(p, spec, k, f"torch {p.dtype}: T{list(i)} = {T[i]!r}, prog {prog[i]!r}, ref {ref[i]!r}, "
                                   f"error {abs(T[i] - ref[i]):.4g} > bound {bound[i]:.4g} (ratio {r:.4g})"))
        ok = False
    return ok


def check_program(sc, p, tmp, stats):
    if not p.stmts:
        return
    rc, out, ins = dump(sc, p.probe(), p, tmp)
    if rc != 0 or out != "ok":
        stats.fails["semantics"] += 1
        print(describe(p, p.probe(), 1, f"the inputs' probe: sc_computedump exited {rc}: {out}"))
        return
    t64, tdt = trace(p, ins, True), trace(p, ins, False)
    for k in range(1, len(p.stmts) + 1):
        if not check_prefix(sc, p, k, ins, t64, tdt, tmp, stats):
            return


# ---- micro-batches ----

MB_BODY = ("linear", "gelu", "exp", "softmax", "layernorm", "none")


def micro_program(rng):
    """A random micro-batch program: per micro-batch k, a row-wise op on its
    rows of x [n, h], a reduction over its tokens (sum, or mean when no
    micro-batch is empty), a per-micro-batch factor, accumulated with +=.
    Returns (spec, counts, sizes, dtype, seed, plan)."""
    g = rng.randint(1, 4)
    lo = rng.choice([0, 1])
    counts = [rng.randint(lo, 4) for _ in range(g)]
    h, o = rng.randint(1, 5), rng.randint(1, 4)
    body = rng.choice(MB_BODY)
    red = "mean" if lo == 1 and rng.random() < 0.5 else "sum"
    factor = rng.choice(["", "1/N(k)" if lo == 1 else "k+1", "k+1", "1/g"])
    tail = rng.random() < 0.5
    dtype = rng.choice(list(DTYPES))
    seed = rng.randrange(1 << 32)
    lines = ["dims g n h o", f"microbatches N[g] n {lo}..4", "tensor x [n, h] replicate",
             "tensor w [o, h] replicate", "output y [%s] replicate" % ("o" if body == "linear" else "h"),
             "", "reference", "t = sum x dim=0", "y = t" if body != "linear" else "y = linear t w", "",
             "program", "microbatch k"]
    lines.append({"linear": "  t = linear x w", "gelu": "  t = gelu x tanh", "exp": "  t = exp x",
                  "softmax": "  t = softmax x dim=-1", "layernorm": "  t = layernorm x", "none": "  t = x"}[body])
    lines.append(f"  a = {red} t dim=0")
    if factor:
        lines.append(f"  a = scale a {factor}")
    lines.append("  acc += a")
    lines.append("end")
    lines.append("y = scale acc 1/g" if tail else "y = acc")
    plan = dict(g=g, counts=counts, body=body, red=red, factor=factor, tail=tail)
    return "\n".join(lines) + "\n", counts, [g, sum(counts), h, o], dtype, seed, plan


def micro_torch(plan, x, w, exact, dtype):
    """The same loop in torch: torch.split by the counts, += into acc."""
    dt = torch.float64 if exact else DTYPES[dtype]
    x, w = torch.from_numpy(x).to(dt), torch.from_numpy(w).to(dt)
    acc = None
    for k, part in enumerate(torch.split(x, plan["counts"], dim=0)):
        t = {"linear": lambda: torch.nn.functional.linear(part, w),
             "gelu": lambda: torch.nn.functional.gelu(part, approximate="tanh"),
             "exp": lambda: torch.exp(part), "softmax": lambda: torch.softmax(part, dim=-1),
             "layernorm": lambda: torch.nn.functional.layer_norm(part, part.shape[-1:]),
             "none": lambda: part}[plan["body"]]()
        a = t.mean(dim=0) if plan["red"] == "mean" else t.sum(dim=0)
        f = plan["factor"]
        if f:
            a = a * (1 / plan["counts"][k] if f == "1/N(k)" else k + 1 if f == "k+1" else 1 / plan["g"])
        acc = a if acc is None else acc + a
    return acc * (1 / plan["g"]) if plan["tail"] else acc


def check_microbatches(sc, rng, n, tmp):
    """n random micro-batch programs: shardcheck's program against the same
    loop in torch (float64: |prog - T64| within prog's bound; f32 and f64:
    torch's own result within it too). Returns the number of failures."""
    fails, worst_own = 0, 0.0
    for _ in range(n):
        spec, counts, sizes, dtype, seed, plan = micro_program(rng)
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        path = os.path.join(tmp, "m.sc")
        with open(path, "w") as fh:
            fh.write(spec)
        cnt = "counts=" + ":".join(map(str, counts))
        r = subprocess.run([sc, path, dtype, str(seed), tmp] + [str(v) for v in sizes] + [cnt],
                           capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or out != "ok":
            fails += 1
            print(f"FAILED: micro-batches {cnt} {dtype} seed={seed}: sc_computedump: {out}\n{spec}")
            continue
        arr = {f[:-4]: np.load(os.path.join(tmp, f)) for f in os.listdir(tmp) if f.endswith(".npy")}
        t64 = micro_torch(plan, arr["x"], arr["w"], True, dtype).numpy()
        prog, bound = arr["prog"], arr["prog_e"]
        if t64.shape != prog.shape:
            fails += 1
            print(f"FAILED: micro-batches {cnt}: shapes torch {list(t64.shape)}, shardcheck {list(prog.shape)}\n{spec}")
            continue
        slack = 1e-12 + 1e-12 * np.abs(t64)  # torch's own f64 rounding
        r_own, i = worst(np.abs(prog - t64), bound + slack)
        worst_own = max(worst_own, r_own)
        if not r_own <= 1:
            fails += 1
            print(f"FAILED: micro-batches {cnt} {dtype} seed={seed}: prog{list(i)} = {prog[i]!r}, torch "
                  f"float64 {t64[i]!r}, bound {bound[i]:.4g} (ratio {r_own:.4g})\n{spec}")
            continue
        if dtype in ("f32", "f64"):
            tdt = micro_torch(plan, arr["x"], arr["w"], False, dtype).double().numpy()
            r_t, i = worst(np.abs(tdt - t64), bound + slack)
            if not r_t <= 1:
                fails += 1
                print(f"FAILED: micro-batches {cnt} {dtype} seed={seed}: torch {dtype} {tdt[i]!r}, float64 "
                      f"{t64[i]!r}, outside the bound {bound[i]:.4g} (ratio {r_t:.4g})\n{spec}")
    print(f"micro-batches: {n} programs against torch.split loops, {fails} failures; worst |prog - torch f64| / "
          f"bound {worst_own:.3f}")
    return fails


# ---- loops ----

LOOP_BODY = ("softmax", "gelu", "none")


def loop_program(rng):
    """A random program with a loop `for i in LO..HI` (none when HI < LO):
    a row-wise op on y, scaled by 1/(i+2) (the index in a constant), added
    to y; half of them nest `for j in 0..i+C`, adding x scaled by 1/(j+3)
    each time (the inner range reading i). The reference is the same
    program. Returns (spec, sizes, dtype, seed, plan)."""
    lo = rng.randint(0, 2)
    hi = lo + rng.randint(-1, 2)
    b, h = rng.randint(1, 4), rng.randint(1, 5)
    body = rng.choice(LOOP_BODY)
    nest, c = rng.random() < 0.5, rng.randint(-1, 1)
    dtype = rng.choice(list(DTYPES))
    seed = rng.randrange(1 << 32)
    prog = ["y = x", f"for i in {lo}..{hi}",
            {"softmax": "  t = softmax y dim=-1", "gelu": "  t = gelu y tanh", "none": "  t = y"}[body],
            "  t = scale t 1/(i+2)", "  y = add y t"]
    if nest:
        prog += [f"  for j in 0..i{c:+d}", "    u = scale x 1/(j+3)", "    y = add y u", "  end"]
    prog.append("end")
    lines = ["dims b h", "tensor x [b, h] replicate", "output y [b, h] replicate", "", "reference"] + prog + \
        ["", "program"] + prog
    plan = dict(lo=lo, hi=hi, body=body, nest=nest, c=c)
    return "\n".join(lines) + "\n", [b, h], dtype, seed, plan


def loop_torch(plan, x, exact, dtype):
    """The same loops in torch."""
    dt = torch.float64 if exact else DTYPES[dtype]
    x = torch.from_numpy(x).to(dt)
    y = x
    for i in range(plan["lo"], plan["hi"] + 1):
        t = {"softmax": lambda: torch.softmax(y, dim=-1),
             "gelu": lambda: torch.nn.functional.gelu(y, approximate="tanh"), "none": lambda: y}[plan["body"]]()
        y = y + t * (1 / (i + 2))
        for j in range(0, i + plan["c"] + 1) if plan["nest"] else ():
            y = y + x * (1 / (j + 3))
    return y


def check_loops(sc, rng, n, tmp):
    """n random programs with loops (some nested): shardcheck's program
    against the same loops in torch, float64, within prog's bound.
    Returns the number of failures."""
    fails, nested = 0, 0
    for _ in range(n):
        spec, sizes, dtype, seed, plan = loop_program(rng)
        nested += plan["nest"]
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        path = os.path.join(tmp, "l.sc")
        with open(path, "w") as fh:
            fh.write(spec)
        r = subprocess.run([sc, path, dtype, str(seed), tmp] + [str(v) for v in sizes], capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or out != "ok":
            fails += 1
            print(f"FAILED: loops {dtype} seed={seed}: sc_computedump: {out}\n{spec}")
            continue
        arr = {f[:-4]: np.load(os.path.join(tmp, f)) for f in os.listdir(tmp) if f.endswith(".npy")}
        t64 = loop_torch(plan, arr["x"], True, dtype).numpy()
        prog, bound = arr["prog"], arr["prog_e"]
        slack = 1e-12 + 1e-12 * np.abs(t64)
        if t64.shape != prog.shape or not worst(np.abs(prog - t64), bound + slack)[0] <= 1:
            fails += 1
            print(f"FAILED: loops {dtype} seed={seed}: prog {prog!r}, torch float64 {t64!r}, bound {bound!r}\n{spec}")
    print(f"loops: {n} programs ({nested} with a nested loop) against torch's loops, {fails} failures")
    return fails


def table(stats):
    dts = list(DTYPES)
    print(f"{'max |T-ref|/bound':<18}" + "".join(f"{d:>7}" for d in dts) + f"{'own':>7}{'n':>6}")
    for fam in FAMILIES:
        cells = [stats.torch.get((fam, d)) for d in dts]
        own = stats.own.get(fam)
        print(f"{fam:<18}" + "".join(f"{c:7.3f}" if c is not None else f"{'-':>7}" for c in cells)
              + (f"{own:7.3f}" if own is not None else f"{'-':>7}") + f"{stats.drawn.get(fam, 0):6d}")


def main():
    sc = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261125")))  # another seed: more cases
    stats = Stats()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(n):
            check_program(sc, generate(rng), tmp, stats)
    table(stats)
    print("features: " + ", ".join(f"{k} {v}" for k, v in stats.features.items()))
    missing = [f for f in FAMILIES if not stats.drawn.get(f)] + [k for k, v in stats.features.items() if not v]
    if n >= 100 and missing:
        print(f"FAILED: never drawn: {missing}")
    fl = stats.fails
    print(f"torch_compute: {n} programs ({stats.prefixes} prefixes, {stats.skipped} without a torch CPU kernel "
          f"for their dtype), {fl['semantics']} semantic mismatches, {fl['torch']} bound violations (torch), "
          f"{fl['shardcheck']} (shardcheck)")
    with tempfile.TemporaryDirectory() as tmp:
        mfails = check_microbatches(sc, rng, max(20, n // 5), tmp)
        mfails += check_loops(sc, rng, max(20, n // 5), tmp)
    return 1 if sum(fl.values()) or mfails or (n >= 100 and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
