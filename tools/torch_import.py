"""Imports PyTorch, falling back to Debian's interpreter when `python3` on PATH lacks it.

On our machines `python3` may resolve to a pyenv interpreter without torch, while Debian's
python3-torch lives under /usr/bin/python3. Rather than fail, the tools re-run themselves there
(environment variables such as OMP_NUM_THREADS are kept by execv).
"""
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def import_torch():
    try:
        import torch  # noqa: F401
        return torch
    except ImportError as err:
        here = os.path.realpath(sys.executable)
        if os.path.exists(DEBIAN_PYTHON) and os.path.realpath(DEBIAN_PYTHON) != here \
                and os.environ.get("SINKLAB_TORCH_REEXEC") != "1":
            print(f"note: {sys.executable} has no torch; re-running under {DEBIAN_PYTHON}",
                  file=sys.stderr)
            os.environ["SINKLAB_TORCH_REEXEC"] = "1"  # guards against an exec loop
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(sys.argv[0]), *sys.argv[1:]])
        sys.exit(f"error: PyTorch is not importable from {sys.executable} ({err}); "
                 "install Debian's python3-torch (SINKLAB_WITH_TORCH=1 scripts/setup.sh) "
                 f"and run with {DEBIAN_PYTHON}")
