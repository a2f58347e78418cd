#!/usr/bin/env bash
# The picture of a counterexample as a browser draws it: headless
# Chromium renders a report's failures/NAME.svg to PNG, and the pixel at
# the centre of every cell (from the cells' x, y, width, height) has the
# cell's colour: red for each wrong cell, never red for a correct one,
# the padding colour for padding.
# Exits 77 (skipped) when there is no chromium or chromium-browser; as
# root with CI=true it installs Debian's chromium first (apt-get, quietly,
# logged to $TMPDIR/shardcheck-svg-browser-apt.log).
# Usage: test_svg_browser.sh PATH/TO/shardcheck   (run from the repository root)
set -u
. "$(dirname "$0")/testlib.sh"

find_browser() {
	local b
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return 0; fi
	done
	return 1
}
browser=$(find_browser)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && [ "${CI:-}" = true ]; then
	log=${TMPDIR:-/tmp}/shardcheck-svg-browser-apt.log
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium ||
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; } >"$log" 2>&1
	browser=$(find_browser) || echo "svg_browser: installing chromium failed (see $log)"
fi
if [ -z "$browser" ]; then
	echo "svg_browser: no chromium or chromium-browser here: skipped"
	exit 77
fi

# pixels.py SVG PNG: every cell's centre against its colour (PNG decoded
# with zlib: 8-bit RGB or RGBA, as Chromium writes its screenshots)
cat >"$tmp/pixels.py" <<'EOF'
import struct, sys, zlib, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
COLOUR = {"wrong": "#f0605d", "ok": "#ececec", "pad": "#9ecae1", "nothing": "#ffd54f"}

def png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])

def rgb(hexc):
    return tuple(int(hexc[i:i + 2], 16) for i in (1, 3, 5))

def near(p, q, tol=8):
    return all(abs(a - b) <= tol for a, b in zip(p, q))

svg, shot = sys.argv[1], sys.argv[2]
root = ET.parse(svg).getroot()
w, h, px = png(shot)
assert (w, h) == (int(root.get("width")), int(root.get("height"))), "screenshot %dx%d" % (w, h)
seen = {"wrong": 0, "ok": 0, "pad": 0, "nothing": 0}
for e in root.iter(NS + "rect"):
    cls = e.get("class")
    if "data-rank" not in e.attrib:
        continue
    x = int(e.get("x")) + int(e.get("width")) // 2
    y = int(e.get("y")) + int(e.get("height")) // 2
    p = px(x, y)
    where = "rank %s [%s] (%s) at %d,%d: %s" % (e.get("data-rank"), e.get("data-index"), cls, x, y, p)
    assert near(p, rgb(COLOUR[cls])), where + ", want " + COLOUR[cls]
    if cls != "wrong":
        assert not near(p, rgb(COLOUR["wrong"]), 24), where + " looks wrong"
    seen[cls] += 1
print(" ".join("%s %d" % kv for kv in sorted(seen.items())))
want = [kv.split("=") for kv in sys.argv[3:]]
for k, v in want:
    assert seen[k] == int(v), "%d %s cells, want %s" % (seen[k], k, v)
EOF

render() { # SVG PNG
	local size
	size=$(python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.get("width") + "," + r.get("height"))' "$1")
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
		--user-data-dir="$tmp/profile" --screenshot="$2" --window-size="$size" "file://$1" >"$tmp/browser.log" 2>&1
	if [ -s "$2" ]; then ok; else bad "$browser drew no $2"; tail -20 "$tmp/browser.log" >&2; fi
}
pixels() { # description SVG PNG CLASS=N...
	local what=$1; shift
	if python3 "$tmp/pixels.py" "$@" >"$tmp/py" 2>&1; then ok; else bad "$what"; cat "$tmp/py" >&2; fi
}

# the README's failure: 4 wrong cells of 8
"$sc" check corpus/deepspeed/sf-head2seq-before-5664.sc --property semantics --seed 3 --report "$tmp/rep" >/dev/null 2>&1
svg=$tmp/rep/failures/deepspeed-sf-head2seq-before-5664-semantics.svg
if [ -s "$svg" ]; then ok; else bad "no picture in the report"; fi
render "$svg" "$tmp/a.png"
pixels "every wrong cell's centre is red, no correct one's" "$svg" "$tmp/a.png" wrong=4 ok=4

# padding where X belongs, on a mesh
"$sc" check corpus/pytorch/fsdp2-tp-uneven-full-tensor-2.8.0.sc --property semantics --seed 1 --report "$tmp/pad" >/dev/null 2>&1
svg=$tmp/pad/failures/pytorch-fsdp2-tp-uneven-full-tensor-2-8-0-semantics.svg
render "$svg" "$tmp/b.png"
pixels "padding cells have the padding colour" "$svg" "$tmp/b.png" pad=4 ok=4 wrong=0

echo "svg_browser ($browser): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
