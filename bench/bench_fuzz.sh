#!/usr/bin/env bash
# Fuzzing figures: libFuzzer's exec/s for fuzz_case and fuzz_spec (from
# -print_final_stats=1, when build-fuzz exists), and, for every corpus bug,
# the time `shardcheck fuzz` takes to report it first: median, min and max
# over 20 seeds. Usage: bench/bench_fuzz.sh [SECONDS_PER_FUZZER]  (repo root)
set -eu
secs=${1:-30}
if [ -x build-fuzz/fuzz_case ]; then
	for t in fuzz_case fuzz_spec; do
		d=$(mktemp -d)
		cp corpus/fuzz/$t/* "$d"/
		dict=""
		[ $t = fuzz_spec ] && dict=-dict=fuzz/fuzz_spec.dict
		build-fuzz/$t -max_total_time="$secs" -print_final_stats=1 $dict "$d" 2>&1 |
			awk -v t=$t '/stat::number_of_executed_units/ {n=$2} /stat::average_exec_per_sec/ {e=$2}
				END {printf "%-10s %d executions in '"$secs"' s, %d exec/s\n", t, n, e}'
		rm -rf "$d"
	done
else
	echo "(no build-fuzz: cmake --preset fuzz && cmake --build --preset fuzz for libFuzzer figures)"
fi
exec python3 - <<'PY'
import glob, os, statistics, subprocess, tempfile, time
specs = sorted(p for p in glob.glob("corpus/**/*.sc", recursive=True)
               if "\nexpect fail" in "\n" + open(p).read())
print(f"time to first failure under shardcheck fuzz (one spec per run, 20 seeds, sim, {os.cpu_count()} cores)")
for spec in specs:
    times = []
    for seed in range(1, 21):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.time()
            p = subprocess.Popen(["./build/shardcheck", "fuzz", spec, "--time", "60", "--seed", str(seed),
                                  "--corpus", d, "--report", d + "/rep"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for line in p.stdout:
                if line.startswith(("known ", "NEW ")):
                    times.append(time.time() - t0)
                    break
            p.terminate()
            p.wait()
    if times:
        print(f"{spec:58s} median {statistics.median(times)*1000:7.1f} ms  min {min(times)*1000:6.1f}  max {max(times)*1000:7.1f}  ({len(times)}/20 found)")
    else:
        print(f"{spec:58s} not found within 60 s")
PY
