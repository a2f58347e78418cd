#!/usr/bin/env bash
# GPU figures: the copy kernels against cudaMemcpyAsync (sc_bench_gpu), then
# cases per second on cuda against sim in the same run (builtin:all and the
# DeepSpeed spec, semantics, small cases). Usage: bench/bench_gpu.sh [CASES]
set -eu
n=${1:-5000}
./build/sc_bench_gpu
exec python3 - "$n" <<'PY'
import json, subprocess, sys, tempfile, time
n = int(sys.argv[1])
sc = "./build/shardcheck"
def run(args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        t0 = time.time()
        p = subprocess.run([sc] + args + ["--json", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dt = time.time() - t0
        if p.returncode == 2:
            sys.exit("cases/s: " + p.stderr.strip())
        return sum(r["cases"] for r in json.load(open(f.name))["results"]) / dt
for target in ["builtin:all", "corpus/deepspeed/sf-head2seq-batchdim.sc"]:
    args = ["check", target, "--property", "semantics", "--cases", str(n), "--seed", "1", "-q"]
    s, c = run(args), run(args + ["--backend", "cuda"])
    print(f"{target:44s} sim {s:9.0f} cases/s, cuda {c:8.0f} cases/s (cuda/sim {c/s:.3f})")
PY
