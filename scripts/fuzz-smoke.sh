#!/usr/bin/env bash
# Fuzz smoke for CI: each libFuzzer target for SECONDS (default 60) with
# ASan and UBSan on the seed corpus, then `shardcheck fuzz` for SECONDS/2
# over builtin:all and corpus/. Any finding exits nonzero. Installs clang
# and libFuzzer (Debian: clang libclang-rt-14-dev) when missing, as root.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q clang libclang-rt-14-dev
	else
		echo "fuzz-smoke: no clang with libFuzzer; skipped" >&2
		exit 0
	fi
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
out=$(mktemp -d)
for t in fuzz_case fuzz_spec fuzz_casefile; do
	mkdir -p "$out/$t"
	cp corpus/fuzz/$t/* "$out/$t/"
	dict=()
	[ -f fuzz/$t.dict ] && dict=(-dict=fuzz/$t.dict)
	echo "fuzz-smoke: $t for ${secs}s"
	if ! build-fuzz/$t -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/$t-" \
		"${dict[@]}" "$out/$t" >"$out/$t.log" 2>&1; then
		tail -40 "$out/$t.log"
		echo "fuzz-smoke: $t found a bug; the input is in $out ($(ls "$out" | grep -E "crash|leak|timeout|oom" | tr '\n' ' '))" >&2
		exit 1
	fi
	grep -E "stat::number_of_executed_units|stat::average_exec_per_sec" "$out/$t.log"
done
# shardcheck fuzz itself, from whichever build exists (else the default one)
sc=""
for b in build-ci build; do [ -x $b/shardcheck ] && { sc=$b/shardcheck; break; }; done
if [ -z "$sc" ]; then
	scripts/setup.sh default
	sc=build/shardcheck
fi
"$sc" fuzz --time $((secs / 2)) --report reports/ci-fuzz --corpus corpus -q
