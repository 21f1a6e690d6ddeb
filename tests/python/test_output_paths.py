"""The one rule for output paths (run_files/output_path.h) from Python: sinklab.train and sinklab.compare
write only through the C++ commands' code, so they refuse what the command line refuses, with
sinklab.FileError naming the path, and leave the refused node or run file as it was."""
import os
import shutil
import stat

import pytest

import sinklab
from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"
SMOKE = SOURCE_DIR / "configs/sweeps/smoke.yaml"


def _finished_run(folder):
    """A folder holding a run: summary.json, checkpoint.bin and attention/."""
    (folder / "attention").mkdir(parents=True)
    (folder / "summary.json").write_text("{}\n")
    (folder / "checkpoint.bin").write_bytes(b"the run's weights")
    return folder


def test_train_into_a_fifo_is_refused_and_the_fifo_stays(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(sinklab.FileError) as raised:
        sinklab.train(TINY, out=fifo, overrides={"train.max_steps": 2})
    assert f"{fifo} is a FIFO, not a folder" in str(raised.value)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_train_into_a_device_is_refused():
    with pytest.raises(sinklab.FileError) as raised:
        sinklab.train(TINY, out="/dev/null", overrides={"train.max_steps": 2})
    assert "/dev/null is a character device, not a folder" in str(raised.value)
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_train_inside_a_runs_attention_folder_is_refused(tmp_path):
    run = _finished_run(tmp_path / "run")
    with pytest.raises(sinklab.FileError) as raised:
        sinklab.train(TINY, out=run / "attention" / "new_run", overrides={"train.max_steps": 2})
    assert str(run / "attention") in str(raised.value)
    assert list((run / "attention").iterdir()) == []


def test_train_through_a_symlinked_folder_inside_a_run_is_refused(tmp_path):
    run = _finished_run(tmp_path / "run")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", run / "nested")
    with pytest.raises(sinklab.FileError) as raised:
        sinklab.train(TINY, out=run / "nested" / "new_run", overrides={"train.max_steps": 2})
    assert f"{run / 'nested'}, a symbolic link inside the run folder" in str(raised.value)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_compare_into_a_runs_own_file_is_refused(tmp_path):
    run = _finished_run(tmp_path / "run")
    with pytest.raises(sinklab.FileError) as raised:
        sinklab.compare(SMOKE, out=run / "checkpoint.bin", dry_run=True)
    assert str(run / "checkpoint.bin") in str(raised.value)
    assert (run / "checkpoint.bin").read_bytes() == b"the run's weights"


def test_train_force_leaves_no_snapshot_of_the_earlier_run(tmp_path):
    out = tmp_path / "run"
    sinklab.train(TINY, out=out, overrides={"train.max_steps": 4, "analysis.snapshot_every": 2}, threads=1)
    assert (out / "attention_snapshots.npz").exists()
    sinklab.train(TINY, out=out, overrides={"train.max_steps": 4, "analysis.snapshot_every": 0}, threads=1,
                  force=True)
    assert not (out / "attention_snapshots.npz").exists()
    shutil.rmtree(out)
