"""python3 -m shardcheck trace ...: finds a Python with PyTorch first (the
first python3 on PATH may lack it where Debian's python3-torch is in
/usr/bin/python3)."""
import os
import subprocess
import sys


def _torch_python():
    try:
        import torch  # noqa: F401
        return None
    except ImportError:
        pass
    if not os.environ.get("SHARDCHECK_PYTHON"):
        for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable) and \
                    subprocess.run([cand, "-c", "import torch"], capture_output=True).returncode == 0:
                return cand
    print(f"shardcheck trace: PyTorch is not installed for {sys.executable}: apt-get install python3-torch "
          "(Debian), or pip install torch, or set SHARDCHECK_PYTHON to a Python that has it", file=sys.stderr)
    sys.exit(2)


_py = _torch_python()
if _py:
    os.execv(_py, [_py, "-m", "shardcheck"] + sys.argv[1:])

from .cli import main  # noqa: E402

sys.exit(main())
