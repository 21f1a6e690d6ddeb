"""sinklab.compare on a sweep whose finished run's summary.json was damaged: as `sinklab compare` (exit 4),
it moves the file aside, trains the run again and says so with sinklab.Error; the next call finds every
run finished (docs/compare.md, "Damaged run files")."""
import json

import pytest

import sinklab
from sinklab.training import compare
from conftest import SOURCE_DIR

SWEEP = f"""name: damaged
base: {SOURCE_DIR / "configs/paper/1x1_softmax.yaml"}
variants:
  - name: softmax
    set: {{train.max_steps: 20, task.eval_samples: 64, analysis.eval_attention_samples: 64, threads: 1}}
grid:
  seed: [0, 1]
"""


def test_a_damaged_summary_is_moved_aside_retrained_and_raised(tmp_path, capsys):
    sweep_file = tmp_path / "damaged.yaml"
    sweep_file.write_text(SWEEP)
    out = tmp_path / "out"
    compare(sweep_file, jobs=1, out=out)
    summary = out / "runs/softmax_seed=1/summary.json"
    numbers = json.loads(summary.read_text())
    damaged = dict(numbers, steps="20")  # a string where a number belongs
    summary.write_text(json.dumps(damaged))
    capsys.readouterr()

    with pytest.raises(sinklab.Error, match="damaged run files were moved aside and their runs trained again"):
        compare(sweep_file, jobs=1, out=out)
    assert "note: softmax_seed=1 (softmax, seed=1): damaged run file (summary.json does not read" in \
        capsys.readouterr().out
    assert json.loads((out / "quarantine/softmax_seed=1.summary.json").read_text()) == damaged
    retrained = json.loads(summary.read_text())
    for clock in ("wall_seconds", "time_seconds", "steps_per_second"):
        retrained.pop(clock, None)
        numbers.pop(clock, None)
    assert retrained == numbers

    sweep = compare(sweep_file, jobs=1, out=out)  # nothing damaged any more: no exception
    assert len(sweep) == 2 and all(run.finished for run in sweep)
