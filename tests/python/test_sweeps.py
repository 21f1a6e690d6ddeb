"""sinklab.sweeps.Sweep: a sweep folder's runs and table, checked against sweep.json and the summaries."""
import json
import math
import shutil

import numpy as np
import pytest

from conftest import as_dict, SOURCE_DIR, run_cli
from sinklab import errors
from sinklab.runs import Run
from sinklab.sweeps import Sweep

SWEEP_YAML = """name: tiny
base: {base}
variants:
  - name: softmax
  - name: relu
    set: {{model.attention.normalizer: relu}}
grid:
  optimizer.lr: [1.0e-3, 3.0e-3]
  seed: [0]
"""


@pytest.fixture(scope="session")
def tiny_sweep(tmp_path_factory):
    """A finished sweep of 4 runs written by `sinklab compare`: 1x1 softmax and relu, two learning rates,
    30 steps each."""
    folder = tmp_path_factory.mktemp("sweeps")
    spec = folder / "tiny.yaml"
    spec.write_text(SWEEP_YAML.format(base=SOURCE_DIR / "configs/paper/1x1_softmax.yaml"))
    out = folder / "tiny"
    run_cli("compare", spec, "--jobs", "2", "--out", out, "--set", "train.max_steps=30", "--set", "train.log_every=10")
    return out



def same(value, expected):
    """A table cell equals a JSON value; a missing one (None) is NaN in a number column, None otherwise."""
    if expected is None:
        return value is None or (isinstance(value, float) and math.isnan(value))
    if isinstance(expected, bool):
        return bool(value) is expected
    return value == expected


def manifest(folder):
    return json.loads((folder / "sweep.json").read_text())


def test_runs_are_those_of_sweep_json_in_its_order(tiny_sweep):
    sweep = Sweep(tiny_sweep)
    entries = manifest(tiny_sweep)["runs"]
    assert sweep.path == tiny_sweep and sweep.name == "tiny" and len(sweep) == len(entries) == 4
    assert [run.path for run in sweep.runs] == [tiny_sweep / e["dir"] for e in entries]
    assert [run.name for run in sweep] == [e["id"] for e in entries]
    for entry in entries:
        run = sweep.run(entry["id"])
        assert isinstance(run, Run) and run.path == tiny_sweep / entry["dir"] and run.finished
    assert repr(sweep) == f"<sinklab.Sweep 'tiny': 4 runs, 4 finished, {tiny_sweep}>"
    with pytest.raises(KeyError, match="sweep tiny has no run 'nope'; its runs: softmax_lr=0.001_seed=0, "):
        sweep.run("nope")


def flattened(summary):
    """An object of numbers (task_baselines, time_seconds) as one column per member, `name.member`."""
    flat = {}
    for key, value in summary.items():
        if isinstance(value, dict) and key != "extreme_tokens":
            flat.update((f"{key}.{k}", v) for k, v in value.items())
        else:
            flat[key] = value
    return flat


def check_table(table, folder):
    """Every column of a Sweep's table against sweep.json and each run's summary.json, field by field."""
    table = as_dict(table)
    entries = manifest(folder)["runs"]
    override_keys = list(dict.fromkeys(k for e in entries for k in e["overrides"] if k != "seed"))
    assert "optimizer.lr" in override_keys and "model.attention.normalizer" in override_keys
    assert "train.max_steps" in override_keys  # compare's --set values are overrides of every run
    summaries = []
    for e in entries:
        path = folder / e["dir"] / "summary.json"
        summaries.append(flattened(json.loads(path.read_text())) if path.exists() else None)
    summary_keys = list(dict.fromkeys(k for s in summaries if s for k in s if k not in ("heads", "name", "seed", "extreme_tokens")))
    assert {"steps", "stop_reason", "eval_mse", "sink_rate", "normalizer"} <= set(summary_keys)
    assert list(table) == ["id", "variant", "seed", *override_keys, "finished", "state", *summary_keys]
    for row, (entry, summary) in enumerate(zip(entries, summaries)):
        assert table["id"][row] == entry["id"] and table["variant"][row] == entry["variant"]
        assert table["seed"][row] == entry["seed"]
        for key in override_keys:
            assert same(table[key][row], entry["overrides"].get(key)), (row, key)
        assert table["finished"][row] == (summary is not None)
        for key in summary_keys:
            assert same(table[key][row], summary.get(key) if summary else None), (row, key)
    return table


@pytest.mark.parametrize("pandas_off", ["", "1"])
def test_table_holds_sweep_json_and_every_summary_field(tiny_sweep, monkeypatch, pandas_off):
    monkeypatch.setenv("SINKLAB_NO_PANDAS", pandas_off)
    table = Sweep(tiny_sweep).table
    assert isinstance(table, dict) == (pandas_off == "1")
    table = check_table(table, tiny_sweep)
    assert list(table["model.attention.normalizer"]) == [None, None, "relu", "relu"]
    assert list(table["optimizer.lr"]) == [1e-3, 3e-3, 1e-3, 3e-3]
    assert list(table["state"]) == ["finished"] * 4
    assert table["steps"].dtype == np.int64 and table["eval_mse"].dtype == np.float64
    if pandas_off:
        assert all(isinstance(column, np.ndarray) for column in table.values())


def test_runs_not_finished_or_not_started(tiny_sweep, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(tiny_sweep, folder)
    ids = [e["id"] for e in manifest(folder)["runs"]]
    (folder / "runs" / ids[1] / "summary.json").unlink()
    shutil.rmtree(folder / "runs" / ids[3])
    sweep = Sweep(folder)
    table = check_table(sweep.table, folder)
    assert list(table["state"]) == ["finished", "unfinished", "finished", "not started"]
    assert list(table["finished"]) == [True, False, True, False]
    assert np.isnan(table["eval_mse"][1]) and table["stop_reason"][3] is None
    assert table["steps"].dtype == np.float64  # NaN where a run has no summary
    assert not sweep.run(ids[3]).finished and sweep.run(ids[3]).summary is None
    assert repr(sweep.run(ids[3])) == f"<sinklab.Run {ids[3]!r}: not started, {folder / 'runs' / ids[3]}>"
    missing = folder / "runs" / ids[3] / "metrics.jsonl"
    with pytest.raises(errors.RunFileError, match=f"{missing}: no such file"):
        sweep.run(ids[3]).metrics
    assert repr(sweep) == f"<sinklab.Sweep 'tiny': 4 runs, 2 finished, {folder}>"


def test_seed_comes_from_the_summary_when_sweep_json_has_none(tiny_sweep, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(tiny_sweep, folder)
    data = manifest(folder)
    for entry in data["runs"]:
        entry["seed"] = None
    (folder / "sweep.json").write_text(json.dumps(data))
    assert list(as_dict(Sweep(folder).table)["seed"]) == [0, 0, 0, 0]


def test_an_override_named_like_a_summary_field_keeps_both(tiny_sweep, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(tiny_sweep, folder)
    data = manifest(folder)
    for entry in data["runs"]:
        entry["overrides"]["threads"] = 4  # the config key `threads`; summary.json says what the run used
    (folder / "sweep.json").write_text(json.dumps(data))
    table = as_dict(Sweep(folder).table)
    assert list(table["threads"]) == [4] * 4 and list(table["summary.threads"]) == [1] * 4


def test_a_path_that_is_not_a_sweep_folder(tiny_sweep, tmp_path):
    with pytest.raises(errors.FileError, match="no such sweep folder"):
        Sweep(tmp_path / "missing")
    with pytest.raises(errors.FileError, match="not a folder"):
        Sweep(tiny_sweep / "sweep.json")
    with pytest.raises(errors.SweepError, match=f"{tmp_path}: not a sweep folder \\(no sweep.json"):
        Sweep(tmp_path)


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[:-10], "sweep.json: invalid JSON"),
    (lambda text: json.dumps({**json.loads(text), "runs": {}}), "sweep.json: runs: expected an array, got object"),
    (lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "name"}), "sweep.json: name: missing field"),
    (lambda text: json.dumps({**json.loads(text), "runs": [{**json.loads(text)["runs"][0], "id": 5}]}),
     r"sweep.json: runs\[0\].id: expected a string, got number"),
    (lambda text: json.dumps({**json.loads(text), "runs": [{**json.loads(text)["runs"][0], "seed": "0"}]}),
     r"sweep.json: runs\[0\].seed: expected an integer, got string"),
])
def test_a_corrupt_sweep_json_names_the_file_and_field(tiny_sweep, tmp_path, damage, message):
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "sweep.json").write_text(damage((tiny_sweep / "sweep.json").read_text()))
    with pytest.raises(errors.SweepError, match=message) as e:
        Sweep(folder)
    assert str(folder / "sweep.json") in str(e.value)


def test_a_corrupt_summary_names_the_run_file(tiny_sweep, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(tiny_sweep, folder)
    run_dir = folder / manifest(folder)["runs"][2]["dir"]
    (run_dir / "summary.json").write_text("{")
    with pytest.raises(errors.RunFileError, match=f"{run_dir / 'summary.json'}: invalid JSON"):
        Sweep(folder).table
