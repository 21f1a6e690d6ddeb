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


# Two sinklab.train calls in threads that overlap, the first to start ending first (train/interrupt.h): the
# handlers they share come back after the last, and the next Ctrl-C raises KeyboardInterrupt in Python.
OVERLAPPING = """
import os, pathlib, signal, sys, threading
import sinklab
out, config = pathlib.Path(sys.argv[1]), sys.argv[2]
handler = signal.getsignal(signal.SIGINT)
first_running, second_running, first_done = threading.Event(), threading.Event(), threading.Event()
errors = []

def first_log(step, record):
    first_running.set()
    second_running.wait(120)

def second_log(step, record):
    second_running.set()
    first_done.wait(120)

def first():
    try:
        sinklab.train(config, overrides={"train.max_steps": 10, "train.log_every": 5}, out=out / "first", threads=1,
                      on_log=first_log)
    except BaseException as error:
        errors.append(error)
    first_done.set()

def second():
    first_running.wait(120)
    try:
        sinklab.train(config, overrides={"train.max_steps": 10, "train.log_every": 5}, out=out / "second",
                      threads=1, on_log=second_log)
    except BaseException as error:
        errors.append(error)

threads = [threading.Thread(target=first), threading.Thread(target=second)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("errors", errors)
print("same handler", signal.getsignal(signal.SIGINT) is handler)
try:
    os.kill(os.getpid(), signal.SIGINT)
    threading.Event().wait(10)
    print("Ctrl-C lost")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""


def test_overlapping_trainings_in_threads_give_python_its_ctrl_c_back(tmp_path):
    done = subprocess.run([sys.executable, "-c", OVERLAPPING, tmp_path, TINY], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"the interpreter ended with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.splitlines() == ["errors []", "same handler True", "KeyboardInterrupt"], done.stderr


# One Ctrl-C while two trainings run in threads: both stop at a checkpoint and say so in their own thread,
# and the main thread gets KeyboardInterrupt once, after the last of them.
BOTH_STOPPED = """
import os, pathlib, signal, sys, threading, time
import sinklab
out, config = pathlib.Path(sys.argv[1]), sys.argv[2]
running = [threading.Event(), threading.Event()]
said = [None, None]

def train(i):
    def log(step, record):
        running[i].set()
    try:
        sinklab.train(config, overrides={"train.max_steps": 100000, "train.log_every": 1}, out=out / str(i),
                      threads=1, on_log=log)
        said[i] = "finished"
    except KeyboardInterrupt as interrupted:
        said[i] = str(interrupted)

threads = [threading.Thread(target=train, args=(i,)) for i in range(2)]
in_main = 0
try:
    for t in threads:
        t.start()
    for event in running:
        event.wait(120)
    os.kill(os.getpid(), signal.SIGINT)
    for t in threads:
        t.join(300)
    time.sleep(2)
except KeyboardInterrupt:
    in_main += 1
try:  # a second KeyboardInterrupt would come while the threads end or in this pause
    for t in threads:
        t.join(300)
    time.sleep(2)
except KeyboardInterrupt:
    in_main += 1
for i, text in enumerate(said):
    print(i, "stopped" if text.startswith("sinklab.train: interrupted at step") else text,
          (out / str(i) / "checkpoint.bin").exists(), (out / str(i) / "summary.json").exists())
print("KeyboardInterrupt in the main thread", in_main, "time(s)")
"""


def test_one_ctrl_c_stops_both_trainings_and_reaches_the_main_thread_once(tmp_path):
    done = subprocess.run([sys.executable, "-c", BOTH_STOPPED, tmp_path, TINY], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"the interpreter ended with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.splitlines() == ["0 stopped True False", "1 stopped True False",
                                        "KeyboardInterrupt in the main thread 1 time(s)"], done.stderr
