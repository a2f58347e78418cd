#!/usr/bin/env bash
# Compares what two shardcheck binaries print and write for the same runs:
# verdicts, minimal cases, wrong elements, --json documents, reports,
# .case files, eval dumps and repro pictures. Timings are masked; any other
# difference is printed and fails the comparison.
#
# Usage: tests/compare_outputs.sh OLD_BINARY NEW_BINARY [WORKDIR]
# Run from the repository root. Exit 0 identical, 1 different, 2 usage.
set -uo pipefail
old=${1:?usage: compare_outputs.sh OLD NEW [WORKDIR]}
new=${2:?usage: compare_outputs.sh OLD NEW [WORKDIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
for b in "$old" "$new"; do [ -x "$b" ] || { echo "compare: $b is not an executable" >&2; exit 2; }; done

# timings: "0.02s", "0.000s", "(case 1, 0.00s)", "seconds": 0.0123, time="0.01"
mask() {
	sed -E -e '/^\[sc [a-z]+\] /d' -e 's/[0-9]+\.[0-9]+ ?s\b/T/g' -e 's/"(seconds|shrink_seconds|elapsed)": *[0-9.e+-]+/"\1": T/g' \
		-e 's/time="[0-9.e+-]+"/time="T"/g' -e 's/[0-9]+ ?ms\b/T/g' -e 's/\| [0-9]+\.[0-9]+ \|/| T |/g' -e 's#'"$work"'/(old|new)#WORK#g' \
		-e 's/[0-9.]+k? cases\/s/N cases\/s/g' -e "s#\"$old\"#\"BIN\"#g; s#\"$new\"#\"BIN\"#g"
}

runs=(
	"check corpus/ builtin:all --seed 7 -v"
	"check corpus/ builtin:all --seed 7 --json -"
	"check corpus/ builtin:all --seed 11 --cases 300 --world 1..6 -q"
	"check corpus/ --seed 3 --cases 200 --backend emu -v"
	"check builtin:all --seed 5 --cases 2000 --dtypes i8,f16,f32 --max-elems 512 -v"
	"check corpus/deepspeed/sf-head2seq-before-5664.sc --property semantics --seed 3"
	"check corpus/deepspeed/sf-head2seq-before-5664.sc --no-shrink --seed 3"
	"check corpus/neuronx --seed 9 --json - --report @REPORT@"
	"check corpus/slapo --chain corpus/slapo/reduce-scatter-axis1.sc,corpus/slapo/all-gather-axis1.sc --seed 4"
	"list"
	"--version"
	"eval corpus/deepspeed/sf-head2seq-before-5664.sc --world 2 --sizes s=2,b=2,h=2,d=1 --dtype i32 --seed 0 --dump @DUMP@"
	"eval corpus/deepspeed/sf-head2seq-batchdim.sc --world 4 --sizes s=8,b=2,h=4,d=3 --dtype bf16 --seed 5 --dump @DUMP@"
	"repro corpus/deepspeed/sf-head2seq-before-5664.case"
	"check corpus/nonexistent.sc"
	"check --world 0..2 builtin:all"
)
fail=0
i=0
for r in "${runs[@]}"; do
	i=$((i + 1))
	for side in old new; do
		bin=$old; [ $side = new ] && bin=$new
		d="$work/$side/$i"; rm -rf "$d"; mkdir -p "$d"
		args=${r//@REPORT@/$d/report}; args=${args//@DUMP@/$d/dump}
		# shellcheck disable=SC2086
		"$bin" $args >"$d/stdout" 2>"$d/stderr"
		echo "exit $?" >>"$d/stdout"
		sed -i "s#$d#WORK#g" "$d/stdout" "$d/stderr"
	done
	a="$work/old/$i" b="$work/new/$i"
	for f in stdout stderr; do
		if ! diff <(mask <"$a/$f") <(mask <"$b/$f") >"$work/diff.$i.$f"; then
			echo "DIFF [$r] $f:"; head -30 "$work/diff.$i.$f"; fail=1
		fi
	done
	for sub in report dump; do
		[ -d "$a/$sub" ] || [ -d "$b/$sub" ] || continue
		while IFS= read -r -d '' f; do
			rel=${f#"$a/"}
			if [ ! -e "$b/$rel" ]; then echo "DIFF [$r] $rel missing in new"; fail=1; continue; fi
			case $f in
			*.npy) cmp -s "$f" "$b/$rel" || { echo "DIFF [$r] $rel differs"; fail=1; } ;;
			*) diff <(sed "s#$a#WORK#g" "$f" | mask) <(sed "s#$b#WORK#g" "$b/$rel" | mask) >/dev/null ||
				{ echo "DIFF [$r] $rel:"; diff <(sed "s#$a#WORK#g" "$f" | mask) <(sed "s#$b#WORK#g" "$b/$rel" | mask) | head -20; fail=1; } ;;
			esac
		done < <(find "$a/$sub" -type f -print0)
		n1=$(find "$a/$sub" -type f | wc -l); n2=$(find "$b/$sub" -type f | wc -l)
		[ "$n1" = "$n2" ] || { echo "DIFF [$r] $sub: $n1 files before, $n2 after"; fail=1; }
	done
done
if [ $fail = 0 ]; then echo "compare: identical on ${#runs[@]} runs (timings masked)"; else echo "compare: outputs differ (see above; files under $work)"; fi
exit $fail
