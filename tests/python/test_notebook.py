"""examples/sinks_in_5_minutes.ipynb runs from top to bottom in a fresh Jupyter kernel (nbconvert, as the
README says), without an error, and draws its figures."""
import json
import os
import subprocess
import sys

import sinklab
from conftest import SOURCE_DIR


def test_the_example_notebook_runs_and_draws_its_figures(tmp_path):
    executed = tmp_path / "executed.ipynb"
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(sinklab.__file__)))  # the kernel starts elsewhere
    env = dict(os.environ, SINKLAB_NOTEBOOK_RUNS=str(tmp_path / "runs"), PYTHONPATH=package_parent)
    done = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
         "--ExecutePreprocessor.timeout=900", "--output", str(executed),
         str(SOURCE_DIR / "examples/sinks_in_5_minutes.ipynb")],
        cwd=SOURCE_DIR / "examples", env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    cells = json.loads(executed.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 3, f"{len(figures)} figures"
