#!/usr/bin/env bash
# Pictures of counterexamples (src/run/sc_svg.c): a report's
# failures/NAME.svg is well-formed XML with exactly as many wrong cells as
# the failure has wrong elements, its diagnosis says what holds for every
# one of them, summary.md, NAME.md and report.json point at it, and
# `repro --svg` draws the same picture; a passing spec, a compute spec and
# a run-time error get none (and NAME.md says why); the cell limit holds.
# The picture as a browser renders it: tests/test_svg_browser.sh.
# Usage: test_svg.sh PATH/TO/shardcheck   (run from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

expect_py() { # description python-args...
	local what=$1; shift
	if python3 "$tmp/svg.py" "$@" >"$tmp/py" 2>&1; then ok; else bad "$what"; cat "$tmp/py" >&2; fi
}

# svg.py CMD ARGS: the checks on the XML (standard library only)
cat >"$tmp/svg.py" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
WRONG = "#f0605d"

def cells(root):
    return [e for e in root.iter(NS + "rect") if "data-rank" in e.attrib]

def texts(root, cls):
    return [e.text for e in root.iter(NS + "text") if e.get("class") == cls]

def check(path, want_wrong, want_red=None, diag=None):
    """parses; wrong cells (data-wrong) == want_wrong; red-filled cells
    are exactly the class="wrong" ones; nothing active or external."""
    root = ET.parse(path).getroot()
    assert root.tag == NS + "svg", root.tag
    raw = open(path, encoding="utf-8").read()
    for bad in ("<script", "href", "@import", "url(", "<foreignObject", "<image"):
        assert bad not in raw, "the picture holds " + bad
    cs = cells(root)
    wrong = [e for e in cs if e.get("data-wrong") == "1"]
    red = [e for e in cs if e.get("fill") == WRONG]
    assert len(wrong) == want_wrong, "%d wrong cells, want %d" % (len(wrong), want_wrong)
    assert all(e.get("class") == "wrong" for e in red), "a red cell that is not class=wrong"
    assert len(red) == len([e for e in cs if e.get("class") == "wrong"])
    assert all(e.get("data-wrong") == "1" for e in red), "a red cell that is not wrong"
    if want_red is not None:
        assert len(red) == want_red, "%d red cells, want %d" % (len(red), want_red)
    if diag is not None:
        d = texts(root, "diagnosis")
        assert d and diag in d[0], "diagnosis %r, want %r" % (d, diag)
    return root

def shape(root):
    """what a picture shows, less its title (the target as named)."""
    out = []
    for e in root.iter():
        if e.tag in (NS + "title", NS + "svg") or e.get("class") == "background":
            continue
        if e.tag == NS + "text" and ".sc:" in (e.text or ""):
            continue
        out.append((e.tag, tuple(sorted(e.attrib.items())), e.text))
    return out

cmd = sys.argv[1]
if cmd == "report":  # report.json's wrong counts against its pictures
    rep = json.load(open(sys.argv[2]))
    want = int(sys.argv[3].rstrip("+"))  # pictures expected (at least, with a +)
    seen = 0
    for r in rep["results"]:
        cx = r["counterexample"]
        if not cx:
            continue
        assert "picture" in cx, "no picture field"
        if cx["picture"]:
            seen += 1
            check(cx["picture"], cx["wrong"])
    least = sys.argv[3].endswith("+")
    assert seen == want or (least and seen >= want), "%d pictures, want %s" % (seen, sys.argv[3])
elif cmd == "check":  # FILE WRONG RED [DIAGNOSIS]
    check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
elif cmd == "same":  # two pictures of one case
    a, b = shape(ET.parse(sys.argv[2]).getroot()), shape(ET.parse(sys.argv[3]).getroot())
    assert a == b, "the pictures differ: %d and %d elements" % (len(a), len(b))
elif cmd == "picture":  # report.json's picture field of result 0
    cx = json.load(open(sys.argv[2]))["results"][0]["counterexample"]
    got = cx.get("picture") if cx else None
    assert (got or "") == sys.argv[3], "picture %r, want %r" % (got, sys.argv[3])
elif cmd == "cap":  # FILE MAX: at most MAX cells, and the rest counted
    root = ET.parse(sys.argv[2]).getroot()
    n = len(cells(root))
    assert 0 < n <= int(sys.argv[3]), "%d cells" % n
    nd = texts(root, "not-drawn")
    assert nd and "more elements not drawn" in nd[0], nd
    heads = [e.text for e in root.iter(NS + "text") if (e.text or "").startswith("rank ")]
    assert len(heads) == 4 and all("not all drawn" in h for h in heads), heads
    assert len({e.get("data-rank") for e in cells(root)}) == 4, "a rank with no cell drawn"
EOF

bug=corpus/deepspeed/sf-head2seq-before-5664.sc # minimal case: world=2 s=2 b=2 h=2 d=1, 4 wrong
name=deepspeed-sf-head2seq-before-5664-semantics

# (a) the picture in a report
expect_rc 0 "check --report" "$sc" check "$bug" --property semantics --seed 3 --report "$tmp/rep"
svg=$tmp/rep/failures/$name.svg
if [ -s "$svg" ]; then ok; else bad "no $svg"; ls -R "$tmp/rep" >&2; fi
[ "$(ls "$tmp/rep/failures"/*.svg 2>/dev/null | wc -l)" -eq 1 ] && ok || bad "not exactly one picture"
expect_py "the picture: 4 wrong cells, all red, dims b and h swapped" check "$svg" 4 4 "dims b and h swapped"
expect_py "report.json: picture and wrong agree" report "$tmp/rep/report.json" 1
expect_py "report.json names the picture" picture "$tmp/rep/report.json" "$svg"
expect_grep "!\[picture\](failures/$name.svg)" "$tmp/rep/summary.md" "summary.md embeds the picture"
expect_grep "!\[picture\]($name.svg)" "$tmp/rep/failures/$name.md" "NAME.md embeds the picture"
expect_grep "Diagnosis: dims b and h swapped" "$tmp/rep/failures/$name.md" "NAME.md gives the diagnosis"
grep -q "rank 0: output \[1, 2, 2, 1\], 2 wrong" "$svg" && ok || bad "rank headers"
grep -q '\[0, 1, :, :\]  s=0, b=1; rows h, columns d' "$svg" && ok \
	|| bad "small multiples are captioned with their index, and the dims by name"

# repro --svg draws the same picture (the title names the target as repro does)
expect_rc 1 "repro --svg" "$sc" repro "$tmp/rep/failures/$name.case" --svg "$tmp/repro.svg"
expect_grep "^picture: .*repro.svg (8 elements, 4 wrong)" "$tmp/out" "repro says what it drew"
expect_grep "diagnosis: dims b and h swapped" "$tmp/out" "repro prints the diagnosis"
expect_py "repro --svg: the same picture as the report's" same "$svg" "$tmp/repro.svg"
expect_rc 2 "--svg is repro's" "$sc" eval "$bug" --world 2 --sizes s=2,b=2,h=2,d=1 --svg "$tmp/e.svg"
expect_rc 2 "--svg is not check's" "$sc" check "$bug" --svg "$tmp/e.svg"
expect_rc 2 "repro --svg into a folder that does not exist" "$sc" repro "$tmp/rep/failures/$name.case" --svg "$tmp/none/x.svg"
expect_grep "shardcheck: --svg: " "$tmp/err" "the write error is named"

# padding where X belongs: its own colour, a red border, counted wrong
expect_rc 0 "padding" "$sc" check corpus/pytorch/fsdp2-tp-uneven-full-tensor-2.8.0.sc --property semantics --seed 1 --report "$tmp/pad"
expect_py "padding cells are wrong, not red" check "$tmp/pad/failures/pytorch-fsdp2-tp-uneven-full-tensor-2-8-0-semantics.svg" 4 0 "holds padding"
grep -q 'class="pad"[^>]*data-wrong="1"[^>]*stroke="#f0605d"' "$tmp/pad/failures/"*.svg && ok || bad "a wrong padding cell has a red border"
grep -q 'rank 1 = (dp 0, tp 1)' "$tmp/pad/failures/"*.svg && ok || bad "rank headers carry mesh coordinates"

# (b) a spec that holds: no picture
expect_rc 0 "a correct spec" "$sc" check corpus/deepspeed/sf-head2seq-batchdim.sc --property semantics --seed 3 --cases 200 --report "$tmp/okrep"
[ -z "$(find "$tmp/okrep" -name '*.svg')" ] && ok || bad "a passing report has a picture"
if grep -q '"picture": "' "$tmp/okrep/report.json"; then bad "a passing report names a picture"; else ok; fi

# nothing drawn, and said why: a compute spec, a step that fails at run time
expect_rc 0 "a compute spec" "$sc" check corpus/nvfuser/tp-mlp-bias-before-allreduce.sc --property semantics --seed 1 --report "$tmp/comp"
[ -z "$(find "$tmp/comp" -name '*.svg')" ] && ok || bad "a compute spec's report has a picture"
expect_grep "^No picture: compute specs are not drawn" "$tmp/comp/failures/nvfuser-tp-mlp-bias-before-allreduce-semantics.md" "NAME.md says why"
expect_py "report.json: picture null" picture "$tmp/comp/report.json" ""
expect_rc 1 "repro --svg of a compute case" "$sc" repro "$tmp/comp/failures/nvfuser-tp-mlp-bias-before-allreduce-semantics.case" --svg "$tmp/c.svg"
expect_grep "^picture: nothing drawn: compute specs" "$tmp/out" "repro says nothing is drawn"
[ ! -e "$tmp/c.svg" ] && ok || bad "a compute case was drawn"
expect_rc 0 "a run-time error" "$sc" check corpus/deepspeed/bf-head2seq-before-5664.sc --property semantics --seed 1 --report "$tmp/rt"
[ -z "$(find "$tmp/rt" -name '*.svg')" ] && ok || bad "a run-time error's report has a picture"
expect_grep "^No picture: a step fails at run time" "$tmp/rt/failures/deepspeed-bf-head2seq-before-5664-semantics.md" "NAME.md says why"

# a stale picture of an earlier run in the same folder is removed, not linked
cp "$svg" "$tmp/comp/failures/nvfuser-tp-mlp-bias-before-allreduce-semantics.svg"
expect_rc 0 "the same folder again" "$sc" check corpus/nvfuser/tp-mlp-bias-before-allreduce.sc --property semantics --seed 1 --report "$tmp/comp"
[ -z "$(find "$tmp/comp" -name '*.svg')" ] && ok || bad "a stale picture stays"

# every picture of the corpus agrees with its report
expect_rc 0 "the corpus" "$sc" check corpus/ --seed 1 --cases 300 --report "$tmp/corpus" -q
expect_py "every corpus picture has the report's wrong count" report "$tmp/corpus/report.json" 10+

# the cell limit: 10240 elements, 4096 cells drawn, every rank shown, the rest counted
printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 4\nsizes s=8 b=4 h=8 d=40\ndtype i32\nseed 0\n' \
	"$PWD/$bug" >"$tmp/big.case"
expect_rc 1 "a large case" "$sc" repro "$tmp/big.case" --svg "$tmp/big.svg"
expect_grep "(10240 elements, 7680 wrong, 6144 not drawn)" "$tmp/out" "repro counts what it left out"
expect_py "at most 4096 cells" cap "$tmp/big.svg" 4096
[ "$(wc -c <"$tmp/big.svg")" -lt 2000000 ] && ok || bad "the picture is over 2 MB"

echo "svg: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
