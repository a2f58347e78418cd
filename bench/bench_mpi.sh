#!/usr/bin/env bash
# Cases per second on the mpi backend with 2 and 4 processes against sim in
# the same run (builtin:all_to_all and the DeepSpeed spec, semantics only,
# at most 4096 elements). Each figure is the run's own count of cases over
# its wall time, launch included. Usage: bench/bench_mpi.sh [CASES]
set -eu
n=${1:-20000}
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec python3 - "$n" <<'PY'
import json, os, subprocess, sys, tempfile, time
n = int(sys.argv[1])
sc = "./build/shardcheck"
print(f"mpi bench: {os.cpu_count()} cores, {n} cases per run, semantics, --max-elems 4096")
def run(cmd):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        t0 = time.time()
        subprocess.run(cmd + ["--json", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dt = time.time() - t0
        cases = sum(r["cases"] for r in json.load(open(f.name))["results"])
    return cases / dt
for target in ["builtin:all_to_all", "corpus/deepspeed/sf-head2seq-batchdim.sc"]:
    for w in (2, 4):
        args = ["check", target, "--property", "semantics", "--cases", str(n), "--seed", "1",
                "--world", f"1..{w}", "--max-elems", "4096", "-q"]
        s = run([sc] + args)
        m = run(["mpirun", "--oversubscribe", "-np", str(w), sc] + args + ["--backend", "mpi"])
        print(f"{target:44s} world 1..{w}: sim {s:9.0f} cases/s, mpi -np {w} {m:8.0f} cases/s (mpi/sim {m/s:.3f})")
PY
