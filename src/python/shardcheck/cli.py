"""python3 -m shardcheck trace ...  (also `shardcheck trace ...`)."""
import argparse
import copy
import os
import sys
import tempfile

from . import runner
from .emit import write
from .record import TraceError
from .trace import _configs, learn_require, load_function_module, merge, parse_mesh, run_all, skeleton

LEARN_MAX = 3   # requires learnt from the code's own checks, at most

USAGE = """shardcheck trace FILE.py --call EXPR --dims a,b,... --input PLACEMENT --output PLACEMENT
                 [--mesh dp=D,tp=T] [--require COND]... [--reference STEP]... [--backward] [--name NAME]
                 [-o OUT.sc] [--check [CHECK OPTIONS]]

Runs a PyTorch function on simulated ranks (no process group: torch.distributed's
collectives, get_world_size, get_rank and new_group are simulated), records its
tensor operations and writes a spec with one step per operation, each with its
source line. Sizes are solved as expressions over runs at worlds 1..4 (or mesh
shapes), two shapes each, every rank.

  --call EXPR      a call evaluated in FILE's namespace: X is the rank's local input
                   (its shape from --dims and --input), GROUP the world's process
                   group, GROUPS.<mesh dim> a mesh dim's group, MESH the DeviceMesh
                   (--mesh's dims, else one dim over the world; init_device_mesh
                   of that shape in the call gives it too), DIMS the global
                   sizes by name (for code handed the logical shape)
  --dims a,b,...   the global dims of X, outermost first
  --input P        X's placement, as in a spec ("shard h", "replicate", "dp:shard s")
  --output P       the placement the result must have
  --mesh dp=D,...  a device mesh (sizes: a symbol, drawn, or an integer)
  --require COND   a spec `require` line: bounds the shapes traced and checked.
                   Where the code itself rejects some shapes (an assert or an
                   exception that depends on sizes only), the simplest condition
                   over the dims and P that tells them apart is learnt and
                   written as a require, with the raising line as its comment
  --reference STEP a line of the spec's `reference` block (the tensor the output
                   places, when it is not X itself); repeat for several
  --backward       trace the backward of the torch.autograd.Function the call applies
                   (Fn.apply(X, ...) or a wrapper returning its output): X is then the
                   gradient of its output, --input that gradient's placement and
                   --output the placement of the gradient of X's argument
  --name NAME      the spec's pipeline name (default: OUT's or the function's name)
  -o OUT.sc        where to write the spec (default: stdout)
  --check ...      run `shardcheck check` on the spec at once; the rest of the
                   command line goes to check (--seed, --cases, --world, ...)

Exit codes: as `check` with --check; else 0 written, 2 an operation with no step,
a data-dependent size, a size no expression fits, or a usage error."""


def parse(argv):
    check_args = None
    if "--check" in argv:
        i = argv.index("--check")
        argv, check_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog="shardcheck trace", usage=USAGE, add_help=False)
    p.add_argument("file")
    p.add_argument("--call", required=True)
    p.add_argument("--dims", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--mesh", default="")
    p.add_argument("--require", action="append", default=[])
    p.add_argument("--reference", action="append", default=[])
    p.add_argument("--name", default="")
    p.add_argument("--backward", action="store_true")
    p.add_argument("-o", dest="out", default="")
    if "--help" in argv or "-h" in argv:
        print(USAGE)
        print(f"This module: {os.path.dirname(os.path.abspath(__file__))}")
        sys.exit(0)
    args = p.parse_args(argv)
    args.dims = [d for d in args.dims.replace(",", " ").split() if d]
    args.check = check_args
    return args


def trace_to_text(args, invoke=None):
    """The spec's text for args (a parsed command line); invoke(X, GROUP,
    GROUPS), if given, runs the function instead of --call in args.file."""
    mesh = parse_mesh(args.mesh) if args.mesh else []
    name = args.name or (os.path.basename(args.out).split(".")[0] if args.out else
                         args.call.split("(")[0].strip().replace(".", "-"))
    with tempfile.TemporaryDirectory(prefix="shardcheck-trace-") as tmp:
        skel = skeleton(args, name, mesh)
        args.skel = os.path.join(tmp, "skeleton.sc")
        with open(args.skel, "w") as f:
            f.write("\n".join(skel) + "\n")
        from .simdist import installed
        with installed():
            if invoke is None:
                if not os.path.exists(args.file):
                    raise TraceError("usage", "", f"{args.file}: no such file")
                try:
                    load_function_module(args.file)
                    code = compile(args.call, "--call", "eval")
                except SyntaxError as ex:
                    raise TraceError("usage", f"{ex.filename}:{ex.lineno}", f"syntax error: {ex.msg}")

                def invoke(x, group, groups, dims):
                    # the module afresh for every rank: state it keeps (a cached world size) is per process
                    ns = vars(load_function_module(args.file))
                    return eval(code, dict(ns, X=x, GROUP=group, GROUPS=groups, DIMS=dims,
                                            MESH=getattr(groups, "_mesh", None)))
            learnt, given = {}, list(args.require)   # learnt: line -> its require (a later one replaces it)
            for attempt in range(LEARN_MAX + 1):
                configs = _configs(args, mesh, args.skel, tmp)
                if not configs:
                    raise TraceError("usage", "", "no world and shape traced satisfies the spec's declarations "
                                     "(dims, placements, --require)")
                raised = []
                runs = run_all(args, invoke, configs, tmp, raised if attempt < LEARN_MAX else None)
                if not raised:
                    break
                # the code rejects some shapes: the condition that tells them apart becomes a require
                found = learn_require(args, [r.cfg for r in runs], raised) if runs else None
                if found is None:
                    ex = raised[0][1]
                    if not runs:     # it raises at every shape: nothing to tell apart
                        ex.hint = ("it raises at every shape traced, so no shape tells what it rejects: fix the "
                                   "code or --call, or bound the shapes with --require where it runs")
                        raise ex
                    ex.hint = ("no simple condition over the dims and P (a divisibility or a bound) separates the "
                               "shapes where it raises from those where it runs: bound the shapes with --require "
                               "(e.g. --require 'h % P == 0')")
                    raise ex
                cond, ex, nbad = found
                if ex.where in learnt:   # learnt from too few shapes: the same line raised again
                    learnt.pop(ex.where)
                learnt[ex.where] = f"{cond}    # learnt: {ex.where} raises where it does not hold"
                print(f"shardcheck trace: learnt `require {cond}` from {ex.where} ({ex.message.split(' (traced at')[0]}"
                      f", at {nbad} of {len(configs)} shapes)", file=sys.stderr)
                args.require = given + list(learnt.values())
                skel = skeleton(args, name, mesh)
                with open(args.skel, "w") as f:
                    f.write("\n".join(skel) + "\n")
            dtype_read = next((r.rec.dtype_read for r in runs if r.rec.dtype_read), None)
            if dtype_read:      # the code reads the dtype: the same shapes again with 1-byte elements
                wide = [copy.copy(c) for c in configs if c.world > 1][:4]
                for c in wide:
                    c.dtype = "i8"
                runs_i8 = run_all(args, invoke, wide, tmp)
        by_dtype = ""
        if dtype_read:
            try:
                ref, kept, p1 = merge(runs + runs_i8)
                write([], ref, kept)
                runs = runs + runs_i8
            except TraceError:          # steps or sizes that depend on the dtype: this spec is for i32
                by_dtype = f"dtypes i32        # the code reads the dtype at {dtype_read} and " \
                           f"takes other steps or sizes with i8 elements: this spec is for i32"
        ref, kept, p1 = merge(runs)
        worlds = sorted({r.cfg.world for r in kept})
        header = [f"# Traced by `shardcheck trace` from {args.file}:",
                  f"#   {args.call}" + ("  (its backward: X is the output's gradient)"
                                        if getattr(args, "backward", False) else ""),
                  f"# at {len({id(r.cfg) for r in kept})} shapes (worlds {', '.join(map(str, worlds))}), every rank; "
                  "each size below gives",
                  "# the value seen in every run."] + skel
        if by_dtype:
            header += [by_dtype]
        if p1:
            header += [f"require P >= 2    # at world 1 the function takes other steps "
                       f"({len(p1[0].rec.steps)} instead of {len(ref.rec.steps)}): this spec is for P >= 2"]
        lines = write(header, ref, kept)
        text = "\n".join(lines) + "\n"
        # the C side parses what is written, on a traced case
        probe = os.path.join(tmp, "traced.sc")
        with open(probe, "w") as f:
            f.write(text)
        rc, err = runner.eval_dump(probe, kept[0].cfg, os.path.join(tmp, "check"))
        if rc == 2:
            raise TraceError("internal", "", "the spec written does not parse (a shardcheck bug; "
                             "please report it with this output):\n" + err + "\n" + text)
        return text


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        print(f"This module: {os.path.dirname(os.path.abspath(__file__))}")
        return 0 if argv else 2
    if argv[0] != "trace":
        print(f"shardcheck (python): unknown command '{argv[0]}': only `trace` is here", file=sys.stderr)
        return 2
    try:
        args = parse(argv[1:])
    except SystemExit as ex:
        return 2 if ex.code else 0
    try:
        text = trace_to_text(args)
    except TraceError as ex:
        print(f"shardcheck trace: {ex}", file=sys.stderr)
        return 2
    except Exception:   # a bug here: exit 2 (1 would read as a counterexample)
        import traceback
        traceback.print_exc()
        print("shardcheck trace: internal error (a shardcheck bug: please report it with the trace above)",
              file=sys.stderr)
        return 2
    if args.out:
        tmp = args.out + ".tmp"
        try:
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, args.out)
        except OSError as ex:
            print(f"shardcheck trace: -o {args.out}: {ex.strerror}", file=sys.stderr)
            return 2
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.check is not None:
        if not args.out:   # kept: the replay lines of its failures name it
            with tempfile.NamedTemporaryFile("w", prefix="shardcheck-trace-", suffix=".sc", delete=False) as f:
                f.write(text)
            print(f"shardcheck trace: the spec checked is {f.name} (-o FILE writes it where you want)",
                  file=sys.stderr)
            rc, _ = runner.check(f.name, args.check)
            return rc
        return runner.check(args.out, args.check)[0]
    return 0
