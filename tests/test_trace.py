"""`shardcheck trace` against the hand-written corpus and against the real
functions run on a gloo group.

For every case in tests/trace/*.py (Python transcriptions of framework
code, each listing CASES):
  1. trace it; `check --seed 1 --property semantics` on the traced spec
     gives the verdict and minimal case that the corpus spec of the same
     code gives (or the case's `expect` where there is no corpus spec);
  2. run the real function on a gloo process group (worlds 1..4, two
     shapes each) on the inputs `eval --dump` writes for the traced spec:
     every rank's result equals the traced spec's output bit for bit, or
     both refuse the case (a `backward` case: torch's autograd runs the
     Function and its backward on X as the output's gradient).
Then: operations with no step, a data-dependent size and steps that change
with the shape exit 2 with the operation and its line; the example test
file using the pytest plugin gives one failure with its minimal case.
Usage: test_trace.py PATH/TO/shardcheck"""
import glob
import importlib.util
import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import types

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src", "python"))
from shardcheck.cli import trace_to_text  # noqa: E402

SC = None
FAILS = []


def free_port():
    """A TCP port no one listens on now (the OS's pick): suites that run at
    once (ctest -j) each rendezvous on their own."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(msg):
    print("FAILED:", msg)
    FAILS.append(msg)


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def verdict(spec):
    p = subprocess.run([SC, "check", "--no-expect", spec, "--seed", "1", "--property", "semantics", "--cases", "500"],
                       capture_output=True, text=True, cwd=ROOT)
    m = re.search(r"minimal case: (.*?)  \(", p.stdout)
    return p.returncode, (m.group(1) if m else None), p.stdout + p.stderr


def trace_case(path, c, out):
    args = types.SimpleNamespace(file=os.path.relpath(path, ROOT), call=c["call"], dims=c["dims"].split(","),
                                 input=c["input"], output=c["output"], mesh=c.get("mesh", ""),
                                 require=list(c.get("require", [])), reference=list(c.get("reference", [])),
                                 name=c["name"], out=out, backward=c.get("backward", False))
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        text = trace_to_text(args)
    finally:
        os.chdir(cwd)
    with open(out, "w") as f:
        f.write(text)
    return text


# gloo lacks these (torch 1.13): the same semantics through what it has
def _ag_into(output, input, group=None, async_op=False):
    P = dist.get_world_size(group)
    parts = [torch.empty_like(input) for _ in range(P)]
    dist.all_gather(parts, input.contiguous(), group=group)
    output.view(-1).copy_(torch.cat([p.reshape(-1) for p in parts]))


def _rs_tensor(output, input, op=dist.ReduceOp.SUM, group=None, async_op=False):
    if not input.is_contiguous():
        raise RuntimeError("Tensors must be contiguous")
    P, r = dist.get_world_size(group), dist.get_rank(group)
    t = input.clone()
    dist.all_reduce(t, op=op, group=group)
    output.view(-1).copy_(t.reshape(-1).chunk(P)[r])


def _rs_list(output, input_list, op=dist.ReduceOp.SUM, group=None, async_op=False):
    r = dist.get_rank(group)
    for i, t in enumerate(input_list):
        t = t.clone()
        dist.all_reduce(t, op=op, group=group)
        if i == r:
            output.copy_(t)


def _a2a(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    if not input.is_contiguous():
        raise RuntimeError("Tensors must be contiguous")
    P = dist.get_world_size(group)
    if P == 1:
        output.copy_(input)
        return
    return _orig_a2a(output, input, output_split_sizes, input_split_sizes, group=group, async_op=async_op)


_orig_a2a = dist.all_to_all_single


def mesh_groups(mesh, r):
    """GROUPS for a mesh [(dim, size)]: this rank's gloo group along each
    dim (every rank creates every group, in the same order)."""
    groups = types.SimpleNamespace()
    shape = [v for _, v in mesh]
    for i, (name, _) in enumerate(mesh):
        for rest in itertools.product(*[range(v) for j, v in enumerate(shape) if j != i]):
            members = []
            for k in range(shape[i]):
                coord = list(rest)
                coord.insert(i, k)
                idx = 0
                for j, v in enumerate(shape):
                    idx = idx * v + coord[j]
                members.append(idx)
            g = dist.new_group(members)
            if r in members:
                setattr(groups, name, g)
    return groups


def real_mesh(mesh, P):
    """MESH on gloo: a DeviceMesh of the case's mesh dims (one dim over the
    world without them), made by every rank (torch 2.x)."""
    from torch.distributed.device_mesh import init_device_mesh
    if mesh:
        return init_device_mesh("cpu", tuple(v for _, v in mesh), mesh_dim_names=tuple(n for n, _ in mesh))
    return init_device_mesh("cpu", (P,))


def gloo_worker(r, P, jobs, port, q):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=r, world_size=P)
    for name, val in (("all_gather_into_tensor", _ag_into), ("_all_gather_base", _ag_into),
                      ("reduce_scatter_tensor", _rs_tensor), ("_reduce_scatter_base", _rs_tensor),
                      ("reduce_scatter", _rs_list), ("all_to_all_single", _a2a)):
        setattr(dist, name, val)
    for path, call, d, label, dims, mesh, backward in jobs:
        mod = load(path)
        x = torch.from_numpy(np.load(os.path.join(d, f"rank{r}.input.npy")).copy())
        groups = mesh_groups(mesh, r)
        try:
            ns = dict(vars(mod), X=x, GROUP=dist.group.WORLD, DIMS=dims, GROUPS=groups,
                      MESH=real_mesh(mesh, P) if "MESH" in call else None)
            if backward:   # torch's own autograd: X is the gradient of the output
                shape = np.load(os.path.join(d, f"rank{r}.expected.npy")).shape
                ns["X"] = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
                eval(call, ns).backward(x.to(torch.float64))
                got = ns["X"].grad
            else:
                got = eval(call, ns)
            err = None
        except Exception as ex:
            got, err = None, f"{type(ex).__name__}: {ex}"
        dist.barrier()
        spec_out = os.path.join(d, f"rank{r}.output.npy")
        if not os.path.exists(spec_out):
            if err is None:
                q.put(f"{label} rank {r}: the traced spec refuses the case, the function returns {list(got.shape)}")
            continue
        want = torch.from_numpy(np.load(spec_out))
        if err is not None:
            q.put(f"{label} rank {r}: the function raises {err}, the traced spec gives {list(want.shape)}")
        elif list(want.shape) != list(got.shape) or not torch.equal(want, got.to(want.dtype)):
            q.put(f"{label} rank {r}: the function gives {list(got.shape)}, the traced spec {list(want.shape)}"
                  f"{' (values differ)' if list(want.shape) == list(got.shape) else ''}")
    dist.barrier()
    dist.destroy_process_group()


SHAPES = ([3, 2, 5, 2, 3, 2], [2, 3, 2, 3, 2, 1])


def _mesh_worlds(c):
    """(world, [(mesh dim, symbol, size)]) to run a case at: every world of
    1..4 ranks, or every mesh shape of sizes 1..2 within 4 ranks."""
    if not c.get("mesh"):
        return [(P, []) for P in (1, 2, 3, 4)]
    dims = [kv.split("=") for kv in c["mesh"].split(",")]
    out = []
    for combo in itertools.product((1, 2), repeat=len(dims)):
        P = 1
        for v in combo:
            P *= v
        if P <= 4:
            out.append((P, [(n, sym, v) for (n, sym), v in zip(dims, combo)]))
    return out


def gloo_compare(entries, tmp):
    """entries: (path, case, traced spec); every rank's function result vs the spec's."""
    by_world = {}
    n = 0
    for path, c, spec in entries:
        dims = c["dims"].split(",")
        for P, mesh in _mesh_worlds(c):
            for si, base in enumerate(SHAPES):
                # admitted sizes: try the base, then multiples of P and 2P
                for mult in (1, P, 2 * P):
                    sizes = ",".join([f"{sym}={v}" for _, sym, v in mesh] +
                                     [f"{dm}={base[i % len(base)] * mult}" for i, dm in enumerate(dims)])
                    d = os.path.join(tmp, f"g{n}")
                    os.makedirs(d, exist_ok=True)
                    p = subprocess.run([SC, "eval", spec, "--world", str(P), "--sizes", sizes, "--dump", d],
                                       capture_output=True, text=True)
                    if p.returncode != 2 or "not valid" not in p.stderr:
                        break
                if p.returncode == 2 and not os.path.exists(os.path.join(d, "rank0.input.npy")):
                    continue
                dimvals = {k: int(v) for k, v in (kv.split("=") for kv in sizes.split(",")) if k in dims}
                by_world.setdefault(P, []).append((path, c["call"], d, f"{c['name']} P={P} {sizes}", dimvals,
                                                   [(name, v) for name, _, v in mesh], c.get("backward", False)))
                n += 1
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    for P, jobs in sorted(by_world.items()):
        port = free_port()
        mp.start_processes(gloo_worker, args=(P, jobs, port, q), nprocs=P, join=True, start_method="spawn")
    bad = 0
    while not q.empty():
        fail("gloo: " + q.get())
        bad += 1
    print(f"gloo: {n} cases (worlds {sorted(by_world)}) of {len(entries)} traced specs, {bad} differ")


def corpus_cases(tmp):
    entries = []
    for path in sorted(glob.glob(os.path.join(HERE, "trace", "*.py"))):
        mod = load(path)
        for c in getattr(mod, "CASES", []):
            out = os.path.join(tmp, c["name"] + ".sc")
            try:
                text = trace_case(path, c, out)
            except Exception as ex:
                fail(f"{c['name']}: trace failed: {ex}")
                continue
            for frag in c.get("has", []):   # lines the traced spec must hold
                if frag not in text:
                    fail(f"{c['name']}: the traced spec has no `{frag}`:\n{text}")
            rc, mini, text = verdict(out)
            if c.get("corpus"):
                crc, cmini, _ = verdict(os.path.join(ROOT, c["corpus"]))
            else:
                crc, cmini = (0 if c.get("expect", "pass") == "pass" else 1), None
            ok = rc == crc and (cmini is None or mini == cmini) and rc in (0, 1)
            print(f"{'ok  ' if ok else 'BAD '} {c['name']:<44} traced {'pass' if rc == 0 else 'fail'} {mini or ''}"
                  f"  | {c.get('corpus') or 'expect ' + c.get('expect', 'pass')} "
                  f"{'pass' if crc == 0 else 'fail'} {cmini or ''}")
            if not ok:
                fail(f"{c['name']}: traced spec gives {rc} {mini}, the corpus {crc} {cmini}\n{text}")
            entries.append((path, c, out))
    return entries


ERRORS = [
    # (call, --input, --output, exit code, message fragments)
    ("uses_expand(X)", "replicate", "replicate", 2, ["errors.py:", "`expand` has no step"]),
    ("copies_into_ones(X)", "replicate", "replicate", 2, ["errors.py:", "`copy_`", "a buffer the function allocated"]),
    ("writes_a_strided_view(X)", "replicate", "replicate", 2, ["errors.py:", "not a slice of one dim"]),
    ("adds(X)", "replicate", "replicate", 2, ["errors.py:", "arithmetic on the values"]),
    ("sizes_from_data(X, GROUP)", "shard s", "replicate", 2, ["errors.py:", "data-dependent value", "tolist"]),
    ("branch_on_size(X, GROUP)", "shard s", "shard s", 2, ["different steps at different shapes"]),
    ("returns_tuple(X)", "replicate", "replicate", 2, ["returned tuple, not a tensor"]),
    ("rejects_sums(X, GROUP)", "replicate", "replicate", 2,
     ["errors.py:45", "raised AssertionError", "no simple condition over the dims and P", "--require"]),
    ("reduce_a_view(X, GROUP)", "partial sum", "replicate", 2, ["errors.py:", "in-place collective changed"]),
    ("catches_view_error(X, GROUP)", "replicate", "replicate", 2, ["errors.py:", "catches the error `view`"]),
    ("nope(X)", "replicate", "replicate", 2, ["--call: NameError"]),
    ("sends_only(X, GROUP)", "shard s", "shard s", 2, ["errors.py:", "a send (to rank", "with no receive"]),
    ("even_ranks(X)", "partial sum", "replicate", 2,
     ["errors.py:", "new_group lists [1, 2] ranks at different worlds", "group=[0, P-1]"]),
    # --backward (the call's Function must take X as it is and give the call's result)
    ("--backward no_function(X)", "replicate", "replicate", 2, ["--backward: the call applies no torch.autograd.Function"]),
    ("--backward applies_to_a_view(X)", "replicate", "replicate", 2, ["X is not one argument of Transposes.apply"]),
    ("--backward steps_after_the_function(X)", "replicate", "replicate", 2,
     ["returns something other than Transposes's output"]),
]


def error_cases():
    for call, inp, outp, code, frags in ERRORS:
        flags = ["--backward"] if call.startswith("--backward ") else []
        call = call[len("--backward "):] if flags else call
        p = subprocess.run([SC, "trace", "tests/trace/errors/errors.py", "--call", call, "--dims", "s,h",
                            "--input", inp, "--output", outp] + flags, capture_output=True, text=True, cwd=ROOT)
        missing = [f for f in frags if f not in p.stderr]
        ok = p.returncode == code and not missing
        print(f"{'ok  ' if ok else 'BAD '} trace {call}: exit {p.returncode}: {p.stderr.strip().splitlines()[0] if p.stderr.strip() else ''}")
        if not ok:
            fail(f"trace {call}: exit {p.returncode} (want {code}), missing {missing}:\n{p.stderr}")


# requires learnt from the code's own checks: (call, the require lines, in order)
LEARNT = [
    ("rejects(X, GROUP)", ["require h % 3 == 0    # learnt: tests/trace/errors/errors.py:33 raises where it does "
                           "not hold"]),
    # X is the local shard: "s must be even" holds where s % (2 * P) == 0 (a first guess from fewer shapes,
    # s % 2 == 0, is replaced when the line raises again)
    ("rejects_twice(X, GROUP)", ["require h % 3 == 0    # learnt: tests/trace/errors/errors.py:38",
                                 "require s % (2 * P) == 0    # learnt: tests/trace/errors/errors.py:40"]),
]


def learnt_cases():
    """An assertion or exception that depends only on sizes becomes a
    require, with its line; the spec then checks (and passes) where the
    code runs."""
    for call, want in LEARNT:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "learnt.sc")
            p = subprocess.run([SC, "trace", "tests/trace/errors/errors.py", "--call", call, "--dims", "s,h",
                                "--input", "shard s", "--output", "shard s", "-o", out, "--check", "--seed", "1",
                                "--cases", "300"], capture_output=True, text=True, cwd=ROOT)
            text = open(out).read() if os.path.exists(out) else ""
        got = [ln for ln in text.splitlines() if ln.startswith("require ") and "learnt" in ln]
        ok = p.returncode == 0 and len(got) == len(want) and all(g.startswith(w) for g, w in zip(got, want)) \
            and all(f"learnt `{w.split('    ')[0]}` from" in p.stderr for w in want)
        print(f"{'ok  ' if ok else 'BAD '} trace {call}: exit {p.returncode}, {'; '.join(got)}")
        if not ok:
            fail(f"trace {call}: exit {p.returncode}, requires {got}, want {want}:\n{p.stderr}\n{p.stdout}\n{text}")


def size_one_case():
    """A contiguous the code skips where the tensor already is contiguous
    (a dim of size 1) does not split the program: the run gets the step."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "one.sc")
        p = subprocess.run([SC, "trace", "tests/trace/errors/errors.py", "--call", "contiguous_if_needed(X, GROUP)",
                            "--dims", "s,h", "--input", "shard s", "--output", "shard s", "-o", out, "--check",
                            "--seed", "1", "--cases", "300"], capture_output=True, text=True, cwd=ROOT)
        text = open(out).read() if os.path.exists(out) else ""
    steps = [ln.split()[0] for ln in text.splitlines() if ln and not ln.startswith(("#", "pipeline", "dims", "input",
                                                                                       "output", "require"))]
    ok = p.returncode == 0 and steps == ["transpose", "contiguous", "transpose"]
    print(f"{'ok  ' if ok else 'BAD '} trace contiguous_if_needed: exit {p.returncode}, steps {steps}")
    if not ok:
        fail(f"trace contiguous_if_needed: exit {p.returncode}, steps {steps}:\n{p.stderr}\n{p.stdout}\n{text}")


def few_values_case():
    """A size seen with two values only (the runs after a step that raises
    at most shapes) is not fitted by an affine guess (4*s-15 fits any two
    points of slope 4): it is s/(P*P)."""
    p = subprocess.run([SC, "trace", "tests/trace/errors/errors.py", "--call", "splits_the_local_shard(X, GROUP)",
                        "--dims", "s,h", "--input", "shard s", "--output", "shard s"],
                       capture_output=True, text=True, cwd=ROOT)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("reshape")), "")
    ok = p.returncode == 0 and line.startswith("reshape [P, s/(P*P), -1]")
    print(f"{'ok  ' if ok else 'BAD '} trace splits_the_local_shard: exit {p.returncode}, {line[:40]}")
    if not ok:
        fail(f"trace splits_the_local_shard: exit {p.returncode}, {line!r}:\n{p.stderr}\n{p.stdout}")


def p2p_cases():
    """A send and a receive on each rank, in either order: one sendrecv step."""
    for call in ("send_then_recv(X, GROUP)", "recv_then_send(X, GROUP)"):
        p = subprocess.run([SC, "trace", "tests/trace/errors/errors.py", "--call", call, "--dims", "s,h",
                            "--input", "shard s", "--output", "shard s"], capture_output=True, text=True, cwd=ROOT)
        line = next((ln for ln in p.stdout.splitlines() if ln.startswith("sendrecv")), "")
        ok = p.returncode == 0 and line.startswith("sendrecv to=(rank+1)%P from=(rank-1)%P")
        print(f"{'ok  ' if ok else 'BAD '} trace {call}: exit {p.returncode}, {line[:40]}")
        if not ok:
            fail(f"trace {call}: exit {p.returncode}, {line!r}:\n{p.stderr}\n{p.stdout}")


def partial_case():
    """check_layout takes a functools.partial (and names the function behind it)."""
    import functools
    from shardcheck import api
    mod = load(os.path.join(ROOT, "examples", "pytest", "test_ulysses_layout.py"))
    kw = dict(dims="s,b,h,d", input="shard h", output="shard s", seed=1, cases=300)
    with tempfile.TemporaryDirectory() as d:
        try:
            api.check_layout(functools.partial(mod.head_to_seq, fixed=True), report_dir=os.path.join(d, "a"), **kw)
            good = True
        except Exception as ex:     # noqa: BLE001 -- reported below
            good = f"{type(ex).__name__}: {ex}"
        try:
            api.check_layout(functools.partial(mod.head_to_seq, fixed=False), report_dir=os.path.join(d, "b"), **kw)
            bad = "passed"
        except api.LayoutError as ex:
            bad = str(ex)
    ok = good is True and bad.startswith("head_to_seq: the layout is wrong") and \
        "minimal case: world=2 s=2 b=2 h=2 d=1" in bad
    print(f"{'ok  ' if ok else 'BAD '} check_layout(functools.partial(...)): fixed {good}, buggy "
          f"{bad.splitlines()[0] if bad else bad}")
    if not ok:
        fail(f"check_layout of a partial: fixed {good}; buggy {bad}")


def cli_case():
    """The command line end to end, with --check."""
    p = subprocess.run([SC, "trace", "tests/trace/deepspeed_ulysses.py", "--call",
                        "single_all_to_all_before_5664(X, 0, 2, GROUP)", "--dims", "s,b,h,d", "--input", "shard h",
                        "--output", "shard s", "--check", "--seed", "1", "--property", "semantics"],
                       capture_output=True, text=True, cwd=ROOT)
    ok = p.returncode == 1 and "minimal case: world=2 s=2 b=2 h=2 d=1" in p.stdout and \
        "reshape [P, s/P, b, h/P, d]" in p.stdout
    print(f"{'ok  ' if ok else 'BAD '} shardcheck trace ... --check: exit {p.returncode}")
    if not ok:
        fail(f"trace --check: exit {p.returncode}\n{p.stdout}\n{p.stderr}")


def pytest_example():
    try:
        import pytest  # noqa: F401
    except ImportError:
        print("skip pytest example: no pytest (apt-get install python3-pytest)")
        return
    with tempfile.TemporaryDirectory() as rep:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src", "python"), SHARDCHECK_BIN=SC)
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                            "shardcheck.pytest_plugin", "examples/pytest/test_ulysses_layout.py",
                            "--shardcheck-seed", "1", "--shardcheck-reports", rep],
                           capture_output=True, text=True, cwd=ROOT, env=env)
    ok = p.returncode == 1 and "1 failed, 1 passed" in p.stdout and \
        "minimal case: world=2 s=2 b=2 h=2 d=1" in p.stdout and "FAILED examples/pytest/test_ulysses_layout.py" \
        "::test_head_to_seq_buggy" in p.stdout and "Falsifying layout found with seed 1" in p.stdout and \
        "diagnosis: dims b and h swapped" in p.stdout
    print(f"{'ok  ' if ok else 'BAD '} pytest example: exit {p.returncode}, {p.stdout.strip().splitlines()[-1]}")
    if not ok:
        fail("pytest example:\n" + p.stdout[-3000:] + p.stderr[-2000:])


def main():
    global SC
    SC = os.path.abspath(sys.argv[1])
    os.environ["SHARDCHECK_BIN"] = SC
    with tempfile.TemporaryDirectory() as tmp:
        entries = corpus_cases(tmp)
        error_cases()
        learnt_cases()
        size_one_case()
        partial_case()
        few_values_case()
        p2p_cases()
        cli_case()
        pytest_example()
        gloo_compare(entries, tmp)
    print(f"{len(entries)} traced cases; {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
