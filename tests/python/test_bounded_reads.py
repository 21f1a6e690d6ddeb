"""Every run and sweep file Python reads goes through its one C++ reader: a FIFO, a device or a YAML alias
bomb in place of a run file is refused with a sinklab error naming the file, at once, never read forever.

Each read runs in a child interpreter with a time limit, so a reader that blocks fails the test instead of
hanging the suite."""
import os
import shutil
import subprocess
import sys

import pytest

# The child prints the error's class and message; exit 0 only when a sinklab error was raised.
CHILD = """
import sys
import sinklab
from sinklab import errors
folder = sys.argv[1]
try:
    {read}
except errors.Error as e:
    print(type(e).__name__)
    print(e)
    sys.exit(0)
print("no error")
sys.exit(1)
"""

TIME_LIMIT = 60  # seconds: importing the module and refusing takes about one


def refusal(read, folder):
    """(error class name, message) of `read` (Python code using `folder`) in a child interpreter."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD.format(read=read), str(folder)], capture_output=True,
                              text=True, timeout=TIME_LIMIT, env=os.environ)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{read} did not return within {TIME_LIMIT} s (it blocks on the file)")
    assert done.returncode == 0, f"{read}: {done.stdout}{done.stderr}"
    name, message = done.stdout.split("\n", 1)
    return name, message


def copy_run(tiny_run, tmp_path):
    target = tmp_path / "run"
    shutil.copytree(tiny_run, target)
    return target


def make_fifo(path):
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize("name, read, error", [
    ("summary.json", "sinklab.Run(folder).summary", "RunFileError"),
    ("metrics.jsonl", "sinklab.Run(folder).metrics", "RunFileError"),
    ("metrics.jsonl", "sinklab.Run(folder).extreme_tokens", "RunFileError"),
    ("run.json", "sinklab.Run(folder).info", "RunFileError"),
    ("config.yaml", "sinklab.Run(folder).config", "ConfigError"),
    ("attention/layer0_head0_mean.npy", "sinklab.Run(folder).attention(0, 0)", "RunFileError"),
    ("checkpoint.bin", "sinklab.Run(folder).checkpoint_step", "CheckpointError"),
    ("checkpoint.bin", "sinklab.load_model(folder)", "CheckpointError"),
])
def test_a_fifo_run_file_is_refused_by_name(tiny_run, tmp_path, name, read, error):
    folder = copy_run(tiny_run, tmp_path)
    make_fifo(folder / name)
    kind, message = refusal(read, folder)
    assert kind == error, message
    assert str(folder / name) in message and "not a regular file" in message, message


@pytest.mark.parametrize("name, device", [("summary.json", "/dev/zero"), ("metrics.jsonl", "/dev/urandom"),
                                          ("config.yaml", "/dev/zero")])
def test_a_device_linked_as_a_run_file_is_refused(tiny_run, tmp_path, name, device):
    folder = copy_run(tiny_run, tmp_path)
    (folder / name).unlink()
    (folder / name).symlink_to(device)
    attribute = {"summary.json": "summary", "metrics.jsonl": "metrics", "config.yaml": "config"}[name]
    kind, message = refusal(f"sinklab.Run(folder).{attribute}", folder)
    assert str(folder / name) in message and "not a regular file" in message, (kind, message)


# Ten levels of anchors, each a list of ten aliases of the one before: 10^10 strings when expanded, 1 kB as
# text. As one flow list, it can stand for any value of the file.
LEVELS = [chr(ord("a") + i) for i in range(10)]
LAUGHS = "[&a [" + ", ".join(["lol"] * 10) + "], " + ", ".join(
    f"&{level} [{', '.join(['*' + previous] * 10)}]" for previous, level in zip(LEVELS, LEVELS[1:])) + "]"


@pytest.mark.parametrize("where", ["top", "section", "field"])
def test_a_billion_laughs_config_is_refused_at_once(tiny_run, tmp_path, where):
    folder = copy_run(tiny_run, tmp_path)
    config = (folder / "config.yaml").read_text()
    lines = config.splitlines()
    if where == "top":  # an unknown key holding it
        lines.append(f"laughs: {LAUGHS}")
    elif where == "section":  # a known section set to it
        at = lines.index("train:")
        lines[at] = f"train: {LAUGHS}"
        end = next((i for i in range(at + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
        del lines[at + 1:end]  # the section's own keys
    else:  # a known field set to it
        at = next(i for i, line in enumerate(lines) if line.startswith("seed:"))
        lines[at] = f"seed: {LAUGHS}"
    (folder / "config.yaml").write_text("\n".join(lines) + "\n")
    kind, message = refusal("sinklab.Run(folder).config", folder)
    assert kind == "ConfigError" and str(folder / "config.yaml") in message, message


def test_a_fifo_sweep_json_or_run_summary_is_refused_by_name(tmp_path, tiny_run):
    folder = tmp_path / "sweep"
    folder.mkdir()
    os.mkfifo(folder / "sweep.json")
    kind, message = refusal("sinklab.Sweep(folder)", folder)
    assert kind == "SweepError" and str(folder / "sweep.json") in message and "not a regular file" in message, message

    # A sweep whose one run's summary.json is a FIFO: the table names that file.
    (folder / "sweep.json").unlink()
    shutil.copytree(tiny_run, folder / "runs" / "r")
    (folder / "sweep.json").write_text(
        '{"name": "s", "runs": [{"id": "r", "variant": "v", "seed": 0, "dir": "runs/r", "overrides": {}, '
        '"config": "c.yaml"}]}')
    make_fifo(folder / "runs" / "r" / "summary.json")
    kind, message = refusal("sinklab.Sweep(folder).table", folder)
    assert kind == "RunFileError" and str(folder / "runs" / "r" / "summary.json") in message, message
