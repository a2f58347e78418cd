#!/usr/bin/env bash
# Every command shown in README.md and docs/*.md runs as printed, and every
# relative link there points at a file (and heading) that exists.
#
# Runnable commands are the fenced blocks tagged ```sh (or ```bash); output
# is shown in ```text blocks, which are not run. Each runnable block runs
# in a scratch copy of the checkout (its files as git lists them, with
# build/ a link to the folder of the shardcheck given), from its root, in a
# new bash with that folder first on PATH and HOME and TMPDIR in the
# scratch folder, under a timeout (SC_DOCS_TIMEOUT, default 120 s). So
# nothing a command writes (reports/, ~/.local) reaches the checkout.
#
# Each command (a line, with its backslash continuations) must exit 0,
# unless it ends in a comment `# exit N`; a block's last command may take
# its expected status from the line just before the fence instead. Markers
# on that line, as HTML comments:
#   <!-- exit N -->           the block's last command exits N
#   <!-- excerpt: REASON -->  not run (needs a GPU, runs for hours, is a
#                             fragment of your own project, ...); counted
#                             and listed; a marker without a reason fails
#   <!-- needs: WHAT ... -->  run only where WHAT is here, else counted as
#                             skipped: torch (a Python with PyTorch), mpi
#                             (mpirun and the mpi backend), gpu (a visible
#                             CUDA device), or any command on PATH (pytest)
# A command fails the test when it exits otherwise, prints "command not
# found" or runs past the timeout; the message names FILE:LINE.
#
# Usage: tests/test_docs.sh PATH/TO/shardcheck   (from any folder)
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH/TO/shardcheck" >&2
	exit 2
fi
. "$(dirname "$0")/testlib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(dirname "$sc")
limit=${SC_DOCS_TIMEOUT:-120}
for tool in timeout tar; do
	if ! command -v "$tool" >/dev/null; then
		echo "docs: skipped: no $tool"
		exit 77
	fi
done

cd "$root" || exit 2
docs=(README.md)
for f in docs/*.md; do [ -e "$f" ] && docs+=("$f"); done

# --- the scratch copy --------------------------------------------------------
work=$tmp/repo
mkdir -p "$work" "$tmp/home" "$tmp/tmpdir" "$tmp/blocks"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar --null -T - -cf - | tar -C "$work" -xf -
else
	tar --exclude='./build*' --exclude='./reports' -cf - . | tar -C "$work" -xf -
	mkdir -p "$work/reports" && cp reports/README.md "$work/reports/" 2>/dev/null
fi
rm -rf "$work/build"
ln -s "$bindir" "$work/build"

# --- what `needs:` can ask for -------------------------------------------------
declare -A have
has() { # what: 0 when it is here
	if [ -z "${have[$1]+x}" ]; then
		local r=1 py
		case $1 in
		torch)
			for py in ${SHARDCHECK_PYTHON:-} python3 /usr/bin/python3 /usr/local/bin/python3; do
				command -v "$py" >/dev/null && "$py" -c 'import torch' >/dev/null 2>&1 && { r=0; break; }
			done ;;
		mpi) command -v mpirun >/dev/null && "$sc" list 2>/dev/null | grep -q '^  mpi  *available' && r=0 ;;
		gpu) "$sc" list 2>/dev/null | grep -q '^  cuda  *available' && r=0 ;;
		*) command -v "$1" >/dev/null && r=0 ;;
		esac
		have[$1]=$r
	fi
	return "${have[$1]}"
}

run_env=(env "PATH=$bindir:$PATH" "HOME=$tmp/home" "TMPDIR=$tmp/tmpdir" "XDG_STATE_HOME=$tmp/home/.local/state")
if [ "$(id -u)" -eq 0 ]; then # Open MPI refuses root without these (docs/gpu.md says so)
	run_env+=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
fi
# more ranks than cores: oversubscribed ranks yield while they wait; Open
# MPI keeps allocations until exit (not shardcheck's leaks, in an ASan build)
run_env+=(OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
	"ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}")

# a block with a here-document or a compound command runs as one command
compound_re='^[[:space:]]*(if|for|while|until|case|function)[[:space:]]'
# a command goes on after a line ending in a backslash, a pipe or &&
cont_re='([\\]|[|]|&&)[[:space:]]*$'
exit_re='[[:space:]]#[[:space:]]*exit[[:space:]]+([0-9]+)([^0-9]|$)'
prompt_re='^[[:space:]]*[$][[:space:]]'
fence_re='^ {0,3}```'

ran=0 excerpts=0 skipped=0 nblock=0
excerpt_list=() skipped_list=()

# run_block FILE FENCE_LINE WANT_LAST LINE...: the block's lines, each as
# "NUMBER<TAB>TEXT"
run_block() {
	local file=$1 at=$2 want_last=$3
	shift 3
	local -a cmds=() lines=() wants=()
	local cur="" cur_ln="" entry ln text whole=0
	for entry in "$@"; do
		text=${entry#*$'\t'}
		if [[ $text == *'<<'* ]] || [[ $text =~ $compound_re ]]; then
			whole=1
		fi
	done
	for entry in "$@"; do
		ln=${entry%%$'\t'*}
		text=${entry#*$'\t'}
		if [ -z "$cur" ]; then
			[[ $text =~ ^[[:space:]]*(#.*)?$ ]] && continue
			cur=$text cur_ln=$ln
		else
			cur+=$'\n'$text
		fi
		if [ "$whole" = 1 ] || [[ $text =~ $cont_re ]]; then
			continue
		fi
		cmds+=("$cur") lines+=("$cur_ln")
		cur=""
	done
	if [ -n "$cur" ]; then
		if [ "$whole" = 1 ]; then
			cmds+=("$cur") lines+=("$cur_ln")
		else
			bad "$file:$cur_ln: the block ends inside a command (a continuation with no next line)"
			return
		fi
	fi
	local n=${#cmds[@]} k
	[ "$n" -gt 0 ] || { bad "$file:$at: a runnable block with no command"; return; }
	for ((k = 0; k < n; k++)); do
		local w=0 last=${cmds[k]##*$'\n'}
		if [[ $last =~ $exit_re ]]; then
			w=${BASH_REMATCH[1]}
		elif [ "$k" -eq $((n - 1)) ] && [ -n "$want_last" ]; then
			w=$want_last
		fi
		wants+=("$w")
	done

	nblock=$((nblock + 1))
	local script=$tmp/blocks/$nblock.sh rcs=$tmp/blocks/$nblock.rc out=$tmp/blocks/$nblock.out
	: >"$rcs"
	{
		for ((k = 0; k < n; k++)); do
			printf '%s\n' "${cmds[k]}"
			printf "printf '%%s %%s\\\\n' %s \"\$?\" >>'%s'\n" "${lines[k]}" "$rcs"
		done
	} >"$script"
	local t0=$SECONDS rc
	(cd "$work" && timeout -k 10 "$limit" "${run_env[@]}" bash --noprofile --norc "$script" </dev/null >"$out" 2>&1)
	rc=$?
	local failed=0 got
	for ((k = 0; k < n; k++)); do
		got=$(awk -v l="${lines[k]}" '$1 == l { r = $2 } END { print r }' "$rcs")
		if [ -z "$got" ]; then
			if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
				bad "$file:${lines[k]}: timed out after ${limit} s: ${cmds[k]%%$'\n'*}"
			else
				bad "$file:${lines[k]}: did not run (the block stopped with exit $rc): ${cmds[k]%%$'\n'*}"
			fi
			failed=1
			break
		elif [ "$got" != "${wants[k]}" ]; then
			bad "$file:${lines[k]}: exit $got, want ${wants[k]}: ${cmds[k]%%$'\n'*}"
			failed=1
		else
			ok
		fi
	done
	if grep -q 'command not found' "$out"; then
		bad "$file:$at: 'command not found': $(grep -m1 'command not found' "$out")"
		failed=1
	fi
	if [ "$failed" = 1 ]; then
		echo "--- $file:$at: the block's output (last 25 lines):" >&2
		tail -n 25 "$out" | sed 's/^/  | /' >&2
	fi
	ran=$((ran + n))
	echo "docs: $file:$at: $n command$([ "$n" -eq 1 ] || echo s), $((SECONDS - t0)) s$([ "$failed" = 1 ] && echo ", FAILED")"
}

# scan FILE: every fenced block; the runnable ones run
scan() {
	local file=$1 i n in=0 line prev tag at
	local -a text body
	mapfile -t text <"$file"
	n=${#text[@]}
	local open_re='^ {0,3}```([A-Za-z0-9_+-]*)[[:space:]]*$' close_re='^ {0,3}```[[:space:]]*$'
	for ((i = 0; i < n; i++)); do
		line=${text[i]}
		if [ "$in" = 0 ]; then
			[[ $line =~ $open_re ]] || continue
			tag=${BASH_REMATCH[1]} at=$((i + 1)) in=1 body=()
			prev=""
			[ "$i" -gt 0 ] && prev=${text[i - 1]}
			continue
		fi
		if ! [[ $line =~ $close_re ]]; then
			body+=("$((i + 1))"$'\t'"$line")
			continue
		fi
		in=0
		case $tag in sh | bash) ;; *) continue ;; esac
		# markers on the line before the fence
		local rest=$prev c want="" excerpt="" needs="" is_excerpt=0 marker_bad=0
		while [[ $rest == *'<!--'* ]]; do
			rest=${rest#*<!--}
			c=${rest%%-->*}
			rest=${rest#*-->}
			c=$(printf '%s' "$c" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
			case $c in
			excerpt*)
				is_excerpt=1
				excerpt=$(printf '%s' "${c#excerpt}" | sed 's/^[[:space:]]*:\{0,1\}[[:space:]]*//')
				if [ -z "$excerpt" ]; then
					bad "$file:$i: an excerpt marker without a reason (<!-- excerpt: REASON -->)"
					marker_bad=1
				fi ;;
			exit*)
				if [[ $c =~ ^exit[[:space:]]+([0-9]+)$ ]]; then want=${BASH_REMATCH[1]}; else
					bad "$file:$i: a malformed exit marker '<!-- $c -->' (<!-- exit N -->)"
					marker_bad=1
				fi ;;
			needs*)
				needs=$(printf '%s' "${c#needs}" | sed 's/^[[:space:]]*:\{0,1\}[[:space:]]*//')
				if [ -z "$needs" ]; then
					bad "$file:$i: a needs marker that names nothing (<!-- needs: WHAT -->)"
					marker_bad=1
				fi ;;
			esac
		done
		# no prompts in runnable blocks
		local entry
		for entry in "${body[@]}"; do
			if [[ ${entry#*$'\t'} =~ $prompt_re ]]; then
				bad "$file:${entry%%$'\t'*}: a '\$ ' prompt in a runnable block (put output in a \`\`\`text block)"
				marker_bad=1
			fi
		done
		[ "$marker_bad" = 1 ] && continue
		if [ "$is_excerpt" = 1 ]; then
			excerpts=$((excerpts + 1))
			excerpt_list+=("$file:$at: $excerpt")
			continue
		fi
		local w missing=""
		for w in $needs; do has "$w" || missing+=" $w"; done
		if [ -n "$missing" ]; then
			skipped=$((skipped + 1))
			skipped_list+=("$file:$at: needs$missing")
			continue
		fi
		run_block "$file" "$at" "$want" "${body[@]}"
	done
	[ "$in" = 1 ] && bad "$file:$at: a code fence that is never closed"
}

# --- links ---------------------------------------------------------------------
# slugs FILE: the anchors of its headings, as GitHub makes them
slugs() {
	LC_ALL=C awk '
		/^ *```/ { fence = !fence; next }
		fence { next }
		/^#+ / {
			h = $0
			sub(/^#+ +/, "", h); sub(/ +#+ *$/, "", h)
			h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
			if (h in seen) { print h "-" seen[h]; seen[h]++ } else { print h; seen[h] = 1 }
		}' "$1"
}

check_links() {
	local file=$1 dir line i n in=0 target path anchor
	dir=$(dirname "$file")
	local -a text
	mapfile -t text <"$file"
	n=${#text[@]}
	local link_re='\]\(([^)[:space:]]+)([[:space:]]+"[^"]*")?\)'
	for ((i = 0; i < n; i++)); do
		line=${text[i]}
		if [[ $line =~ $fence_re ]]; then in=$((1 - in)); continue; fi
		[ "$in" = 1 ] && continue
		# inline code is not a link
		line=$(printf '%s' "$line" | sed 's/`[^`]*`//g')
		while [[ $line =~ $link_re ]]; do
			target=${BASH_REMATCH[1]}
			line=${line#*"${BASH_REMATCH[0]}"}
			case $target in http://* | https://* | mailto:*) continue ;; esac
			path=${target%%#*}
			anchor=""
			[[ $target == *'#'* ]] && anchor=${target#*#}
			local dest=$file
			if [ -n "$path" ]; then
				dest=$dir/$path
				if [ ! -e "$dest" ]; then
					bad "$file:$((i + 1)): a dead link: $target"
					continue
				fi
			fi
			if [ -n "$anchor" ] && [[ $dest == *.md ]] && [ -f "$dest" ]; then
				if slugs "$dest" | grep -qxF -- "$anchor"; then ok; else
					bad "$file:$((i + 1)): no heading '#$anchor' in $dest"
				fi
			else
				ok
			fi
		done
	done
}

for f in "${docs[@]}"; do
	check_links "$f"
done
for f in "${docs[@]}"; do
	scan "$f"
done

for e in "${excerpt_list[@]}"; do echo "docs: not run: $e"; done
for e in "${skipped_list[@]}"; do echo "docs: skipped: $e"; done
echo "docs: ${#docs[@]} files; $ran commands run in $nblock blocks, $excerpts excerpts not run, $skipped blocks skipped"
finish docs
