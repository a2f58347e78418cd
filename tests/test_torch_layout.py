"""Placements against PyTorch itself: on random cases (1-3 dims, world 1..8,
sizes 1..9 so that some shards are empty, `chunk`, `split` and `zigzag`
rules (zigzag: blocks r and 2P-1-r of torch.chunk(X, 2P)), merged groups
sharded as a whole (`shard (a b)`: X.flatten then chunk), sizes=E
(torch.split by E(r), the dim's size their sum), a
random `as` permutation with a merged group anywhere), every rank's local
input written by `shardcheck eval --dump` must be, bit for bit,
torch.chunk (or torch.tensor_split) of the global tensor X, permuted and
merged as the layout says. X itself comes from the same eval of a
replicated input (values depend only on the seed and the global index).
Usage: test_torch_layout.py PATH/TO/shardcheck [CASES]"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch


def eval_dump(sc, spec_text, world, sizes, names, out):
    spec = os.path.join(out, "s.sc")
    with open(spec, "w") as f:
        f.write(spec_text)
    arg = ",".join(f"{n}={v}" for n, v in zip(names, sizes))
    r = subprocess.run([sc, "eval", spec, "--world", str(world), "--sizes", arg, "--seed", "7",
                        "--dump", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"eval failed ({r.returncode}):\n{spec_text}{r.stdout}{r.stderr}")
    return [torch.from_numpy(np.load(os.path.join(out, f"rank{k}.input.npy"))) for k in range(world)]


def merged_case(sc, rng, names, sizes, P, head, tmp, case):
    """`shard (x y) RULE as ... (x y) ...`: X's consecutive dims d, d+1 merged
    (X.flatten(d, d+1)), then torch.chunk / tensor_split of that dim."""
    nd = len(names)
    d = rng.randrange(nd - 1)
    rule = rng.choice(["chunk", "split"])
    group = f"({names[d]} {names[d + 1]})"
    layout = " ".join(names[:d] + [group] + names[d + 2:])
    X = eval_dump(sc, head + "input replicate\noutput replicate\n", 1, sizes, names, tmp)[0]
    place = f"shard {group} {rule} as {layout}"
    got = eval_dump(sc, head + f"input {place}\noutput {place}\n", P, sizes, names, tmp)
    flat = X.flatten(d, d + 1)
    pieces = torch.chunk(flat, P, d) if rule == "chunk" else torch.tensor_split(flat, P, d)
    for r in range(P):
        want = pieces[r] if r < len(pieces) else flat.narrow(d, flat.shape[d], 0)
        if list(want.shape) != list(got[r].shape) or not torch.equal(want, got[r]):
            print(f"FAILED case {case}: sizes {sizes} P={P} input {place}: rank {r} "
                  f"holds {list(got[r].shape)}, torch gives {list(want.shape)}")
            return 1
    return 0


def main():
    sc = sys.argv[1]
    ncases = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261124")))  # another seed: more cases
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(ncases):
            nd = rng.randint(1, 3)
            names = ["a", "b", "c"][:nd]
            sizes = [rng.randint(1, 9) for _ in range(nd)]
            P = rng.randint(1, 8)
            d = rng.randrange(nd)
            rule = rng.choice(["chunk", "split", "zigzag", "sizes"])
            if rule == "zigzag":  # 2P equal blocks
                sizes[d] = 2 * P * rng.randint(1, 2)
            lens = None
            if rule == "sizes":  # sizes=E: torch.split by E(r), the dim's size their sum
                form, fn = rng.choice([("r+1", lambda r: r + 1), ("(2 if r%2==0 else 0)", lambda r: 2 if r % 2 == 0 else 0),
                                       ("P-r", lambda r: P - r), ("(1 if r==P-1 else 0)", lambda r: 1 if r == P - 1 else 0)])
                lens = [fn(r) for r in range(P)]
                if sum(lens) == 0:
                    form, lens = "r+1", [r + 1 for r in range(P)]
                sizes[d] = sum(lens)
                rule = f"sizes={form}"
            order = list(range(nd))
            rng.shuffle(order)
            i = rng.randrange(nd)
            j = rng.randrange(i, nd)  # positions i..j merged into one group
            toks = []
            for k, o in enumerate(order):
                t = names[o]
                if k == i and j > i:
                    t = "(" + t
                if k == j and j > i:
                    t = t + ")"
                toks.append(t)
            layout = " ".join(toks)
            head = f"dims {' '.join(names)}\n"
            if nd >= 2 and rng.random() < 0.25:  # shard (a b): a merged group chunked as a whole
                fails += merged_case(sc, rng, names, sizes, P, head, tmp, case)
                continue
            X = eval_dump(sc, head + "input replicate\noutput replicate\n", 1, sizes, names, tmp)[0]
            place = f"shard {names[d]} {rule} as {layout}"
            got = eval_dump(sc, head + f"input {place}\noutput {place}\n", P, sizes, names, tmp)
            if lens is not None:
                pieces = torch.split(X, lens, d)
            elif rule == "zigzag":  # ring attention's load balance: blocks r and 2P-1-r
                blocks = torch.chunk(X, 2 * P, d)
                pieces = [torch.cat([blocks[r], blocks[2 * P - 1 - r]], d) for r in range(P)]
            else:
                pieces = torch.chunk(X, P, d) if rule == "chunk" else torch.tensor_split(X, P, d)
            for r in range(P):
                piece = pieces[r] if r < len(pieces) else X.narrow(d, X.shape[d], 0)
                piece = piece.permute(order)
                shape, pos = [], 0
                for k in range(nd):
                    if i < k <= j:
                        shape[-1] *= piece.shape[k]
                    else:
                        shape.append(piece.shape[k])
                want = piece.reshape(shape)
                if list(want.shape) != list(got[r].shape) or not torch.equal(want, got[r]):
                    fails += 1
                    print(f"FAILED case {case}: sizes {sizes} P={P} input {place}: rank {r} "
                          f"holds {list(got[r].shape)}, torch gives {list(want.shape)}")
                    break
    print(f"{ncases - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
