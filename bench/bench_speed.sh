#!/usr/bin/env bash
# Where users wait, as ratios measured in one run on this machine:
#  1. the default `check builtin:all corpus/` (one process), cases/s of this
#     build against a baseline version built beside it (BASE, a git ref),
#     each on its own checkout's corpus;
#  2. `check --jobs N` against `--jobs 1` on the cores of this machine, and
#     the default check (whose --jobs is the cores) against the baseline's;
#  3. `gate` on the example plugin against the same transform as a spec,
#     with the cores idle and with every core busy (busy loops the bench
#     starts and stops itself): the gate's cost as a multiple of the spec's;
#  4. start-up (`shardcheck --version`) against the baseline, and whether
#     the binary links Open MPI, CUDA or NCCL at load time;
#  5. `check builtin:all` on emu against sim, this build and the baseline;
#  6. `eval` of a 1e8-element case: elements/s and peak memory per element,
#     this build and the baseline;
#  7. the same drawn cases of DeepSpeed's head-to-sequence spec checked by
#     shardcheck (build/sc_bench --same-cases) and by a checker written by
#     hand with numpy, every rank at once (bench/numpy_checker.py).
# Usage: bench/bench_speed.sh [BASE [RUNS]]   (from the repository root,
# after scripts/test.sh built build/; BASE default 5c3bc61, RUNS default 3)
#        bench/bench_speed.sh --gate [RUNS]   (figure 3 alone, no baseline)
#        bench/bench_speed.sh --numpy [RUNS]  (figure 7 alone, no baseline)
# Each figure is the median over RUNS runs, the two builds taking turns;
# a run's cases are its own count (report.json), its time the wall clock.
set -eu
only=all
if [ "${1:-}" = --gate ]; then only=gate; shift; set -- none "$@"; fi
if [ "${1:-}" = --numpy ]; then only=numpy; shift; set -- none "$@"; fi
base=${1:-5c3bc61}
runs=${2:-3}
sc=${SC:-./build/shardcheck} # SC: another build's binary (a before figure)
[ -x "$sc" ] || { echo "bench_speed: build first (scripts/test.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
if [ "$only" = all ]; then
	echo "bench_speed: building the baseline $base beside this build (build output: $tmp/base.log)"
	git worktree add --detach "$tmp/base" "$base" >"$tmp/base.log" 2>&1
	cmake -S "$tmp/base" -B "$tmp/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >>"$tmp/base.log" 2>&1
	cmake --build "$tmp/base/build" -j"$(nproc)" --target shardcheck >>"$tmp/base.log" 2>&1
fi
python3 - "$sc" "$tmp/base/build/shardcheck" "$runs" "$(git rev-parse --short HEAD)" "$base" "$only" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time
sc, base, runs, head, base_ref, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
cores = len(os.sched_getaffinity(0))
print(f"bench_speed: {cores} cores, {runs} runs per figure, this build {head}"
      + (f" against {base_ref}" if only == "all" else ""))

def run(binary, args, jobs=None):
    """cases/s and seconds of one run; the baseline runs in its own checkout,
    on its own corpus (it cannot read specs written for later versions)"""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [os.path.abspath(binary)] + args + ["--json", f.name]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        cwd = os.path.dirname(os.path.dirname(os.path.abspath(binary))) if binary == base else None
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
        dt = time.perf_counter() - t0
        cases = sum(r["cases"] for r in json.load(open(f.name))["results"])
    return cases / dt, dt

def median_pair(fa, fb):
    a, b = [], []
    for _ in range(runs):
        a.append(fa())
        b.append(fb())
    return statistics.median(x[0] for x in a), statistics.median(x[1] for x in a), \
        statistics.median(x[0] for x in b), statistics.median(x[1] for x in b)

def figures_1_2():
    default = ["check", "builtin:all", "corpus/", "--seed", "1", "-q"]
    ca, ta, cb, tb = median_pair(lambda: run(sc, default, jobs=1), lambda: run(base, default))
    print(f"1. check builtin:all corpus/, one process: {ca:8.0f} cases/s ({ta:.2f} s) against {cb:8.0f} cases/s "
          f"({tb:.2f} s): {ca / cb:.2f}x")
    ja, tja, j1, tj1 = median_pair(lambda: run(sc, default, jobs=cores), lambda: run(sc, default, jobs=1))
    print(f"2. check --jobs {cores}: {ja:8.0f} cases/s ({tja:.2f} s) against --jobs 1 {j1:8.0f} cases/s ({tj1:.2f} s): "
          f"{ja / j1:.2f}x on {cores} cores; the default check (--jobs {cores}, the cores here) against the "
          f"baseline's: {ja / cb:.2f}x")

if only == "all":
    figures_1_2()

class busy:
    """every core taken by a busy loop of its own (what a CI runner's other
    jobs do), started on entry and killed on exit"""
    def __enter__(self):
        self.p = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
        time.sleep(0.2)
    def __exit__(self, *a):
        for p in self.p:
            p.kill()
            p.wait()

def same_cases(n=20000):
    """figure 7: shardcheck and a vectorized numpy checker on the same drawn
    cases (each run draws them again: the same seeds, the same cases)"""
    bench_bin = os.path.join(os.path.dirname(sc), "sc_bench")
    py = next((p for p in (sys.executable, "/usr/bin/python3")
               if subprocess.run([p, "-c", "import numpy"], capture_output=True).returncode == 0), None)
    if not os.access(bench_bin, os.X_OK) or py is None:
        print(f"7. skipped ({'sc_bench not built' if py else 'no python3 with numpy'})")
        return
    cases = os.path.join(tempfile.mkdtemp(), "cases.txt")
    a, b = [], []
    for _ in range(runs):
        p = subprocess.run([bench_bin, "--same-cases", str(n), "corpus/deepspeed/sf-head2seq-batchdim.sc", cases],
                           capture_output=True, text=True)
        q = subprocess.run([py, "bench/numpy_checker.py", cases], capture_output=True, text=True)
        if p.returncode or q.returncode:
            print(f"7. failed: {p.stdout}{p.stderr}{q.stdout}{q.stderr}")
            return
        a.append(float(p.stdout.split()[5]))   # "shardcheck N cases T s C cases/s K pass"
        b.append(float(q.stdout.split()[5]))   # "numpy N cases T s C cases/s K pass"
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"7. the same {n} drawn cases of DeepSpeed's head-to-sequence spec, semantics: shardcheck {ma:8.0f} "
          f"cases/s, a vectorized numpy checker {mb:8.0f} cases/s: numpy takes {ma / mb:.1f}x shardcheck's time "
          "per case")

if only == "numpy":
    same_cases()
    sys.exit(0)

plugin = "build/examples/libheads_to_seq.so"
if os.path.exists(plugin):
    # 5000 cases per property, one process each: the cases' cost, not the start-up's
    g = ["gate", "--plugin", plugin, "--cases", "5000", "-q"]
    s = ["check", "corpus/deepspeed/sf-head2seq-batchdim.sc", "--cases", "5000", "-q"]
    for load in ("idle", "busy"):
        with busy() if load == "busy" else open(os.devnull):
            ga, tga, sa, tsa = median_pair(lambda: run(sc, g, jobs=1), lambda: run(sc, s, jobs=1))
        print(f"3. gate {os.path.basename(plugin)}, cores {load}: {ga:8.0f} cases/s ({tga:.2f} s) against the same "
              f"transform as a spec {sa:8.0f} cases/s ({tsa:.2f} s): the gate costs {sa / ga:.1f}x the spec")
else:
    print("3. gate: skipped (build/examples/libheads_to_seq.so not built)")

if only != "all":
    sys.exit(0)

def startup(binary, n=60):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)

def links(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return [n for n in ("libmpi", "libcudart", "libnccl") if n + "." in out] or ["none of them"]

sa, sb = startup(sc), startup(base)
print(f"4. start-up: {sa * 1e3:.2f} ms against {sb * 1e3:.2f} ms: {sb / sa:.1f}x; the binary links "
      f"{', '.join(links(sc))} (the baseline: {', '.join(links(base))})")

b = ["check", "builtin:all", "--cases", "300", "--seed", "3", "-q"]
ea, _, es, _ = median_pair(lambda: run(sc, b + ["--backend", "emu"], jobs=1), lambda: run(sc, b, jobs=1))
eb, _, esb, _ = median_pair(lambda: run(base, b + ["--backend", "emu"]), lambda: run(base, b))
print(f"5. emu: {ea:8.0f} cases/s, {es / ea:.1f}x slower than sim ({es:.0f} cases/s); the baseline's emu "
      f"{eb:8.0f} cases/s, {esb / eb:.1f}x slower than its sim: emu {ea / eb:.1f}x faster")

def big_eval(binary, n=100_000_000):
    """elements/s and peak bytes per element of one eval of n i32 elements"""
    spec = "corpus/deepspeed/sf-head2seq-batchdim.sc"
    cmd = [os.path.abspath(binary), "eval", spec, "--world", "4", "--sizes", f"s={n // 1000},b=1,h=4,d=250"]
    cwd = os.path.dirname(os.path.dirname(os.path.abspath(binary))) if binary == base else None
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    ok = os.waitstatus_to_exitcode(status) == 0
    return (n / dt if ok else 0.0), ru.ru_maxrss * 1024 / n, ok

def big_evals():
    """the median rate over RUNS runs of each, taking turns (first touches
    of a GiB of fresh pages vary from run to run)"""
    a, b = [], []
    for _ in range(runs):
        a.append(big_eval(sc))
        b.append(big_eval(base))
    med = lambda v: (statistics.median(x[0] for x in v), max(x[1] for x in v), all(x[2] for x in v))
    return med(a), med(b)

va, vb = big_evals()
def says(v):
    return f"{v[0] / 1e6:5.1f} M elements/s, {v[1]:.1f} bytes per element" if v[2] else "did not pass"
print(f"6. eval of 1e8 i32 elements (head2seq all-to-all, world 4): {says(va)}; the baseline: {says(vb)}")
same_cases()
PY
