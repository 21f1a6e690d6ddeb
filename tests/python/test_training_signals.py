"""SIGTERM and SIGHUP during sinklab.train do what Ctrl-C does: the run stops at a checkpoint and
KeyboardInterrupt says how to continue it; the interpreter goes on. Each case runs in a fresh interpreter,
whose death would otherwise end pytest."""
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"

STOPPED_BY = """
import os, pathlib, signal, sys
import sinklab
number = getattr(signal, sys.argv[2])
called = []
if sys.argv[3] == "own handler":
    signal.signal(number, lambda *_: called.append(number))
before = signal.getsignal(number)

def send(step, record):
    if step == 10:
        os.kill(os.getpid(), number)

folder = pathlib.Path(sys.argv[1])
try:
    sinklab.train(sys.argv[4], overrides={"train.max_steps": 40, "train.log_every": 10}, out=folder, threads=1,
                  on_log=send)
    print("finished")
except KeyboardInterrupt as interrupted:
    print("KeyboardInterrupt:", interrupted)
assert signal.getsignal(number) is before, "the handler the program had is back"
print("own handler called", len(called), "time(s)")
print("checkpoint", (folder / "checkpoint.bin").exists(), "summary", (folder / "summary.json").exists())
print("resumed", sinklab.train(resume=folder).state)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("handler", ["default", "own handler"])
def test_a_termination_signal_checkpoints_and_raises_keyboard_interrupt(name, handler, tmp_path):
    folder = tmp_path / "stopped"
    done = subprocess.run([sys.executable, "-c", STOPPED_BY, folder, name, handler, TINY], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"the interpreter ended with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"KeyboardInterrupt: sinklab.train: interrupted by {name} at step 11"), lines
    assert f"sinklab.train(resume='{folder}')" in lines[0]
    assert lines[1] == f"own handler called {1 if handler == 'own handler' else 0} time(s)"
    assert lines[2:] == ["checkpoint True summary False", "resumed finished"]
