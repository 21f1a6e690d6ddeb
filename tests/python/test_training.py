"""sinklab.train and sinklab.compare: the same runs as the command line, bit for bit, in this process."""
import json
import os
import pathlib
import signal
import threading

import pytest

import sinklab
from sinklab.training import compare, train
from conftest import SOURCE_DIR, SINKLAB, run_cli

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"
# 40 steps, a metrics line every 10 and an evaluation every 20: a run of about a second.
SHORT = {"train.max_steps": 40, "train.log_every": 10, "train.eval_every": 20}
SHORT_SETS = [f"{k}={v}" for k, v in SHORT.items()]
# wall-clock numbers: the only ones two runs may differ in
TIMING = {"steps_per_second", "wall_seconds", "time_seconds"}


def cli_train(*args, cwd=None):
    return run_cli("train", *args, "--quiet", cwd=cwd)


def set_flags(sets):
    return [word for s in sets for word in ("--set", s)]


def metrics_lines(folder):
    lines = (pathlib.Path(folder) / "metrics.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in TIMING} for line in lines]


def summary_numbers(folder):
    """summary.json without wall-clock time and without where it was written from."""
    summary = json.loads((pathlib.Path(folder) / "summary.json").read_text())
    return {k: v for k, v in summary.items() if k not in TIMING}


def assert_same_run(a, b):
    a, b = pathlib.Path(a), pathlib.Path(b)
    assert (a / "checkpoint.bin").read_bytes() == (b / "checkpoint.bin").read_bytes()
    assert metrics_lines(a) == metrics_lines(b)
    assert summary_numbers(a) == summary_numbers(b)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """The reference: `sinklab train` of the tiny config, seed 3, one thread."""
    out = tmp_path_factory.mktemp("cli") / "run"
    cli_train(TINY, *set_flags(SHORT_SETS), "--seed", "3", "--threads", "1", "--out", out)
    return out


def test_train_is_bit_identical_to_the_command_line(cli_run, tmp_path):
    run = train(TINY, overrides=SHORT, out=tmp_path / "py", seed=3, threads=1)
    assert run.state == "finished"
    assert run.path == tmp_path / "py"
    assert run.summary == json.loads((tmp_path / "py" / "summary.json").read_text())
    assert_same_run(run.path, cli_run)
    # The resolved config is the command line's, text for text.
    assert (run.path / "config.yaml").read_text() == (cli_run / "config.yaml").read_text()


def test_a_dict_config_trains_the_same_run_as_its_file(cli_run, tmp_path):
    config = sinklab.load_config(str(TINY))
    run = train(config, overrides=SHORT_SETS, out=tmp_path / "dict", seed=3, threads=1)
    assert_same_run(run.path, cli_run)


def test_bf16_training_from_python_is_the_command_lines_run_and_says_its_precision(tmp_path):
    """train.precision: bf16 reaches the trainer from Python too: the same bits as the command line, the
    precision in run.json (Run.info), and not the float32 run's bits."""
    bf16 = {**SHORT, "train.precision": "bf16"}
    run = train(TINY, overrides=bf16, out=tmp_path / "py", seed=3, threads=1)
    cli_train(TINY, *set_flags(f"{k}={v}" for k, v in bf16.items()), "--seed", "3", "--threads", "1",
              "--out", tmp_path / "cli")
    assert_same_run(run.path, tmp_path / "cli")
    assert run.info["precision"]["train_matmuls"] == "bf16"
    assert run.info["precision"]["evaluation"] == "float32"
    float32 = train(TINY, overrides=SHORT, out=tmp_path / "f32", seed=3, threads=1)
    assert float32.info["precision"]["train_matmuls"] == "float32"
    assert (run.path / "checkpoint.bin").read_bytes() != (float32.path / "checkpoint.bin").read_bytes()


def test_default_folder_and_name_are_the_command_lines(tmp_path, monkeypatch):
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    sets = SHORT_SETS + ["model.attention.normalizer=relu"]
    cli_train(TINY, *set_flags(sets), "--threads", "1", cwd=tmp_path / "cli")
    monkeypatch.chdir(tmp_path / "py")
    run = train(TINY, overrides=sets, threads=1)
    [cli_folder] = (tmp_path / "cli" / "runs").iterdir()
    assert run.path == pathlib.Path("runs") / cli_folder.name
    assert "normalizer=relu" in cli_folder.name and cli_folder.name.endswith("-seed0")
    assert run.summary["name"] == json.loads((cli_folder / "summary.json").read_text())["name"]
    named = train(TINY, overrides=SHORT, threads=1, seed=5, name="mine")
    assert named.path == pathlib.Path("runs/mine-seed5")


def test_refuses_to_overwrite_a_run_with_the_command_lines_message_in_python_words(cli_run, tmp_path):
    import subprocess
    done = subprocess.run([str(SINKLAB), "train", str(TINY), "--out", str(cli_run), "--quiet"], capture_output=True,
                          text=True)
    assert done.returncode != 0
    cli_message = done.stderr.strip().removeprefix("sinklab: error: ").replace(str(SINKLAB), "sinklab")
    before = (cli_run / "checkpoint.bin").read_bytes()
    with pytest.raises(ValueError) as refused:
        train(TINY, out=cli_run)
    # The same words, less the command's --skip-finished, which sinklab.train has no twin of.
    expected = cli_message.replace(f"--out {cli_run}", f"out='{cli_run}'").replace("--force", "force=True")
    assert "--skip-finished" in expected
    assert str(refused.value) == expected.replace(", or --skip-finished to keep a finished run of this config", "")
    assert (cli_run / "checkpoint.bin").read_bytes() == before
    # force=True starts it over.
    again = train(TINY, overrides=SHORT, out=tmp_path / "copy", seed=3, threads=1)
    forced = train(TINY, overrides=SHORT, out=again.path, seed=3, threads=1, force=True)
    assert_same_run(forced.path, cli_run)


def test_on_log_gets_every_metrics_line_as_a_dict(tmp_path):
    seen = []
    run = train(TINY, overrides=SHORT, out=tmp_path / "r", threads=1,
                        on_log=lambda step, record: seen.append((step, record)))
    written = [json.loads(line) for line in (run.path / "metrics.jsonl").read_text().splitlines()]
    assert [record for _, record in seen] == written
    assert [step for step, _ in seen] == [record["step"] for record in written] == [0, 10, 20, 30, 39]


def test_an_exception_in_on_log_stops_at_a_checkpoint_and_propagates(cli_run, tmp_path):
    class Stop(Exception):
        pass

    def stop_at_10(step, record):
        if step == 10:
            raise Stop("enough")

    folder = tmp_path / "stopped"
    with pytest.raises(Stop, match="enough"):
        train(TINY, overrides=SHORT, out=folder, seed=3, threads=1, on_log=stop_at_10)
    assert (folder / "checkpoint.bin").exists()
    assert not (folder / "summary.json").exists()
    assert [r["step"] for r in metrics_lines(folder)] == [0, 10]
    resumed = train(resume=folder)
    assert resumed.state == "finished"
    assert_same_run(folder, cli_run)


def test_ctrl_c_stops_at_a_checkpoint_says_how_to_resume_and_gives_python_its_handler_back(cli_run, tmp_path):
    handler = signal.getsignal(signal.SIGINT)

    def press_ctrl_c(step, record):
        if step == 20:
            os.kill(os.getpid(), signal.SIGINT)

    folder = tmp_path / "interrupted"
    with pytest.raises(KeyboardInterrupt) as interrupted:
        train(TINY, overrides=SHORT, out=folder, seed=3, threads=1, on_log=press_ctrl_c)
    assert f"train(resume='{folder}')" in str(interrupted.value)
    assert "at step 21" in str(interrupted.value)
    assert (folder / "checkpoint.bin").exists() and not (folder / "summary.json").exists()
    assert signal.getsignal(signal.SIGINT) is handler
    with pytest.raises(KeyboardInterrupt):  # Python's own handler answers the next Ctrl-C
        os.kill(os.getpid(), signal.SIGINT)
        threading.Event().wait(5)
    resumed = train(resume=folder)
    assert resumed.state == "finished"
    assert_same_run(folder, cli_run)


def test_training_lets_other_python_threads_run(tmp_path):
    folder = tmp_path / "busy"
    seen_running = threading.Event()
    done = threading.Event()

    def watch():  # needs the GIL: sees the run in progress only if training released it
        while not done.is_set():
            if (folder / "checkpoint.bin").exists() and not (folder / "summary.json").exists():
                seen_running.set()
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        train(TINY, overrides={**SHORT, "train.max_steps": 200}, out=folder, threads=1)
    finally:
        done.set()
        watcher.join()
    assert seen_running.is_set()


SWEEP = """name: two
base: {base}
variants:
  - name: softmax
    set: {{}}
  - name: relu
    set: {{model.attention.normalizer: relu}}
"""


@pytest.fixture
def sweep_file(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(SWEEP.format(base=TINY))
    return path


def test_compare_runs_the_sweep_with_the_binary_beside_the_package(sweep_file, tmp_path, capsys):
    sets = ["train.max_steps=20", "train.log_every=10", "train.eval_every=10", "threads=1"]
    listed = compare(sweep_file, jobs=2, out=tmp_path / "sweep", sets=sets, dry_run=True)
    assert listed == tmp_path / "sweep"
    assert not listed.exists()  # a dry run writes nothing
    assert str(SINKLAB.resolve()) in capsys.readouterr().out  # the commands it would run
    sweep = compare(sweep_file, jobs=2, out=tmp_path / "sweep", sets=sets)
    assert sweep.path == tmp_path / "sweep"
    summaries = sorted(sweep.path.glob("runs/*/summary.json"))
    assert len(summaries) == 2 and len(sweep) == 2 and all(run.finished for run in sweep)


def test_compare_refuses_a_missing_binary(sweep_file, monkeypatch):
    monkeypatch.setenv("SINKLAB_EXECUTABLE", "/nonexistent/sinklab")
    with pytest.raises(sinklab.FileError, match="SINKLAB_EXECUTABLE"):
        compare(sweep_file)
