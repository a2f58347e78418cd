#!/usr/bin/env bash
# Strict .case parsing: every bad field is "path:LINE: message", exit 2 and
# nothing run, from `repro` and from `check` alike; valid case files load
# (every one of the corpus), sizes outside a spec's `sizes` hints included.
# Usage: test_casefile.sh PATH/TO/shardcheck  (from the repository root)
set -u
sc=$1
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }

# A valid case, one line per field (line numbers below count on this order):
# 1 version, 2 target, 3 property, 4 backend, 5 world, 6 sizes, 7 dtype, 8 seed
spec=corpus/deepspeed/sf-head2seq-batchdim.sc
good() {
	printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 2\nsizes s=4 b=2 h=2 d=1\ndtype i32\nseed 7\n' "$spec"
}
# edit SED: good() through a sed script
edit() { good | sed "$1"; }

# refuse NAME LINE REGEX: $tmp/NAME.case is refused by repro and by check with
# exit 2, "NAME.case:LINE: ..." matching REGEX, and nothing run
refuse() {
	local name=$1 line=$2 re=$3 cmd rc
	for cmd in repro check; do
		"$sc" $cmd "$tmp/$name.case" >"$tmp/$name.out" 2>&1
		rc=$?
		if [ $rc -eq 2 ] && grep -qE -- "/$name\.case:$line: .*($re)" "$tmp/$name.out" &&
			! grep -qE "^(replay|FAIL|pass) " "$tmp/$name.out"; then ok
		else bad "$cmd $name: exit $rc, want 2 and '$name.case:$line: ...$re'"; cat "$tmp/$name.out" >&2; fi
	done
}
# loads NAME WANT_RC: $tmp/NAME.case loads and replays with exit WANT_RC
loads() {
	"$sc" repro "$tmp/$1.case" >"$tmp/$1.out" 2>&1
	local rc=$?
	if [ $rc -eq "$2" ] && grep -q "^replay " "$tmp/$1.out"; then ok
	else bad "$1: exit $rc, want $2 and a replay"; cat "$tmp/$1.out" >&2; fi
}

good >"$tmp/ok.case";                                                   loads ok 0
good | sed 's/$/\r/' >"$tmp/crlf.case";                                 loads crlf 0
{ echo "# a comment first"; good; } >"$tmp/comment.case";              loads comment 0

# backend: a name of the registry, built in or not
edit 's/^backend sim/backend simm/' >"$tmp/backend.case";               refuse backend 4 "unknown backend 'simm'"
edit 's/^backend sim/backend sim x/' >"$tmp/backend2.case";             refuse backend2 4 "unknown backend 'sim x'"
for b in mpi nccl cuda emu; do # known names: they load; opening one this build lacks is another error
	edit "s/^backend sim/backend $b/" >"$tmp/be-$b.case"
	"$sc" repro "$tmp/be-$b.case" >"$tmp/be-$b.out" 2>&1
	if grep -q "unknown backend\|be-$b\.case:[0-9]" "$tmp/be-$b.out"; then bad "backend $b is refused as unknown"; cat "$tmp/be-$b.out" >&2; else ok; fi
done

# bytes: NUL, control characters, CR inside a line, long lines, huge files
edit 's/^dtype i32/dtype i32\x00/' >"$tmp/nul.case";                    refuse nul 7 "NUL byte"
edit 's/^dtype i32/dtype\x01 i32/' >"$tmp/ctrl.case";                   refuse ctrl 7 "control character 0x01"
edit 's/^dtype i32/dtype i32\x1b[0m/' >"$tmp/esc.case";                 refuse esc 7 "control character 0x1b"
edit 's/^dtype i32/dtype i\x7f32/' >"$tmp/del.case";                    refuse del 7 "control character 0x7f"
edit 's/^seed 7/seed 7\r8/' >"$tmp/cr.case";                            refuse cr 8 "control character 0x0d"
{ good; printf '# %05000d\n' 0; } >"$tmp/long.case";                    refuse long 9 "line longer than 2047 bytes"
{ good; printf '#%02046d\n' 0; } >"$tmp/long2047.case";                 loads long2047 0
{ good; head -c 70000 /dev/zero | tr '\0' '#'; } >"$tmp/huge.case";      refuse huge 1 "larger than 65536 bytes"
: >"$tmp/empty.case";                                                   refuse empty 1 "empty case file"
printf '# only a comment\n\n' >"$tmp/empty2.case";                      refuse empty2 1 "empty case file"

# the first line: exactly 'shardcheck-case 1'
edit 's/^shardcheck-case 1/shardcheck-case 1abc/' >"$tmp/version.case"; refuse version 1 "version '1abc' is not supported"
edit 's/^shardcheck-case 1/shardcheck-case 01/' >"$tmp/version0.case";   refuse version0 1 "version '01' is not supported"
edit 's/^shardcheck-case 1/shardcheck-case 2/' >"$tmp/version2.case";    refuse version2 1 "version '2' is not supported"
edit '/^shardcheck-case/d' >"$tmp/noversion.case";                       refuse noversion 1 "not a case file"
edit 's/^seed 7/seed 7\nshardcheck-case 1/' >"$tmp/version-twice.case";  refuse version-twice 9 "'shardcheck-case' given twice \(first at line 1\)"

# seed: digits only, fits in 64 bits, required
edit 's/^seed 7/seed -1/' >"$tmp/seedneg.case";                         refuse seedneg 8 "seed must be a decimal integer in 0\.\.2\^64-1, got '-1'"
edit 's/^seed 7/seed +7/' >"$tmp/seedplus.case";                        refuse seedplus 8 "seed must be a decimal integer"
edit 's/^seed 7/seed 0x10/' >"$tmp/seedhex.case";                       refuse seedhex 8 "seed must be a decimal integer"
edit 's/^seed 7/seed 7 8/' >"$tmp/seedtwo.case";                        refuse seedtwo 8 "seed must be a decimal integer"
edit 's/^seed 7/seed 18446744073709551616/' >"$tmp/seedbig.case";       refuse seedbig 8 "seed must be a decimal integer"
edit 's/^seed 7/seed 18446744073709551615/' >"$tmp/seedmax.case";       loads seedmax 0
edit '/^seed/d' >"$tmp/noseed.case";                                    refuse noseed 8 "missing 'seed' \(a truncated file\?\)"
edit 's/^seed 7/seed/' >"$tmp/seedcut.case";                            refuse seedcut 8 "'seed' needs a value \(a truncated file\?\)"
good | head -c -11 >"$tmp/trunc.case";                                  refuse trunc 7 "'dtype' needs a value"
good | head -n 5 >"$tmp/trunc5.case";                                   refuse trunc5 6 "missing 'sizes'"

# world: digits only, 1..256
edit 's/^world 2/world +2/' >"$tmp/worldplus.case";                     refuse worldplus 5 "world must be a decimal in 1\.\.256, got '\+2'"
edit 's/^world 2/world  2x/' >"$tmp/worldx.case";                       refuse worldx 5 "world must be a decimal in 1\.\.256, got '2x'"
edit 's/^world 2/world 0/' >"$tmp/world0.case";                         refuse world0 5 "world must be a decimal in 1\.\.256"
edit 's/^world 2/world 257/' >"$tmp/world257.case";                     refuse world257 5 "world must be a decimal in 1\.\.256"
edit 's/^world 2/world 4294967298/' >"$tmp/worldwrap.case";             refuse worldwrap 5 "world must be a decimal in 1\.\.256"

# sizes: decimals >= 1 by dim name, each once, every dim, at most 2^40 elements (world included)
edit 's/^sizes .*/sizes s=4 b=2 h=2 d=-1/' >"$tmp/sizeneg.case";       refuse sizeneg 6 "size of 'd' must be a decimal in 1\.\.2\^40, got '-1'"
edit 's/^sizes .*/sizes s=4 b=2 h=2 d=0/' >"$tmp/size0.case";          refuse size0 6 "size of 'd' must be a decimal in 1\.\.2\^40"
edit 's/^sizes .*/sizes s=4 b=+2 h=2 d=1/' >"$tmp/sizeplus.case";      refuse sizeplus 6 "size of 'b' must be a decimal"
edit 's/^sizes .*/sizes s=4 b=2x h=2 d=1/' >"$tmp/sizex.case";         refuse sizex 6 "size of 'b' must be a decimal"
edit 's/^sizes .*/sizes s=4 b=99999999999999999999 h=2 d=1/' >"$tmp/sizehuge.case"; refuse sizehuge 6 "size of 'b' must be a decimal in 1\.\.2\^40"
edit 's/^sizes .*/sizes s=1099511627776 b=1099511627776 h=2 d=1/' >"$tmp/sizeover.case"; refuse sizeover 6 "more than 2\^40 elements"
edit 's/^sizes .*/sizes s=274877906944 b=2 h=2 d=1/' >"$tmp/sizeworld.case"; refuse sizeworld 6 "more than 2\^40 elements \(world included\)"
edit 's/^sizes .*/sizes s=4 s=4 b=2 h=2 d=1/' >"$tmp/sizedup.case";    refuse sizedup 6 "size of 's' given twice"
edit 's/^sizes .*/sizes s=4 b=2 h=2/' >"$tmp/sizemissing.case";        refuse sizemissing 6 "no size for dim 'd'"
edit 's/^sizes .*/sizes s=4 b=2 h=2 d=1 q=1/' >"$tmp/sizename.case";   refuse sizename 6 "'q' is not a dim of"
edit 's/^sizes .*/sizes s=4 b=2 h=2 d/' >"$tmp/sizenoeq.case";         refuse sizenoeq 6 "expected NAME=SIZE in sizes, got 'd'"
edit 's/^sizes .*/sizes s=4\tb=2  h=2 d=1/' >"$tmp/sizetab.case";      loads sizetab 0
# sizes the spec does not admit (h and s are sharded: divisible by the world)
edit 's/^sizes .*/sizes s=3 b=2 h=2 d=1/' >"$tmp/sizediv.case";        refuse sizediv 6 "sharded dim 's' \(3\) not divisible by world 2"

# keys: known, once each (both lines named), every required one, a value each
edit 's/^seed 7/seed 7\nseed 8/' >"$tmp/dupseed.case";                  refuse dupseed 9 "'seed' given twice \(first at line 8\)"
edit 's/^seed 7/seed 7\nworld 2/' >"$tmp/dupworld.case";                refuse dupworld 9 "'world' given twice \(first at line 5\)"
edit 's/^seed 7/seed 7\nexpect pass\nexpect fail/' >"$tmp/dupexpect.case"; refuse dupexpect 10 "'expect' given twice \(first at line 9\)"
edit "s|^seed 7|seed 7\nchain $spec,$spec|" >"$tmp/dupchain.case";     refuse dupchain 9 "'chain' after 'target' at line 2"
edit 's/^seed 7/seed 7\nfrob 1/' >"$tmp/unknownkey.case";               refuse unknownkey 9 "unknown key 'frob'"
edit 's/^dtype i32/dtype i31/' >"$tmp/dtype.case";                      refuse dtype 7 "unknown dtype 'i31'"
edit 's/^seed 7/seed 7\nexpect maybe/' >"$tmp/expect.case";             refuse expect 9 "expect must be 'fail' or 'pass'"
edit '/^property/d' >"$tmp/noprop.case";                                refuse noprop 8 "missing 'property'"
edit '/^target/d' >"$tmp/notarget.case";                                refuse notarget 8 "missing 'target' \(or 'chain'\)"

# the target and its property
edit 's|^target .*|target corpus/no/such.sc|' >"$tmp/nofile.case";     refuse nofile 2 "corpus/no/such.sc: cannot open"
edit 's/^property semantics/property semantix/' >"$tmp/prop.case";      refuse prop 3 "unknown property 'semantix'"
edit 's/^property semantics/property reduce-consistency/' >"$tmp/applies.case"; refuse applies 3 "property 'reduce-consistency' does not apply to"
edit 's/^seed 7/seed 7\nbaseline libx.so/' >"$tmp/baseline.case";      refuse baseline 9 "'baseline' is for plugin targets"
edit 's/^seed 7/seed 7\nparams dim=0/' >"$tmp/specparams.case";         refuse specparams 9 "'params' is for built-in targets only"
edit "s|^target .*|chain $spec,,$spec|" >"$tmp/chainempty.case";        refuse chainempty 2 "an empty entry in the chain"
edit "s|^target .*|chain $spec,$spec,$spec,$spec,$spec,$spec,$spec,$spec,$spec|" >"$tmp/chainlong.case"; refuse chainlong 2 "a chain has at most 8 specs"
p=$(printf 'x%.0s' $(seq 1100))
edit "s|^target .*|target $p.sc|" >"$tmp/longpath.case";                refuse longpath 2 "'target' is longer than 1023 bytes"
edit "s|^target .*|target ${p:0:600}.sc|" >"$tmp/longname.case";       refuse longname 2 "the target's path is longer than 511 bytes"

# requires bind a given case, and name the require (a world-only require blames the world line)
printf 'pipeline small-world\ndims s d\ninput shard s\noutput shard s\nrequire P <= 3\nrequire d %% 2 == 1\nsizes s=P..3*P d=1..3\ncontiguous\n' >"$tmp/small.sc"
sw() { printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld %s\nsizes s=%s d=%s\ndtype i32\nseed 0\n' "$tmp/small.sc" "$@"; }
sw 4 4 1 >"$tmp/reqworld.case";                                         refuse reqworld 5 "require at .*/small\.sc:5 does not hold: P <= 3"
sw 2 2 2 >"$tmp/reqsize.case";                                          refuse reqsize 6 "require at .*/small\.sc:6 does not hold"
sw 3 27 5 >"$tmp/hint.case";                                            loads hint 0   # outside the sizes hints: a valid case
printf 'shardcheck-case 1\ntarget corpus/nvfuser/tp-mlp-f32.sc\nproperty semantics\nworld 2\nsizes b=1 s=1 h=1 f=2\ndtype i32\nseed 0\n' >"$tmp/cdtype.case"
refuse cdtype 6 "dtype i32 is not allowed"

# built-ins: params validated (keys, values, ndims, every parameter of the family)
bi() { printf 'shardcheck-case 1\ntarget builtin:%s\nproperty semantics\nworld 2\nsizes d0=2 d1=2\nparams %s\ndtype i32\nseed 0\n' "$@"; }
bi all_to_all 'dim=0 concat=1 ndims=2' >"$tmp/bi.case";                 loads bi 0
bi all_to_all 'dim=0 dim=1 ndims=2' >"$tmp/pdup.case";                  refuse pdup 6 "param 'dim' given twice"
bi all_to_all 'dim=0 concat=1 ndims=9' >"$tmp/pndims.case";              refuse pndims 6 "builtin:all_to_all takes ndims=2\.\.6"
bi all_to_all 'dim=0 concat=1 ndims=-2' >"$tmp/pndimsneg.case";          refuse pndimsneg 6 "param ndims: bad value '-2'"
bi all_to_all 'dim=0 concat=1' >"$tmp/pnondims.case";                    refuse pnondims 6 "takes ndims=2\.\.6 \(missing\)"
bi all_to_all 'dim=0 ndims=2' >"$tmp/pnoconcat.case";                    refuse pnoconcat 6 "missing 'concat'"
bi all_to_all 'dim=sum concat=1 ndims=2' >"$tmp/pdimop.case";            refuse pdimop 6 "param dim: bad value 'sum'"
bi all_to_all 'dim=0 concat=1 ndims=2 op=frob' >"$tmp/pop.case";         refuse pop 6 "param op: bad value 'frob'"
bi all_to_all 'dim=0 concat=1 ndims=2 frob=1' >"$tmp/pkey.case";         refuse pkey 6 "unknown param 'frob'"
bi all_to_all 'dim=5 concat=1 ndims=2' >"$tmp/prange.case";              refuse prange 6 "params: dim=5 is out of range for 2 dims"
bi all_to_all 'dim=1 concat=1 ndims=2' >"$tmp/psame.case";               refuse psame 6 "params: concat=1 must differ from dim"
bi all_to_all 'dim=0 concat=1 ndims=2' | sed '/^params/d' >"$tmp/pnone.case"; refuse pnone 8 "a built-in case needs 'params'"
bi all_too_all 'dim=0 ndims=2' >"$tmp/pfam.case";                        refuse pfam 2 "unknown built-in 'builtin:all_too_all'"

# repro and check of good case files: the corpus regression fails as it should
"$sc" repro corpus/deepspeed/sf-head2seq-before-5664.case >"$tmp/c.out" 2>&1
rc=$?; [ $rc -eq 1 ] && grep -q "^replay " "$tmp/c.out" && ok || { bad "the corpus regression: exit $rc, want 1"; cat "$tmp/c.out" >&2; }
# every case file in the corpus loads (its verdict is its own business)
for f in $(find corpus -name '*.case'); do
	"$sc" repro "$f" >"$tmp/c.out" 2>&1
	rc=$?
	[ $rc -le 1 ] && ok || { bad "$f: exit $rc"; cat "$tmp/c.out" >&2; }
done

# counts matrices: a case of a spec with drawn counts loads (C=a:b/c:d, the
# world's rows), and every malformed matrix is refused at its line
moe=corpus/megatron/moe-a2a-combine-reuses-dispatch-splits.sc
mc() { printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 2\nsizes %s\ndtype i32\nseed 0\n' "$moe" "$1"; }
mc "t=1 h=1 C=0:0/1:0" >"$tmp/counts.case";                            loads counts 1
mc "t=1 h=1 C=0:0/0:1" >"$tmp/counts-pass.case";                       loads counts-pass 0
mc "t=1 h=1" >"$tmp/nocounts.case";                                     refuse nocounts 6 "no counts C"
mc "t=1 h=1 C=0:0:0/1:0" >"$tmp/cwide.case";                            refuse cwide 6 "counts C: expected 2 rows of 2 entries"
mc "t=1 h=1 C=0:0/1" >"$tmp/cshort.case";                               refuse cshort 6 "counts C: expected 2 rows of 2 entries"
mc "t=1 h=1 C=0:0/x:0" >"$tmp/cnum.case";                               refuse cnum 6 "counts C: expected"
mc "t=2 h=1 C=0:0/1:0" >"$tmp/csum.case";                               refuse csum 6 "t is 2, but its sizes= give 1"
mc "t=1 h=1 C=0:0/9:0" >"$tmp/crange.case";                             refuse crange 6 "C\(1, 0\) = 9 outside 0..3"

# micro-batch counts: N=a:b, one entry per micro-batch, their sum the split
# dim's size; the minimal case of the gradient-accumulation bug replays
ga=corpus/transformers/gradient-accumulation-v4.45.2.sc
gc() { printf 'shardcheck-case 1\ntarget %s\nproperty semantics\nbackend sim\nworld 1\nsizes %s\ndtype f32\nseed 0\n' "$ga" "$1"; }
gc "g=2 n=3 v=2 N=1:2" >"$tmp/micro.case";                              loads micro 1
gc "g=2 n=4 v=2 N=2:2" >"$tmp/micro-even.case";                         loads micro-even 0
gc "g=2 n=3 v=2" >"$tmp/nomicro.case";                                  refuse nomicro 6 "no counts N \(N=a:b:..., one entry per micro-batch\)"
gc "g=2 n=3 v=2 N=1:2:0" >"$tmp/mlong.case";                            refuse mlong 6 "N: expected 2 entries"
gc "g=2 n=4 v=2 N=1:2" >"$tmp/msum.case";                               refuse msum 6 "n is 4, but its micro-batches N hold 3 rows"
gc "g=2 n=9 v=2 N=0:9" >"$tmp/mrange.case";                             refuse mrange 6 "N\(0\) = 0 outside 1..8"

# a torch version: refused when unknown; a case found under --torch keeps
# its rules (its `torch` line), and --torch over it changes them again
edit '$a torch 1.2' >"$tmp/torch-old.case"; refuse torch-old 9 "older than the oldest version"
edit '$a torch x' >"$tmp/torch-bad.case"; refuse torch-bad 9 "a torch version is MAJOR.MINOR"
printf 'dims a b\ninput replicate\noutput replicate\nnarrow 1 0 0\npad 0 0 1\n' >"$tmp/padempty.sc"
"$sc" check "$tmp/padempty.sc" --torch 2.9 --property semantics --cases 5 --report "$tmp/tr" >"$tmp/tr.out" 2>&1
tc=$tmp/tr/failures/tmp-padempty-semantics.case
[ -f "$tc" ] || tc=$(ls "$tmp"/tr/failures/*semantics.case 2>/dev/null | head -1)
if [ -n "$tc" ] && grep -q '^torch 2.9$' "$tc"; then ok; else bad "torch: the case file has no 'torch 2.9' line"; fi
grep -q '^torch 2.9 rules: pad-empty as before 2.10$' "$tmp/tr.out" && ok || bad "torch: the header does not name the rules"
grep -q -- '"torch": "2.9"' "$tmp/tr/report.json" && ok || bad "torch: report.json has no \"torch\": \"2.9\""
"$sc" repro "$tc" >"$tmp/trr.out" 2>&1
grep -q "resulted in a negative output size" "$tmp/trr.out" && ok || bad "torch: repro did not follow the case's torch 2.9 rules"
"$sc" repro "$tc" --torch 2.10 >"$tmp/trn.out" 2>&1
grep -q "resulted in a negative output size" "$tmp/trn.out" && bad "torch: repro --torch 2.10 kept the old rule" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
