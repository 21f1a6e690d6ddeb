"""sinklab.runs.Run: a run folder's files as data, checked against the files themselves."""
import json
import math
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest

from conftest import as_dict, SINKLAB, SOURCE_DIR
from sinklab import _sinklab, errors
from sinklab.runs import Run



def same(value, expected):
    """A table cell equals a JSON value: null as NaN, flags as bools."""
    if expected is None:
        return isinstance(value, float) and math.isnan(value)
    if isinstance(expected, bool):
        return bool(value) is expected
    return value == expected


def copy_run(tiny_run, tmp_path):
    target = tmp_path / "run"
    shutil.copytree(tiny_run, target)
    return target


def test_summary_info_and_config_are_the_files(tiny_run):
    run = Run(tiny_run)
    assert run.path == tiny_run and run.name == tiny_run.name
    assert run.summary == json.loads((tiny_run / "summary.json").read_text())
    assert run.info == json.loads((tiny_run / "run.json").read_text())
    # config.yaml is the resolved config the C++ loader gives for the same file and overrides.
    assert run.config == _sinklab.load_config(str(tiny_run / "config.yaml"))
    assert run.config["train"]["max_steps"] == 40
    assert run.finished and run.state == "finished"
    assert repr(run) == f"<sinklab.Run {tiny_run.name!r}: finished, 40 steps (max_steps), {tiny_run}>"


@pytest.mark.parametrize("pandas_off", ["", "1"])
def test_metrics_hold_every_field_of_every_line(tiny_run, monkeypatch, pandas_off):
    monkeypatch.setenv("SINKLAB_NO_PANDAS", pandas_off)
    metrics = Run(tiny_run).metrics
    assert isinstance(metrics, dict) == (pandas_off == "1")
    table = as_dict(metrics)
    lines = [json.loads(line) for line in (tiny_run / "metrics.jsonl").read_text().splitlines()]
    expected_columns = set()
    for line in lines:
        expected_columns |= {key for key in line if key not in ("heads", "extreme_tokens")}  # Run.extreme_tokens
        for head in line["heads"]:
            expected_columns |= {f"L{head['layer']}H{head['head']}.{k}" for k in head if k not in ("layer", "head")}
    assert set(table) == expected_columns
    assert list(table)[0] == "step" and table["step"].dtype == np.int64
    assert all(len(column) == len(lines) for column in table.values())
    for row, line in enumerate(lines):
        flat = {key: value for key, value in line.items() if key != "heads"}
        for head in line["heads"]:
            flat.update((f"L{head['layer']}H{head['head']}.{k}", v) for k, v in head.items() if k not in ("layer", "head"))
        for name, column in table.items():
            # A field a line lacks (eval_mse between evaluations) reads as NaN, like a null one.
            assert same(column[row].item(), flat.get(name)), (row, name)
    # The tiny run evaluates at steps 0, 20 and 40 only: eval fields are NaN on the other lines.
    evaluated = ~np.isnan(table["eval_mse"])
    assert list(table["step"][evaluated]) == [line["step"] for line in lines if "eval_mse" in line]
    assert 0 < evaluated.sum() < len(lines)
    # Two layers of four heads, each a column per statistic.
    assert {name.split(".")[0] for name in table if "." in name} == {f"L{l}H{h}" for l in range(2) for h in range(4)}
    assert table["L1H3.sink_head"].dtype == bool


@pytest.mark.parametrize("pandas_off", ["", "1"])
def test_heads_hold_every_field_of_the_summary(tiny_run, monkeypatch, pandas_off):
    monkeypatch.setenv("SINKLAB_NO_PANDAS", pandas_off)
    heads = Run(tiny_run).heads
    assert isinstance(heads, dict) == (pandas_off == "1")
    table = as_dict(heads)
    expected = json.loads((tiny_run / "summary.json").read_text())["heads"]
    assert len(expected) == 8
    assert set(table) == set().union(*expected)
    for row, head in enumerate(expected):
        for name, value in head.items():
            if name == "bos_mass_by_row":
                np.testing.assert_array_equal(table[name][row], np.array(value, dtype=float))
                assert len(table[name][row]) == 16  # seq_len
            else:
                assert same(table[name][row].item(), value), (row, name)
    if pandas_off:
        assert table["bos_mass_by_row"].shape == (8, 16)


def test_sink_onset_steps_read_as_numbers_and_nan(tiny_run, tmp_path):
    # 40 steps leave the tiny run's heads without a sink onset (null): give one head onsets.
    folder = copy_run(tiny_run, tmp_path)
    summary = json.loads((folder / "summary.json").read_text())
    summary["heads"][5]["sink_onset_step_50"], summary["heads"][5]["sink_onset_step_90"] = 20, 30
    (folder / "summary.json").write_text(json.dumps(summary))
    heads = as_dict(Run(folder).heads)
    for name, step in (("sink_onset_step_50", 20), ("sink_onset_step_90", 30)):
        assert heads[name].dtype == np.float64
        assert heads[name][5] == step and np.isnan(np.delete(heads[name], 5)).all()


def test_attention_maps_are_the_npy_files(tiny_run):
    run = Run(tiny_run)
    assert run.attention_kinds == ("mean", "sample0", "std")
    files = sorted((tiny_run / "attention").glob("*.npy"))
    assert len(files) == 2 * 4 * 3
    for path in files:
        layer, head, kind = path.stem.split("_")
        array = run.attention(int(layer[len("layer"):]), int(head[len("head"):]), kind)
        np.testing.assert_array_equal(array, np.load(path))
        assert array.dtype == np.float32 and array.shape == (16, 16)
    assert run.attention(1, 2) is run.attention(1, 2, "mean")  # read once


def test_attention_of_a_missing_map_names_the_file_and_what_there_is(tiny_run):
    run = Run(tiny_run)
    with pytest.raises(errors.RunFileError) as e:
        run.attention(0, 0, "median")
    assert str(tiny_run / "attention" / "layer0_head0_median.npy") in str(e.value)
    assert "kinds mean, sample0, std for layers 0..1, heads 0..3" in str(e.value)
    with pytest.raises(errors.RunFileError, match="layer2_head0_mean.npy: missing"):
        run.attention(2, 0)


def test_checkpoint_step_is_the_summary_steps(tiny_run):
    run = Run(tiny_run)
    assert run.checkpoint_step == run.summary["steps"] == 40


def test_a_run_stopped_by_a_signal_is_unfinished(tmp_path):
    """A real unfinished run: training interrupted (SIGINT, as Ctrl-C) writes its checkpoint, no summary."""
    out = tmp_path / "stopped"
    train = subprocess.Popen([str(SINKLAB), "train", str(SOURCE_DIR / "configs/examples/tiny_block.yaml"), "--out",
                              str(out), "--quiet", "--threads", "1", "--set", "train.max_steps=1000000",
                              "--set", "train.log_every=10", "--set", "train.stop_max_abs_error=0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # until a few lines are logged (at most a minute)
            if (out / "metrics.jsonl").exists() and (out / "metrics.jsonl").read_text().count("\n") >= 3:
                break
            time.sleep(0.1)
        train.send_signal(signal.SIGINT)
        train.wait(timeout=60)
    finally:
        train.kill()
    run = Run(out)
    assert run.summary is None and run.heads is None
    assert not run.finished and run.state == "unfinished"
    assert repr(run) == f"<sinklab.Run 'stopped': unfinished, {out}>"
    steps = run.metrics["step"]
    assert len(steps) >= 3 and run.checkpoint_step >= steps.max()
    assert run.attention_kinds == ()
    with pytest.raises(errors.RunFileError, match="the run has no attention maps"):
        run.attention(0, 0)


def test_a_diverged_run_is_finished_without_statistics(tmp_path):
    out = tmp_path / "diverged"
    done = subprocess.run([str(SINKLAB), "train", str(SOURCE_DIR / "configs/paper/1x1_softmax.yaml"), "--out", str(out),
                           "--quiet", "--threads", "1", "--set", "optimizer.lr=1e30", "--set", "train.max_steps=50"],
                          capture_output=True, text=True)
    assert done.returncode == 3, done.stderr  # sinklab train's exit status for a diverged run
    run = Run(out)
    assert run.finished and run.state == "diverged" and run.summary["stop_reason"] == "non_finite"
    assert repr(run) == f"<sinklab.Run 'diverged': diverged after {run.summary['steps']} steps, {out}>"
    heads = as_dict(run.heads)
    assert list(heads) == ["layer", "head"] and len(heads["layer"]) == 0


def test_a_half_written_last_line_of_an_unfinished_run_is_left_out(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    (folder / "summary.json").unlink()
    lines = (folder / "metrics.jsonl").read_text().count("\n")
    with open(folder / "metrics.jsonl", "a") as f:
        f.write('{"grad_norm":0.1,"heads":[{"bos')
    assert len(Run(folder).metrics["step"]) == lines


def test_a_run_killed_before_its_log_has_no_metrics_and_a_finished_one_without_its_log_is_damaged(tiny_run,
                                                                                                    tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    (folder / "metrics.jsonl").unlink()
    with pytest.raises(errors.RunFileError, match="metrics.jsonl: no such file"):
        Run(folder).metrics
    (folder / "summary.json").unlink()  # killed between writing config.yaml and creating its log
    run = Run(folder)
    assert run.state == "unfinished" and len(run.metrics["step"]) == 0


def test_a_half_written_last_line_of_a_finished_run_is_an_error(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    lines = (folder / "metrics.jsonl").read_text().count("\n")
    with open(folder / "metrics.jsonl", "a") as f:
        f.write('{"grad_norm":0.1,"heads":[{"bos')
    with pytest.raises(errors.RunFileError, match=f"metrics.jsonl:{lines + 1}: invalid JSON"):
        Run(folder).metrics


def test_a_corrupt_summary_names_the_file(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    (folder / "summary.json").write_text('{"steps": 40, "heads": [')
    with pytest.raises(errors.RunFileError, match=f"{folder / 'summary.json'}: invalid JSON"):
        Run(folder).summary
    summary = json.loads((tiny_run / "summary.json").read_text())
    summary["heads"][1]["sink_score"] = "high"
    (folder / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(errors.RunFileError, match=r"summary.json: heads\[1\].sink_score: expected a number, got string"):
        Run(folder).summary
    summary["heads"][1]["sink_score"] = 0.5
    summary["stop_reason"] = 3
    (folder / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(errors.RunFileError, match="summary.json: stop_reason: expected a string, got number"):
        Run(folder).summary
    # NaN is not JSON (Python's json writes it): the reader rejects it.
    (folder / "summary.json").write_text(json.dumps(json.loads((tiny_run / "summary.json").read_text()) | {"eval_mse": math.nan}))
    with pytest.raises(errors.RunFileError, match=f"{folder / 'summary.json'}: invalid JSON: .*\"eval_mse\": N"):
        Run(folder).summary


@pytest.mark.parametrize("damage, message", [
    (lambda line: line[:-5], "metrics.jsonl:3: invalid JSON"),
    (lambda line: json.dumps(json.loads(line) | {"loss": "low"}), "metrics.jsonl:3: loss: expected a number, got string"),
    (lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "step"}), "metrics.jsonl:3: step: missing field"),
    (lambda line: json.dumps(json.loads(line) | {"heads": [{"layer": 0}]}), r"metrics.jsonl:3: heads\[0\].head: missing field"),
    (lambda line: json.dumps(dict(json.loads(line), heads=[dict(json.loads(line)["heads"][0], trigger_bos=[1])])),
     r"metrics.jsonl:3: heads\[0\].trigger_bos: expected a number, got array"),
])
def test_a_corrupt_metrics_line_names_the_file_and_line(tiny_run, tmp_path, damage, message):
    folder = copy_run(tiny_run, tmp_path)
    lines = (folder / "metrics.jsonl").read_text().splitlines()
    lines[2] = damage(lines[2])
    (folder / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(errors.RunFileError, match=message) as e:
        Run(folder).metrics
    assert str(folder / "metrics.jsonl") in str(e.value)


def test_a_corrupt_npy_names_the_file(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    path = folder / "attention" / "layer1_head0_std.npy"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(errors.RunFileError, match="truncated") as e:  # read by run_files/npy.h
        Run(folder).attention(1, 0, "std")
    assert str(path) in str(e.value)


@pytest.mark.parametrize("damage, message", [
    (lambda b: b"NOTACKPT" + b[8:], "not a sinklab checkpoint"),
    (lambda b: b[:8] + (7).to_bytes(4, "little") + b[12:], "format 7, this build reads format 3"),
    (lambda b: b[:-1], "truncated or padded"),
    (lambda b: b[:61] + bytes([b[61] ^ 1]) + b[62:], r"checksum mismatch in the header or parameter table"),
    (lambda b: b[:20] + bytes([b[20] ^ 1]) + b[21:], r"checksum mismatch in the header or parameter table"),  # a hash
])
def test_a_damaged_checkpoint_raises_checkpoint_error(tiny_run, tmp_path, damage, message):
    folder = copy_run(tiny_run, tmp_path)
    path = folder / "checkpoint.bin"
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(errors.CheckpointError, match=message) as e:
        Run(folder).checkpoint_step
    assert f"checkpoint {path}: " in str(e.value)


def test_no_checkpoint_reads_as_none(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    (folder / "checkpoint.bin").unlink()
    assert Run(folder).checkpoint_step is None


def test_a_path_that_is_not_a_run_folder(tmp_path):
    with pytest.raises(errors.FileError, match="no such run folder"):
        Run(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(errors.FileError, match="not a folder"):
        Run(tmp_path / "file.txt")
    with pytest.raises(errors.RunFileError, match=f"{tmp_path}: not a run folder"):
        Run(tmp_path)


def test_files_are_read_once(tiny_run, tmp_path):
    folder = copy_run(tiny_run, tmp_path)
    run = Run(folder)
    metrics, summary = run.metrics, run.summary
    (folder / "metrics.jsonl").unlink()
    (folder / "summary.json").unlink()
    assert run.metrics is metrics and run.summary is summary


def test_snapshots_are_the_file_numpy_reads(paper_run, token_run, tmp_path):
    snapshots = Run(paper_run).snapshots
    with np.load(paper_run / "attention_snapshots.npz") as z:
        for key in ("steps", "mean", "example", "rows", "cols", "roles"):
            np.testing.assert_array_equal(snapshots[key], z[key], err_msg=key)
        assert snapshots["seq_len"] == int(z["seq_len"])
    assert snapshots["tokens"] is None and snapshots["token_labels"] is None
    assert not snapshots["mean"].flags.writeable
    # The last snapshot is of the final weights: the step a stop rule ended on (= summary steps), or
    # max_steps - 1 for a run that used them all; softmax rows sum to 1.
    steps = Run(paper_run).summary["steps"]
    assert snapshots["steps"][-1] in (steps - 1, steps)
    np.testing.assert_allclose(snapshots["mean"][-1, 0, 0].sum(axis=1), 1.0, atol=1e-5)

    tokens = Run(token_run).snapshots
    with np.load(token_run / "attention_snapshots.npz") as z:
        np.testing.assert_array_equal(tokens["tokens"], z["tokens"])
        assert list(z["token_labels"]) == tokens["token_labels"]
    assert tokens["token_labels"][0] == b"<bos>"
    assert all(len(label) >= 1 for label in tokens["token_labels"])

    broken = tmp_path / "broken"
    shutil.copytree(paper_run, broken)
    data = (broken / "attention_snapshots.npz").read_bytes()
    (broken / "attention_snapshots.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(errors.RunFileError, match="attention_snapshots.npz"):
        Run(broken).snapshots
    (broken / "attention_snapshots.npz").unlink()
    assert Run(broken).snapshots is None


def test_extreme_tokens_are_those_of_each_evaluation_line(tiny_run):
    run = Run(tiny_run)
    lines = [json.loads(line) for line in (tiny_run / "metrics.jsonl").read_text().splitlines()]
    evaluated = {line["step"]: line["extreme_tokens"] for line in lines if "extreme_tokens" in line}
    assert evaluated and run.extreme_tokens == evaluated
    assert all("eval_loss" in line or "eval_mse" in line for line in lines if "extreme_tokens" in line)
    assert run.summary["extreme_tokens"]["eval"]["heads"][0]["alpha"][0] >= 0
