#!/usr/bin/env bash
# The architecture, checked: every folder of the library is a layer, and a
# file may include only headers of its own layer or of lower ones; modules
# (sc_x.c + sc_x.h) may not include each other in a cycle. Also the size
# rules: no source file over 900 lines, no function over 120 lines except
# tables (a function body that is one initializer, or a file marked
# "sc-table" on the function's line).
#
# Prints every offending line as file:line and exits 1; 0 when clean.
# Usage: tests/check_layers.sh [REPO_ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# layer of each folder, lowest first (docs/architecture.md, "Architecture")
layers=(include/shardcheck:0 src/util:0 src/core:1 src/backend:2 src/lang:3 src/target:4
	generators:5 properties:6 src/run:7 src/cli:8 fuzz:8)
declare -A layer_of_dir
for l in "${layers[@]}"; do layer_of_dir[${l%%:*}]=${l##*:}; done

declare -A where # header name -> folder
files=()
for l in "${layers[@]}"; do
	d=${l%%:*}
	for f in "$d"/*.c "$d"/*.h "$d"/*.cu "$d"/*.def; do
		[ -e "$f" ] || continue
		files+=("$f")
		case $f in *.h|*.def) b=${f##*/}; [ "$d" = include/shardcheck ] && b=shardcheck/$b; where[$b]=$d ;; esac
	done
done

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in "${files[@]}"; do
	d=${f%/*}
	me=${layer_of_dir[$d]}
	mod=${f%.*}
	while IFS=: read -r ln inc; do
		[ -n "$inc" ] || continue
		hd=${where[$inc]:-}
		if [ -z "$hd" ]; then
			# generated headers (build tree) sit with their user
			case $inc in sc_fuzz_specs.h) continue ;; esac
			echo "$f:$ln: #include \"$inc\": no such header in the layered folders"
			bad=1
			continue
		fi
		them=${layer_of_dir[$hd]}
		if [ "$them" -gt "$me" ]; then
			echo "$f:$ln: #include \"$inc\" goes up: $d is layer $me, $hd is layer $them"
			bad=1
		fi
		dep="$hd/${inc##*/}"
		dep=${dep%.*}
		[ "$dep" != "$mod" ] && echo "$mod $dep $f:$ln" >>"$edges"
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done

# cycles between modules: tsort names one when there is one
cyc=$(awk '{print $1, $2}' "$edges" | sort -u | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
if [ -n "$cyc" ]; then
	echo "include cycle between modules:"
	# print the include lines that close the loop
	mods=$(echo "$cyc" | sort -u | tr '\n' ' ')
	for m in $mods; do
		for n in $mods; do
			awk -v a="$m" -v b="$n" '$1 == a && $2 == b {print "  " $3 ": " a " includes " b}' "$edges"
		done
	done | sort -u
	bad=1
fi

# sizes
for f in "${files[@]}"; do
	case $f in *.c|*.cu) ;; *) continue ;; esac
	n=$(wc -l <"$f")
	if [ "$n" -gt 900 ]; then echo "$f:1: $n lines (at most 900)"; bad=1; fi
	awk -v file="$f" '
		/^[a-zA-Z].*\(/ { sig = $0; sigln = FNR }
		/^\{/ { start = FNR; name = sig; table = (sig ~ /sc-table/) }
		/^\}/ { if (start) { len = FNR - start + 1
			if (len > 120 && !table) printf "%s:%d: function of %d lines (at most 120): %s\n", file, sigln, len, name
			start = 0 } }' "$f"
done >"$edges.size"
[ -s "$edges.size" ] && { cat "$edges.size"; bad=1; }
rm -f "$edges.size"

if [ $bad = 0 ]; then
	echo "layers: ${#files[@]} files, $(sort -u "$edges" | wc -l) includes between modules, all downward, no cycle; sizes within limits"
fi
exit $bad
