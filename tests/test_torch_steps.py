"""Language 2's local steps against PyTorch itself: on random cases (1-3
dims, sizes 1..9, world 1..8), a replicated input goes through a chain of
one to three steps whose sizes are per-rank expressions (narrow, take in
its chunk, split, list and [E for k] forms, flip, pad with positive and
negative widths, repeat_interleave; a flip and a narrow with `when`, on
some ranks only); every rank's output written by
`shardcheck eval --dump` must equal, bit for bit, the same chain run with
torch on that rank (Tensor.narrow, torch.chunk, torch.tensor_split,
torch.cat, torch.flip, torch.nn.functional.pad, Tensor.repeat_interleave).
The rank-free ones, and named tensors (split, cat, `NAME = STEP X ...`),
again in a layout spec's `reference` block: Y, every rank's expected
output, must equal the chain run with torch on X. And chains inside a
`for i in LO..HI` loop (none when HI < LO), with steps that read i: the
chain run by torch for i = LO..HI. And packed sequences (`sequences`):
loops over them reading L(j), len(L) and prefix sums, against torch on
the packed tensor (ring-flash-attention's per-sequence zigzag among them);
and routes: rows sorted by their tokens' experts (torch.argsort, stable),
put back, or selected by expert, on a rank's shard of the tokens, with one
expert a token or top-k (Megatron's permute order: the flattened [tokens, k]
indices argsorted, each copy's row // k), and the copies combined back into
their tokens (index_add_ of the copies weighted 1/k).
Usage: test_torch_steps.py PATH/TO/shardcheck [CASES]"""
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F


def cdiv(a, b):
    return -(-a // b)


def chunk_of(t, n, k, d, split):
    pieces = torch.tensor_split(t, n, d) if split else torch.chunk(t, n, d)
    return pieces[k] if k < len(pieces) else t.narrow(d, t.shape[d], 0)


# Each step: (spec text with D for the dim, torch function of (t, d, rank, P)).
# Sizes are expressions of rank, P and size(D); every one is valid on every rank.
STEPS = [
    ("narrow D min(rank,size(D)) (size(D)-min(rank,size(D)))//2",
     lambda t, d, r, P: t.narrow(d, min(r, t.shape[d]), (t.shape[d] - min(r, t.shape[d])) // 2)),
    ("narrow D 0 (size(D) if rank%2==0 else cdiv(size(D),2))",
     lambda t, d, r, P: t.narrow(d, 0, t.shape[d] if r % 2 == 0 else cdiv(t.shape[d], 2))),
    ("narrow D -size(D)//2 size(D)//2",
     lambda t, d, r, P: t.narrow(d, (-t.shape[d]) // 2, t.shape[d] // 2)),
    ("take D P rank", lambda t, d, r, P: chunk_of(t, P, r, d, False)),
    ("take D P rank split", lambda t, d, r, P: chunk_of(t, P, r, d, True)),
    ("take D 3 (P-1-rank)%3", lambda t, d, r, P: chunk_of(t, 3, (P - 1 - r) % 3, d, False)),
    ("take D 3 [2, 0, rank%3]",
     lambda t, d, r, P: torch.cat([chunk_of(t, 3, k, d, False) for k in (2, 0, r % 3)], d)),
    ("take D 4 [3-k for k] split",
     lambda t, d, r, P: torch.cat([chunk_of(t, 4, 3 - k, d, True) for k in range(4)], d)),
    ("take D 2*P [2*k if k < P else 4*P-1-2*k for k]",
     lambda t, d, r, P: torch.cat([chunk_of(t, 2 * P, 2 * k if k < P else 4 * P - 1 - 2 * k, d, False)
                                   for k in range(2 * P)], d)),
    ("flip D", lambda t, d, r, P: torch.flip(t, [d])),
    ("pad D rank 1", None),
    ("pad D 0 P-rank", None),
    ("pad D -min(1,size(D)) 0", None),
    ("repeat_interleave 1+rank%2 D", lambda t, d, r, P: t.repeat_interleave(1 + r % 2, dim=d)),
    # a local step on some ranks (`if rank ...:` in the code); the others keep the tensor
    ("flip D when rank % 2 == 1", lambda t, d, r, P: torch.flip(t, [d]) if r % 2 == 1 else t),
    ("narrow D 0 size(D)//2 when rank < P-1", lambda t, d, r, P: t.narrow(d, 0, t.shape[d] // 2) if r < P - 1 else t),
    # named tensors (first in a chain: `input` is the input itself)
    # buffers: a zeros buffer two rows longer, written from row 1; an empty
    # one written whole (ZSHAPE: the input's shape, dim D grown by G)
    ("buf = zeros input ZSHAPE2\ny = write buf input dim=D start=1", lambda t, d, r, P: zero_write(t, d)),
    ("buf = empty input ZSHAPE0\ny = write buf input dim=D start=0", lambda t, d, r, P: t.clone()),
    ("u, w = split input [size(D)//2, size(D)-size(D)//2] dim=D\ny = cat w u w dim=D",
     lambda t, d, r, P: torch.cat([torch.split(t, [t.shape[d] // 2, t.shape[d] - t.shape[d] // 2], d)[k]
                                   for k in (1, 0, 1)], d)),
]


def zero_write(t, d):
    """buf = t.new_zeros(shape grown by 2 along d); buf.narrow(d, 1, n).copy_(t)"""
    buf = t.new_zeros([n + 2 if k == d else n for k, n in enumerate(t.shape)])
    buf.narrow(d, 1, t.shape[d]).copy_(t)
    return buf


def zshape(text, nd, d):
    """ZSHAPEg: the shape list of the input with dim d grown by g."""
    for g in "02":
        dims = ", ".join(f"size({k})+{g}" if k == d and g != "0" else f"size({k})" for k in range(nd))
        text = text.replace(f"ZSHAPE{g}", f"[{dims}]")
    return text


def torch_pad(t, d, before, after):
    # F.pad's list covers dims d..ndim-1, as code padding dim d writes it;
    # with a positive width ATen's constant_pad_nd then requires every
    # covered dim to come out non-empty (torch 1.13 to 2.5)
    return F.pad(t, [0, 0] * (t.dim() - 1 - d) + [before, after])


PADS = {
    "pad D rank 1": lambda t, d, r, P: torch_pad(t, d, r, 1),
    "pad D 0 P-rank": lambda t, d, r, P: torch_pad(t, d, 0, P - r),
    "pad D -min(1,size(D)) 0": lambda t, d, r, P: torch_pad(t, d, -min(1, t.shape[d]), 0),
}


def eval_dump(sc, spec_text, world, sizes, names, out, result="output"):
    """Every rank's input and its `result` (output, or expected: Y of a
    reference) from `shardcheck eval --dump`; results None when a step
    failed at run time (as torch raises), with eval's words."""
    spec = os.path.join(out, "s.sc")
    with open(spec, "w") as f:
        f.write(spec_text)
    arg = ",".join(f"{n}={v}" for n, v in zip(names, sizes))
    for f in os.listdir(out):
        if f.endswith(".npy"):
            os.remove(os.path.join(out, f))
    r = subprocess.run([sc, "eval", spec, "--world", str(world), "--sizes", arg, "--seed", "7",
                        "--torch", TORCH_RULES, "--dump", out], capture_output=True, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(os.path.join(out, "rank0.input.npy")):
        raise SystemExit(f"eval failed ({r.returncode}):\n{spec_text}{r.stdout}{r.stderr}")
    ins = [torch.from_numpy(np.load(os.path.join(out, f"rank{k}.input.npy"))) for k in range(world)]
    if not os.path.exists(os.path.join(out, f"rank0.{result}.npy")):
        return ins, None, r.stdout
    return ins, [torch.from_numpy(np.load(os.path.join(out, f"rank{k}.{result}.npy"))) for k in range(world)], ""


# shardcheck follows the rules of the torch it is compared with where
# versions differ (docs/language.md, "Torch versions")
TORCH_RULES = ".".join(torch.__version__.split("+")[0].split(".")[:2])


def torch_runs(ins, run):
    """run(t, r) on every rank's input: the results, and how torch raised (None)."""
    wants, raised = [], None
    for r, t in enumerate(ins):
        try:
            wants.append(run(t, r))
        except (RuntimeError, IndexError, ValueError) as ex:
            raised = f"rank {r}: {ex}"
            wants.append(None)
    return wants, raised


def judged(label, spec, sizes, P, outs, why, wants, raised):
    """0 when shardcheck and torch agree (both refuse the case, or every rank's
    result is torch's bit for bit), else 1 with what differs printed."""
    if outs is None or raised:
        if (outs is None) == (raised is not None):
            return 0
        print(f"FAILED {label}: sizes {sizes} P={P}:\n{spec}shardcheck: {why.strip() or 'ran'}; torch: {raised or 'ran'}")
        return 1
    for r, (want, got) in enumerate(zip(wants, outs)):
        if list(want.shape) != list(got.shape) or not torch.equal(want, got):
            print(f"FAILED {label}: sizes {sizes} P={P}:\n{spec}rank {r} holds {list(got.shape)}, "
                  f"torch gives {list(want.shape)}")
            return 1
    return 0


# Reference-only forms: named tensors in a `reference` block (X is its
# input): the rotation a ring step or a shifted pipeline input makes.
REF_STEPS = [
    ("h = narrow X D 0 size(D)//2\nt = narrow X D size(D)//2 size(D)-size(D)//2\nY = cat t h dim=D",
     lambda t, d, r, P: torch.cat([t.narrow(d, t.shape[d] // 2, t.shape[d] - t.shape[d] // 2),
                                   t.narrow(d, 0, t.shape[d] // 2)], d)),
]


def reference_cases(sc, rng, n, tmp, used):
    """The same steps, rank-free ones, in a layout spec's `reference` block
    (one device, P known): Y, written as every rank's expected output, must
    equal torch's chain on X; named tensors (split, cat, `NAME = STEP SRC`)
    start from X."""
    forms = [(t.replace("input", "X"), fn, t) for t, fn in STEPS if "rank" not in t] + \
        [(t, fn, t) for t, fn in REF_STEPS]
    fails = 0
    for case in range(n):
        nd = rng.randint(1, 3)
        names = ["a", "b", "c"][:nd]
        sizes = [rng.randint(1, 9) for _ in range(nd)]
        P = rng.randint(1, 4)
        chain = []
        for i in range(rng.randint(1, 3)):
            text, fn, key = rng.choice(forms)
            while "=" in text and i > 0:  # named: first only (X is the input)
                text, fn, key = rng.choice(forms)
            d = rng.randrange(nd)
            dt = d - nd if rng.random() < 0.3 else d
            chain.append((zshape(text, nd, d).replace("D", str(dt)), fn or PADS[key], d))
            used.add("reference: " + key)
        spec = f"dims {' '.join(names)}\ninput replicate\noutput replicate\nreference\n"
        spec += "".join(t + "\n" for t, _, _ in chain) + "end\n"
        ins, ys, why = eval_dump(sc, spec, P, sizes, names, tmp, result="expected")

        def run(t, r):
            for _, fn, d in chain:
                t = fn(t, d, 0, P)
            return t
        wants, raised = torch_runs(ins, run)
        fails += judged(f"reference case {case}", spec, sizes, P, ys, why, wants, raised)
    return fails


# Forms that read a `for` loop's index i (in a loop only).
LOOP_STEPS = [
    ("narrow D min(i,size(D)) size(D)-min(i,size(D))",
     lambda t, d, r, P, i: t.narrow(d, min(i, t.shape[d]), t.shape[d] - min(i, t.shape[d]))),
    ("pad D 0 i%2", None),
    ("repeat_interleave 1+i%2 D", lambda t, d, r, P, i: t.repeat_interleave(1 + i % 2, dim=d)),
]
LOOP_PADS = {"pad D 0 i%2": lambda t, d, r, P, i: torch_pad(t, d, 0, i % 2)}


def loop_cases(sc, rng, n, tmp, used):
    """A chain of rank-free and loop-index steps inside `for i in LO..HI`
    (HI < LO: no iteration), after and before a plain step: every rank's
    output must be torch's chain run for i = LO..HI. Half the cases nest a
    loop `for j in LO2..i+C` (its range reads i) after the outer body,
    whose steps read j: torch's loops nested the same way."""
    forms = [(t, (lambda f: lambda t_, d, r, P, i: f(t_, d, r, P))(fn or PADS[t]), t) for t, fn in STEPS
             if "=" not in t] + [(t, fn or LOOP_PADS[t], t) for t, fn in LOOP_STEPS]
    fails = 0
    for case in range(n):
        nd = rng.randint(1, 3)
        names = ["a", "b", "c"][:nd]
        sizes = [rng.randint(1, 9) for _ in range(nd)]
        P = rng.randint(1, 4)
        lo = rng.randint(0, 2)
        hi = lo + rng.randint(-1, 2)
        body = []
        for _ in range(rng.randint(1, 2)):
            text, fn, key = rng.choice(forms)
            d = rng.randrange(nd)
            body.append((text.replace("D", str(d)), fn, d))
            used.add("loop: " + key)
        inner, lo2, c2 = [], rng.randint(0, 1), rng.randint(-1, 1)
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                text, fn, key = rng.choice(forms)
                d = rng.randrange(nd)
                inner.append((re.sub(r"\bi\b", "j", text.replace("D", str(d))), fn, d))
                used.add("nested loop: " + key)
        spec = f"dims {' '.join(names)}\ninput replicate\noutput replicate\nfor i in {lo}..{hi}\n"
        spec += "".join("  " + t + "\n" for t, _, _ in body)
        if inner:
            spec += f"  for j in {lo2}..i{c2:+d}\n" + "".join("    " + t + "\n" for t, _, _ in inner) + "  end\n"
        spec += "end\n"
        ins, outs, why = eval_dump(sc, spec, P, sizes, names, tmp)

        def run(t, r):
            for i in range(lo, hi + 1):
                for _, fn, d in body:
                    t = fn(t, d, r, P, i)
                for j in range(lo2, i + c2 + 1) if inner else ():
                    for _, fn, d in inner:
                        t = fn(t, d, r, P, j)
            return t
        wants, raised = torch_runs(ins, run)
        fails += judged(f"loop case {case}", spec, sizes, P, outs, why, wants, raised)
    return fails


def extract_local(value, cu_seqlens, rank, world_size):
    """ring-flash-attention's per-sequence zigzag (zhuzilin/ring-flash-attention
    @ 339b173f, test/test_zigzag_ring_flash_attn_varlen_func.py, extract_local),
    with torch.cat of an empty list written as an empty slice."""
    local_values = []
    for i in range(len(cu_seqlens) - 1):
        start, end = cu_seqlens[i], cu_seqlens[i + 1]
        local_value = value[start:end].chunk(2 * world_size, dim=0)
        local_values.extend([local_value[rank].detach().clone(),
                             local_value[2 * world_size - 1 - rank].detach().clone()])
    return torch.cat(local_values, dim=0).contiguous() if local_values else value[:0]


# Packed sequences (`sequences L[A..B] n LO..HI`): a loop over the
# sequences, its steps reading L(j), len(L) and prefix sums of L; each form
# (its name, whether its entries are multiples of 2P, the program, torch's
# function of (X, cu_seqlens, rank, P)). The zigzag one also has a
# reference whose placement must be the same tensor on every rank.
PACKED_OFF = "sum(L(q) for q in 0..j-1)"
PACKED = [
    ("zigzag", True,
     "  a = narrow x 0 OFF+rank*(L(j)//(2*P)) L(j)//(2*P)\n"
     "  b = narrow x 0 OFF+(2*P-1-rank)*(L(j)//(2*P)) L(j)//(2*P)\n  y = cat y a b dim=0\n",
     extract_local),
    ("flip each", False, "  a = narrow x 0 OFF L(j)\n  a = flip a 0\n  y = cat y a dim=0\n",
     lambda t, cu, r, P: torch.cat([t[cu[j]:cu[j + 1]].flip(0) for j in range(len(cu) - 1)] + [t[:0]])),
    ("chunk each", False, "  a = narrow x 0 OFF L(j)\n  a = take a 0 P rank\n  y = cat y a dim=0\n",
     lambda t, cu, r, P: torch.cat([chunk_of(t[cu[j]:cu[j + 1]], P, r, 0, False) for j in range(len(cu) - 1)]
                                   + [t[:0]])),
]
PACKED_REF = ("reference\ny = narrow X 0 0 0\nfor i in 0..2*P*len(L)-1\n"
              "  a = narrow X 0 sum(L(q) for q in 0..(i//2)%len(L)-1)+(i//(2*len(L)) if i%2==0 else "
              "2*P-1-i//(2*len(L)))*(L((i//2)%len(L))//(2*P)) L((i//2)%len(L))//(2*P)\n"
              "  y = cat y a dim=0\nend\nend\n")


# Routing (`routes R[t] LO..HI [topk=K]`): a rank's even shard of the
# tokens (or all of them), then a step that moves rows by their tokens'
# routes; each form (its name, its text with S for start= and K for topk,
# torch's function of (rows, their routes [m, K], K)). With K experts a
# token, the copies are ordered as Megatron's permute orders them
# (argsort of the flattened [tokens, K] indices, stable; row // K).
def _flat_order(rt):
    return torch.argsort(rt.reshape(-1), stable=True)


ROUTED = [
    ("sort_by", "sort_by R dim=0 start=S", lambda t, rt, K: t[_flat_order(rt) // K]),
    ("unsort_by", "repeat_interleave K 0\nunsort_by R dim=0 start=S",
     lambda t, rt, K: torch.zeros_like(t.repeat_interleave(K, 0)).index_copy(0, _flat_order(rt),
                                                                               t.repeat_interleave(K, 0))),
    ("select", "select R dim=0 experts=1..rank+1 start=S", None),  # experts rank-dependent: below
    ("sort then unsort", "sort_by R dim=0 start=S\nunsort_by R dim=0 start=S",
     lambda t, rt, K: t.repeat_interleave(K, 0)),
    # the combine: each copy scatter-added back to its token with weight 1/K
    # (normalized top-k scores), computed exactly in float64
    ("sort then combine", "sort_by R dim=0 start=S\ncombine_by R dim=0 start=S",
     lambda t, rt, K: (torch.zeros(t.shape, dtype=torch.float64).index_add_(
         0, _flat_order(rt) // K, t[_flat_order(rt) // K].double()) / K).to(t.dtype)),
]


def routed_cases(sc, rng, n, tmp, used):
    """Random routes over t tokens (E experts, K distinct a token; every
    token to the lowest experts or drawn): every rank's rows moved as torch
    moves them."""
    fails = 0
    for case in range(n):
        name, text, fn = rng.choice(ROUTED)
        P = rng.randint(1, 5)
        shard = rng.random() < 0.5
        t = P * rng.randint(1, 4) if shard else rng.randint(1, 9)
        E = rng.randint(1, 4)
        K = rng.randint(1, min(E, 3))
        used.add("routed: " + name + (" topk" if K > 1 else ""))
        style = rng.randrange(3)
        routes = [list(range(K)) if style == 0 else rng.sample(range(E), K) for _ in range(t)]
        h = rng.randint(1, 2)
        spec = f"dims t h\nroutes R[t] 0..{E - 1}{f' topk={K}' if K > 1 else ''}\ninput replicate\noutput replicate\n"
        if shard:
            spec += "narrow 0 rank*(t//P) t//P\n"
        spec += text.replace("S", "rank*(t//P)" if shard else "0").replace("K", str(K)) + "\n"
        text_routes = ("/" if K > 1 else ":").join(":".join(map(str, q)) for q in routes)
        names, sizes = ["t", "h", "R"], [t, h, text_routes]
        ins, outs, why = eval_dump(sc, spec, P, sizes, names, tmp)

        def run(x, r):
            lo, m = (r * (t // P), t // P) if shard else (0, t)
            rows = x[lo:lo + m]
            rt = torch.tensor(routes[lo:lo + m], dtype=torch.long).reshape(m, K)
            if fn is None:  # Megatron's masked_select of the local experts' copies, token by token
                return rows.repeat_interleave(K, 0)[((rt >= 1) & (rt <= r + 1)).reshape(-1)]
            return fn(rows, rt, K)
        wants, raised = torch_runs(ins, run)
        fails += judged(f"routed case {case} ({name}, topk={K}, R={text_routes})", spec, sizes, P, outs, why, wants,
                        raised)
    return fails


# Steps sized by a drawn parameter c (`param c 0..HI`): the same number on
# every rank, drawn per case like a dim, but not a dim of X.
PARAM_STEPS = [
    ("narrow D min(c,size(D)) size(D)-min(c,size(D))",
     lambda t, d, r, P, c: t.narrow(d, min(c, t.shape[d]), t.shape[d] - min(c, t.shape[d]))),
    ("pad D c (c+rank)%2", lambda t, d, r, P, c: torch_pad(t, d, c, (c + r) % 2)),
    ("repeat_interleave 1+c%3 D", lambda t, d, r, P, c: t.repeat_interleave(1 + c % 3, dim=d)),
    ("take D c+1 rank%(c+1)", lambda t, d, r, P, c: chunk_of(t, c + 1, r % (c + 1), d, False)),
]


def param_cases(sc, rng, n, tmp, used):
    """A parameter drawn here within its range (the range's ends often), a
    step or two sized by it: every rank's output must be torch's with the
    same number."""
    fails = 0
    for case in range(n):
        nd = rng.randint(1, 2)
        names = ["a", "b"][:nd]
        sizes = [rng.randint(1, 6) for _ in range(nd)]
        P = rng.randint(1, 4)
        hi = rng.choice(["a", "3", "a+P"])
        top = {"a": sizes[0], "3": 3, "a+P": sizes[0] + P}[hi]
        c = rng.choice([0, top, rng.randint(0, top)])
        chain = []
        for _ in range(rng.randint(1, 2)):
            text, fn = rng.choice(PARAM_STEPS)
            used.add("param: " + text)
            d = rng.randrange(nd)
            chain.append((text.replace("D", str(d)), fn, d))
        spec = f"dims {' '.join(names)}\nparam c 0..{hi}\ninput replicate\noutput replicate\n"
        spec += "".join(t + "\n" for t, _, _ in chain)
        ins, outs, why = eval_dump(sc, spec, P, sizes + [c], names + ["c"], tmp)

        def run(t, r):
            for _, fn, d in chain:
                t = fn(t, d, r, P, c)
            return t
        wants, raised = torch_runs(ins, run)
        fails += judged(f"param case {case} (c={c})", spec, sizes + [c], P, outs, why, wants, raised)
    return fails


def packed_cases(sc, rng, n, tmp, used):
    """Packed sequences drawn here (none to four, empty ones among them):
    every rank's output must be torch's on the packed X; for the zigzag,
    the reference's placement too (the rows each rank must hold)."""
    fails = 0
    for case in range(n):
        name, zig, body, fn = rng.choice(PACKED)
        used.add("packed: " + name)
        P = rng.randint(1, 6)
        unit = 2 * P if zig else 1
        lens = [unit * rng.randint(0, 3) if zig else rng.randint(0, 6) for _ in range(rng.randint(0, 4))]
        h = rng.randint(1, 3)
        decl = f"sequences L[0..4] n 0..{6 * P if zig else 6}" + (" multiple=2*P" if zig else "")
        spec = (f"dims n h\n{decl}\ninput replicate\n" + ("output shard n\n" + PACKED_REF if zig else "output replicate\n")
                + "tensor x = input\ny = narrow x 0 0 0\nfor j in 0..len(L)-1\n"
                + body.replace("OFF", PACKED_OFF) + "end\n")
        names, sizes = ["n", "h", "L"], [sum(lens), h, ":".join(map(str, lens))]
        ins, outs, why = eval_dump(sc, spec, P, sizes, names, tmp)
        cu = [sum(lens[:j]) for j in range(len(lens) + 1)]
        wants, raised = torch_runs(ins, lambda t, r: fn(t, cu, r, P))
        fails += judged(f"packed case {case} ({name}, L={lens})", spec, sizes, P, outs, why, wants, raised)
        if zig and outs is not None:
            exp = [torch.from_numpy(np.load(os.path.join(tmp, f"rank{k}.expected.npy"))) for k in range(P)]
            fails += judged(f"packed case {case} (zigzag reference, L={lens})", spec, sizes, P, exp, why, wants, raised)
    return fails


def main():
    sc = sys.argv[1]
    ncases = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261124")))  # another seed: more cases
    fails = 0
    used = set()
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(ncases):
            nd = rng.randint(1, 3)
            names = ["a", "b", "c"][:nd]
            sizes = [rng.randint(1, 9) for _ in range(nd)]
            P = rng.randint(1, 8)
            chain = []
            for i in range(rng.randint(1, 3)):
                text, fn = rng.choice(STEPS)
                while "=" in text.split()[1:2] + text.split()[2:3] and i > 0:  # named: first only
                    text, fn = rng.choice(STEPS)
                d = rng.randrange(nd)
                dt = d - nd if rng.random() < 0.3 else d  # negative dims wrap as in ATen
                chain.append((zshape(text, nd, d).replace("D", str(dt)), fn or PADS[text], d))
                used.add(text)
            spec = f"dims {' '.join(names)}\ninput replicate\noutput replicate\n"
            spec += "".join(t + "\n" for t, _, _ in chain)
            ins, outs, why = eval_dump(sc, spec, P, sizes, names, tmp)

            def run(t, r):
                for _, fn, d in chain:
                    t = fn(t, d, r, P)
                return t
            wants, raised = torch_runs(ins, run)
            fails += judged(f"case {case}", spec, sizes, P, outs, why, wants, raised)
        fails += reference_cases(sc, rng, max(1, ncases // 2), tmp, used)
        fails += loop_cases(sc, rng, max(1, ncases // 2), tmp, used)
        fails += packed_cases(sc, rng, max(1, ncases // 4), tmp, used)
        fails += routed_cases(sc, rng, max(1, ncases // 4), tmp, used)
        fails += param_cases(sc, rng, max(1, ncases // 4), tmp, used)
    missing = [t for t, _ in STEPS if t not in used] + \
        ["reference: " + t for t, _ in STEPS + REF_STEPS if "rank" not in t and "reference: " + t not in used] + \
        ["loop: " + t for t, _ in LOOP_STEPS if "loop: " + t not in used] + \
        ["packed: " + t[0] for t in PACKED if "packed: " + t[0] not in used] + \
        ["routed: " + t[0] + k for t in ROUTED for k in ("", " topk") if "routed: " + t[0] + k not in used] + \
        ["param: " + t for t, _ in PARAM_STEPS if "param: " + t not in used]
    if missing:
        print(f"FAILED: steps never drawn: {missing}")
        fails += 1
    print(f"{ncases - fails} passed, {fails} failed ({len(used)} step forms drawn)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
