"""Bad input to sinklab.train, sinklab.compare and sinklab.task: a clear exception naming what is wrong,
never a crash, and nothing written."""
import pytest

import sinklab
from sinklab.training import compare, task, train
from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"
SMOKE = SOURCE_DIR / "configs/sweeps/smoke.yaml"

# (call, exception type, words the message must contain)
TRAIN_CASES = {
    "no config": (lambda out: train(out=out), TypeError, "give a config"),
    "config of a wrong type": (lambda out: train(42, out=out), TypeError, "or a dict of config keys"),
    "empty config path": (lambda out: train("", out=out), ValueError, "config: the path is empty"),
    "missing config file": (lambda out: train("/nonexistent/c.yaml", out=out), sinklab.FileError,
                            "/nonexistent/c.yaml"),
    "unknown key in overrides": (lambda out: train(TINY, overrides={"train.max_stepz": 3}, out=out),
                                 sinklab.ConfigError, "max_stepz"),
    "override without '='": (lambda out: train(TINY, overrides=["train.max_steps"], out=out), ValueError,
                             "'key=value'"),
    "overrides as one string": (lambda out: train(TINY, overrides="train.max_steps=3", out=out), TypeError,
                                "wrap it in a list"),
    "overrides of a wrong type": (lambda out: train(TINY, overrides=5, out=out), TypeError, "overrides"),
    "override value of a wrong type": (lambda out: train(TINY, overrides={"train.max_steps": object()}, out=out),
                                       TypeError, "train.max_steps"),
    "override with a bad value": (lambda out: train(TINY, overrides={"train.max_steps": -3}, out=out),
                                  sinklab.ConfigError, "max_steps"),
    "seed not a number": (lambda out: train(TINY, seed="3", out=out), TypeError, "seed: expected a whole number"),
    "negative seed": (lambda out: train(TINY, seed=-1, out=out), sinklab.ConfigError, "seed"),
    "seed as a bool": (lambda out: train(TINY, seed=True, out=out), TypeError, "seed"),
    "zero threads": (lambda out: train(TINY, threads=0, out=out), sinklab.ConfigError, "threads"),
    "threads as a float": (lambda out: train(TINY, threads=1.5, out=out), TypeError, "threads"),
    "name with a slash": (lambda out: train(TINY, name="a/b", out=out), ValueError, "name: the run name"),
    "name not a string": (lambda out: train(TINY, name=7, out=out), TypeError, "name: expected a string"),
    "on_log not callable": (lambda out: train(TINY, on_log=3, out=out), TypeError, "on_log"),
    "quiet not a bool": (lambda out: train(TINY, quiet="yes", out=out), TypeError, "quiet"),
    "out of a wrong type": (lambda out: train(TINY, out=3.5), TypeError, "out: expected a path"),
    "resume a missing folder": (lambda out: train(resume=out / "nothing"), ValueError,
                                "no such run folder or checkpoint"),
    "resume with force": (lambda out: train(resume=SOURCE_DIR, force=True), ValueError, "pass one of them"),
    "resume a folder without config.yaml": (lambda out: train(resume=SOURCE_DIR / "configs"), ValueError,
                                            "not a sinklab run folder"),
    "config dict with a non-string key": (lambda out: train({1: 2}, out=out), TypeError, "keys must be strings"),
    "config dict with an unknown key": (lambda out: train({"modle": {"layers": 1}}, out=out), sinklab.ConfigError,
                                        "modle"),
    "config value not finite": (lambda out: train(TINY, overrides={"optimizer.lr": float("nan")}, out=out),
                                ValueError, "not a finite number"),
}


@pytest.mark.parametrize("case", TRAIN_CASES)
def test_train_refuses(case, tmp_path):
    call, error, words = TRAIN_CASES[case]
    out = tmp_path / "run"
    with pytest.raises(error) as raised:
        call(out)
    assert words in str(raised.value)
    assert not out.exists(), "nothing is written for a refused run"


def test_resuming_a_finished_run_is_refused(tiny_run):
    with pytest.raises(ValueError, match="holds a finished run"):
        train(resume=tiny_run)


def test_resuming_with_another_config_is_refused(tiny_run, tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(tiny_run, copy)
    (copy / "summary.json").unlink()
    with pytest.raises(ValueError, match="a resumed run keeps its config"):
        train(resume=copy, overrides={"model.heads": 2})


def unfinished_copy(run, folder, keep_checkpoint=True):
    """A copy of a finished run without its summary (and checkpoint): a run stopped early."""
    import shutil
    shutil.copytree(run, folder)
    (folder / "summary.json").unlink()
    if not keep_checkpoint:
        (folder / "checkpoint.bin").unlink()
    return folder


# Messages name sinklab.train's arguments, never the command line's flags: (call, words it must contain).
PYTHON_WORDING_CASES = {
    "a finished run in out": (lambda run, tmp: train(TINY, out=run), "pass force=True to overwrite"),
    "an unfinished run in out": (lambda run, tmp: train(TINY, out=unfinished_copy(run, tmp / "u")),
                                 f"continue it with `sinklab.train(resume='{{tmp}}/u')`, or pass force=True"),
    "resume with force": (lambda run, tmp: train(resume=run, force=True), "resume continues a run and force=True"),
    "resume elsewhere": (lambda run, tmp: train(resume=run, out=tmp / "elsewhere"), "leave out out='{tmp}/elsewhere'"),
    "resume without a checkpoint": (lambda run, tmp: train(resume=unfinished_copy(run, tmp / "c", False)),
                                    "start it over with `sinklab.train(config, out='{tmp}/c', force=True)`"),
}


@pytest.mark.parametrize("case", PYTHON_WORDING_CASES)
def test_messages_name_the_python_arguments(case, tiny_run, tmp_path):
    call, words = PYTHON_WORDING_CASES[case]
    with pytest.raises(ValueError) as raised:
        call(tiny_run, tmp_path)
    message = str(raised.value)
    assert words.format(tmp=tmp_path) in message
    assert "--" not in message, message


TASK_CASES = {
    "task config of a wrong type": (lambda: task(None), TypeError, "config"),
    "task config missing": (lambda: task("/nonexistent.yaml"), sinklab.FileError, "no such file"),
    "task override unknown": (lambda: task(TINY, overrides=["task.dimm=3"]), sinklab.ConfigError, "dimm"),
    "task option inconsistent": (lambda: task(TINY, overrides={"task.trigger_max": 40}), sinklab.Error,
                                 "trigger_max"),
    "negative size": (lambda: task(TINY).batch(0, size=-1), ValueError, "size"),
    "zero size": (lambda: task(TINY).batch(0, size=0), ValueError, "size"),
    "size not a number": (lambda: task(TINY).batch(0, size="4"), TypeError, "size"),
    "bad split name": (lambda: task(TINY).batch(0, split="test"), ValueError, "'train' or 'eval'"),
    "negative seed": (lambda: task(TINY).batch(-2), ValueError, "seed"),
    "seed too large": (lambda: task(TINY).batch(2**64), ValueError, "seed"),
    "seed not a number": (lambda: task(TINY).batch(1.0), TypeError, "seed"),
}


@pytest.mark.parametrize("case", TASK_CASES)
def test_task_refuses(case):
    call, error, words = TASK_CASES[case]
    with pytest.raises(error) as raised:
        call()
    assert words in str(raised.value)


COMPARE_CASES = {
    "sweep missing": (lambda out: compare("/nonexistent/sweep.yaml", out=out), sinklab.FileError, "no such file"),
    "sweep of a wrong type": (lambda out: compare(3, out=out), TypeError, "sweep"),
    "zero jobs": (lambda out: compare(SMOKE, jobs=0, out=out), ValueError, "jobs"),
    "jobs not a number": (lambda out: compare(SMOKE, jobs="2", out=out), TypeError, "jobs"),
    "set of a key the sweep varies": (lambda out: compare(SMOKE, out=out, sets=["seed=3"]), sinklab.SweepError,
                                      "seed"),
    "set of an unknown key": (lambda out: compare(SMOKE, out=out, sets=["train.max_stepz=3"]), sinklab.Error,
                              "max_stepz"),
    "dry_run not a bool": (lambda out: compare(SMOKE, out=out, dry_run=1), TypeError, "dry_run"),
}


@pytest.mark.parametrize("case", COMPARE_CASES)
def test_compare_refuses(case, tmp_path):
    call, error, words = COMPARE_CASES[case]
    out = tmp_path / "sweep"
    with pytest.raises(error) as raised:
        call(out)
    assert words in str(raised.value)
    assert not out.exists()
