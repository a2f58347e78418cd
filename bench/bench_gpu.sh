#!/usr/bin/env bash
# GPU figures, each against a baseline measured in the same run:
#   1. the copy kernels against cudaMemcpyAsync (sc_bench_gpu);
#   2. cases per second on cuda and on nccl against sim (builtin:all and the
#      DeepSpeed spec, semantics, small cases; nccl at the worlds the
#      visible GPUs allow);
#   3. the gate on the example CUDA plugin against the same transform as
#      a spec, both on cuda;
#   4. one large case through `eval` (a bf16 [s, b, h, d] DeepSpeed
#      all-to-all, world 8): elements/s and GB/s on cuda against sim, whole
#      command timed (start-up, fill, collective and check).
# Usage: bench/bench_gpu.sh [CASES] [BUILD_DIR]
set -eu
n=${1:-5000}
b=${2:-build}
"$b/sc_bench_gpu"
exec python3 - "$n" "$b" <<'PY'
import json, subprocess, sys, tempfile, time
n, b = int(sys.argv[1]), sys.argv[2]
sc = b + "/shardcheck"
try:
    ngpu = max(1, subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU "))
except OSError:
    ngpu = 1
def run(args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        t0 = time.time()
        p = subprocess.run([sc] + args + ["--json", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dt = time.time() - t0
        if p.returncode == 2:
            return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit 2"
        return sum(r["cases"] for r in json.load(open(f.name))["results"]) / dt, None
for target in ["builtin:all", "corpus/deepspeed/sf-head2seq-batchdim.sc"]:
    args = ["check", target, "--property", "semantics", "--cases", str(n), "--seed", "1", "-q"]
    s, _ = run(args)
    line = f"{target:44s} sim {s:9.0f} cases/s"
    for be, extra in [("cuda", []), ("nccl", ["--world", f"1..{ngpu}"])]:
        base, _ = run(args + extra) if extra else (s, None)
        c, err = run(args + extra + ["--backend", be])
        line += f", {be} {c:8.0f} cases/s ({be}/sim {c/base:.3f})" if c else f", {be}: {err}"
    print(line)
# the gate on the example CUDA plugin (the Ulysses all-to-all and unpack
# kernel, in plugin processes with CUDA contexts of their own) against the
# same transform as a spec, both on cuda, semantics, whole commands
ex = b + "/examples/libcuda_heads_to_seq.so"
spec_args = ["check", "corpus/deepspeed/sf-head2seq-batchdim.sc", "--property", "semantics", "--cases", str(n),
             "--seed", "1", "-q", "--backend", "cuda"]
sp, err = run(spec_args)
g, gerr = run(["gate", "--plugin", ex, "--property", "semantics", "--cases", str(n), "-q", "--backend", "cuda"])
if sp and g:
    print(f"gate cuda_heads_to_seq on cuda {g:8.0f} cases/s; the same transform as a spec on cuda {sp:8.0f} cases/s (gate/spec {g/sp:.2f})")
else:
    print(f"gate on cuda: {gerr or err}")
s, bsz, h, d, world = 8192, 4, 64, 128, 8
elems = s * bsz * h * d
for be in ["sim", "cuda"]:
    t0 = time.time()
    p = subprocess.run([sc, "eval", "corpus/deepspeed/sf-seq2head.sc", "--backend", be, "--world", str(world),
                        "--sizes", f"s={s},b={bsz},h={h},d={d}", "--dtype", "bf16", "--case-memory", "65536"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.time() - t0
    if p.returncode != 0:
        print(f"eval {elems} bf16 elements on {be}: exit {p.returncode}: {p.stderr.strip()[-200:]}")
        continue
    print(f"eval {elems} bf16 elements, world {world}, on {be:4s}: {dt:6.2f} s, {elems/dt/1e6:8.1f} M elements/s, {2*elems/dt/1e9:6.2f} GB/s of tensor")
PY
