"""Differential test of the step interpreter against PyTorch itself.

Random programs of local steps run on torch.arange data in PyTorch and in
shardcheck (sc_stepdump). After every step the shape, the strides and
is_contiguous() must agree, an error must happen at the same step, and the
final elements must be the same. Strides are compared because they decide
what later steps do: whether `view` succeeds, whether a collective accepts
the tensor, what `raw` reads.
"""
import os
import random
import subprocess
import sys
import tempfile

import torch

DUMP = sys.argv[1]
N_PROGRAMS = int(os.environ.get("SC_TORCH_PROGRAMS", "400"))


def factor_shape(n, rng):
    """A random shape with n elements (1 to 5 dims), maybe with a -1."""
    dims = []
    rest = n
    for _ in range(rng.randint(0, 4)):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divs)
        dims.append(d)
        rest //= d
    dims.append(rest)
    rng.shuffle(dims)
    if rng.random() < 0.3:
        dims[rng.randrange(len(dims))] = -1
    if rng.random() < 0.05:
        dims[rng.randrange(len(dims))] += 1  # wrong element count
    return dims


def gen_step(x, rng, P):
    nd = x.dim()
    r = rng.random()
    d = lambda lo, hi: rng.randint(lo, hi)
    n1 = max(nd, 1)
    if r < 0.18:
        return "reshape", factor_shape(x.numel(), rng)
    if r < 0.30:
        return "view", factor_shape(x.numel(), rng)
    if r < 0.38:
        return "flatten", (d(-n1, n1 - 1), d(-n1, n1 - 1))
    if r < 0.45:
        return "unsqueeze", (d(-nd - 1, nd),)
    if r < 0.52:
        return "squeeze", (d(-n1, n1 - 1),)
    if r < 0.60:
        return "movedim", (d(-n1, n1 - 1), d(-n1, n1 - 1))
    if r < 0.75:
        return "transpose", (d(-n1, n1 - 1), d(-n1, n1 - 1))
    if r < 0.85:
        p = list(range(nd))
        rng.shuffle(p)
        if rng.random() < 0.05:
            p = p[:-1]
        return "permute", tuple(p)
    if r < 0.90:
        return "contiguous", ()
    return "chunk_cat", (d(-n1, n1 - 1), d(-n1, n1 - 1))


def apply(x, step, P):
    op, a = step
    if op == "reshape":
        return x.reshape(a)
    if op == "view":
        return x.view(a)
    if op == "flatten":
        return torch.flatten(x, a[0], a[1])
    if op == "unsqueeze":
        return x.unsqueeze(a[0])
    if op == "squeeze":
        return x.squeeze(a[0])
    if op == "movedim":
        return torch.movedim(x, a[0], a[1])
    if op == "transpose":
        return x.transpose(a[0], a[1])
    if op == "permute":
        return x.permute(list(a))
    if op == "contiguous":
        return x.contiguous()
    if op == "chunk_cat":
        return torch.cat(x.chunk(P, a[0]), dim=a[1])
    raise AssertionError(op)


def step_text(step):
    op, a = step
    if op in ("reshape", "view"):
        return f"{op} [{', '.join(str(v) for v in a)}]"
    if op == "chunk_cat":
        return f"chunk_cat chunk={a[0]} cat={a[1]}"
    return " ".join([op] + [str(v) for v in a])


def main():
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261120")))  # another seed: more cases
    failures = 0
    steps_checked = errors_matched = 0
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = os.path.join(tmp, "p.sc")
        for prog in range(N_PROGRAMS):
            nd = rng.randint(1, 4)
            sizes = [rng.choice([1, 1, 2, 2, 3, 4]) for _ in range(nd)]
            P = rng.randint(1, 4)
            x = torch.arange(int(torch.tensor(sizes).prod().item())).reshape(sizes)
            steps, want = [], []
            for _ in range(rng.randint(1, 8)):
                if x.dim() > 7:
                    break
                st = gen_step(x, rng, P)
                steps.append(st)
                try:
                    x = apply(x, st, P)
                    want.append(("ok", list(x.shape), list(x.stride()), int(x.is_contiguous())))
                except (RuntimeError, IndexError, ValueError):
                    want.append(("err",))
                    break
            names = [f"a{i}" for i in range(nd)]
            with open(spec_path, "w") as f:
                f.write(f"dims {' '.join(names)}\ninput replicate\noutput replicate\n")
                for st in steps:
                    f.write(step_text(st) + "\n")
            out = subprocess.run([DUMP, spec_path, str(P)] + [str(s) for s in sizes],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print(f"program {prog}: sc_stepdump failed: {out.stderr.strip()}")
                failures += 1
                continue
            lines = out.stdout.splitlines()
            prog_text = "; ".join(step_text(s) for s in steps)
            for i, w in enumerate(want):
                got = lines[i] if i < len(lines) else "<missing>"
                if w[0] == "err":
                    if not got.startswith("err "):
                        print(f"program {prog} {sizes} P={P} [{prog_text}] step {i}: torch raised, shardcheck: {got}")
                        failures += 1
                    else:
                        errors_matched += 1
                    break
                exp = f"ok {w[1]} {w[2]} {w[3]}"
                steps_checked += 1
                if got != exp:
                    print(f"program {prog} {sizes} P={P} [{prog_text}] step {i}: torch {exp}, shardcheck {got}")
                    failures += 1
                    break
            else:
                vals = lines[-1].split()[1:] if lines and lines[-1].startswith("vals") else None
                if vals is not None and [int(v) for v in vals] != x.flatten().tolist():
                    print(f"program {prog} {sizes} P={P} [{prog_text}]: element order differs")
                    failures += 1
    print(f"torch {torch.__version__}: {N_PROGRAMS} programs, {steps_checked} steps compared "
          f"(shape, strides, contiguity), {errors_matched} errors matched")
    print(f"{N_PROGRAMS - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
