"""The shardcheck binary, for what only the C side knows: the cases a spec
admits and its inputs (`eval --dump`), whether a spec parses, `check`."""
import os
import shutil
import subprocess

from .record import TraceError


BUILD_FOLDERS = ("build", "build-ci", "build-clang", "build-asan")


def _checkouts():
    """The checkout this module lives in, then the current directory and
    its parents (an installed module run from inside a checkout)."""
    yield os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    d = os.getcwd()
    while True:
        yield d
        up = os.path.dirname(d)
        if up == d:
            return
        d = up


def binary():
    """SHARDCHECK_BIN (set by `shardcheck trace`), else shardcheck on PATH,
    else the build folder of the checkout this module lives in, or of the
    one the current directory is in."""
    b = os.environ.get("SHARDCHECK_BIN")
    if b:
        return b
    b = shutil.which("shardcheck")
    if b:
        return b
    for root in _checkouts():
        if not os.path.isdir(os.path.join(root, "src", "python", "shardcheck")):
            continue
        for sub in BUILD_FOLDERS:
            p = os.path.join(root, sub, "shardcheck")
            if os.access(p, os.X_OK):
                return p
    raise TraceError("usage", "", "cannot find the shardcheck binary: SHARDCHECK_BIN is not set, there is no "
                     "shardcheck on PATH, and no build folder of a checkout holds one",
                     "build it (scripts/setup.sh), put it on PATH (cmake --install build --prefix ~/.local), "
                     "or set SHARDCHECK_BIN")


def run(args, **kw):
    return subprocess.run([binary()] + list(args), capture_output=True, text=True, **kw)


def eval_dump(spec, cfg, outdir):
    """Runs `eval --dump` on one case: (exit code, stderr)."""
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        os.unlink(os.path.join(outdir, f))
    p = run(["eval", spec, "--world", str(cfg.world), "--sizes", cfg.sizes_arg(), "--dump", outdir,
             "--dtype", getattr(cfg, "dtype", "i32")])
    return p.returncode, p.stderr + p.stdout


def check(spec, extra=(), capture=False):
    if capture:
        p = run(["check", spec] + list(extra))
        return p.returncode, p.stdout + p.stderr
    return subprocess.run([binary(), "check", spec] + list(extra)).returncode, ""
