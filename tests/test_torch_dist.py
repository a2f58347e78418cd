"""Language 2's sized exchanges against torch.distributed itself: random
cases (world 1..8, uneven torch.chunk / tensor_split inputs of 1-3 dims,
sizes 1..9 so that shards are empty) run one exchange in `shardcheck eval
--dump`; then a gloo process group of the same world runs the same
exchange with torch.distributed on the dumped inputs, and every rank's
dumped output must equal torch's bit for bit:
  all_to_all_single in=E out=F  dist.all_to_all_single(out, t, F, E)
                                (also with drawn MoE routing counts C)
  shift K                       dist.batch_isend_irecv (send to r+K, recv)
  broadcast src=E               dist.broadcast(t, E)
  sendrecv to=E from=F          dist.batch_isend_irecv (a pipeline's stages)
  gather dim=0 dst=E            dist.gather, torch.cat on dst
  scatter dim=i src=E           dist.scatter of src's tensor.chunk(P, i)
  reduce OP dst=E               dist.reduce
  reduce_scatter ... sizes=E    dist.all_reduce, then the rank's rows
  all_gather dim=i (uneven)     dist.all_gather_object, torch.cat(dim=i)
                                (gloo's all_gather refuses unequal sizes)
  STEP group=[E, ...]           dist.new_group(ranks), the collective on it
                                (all_reduce, all_gather_into_tensor,
                                broadcast src=0, reduce_scatter_tensor);
                                the ranks left out keep their tensor
Usage: test_torch_dist.py PATH/TO/shardcheck [CASES]"""
import os
import random
import socket
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def free_port():
    """A TCP port no one listens on now (the OS's pick): suites that run at
    once (ctest -j) each rendezvous on their own."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cdiv(a, b):
    return -(-a // b)


def chunk_rows(L, P, r):
    c = cdiv(L, P)
    return min((r + 1) * c, L) - min(r * c, L)


def split_rows(L, P, r):
    return L // P + (1 if r < L % P else 0)


def split_start(L, P, r):
    return r * (L // P) + min(r, L % P)


def chunk_start(L, P, r):
    return min(r * cdiv(L, P), L)


# Each exchange: spec text, then a function of (case, rank) giving torch's result.
# Text uses the spec language; the Python mirrors it with the same formulas.
REDIST = ("max(0,min(min((src+1)*cdiv(a,P),a),dst*(a//P)+min(dst,a%P)+a//P+(1 if dst<a%P else 0))"
          "-max(min(src*cdiv(a,P),a),dst*(a//P)+min(dst,a%P)))")


def redist(L, P, src, dst):
    lo = max(chunk_start(L, P, src), split_start(L, P, dst))
    hi = min(chunk_start(L, P, src) + chunk_rows(L, P, src), split_start(L, P, dst) + split_rows(L, P, dst))
    return max(0, hi - lo)


def cases(rng, n):
    out = []
    for _ in range(n):
        nd = rng.randint(1, 3)
        names = ["a", "b", "c"][:nd]
        sizes = [rng.randint(1, 9) for _ in range(nd)]
        P = rng.randint(1, 8)
        kind = rng.choice(["redist", "next", "shift", "shift_pairs", "bcast", "allgather", "sendrecv",
                           "gather", "reduce", "rs_sizes", "moe", "scatter", "subgroup"])
        counts = None
        rule = "chunk"
        members = None
        if kind == "subgroup":  # a random set of ranks, listed in any order (new_group sorts them)
            members = rng.sample(range(P), rng.randint(1, P))
            op = rng.choice(["all_reduce sum", "all_gather_into_tensor", "broadcast src=0", "reduce_scatter_tensor sum"])
            if op.startswith("reduce_scatter"):
                sizes[0] = len(members) * rng.randint(1, 3)
            text = ", ".join(str(m) if rng.random() < 0.7 or m == 0 else f"P-{P - m}" for m in members)
            rule = "partial sum"
            step = f"{op} group=[{text}]"
            kind = "subgroup"
        if kind == "subgroup":
            pass
        elif kind == "redist":
            step = f"all_to_all_single splits={REDIST}"
        elif kind == "next":  # everything to the next rank; the receiver sizes by chunk
            step = ("all_to_all_single in=(size(0) if dst==(src+1)%P else 0) "
                    "out=(min((src+1)*cdiv(a,P),a)-min(src*cdiv(a,P),a) if dst==(src+1)%P else 0)")
        elif kind == "shift":
            rule = rng.choice(["chunk", "split"])
            step = f"shift {rng.choice(['1', 'P-1', '2', '-1'])}"
        elif kind == "shift_pairs":
            if P % 2:
                P += 1 if P < 8 else -1
            rule = "split"
            step = "shift (1 if rank%2==0 else -1)"
        elif kind == "bcast":
            rule = None
            step = f"broadcast src={rng.choice(['0', 'P-1', 'P//2'])}"
        elif kind == "allgather":
            rule = rng.choice(["chunk", "split"])
            step = "all_gather dim=0"
        elif kind == "sendrecv":  # a pipeline: the first stage receives nothing, the last sends nothing
            rule = rng.choice(["chunk", "split"])
            step = "sendrecv to=(rank+1 if rank<P-1 else none) from=(rank-1 if rank>0 else none)"
        elif kind == "gather":
            rule = ""
            sizes[0] = P * rng.randint(1, 3)
            step = f"gather dim=0 dst={rng.choice(['0', 'P-1'])}"
        elif kind == "scatter":  # src's chunks; dim i divisible by P
            rule = None
            i = rng.randrange(nd)
            sizes[i] = P * rng.randint(1, 3)
            step = f"scatter dim={i - nd if rng.random() < 0.3 else i} src={rng.choice(['0', 'P-1', 'P//2'])}"
        elif kind == "reduce":
            rule = None
            step = f"reduce {rng.choice(['sum', 'max'])} dst={rng.choice(['0', 'P-1'])}"
        elif kind == "moe":  # MoE dispatch: drawn routing counts, rank src holds rowsum(C, src) tokens
            counts = [[rng.choice([0, 0, 1, 2, 3]) for _ in range(P)] for _ in range(P)]
            if sum(map(sum, counts)) == 0:
                counts[rng.randrange(P)][rng.randrange(P)] = 1
            sizes[0] = sum(map(sum, counts))
            rule = "sizes=rowsum(C,r)"
            step = "all_to_all_single in=C(src,dst) out=C(src,dst)"
        else:
            rule = None
            step = "reduce_scatter dim=0 op=sum sizes=a//P+(1 if dst<a%P else 0)"
        place = "partial sum" if kind == "subgroup" else f"shard a {rule}".strip() if rule is not None else "replicate"
        decl = "counts C 0..3\n" if counts else ""
        spec = f"dims {' '.join(names)}\n{decl}input {place}\noutput replicate\n{step}\n"
        out.append({"kind": kind, "step": step, "spec": spec, "sizes": sizes, "names": names, "P": P,
                    "counts": counts, "members": members})
    return out


def eval_dump(sc, c, d):
    os.makedirs(d, exist_ok=True)
    spec = os.path.join(d, "s.sc")
    with open(spec, "w") as f:
        f.write(c["spec"])
    arg = ",".join(f"{n}={v}" for n, v in zip(c["names"], c["sizes"]))
    if c["counts"]:  # C=a:b/c:d
        arg += ",C=" + "/".join(":".join(str(v) for v in row) for row in c["counts"])
    r = subprocess.run([sc, "eval", spec, "--world", str(c["P"]), "--sizes", arg, "--seed", "3",
                        "--dump", d], capture_output=True, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(os.path.join(d, "rank0.output.npy")):
        raise SystemExit(f"eval failed ({r.returncode}):\n{c['spec']}{r.stdout}{r.stderr}")


def torch_result(c, d, r, P):
    """Rank r's result of the case's exchange, by torch.distributed."""
    t = torch.from_numpy(np.load(os.path.join(d, f"rank{r}.input.npy"))).contiguous()
    L = c["sizes"][0]
    k = c["kind"]
    if k == "subgroup":  # every rank makes the group; its members run the collective on it
        ranks = sorted(c["members"])
        g = dist.new_group(ranks)
        if r not in ranks:
            return t
        n = len(ranks)
        op = c["step"].split(" group=")[0]
        if op == "all_reduce sum":
            out = t.clone()
            dist.all_reduce(out, group=g)
            return out
        if op == "broadcast src=0":
            out = t.clone()
            dist.broadcast(out, ranks[0], group=g)
            return out
        parts = [torch.empty_like(t) for _ in range(n)]
        dist.all_gather(parts, t, group=g)  # gloo: list forms of the tensor collectives
        if op == "all_gather_into_tensor":
            return torch.cat(parts, 0)
        return torch.stack(parts).sum(0).chunk(n, 0)[ranks.index(r)].to(t.dtype)
    if k == "moe":
        C = c["counts"]
        out = t.new_empty([sum(C[j][r] for j in range(P))] + list(t.shape[1:]))
        dist.all_to_all_single(out, t, [C[j][r] for j in range(P)], [C[r][j] for j in range(P)])
        return out
    if k in ("redist", "next"):
        if k == "redist":
            ins = [redist(L, P, r, j) for j in range(P)]
            outs = [redist(L, P, j, r) for j in range(P)]
        else:
            ins = [t.shape[0] if j == (r + 1) % P else 0 for j in range(P)]
            outs = [chunk_rows(L, P, j) if r == (j + 1) % P else 0 for j in range(P)]
        out = t.new_empty([sum(outs)] + list(t.shape[1:]))
        dist.all_to_all_single(out, t, outs, ins)
        return out
    if k in ("shift", "shift_pairs"):
        K = {"1": 1, "P-1": P - 1, "2": 2, "-1": -1}.get(c["step"].split()[1], None)
        if K is None:
            K = 1 if r % 2 == 0 else -1
            src = (r - 1) % P if r % 2 == 1 else (r + 1) % P
        else:
            src = (r - K) % P
        shapes = [None] * P
        dist.all_gather_object(shapes, list(t.shape))
        if src == r:  # a send to oneself (gloo's p2p to self crashes; NCCL copies)
            return t.clone()
        out = t.new_empty(shapes[src])
        ops = [dist.P2POp(dist.isend, t, (r + K) % P), dist.P2POp(dist.irecv, out, src)]
        for q in dist.batch_isend_irecv(ops):
            q.wait()
        return out
    if k == "bcast":
        src = {"0": 0, "P-1": P - 1, "P//2": P // 2}[c["step"].split("=")[1]]
        out = t.clone()
        dist.broadcast(out, src)
        return out
    if k == "allgather":
        parts = [None] * P
        dist.all_gather_object(parts, t)
        return torch.cat(parts, 0)
    if k == "sendrecv":
        ops = []
        if r < P - 1:
            ops.append(dist.P2POp(dist.isend, t, r + 1))
        out = t
        if r > 0:
            shapes = [None] * P
            dist.all_gather_object(shapes, list(t.shape))
            out = t.new_empty(shapes[r - 1])
            ops.append(dist.P2POp(dist.irecv, out, r - 1))
        else:
            dist.all_gather_object([None] * P, list(t.shape))
        for q in (dist.batch_isend_irecv(ops) if ops else []):
            q.wait()
        return out
    if k == "gather":
        dst = 0 if c["step"].endswith("dst=0") else P - 1
        parts = [torch.empty_like(t) for _ in range(P)] if r == dst else None
        dist.gather(t, parts, dst=dst)
        return torch.cat(parts, 0) if r == dst else t
    if k == "scatter":
        i = int(c["step"].split()[1].split("=")[1])
        src = {"0": 0, "P-1": P - 1, "P//2": P // 2}[c["step"].split("src=")[1]]
        pieces = [p.contiguous() for p in t.chunk(P, i)]
        out = torch.empty_like(pieces[0])
        dist.scatter(out, pieces if r == src else None, src=src)
        return out
    if k == "reduce":
        dst = 0 if c["step"].endswith("dst=0") else P - 1
        op = dist.ReduceOp.SUM if " sum " in c["step"] else dist.ReduceOp.MAX
        out = t.clone()
        dist.reduce(out, dst=dst, op=op)
        return out if r == dst else t
    # reduce_scatter with tensor_split's sizes: gloo has no reduce_scatter,
    # so all_reduce, then this rank's rows
    out = t.clone()
    dist.all_reduce(out)
    return out.narrow(0, split_start(L, P, r), split_rows(L, P, r))


def worker(r, P, jobs, port, fails):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=r, world_size=P)
    for c, d in jobs:
        want = torch_result(c, d, r, P)
        got = torch.from_numpy(np.load(os.path.join(d, f"rank{r}.output.npy")))
        if list(want.shape) != list(got.shape) or not torch.equal(want, got):
            fails.put(f"sizes {c['sizes']} P={P} `{c['step']}`: rank {r} holds {list(got.shape)}, "
                      f"torch gives {list(want.shape)}")
    dist.barrier()
    dist.destroy_process_group()


def main():
    sc = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    rng = random.Random(int(os.environ.get("SC_TORCH_SEED", "20261124")))  # another seed: more cases
    all_cases = cases(rng, n)
    ctx = mp.get_context("spawn")
    fails = ctx.Queue()
    kinds = set()
    with tempfile.TemporaryDirectory() as tmp:
        by_world = {}
        for i, c in enumerate(all_cases):
            d = os.path.join(tmp, str(i))
            eval_dump(sc, c, d)
            by_world.setdefault(c["P"], []).append((c, d))
            kinds.add(c["kind"])
        for P, jobs in sorted(by_world.items()):
            port = free_port()
            mp.start_processes(worker, args=(P, jobs, port, fails), nprocs=P, join=True, start_method="spawn")
    bad = []
    while not fails.empty():
        bad.append(fails.get())
    for b in bad:
        print("FAILED:", b)
    if len(kinds) < 12:
        print(f"FAILED: only {sorted(kinds)} drawn")
        bad.append("kinds")
    print(f"{n} cases on {len(by_world)} worlds: {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
