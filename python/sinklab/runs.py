"""A run folder as data: `Run(path)` reads what `sinklab train` wrote there (docs/analysis.md, "Run directory
files"): config.yaml, run.json, summary.json, metrics.jsonl, attention/*.npy and checkpoint.bin's
training state. Every file is read on first use and kept; make a new Run to see files that changed since.

Each file is read by its one C++ reader, the one the commands use (python/bindings/run_files.cpp): bounded,
a FIFO or a device refused by name, every field checked. Nothing here parses a run file.
"""
import operator
import pathlib
import re

import numpy as np

from . import _sinklab, tables
from .errors import FileError, RunFileError

# summary.json's stop_reason of a run that diverged (RunSummary::kStopNonFinite): finished, no statistics.
STOP_NON_FINITE = "non_finite"

# A head's evaluation-only facts in summary.json (run_files/run_summary.cpp): one number per row, and steps.
BOS_MASS_BY_ROW = "bos_mass_by_row"
ONSET_STEPS = ("sink_onset_step_50", "sink_onset_step_90")

# The extreme-token statistics (docs/sinks-in-language-models.md): an object in summary.json and on the
# evaluation lines of metrics.jsonl (run_files/extreme_tokens_json.h).
EXTREME_TOKENS = "extreme_tokens"

ATTENTION_FILE = re.compile(r"layer(\d+)_head(\d+)_(\w+)\.npy")


def _head_prefix(head):
    return f"L{head['layer']}H{head['head']}."


def _number_column(values):
    """A statistic or run number: bool for flags (sink_head), else float64 with NaN for null or absent."""
    if values and all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    return tables.column([None if v is None else float(v) for v in values], dtype=np.float64)


def _metrics_column(name, values):
    """One metrics.jsonl column: int64 steps, bool flags, else float64 with NaN for null or absent (the C++
    reader checked every value's type)."""
    if name == "step":
        return np.array(values, dtype=np.int64)
    if values and all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _columns_in_order(rows, first=()):
    """Every key of the dicts `rows`, `first` ones first, the others in the order they first appear."""
    names = dict.fromkeys(first)
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names)


class Run:
    """A run folder written by `sinklab train` (or one of a sweep's): its config, provenance, summary,
    metrics log, attention maps and checkpoint step. See docs/python.md, "Runs and sweeps"."""

    def __init__(self, path):
        self._path = pathlib.Path(path)
        if not self._path.exists():
            raise FileError(f"{self._path}: no such run folder")
        if not self._path.is_dir():
            raise FileError(f"{self._path}: not a folder (a run folder holds summary.json, metrics.jsonl, ...)")
        if not self._has_run_files():
            raise RunFileError(f"{self._path}: not a run folder (it holds none of the files `sinklab train` writes: "
                               "summary.json, checkpoint.bin, metrics.jsonl, ...)")
        self._cache = {}

    @classmethod
    def _of_sweep(cls, path):
        """A run listed in a sweep.json, whose folder may not exist yet (state "not started")."""
        run = cls.__new__(cls)
        run._path = pathlib.Path(path)
        run._cache = {}
        return run

    def _has_run_files(self):
        return _sinklab.run_folder_state(str(self._path)) != "empty"  # as `train` tells a run folder

    def _cached(self, key, load):
        if key not in self._cache:
            self._cache[key] = load()
        return self._cache[key]

    @property
    def path(self):
        """The run folder (pathlib.Path)."""
        return self._path

    @property
    def name(self):
        """The folder's name: a sweep's run id, or the `--out` folder of `sinklab train`."""
        return self._path.name

    @property
    def config(self):
        """The resolved config of config.yaml as a dict (read by the project's YAML reader)."""
        return self._cached("config", self._read_config)

    def _read_config(self):
        return _sinklab.read_run_config(str(self._path / "config.yaml"))

    @property
    def info(self):
        """run.json as a dict: git revision, libraries, CPU and kernel path, threads, command line, start
        time. None when the folder has no run.json."""
        return self._cached("info", self._read_info)

    def _read_info(self):
        path = self._path / "run.json"
        if not path.exists():
            return None
        return _sinklab.read_run_info(str(path))

    @property
    def summary(self):
        """summary.json as a dict (null numbers as None), or None while the run has none: it is running, was
        stopped or failed, or has not started (see `state`)."""
        return self._cached("summary", self._read_summary)

    def _read_summary(self):
        path = self._path / "summary.json"
        if not path.exists():
            return None
        return _sinklab.read_summary(str(path))

    @property
    def state(self):
        """"finished"; "diverged" (finished, stop_reason non_finite, no statistics); "unfinished" (run files
        but no summary.json: running, stopped or failed); "not started" (a sweep's run without files)."""
        if self.summary is not None:
            return "diverged" if self.summary.get("stop_reason") == STOP_NON_FINITE else "finished"
        return "unfinished" if self._has_run_files() else "not started"

    @property
    def finished(self):
        """True when summary.json exists: the run ended (a diverged run too)."""
        return self.summary is not None

    @property
    def metrics(self):
        """metrics.jsonl as a table, one row per line: `step`, the run numbers (loss, lr, eval_mse, ...:
        NaN where a line has none, e.g. eval fields between evaluations) and each head's statistics as
        `L{layer}H{head}.<statistic>`. A DataFrame, or a dict of arrays without pandas (python/sinklab/tables.py)."""
        return self._cached("metrics", self._read_metrics)

    def _metrics_records(self):
        """metrics.jsonl's lines as dicts, read once for metrics and extreme_tokens. A run still going may
        have written half a line: only lines ended by a newline are read then, and a run stopped before its
        first line has none. A run not started has no log (the error names the file)."""
        going = not self.finished and self.state != "not started"
        return self._cached("metrics_records", lambda: _sinklab.read_metrics(
            str(self._path / "metrics.jsonl"), complete_lines_only=going))

    def _read_metrics(self):
        rows = []
        for line in self._metrics_records():
            record = {key: value for key, value in line.items() if key not in ("heads", EXTREME_TOKENS)}
            for head in line["heads"]:  # the final evaluation's extreme tokens are in summary.json
                prefix = _head_prefix(head)
                record.update((prefix + key, value) for key, value in head.items() if key not in ("layer", "head"))
            rows.append(record)
        # Columns: step, the run numbers, then the heads' statistics, each in the order first seen.
        seen = _columns_in_order(rows, first=["step"])
        names = [n for n in seen if "." not in n] + [n for n in seen if "." in n]
        return tables.table({name: _metrics_column(name, [row.get(name) for row in rows]) for name in names})

    @property
    def extreme_tokens(self):
        """The extreme-token statistics of each evaluation line of metrics.jsonl, {step: object} in step
        order (docs/sinks-in-language-models.md); the final evaluation's are summary["extreme_tokens"]."""
        return self._cached("extreme_tokens", lambda: {
            line["step"]: line[EXTREME_TOKENS] for line in self._metrics_records() if EXTREME_TOKENS in line})

    @property
    def heads(self):
        """The summary's per-head statistics (the final evaluation), one row per (layer, head): `layer`,
        `head`, every statistic, `bos_mass_by_row` (an array per row) and the sink onset steps (NaN when
        never reached). None while the run has no summary; no rows for a diverged run."""
        return self._cached("heads", self._read_heads)

    def _read_heads(self):
        if self.summary is None:
            return None
        heads = self.summary["heads"]
        names = _columns_in_order(heads, first=("layer", "head"))
        columns = {}
        for name in names or ["layer", "head"]:
            values = [h.get(name) for h in heads]
            if name in ("layer", "head"):
                columns[name] = tables.column(values, dtype=np.int64)
            elif name == BOS_MASS_BY_ROW:
                columns[name] = tables.array_column([v or [] for v in values])
            elif name in ONSET_STEPS:
                columns[name] = tables.column(values, dtype=np.float64)
            else:
                columns[name] = _number_column(values)
        return tables.table(columns)

    @property
    def attention_kinds(self):
        """The kinds of attention map the run wrote, sorted: ("mean", "sample0", "std") for a finished run
        (mean and sample standard deviation over the evaluation inputs, and the first input's map)."""
        return tuple(sorted({kind for _, _, kind in self._attention_files()}))

    def _attention_files(self):
        folder = self._path / "attention"
        if not folder.is_dir():
            return []
        found = []
        for entry in folder.iterdir():
            m = ATTENTION_FILE.fullmatch(entry.name)
            if m:
                found.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        return found

    def _attention_inventory(self):
        files = self._attention_files()
        if not files:
            return "the run has no attention maps (they are written when a run finishes)"
        layers = sorted({l for l, _, _ in files})
        heads = sorted({h for _, h, _ in files})
        kinds = sorted({k for _, _, k in files})
        return (f"the run has kinds {', '.join(kinds)} for layers {layers[0]}..{layers[-1]}, "
                f"heads {heads[0]}..{heads[-1]}")

    def attention(self, layer, head, kind="mean"):
        """The [T, T] float32 attention map of (layer, head) from attention/layer{l}_head{h}_{kind}.npy:
        query rows x key columns; `kind` is one of `attention_kinds`. Read-only (it is cached)."""
        layer, head = operator.index(layer), operator.index(head)
        if not isinstance(kind, str):
            raise TypeError(f"kind must be a string such as 'mean', got {type(kind).__name__}")
        return self._cached(("attention", layer, head, kind), lambda: self._read_attention(layer, head, kind))

    def _read_attention(self, layer, head, kind):
        path = self._path / "attention" / f"layer{layer}_head{head}_{kind}.npy"
        if not path.exists():
            raise RunFileError(f"{path}: missing; {self._attention_inventory()}")
        array = _sinklab.read_attention_map(str(path))
        array.flags.writeable = False
        return array

    @property
    def snapshots(self):
        """The run's attention snapshots over training (attention_snapshots.npz, docs/analysis.md) as a dict:
        `steps` [S], `mean` and `example` [S, layers, heads, R, C] float32, `rows`/`cols` (the first position
        each stored row / column stands for), `roles` [T], `tokens` and `token_labels` (bytes) or None,
        `seq_len`. None when the run has no snapshot file (analysis.snapshot_every 0, or not started);
        a damaged file raises RunFileError naming it. Read-only arrays (cached)."""
        return self._cached("snapshots", self._read_snapshots)

    def _read_snapshots(self):
        path = self._path / "attention_snapshots.npz"
        if not path.exists():
            return None
        snapshots = _sinklab.attention_snapshots(str(path))
        for value in snapshots.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        return snapshots

    @property
    def checkpoint_step(self):
        """The training step checkpoint.bin was written at (the steps done, the step a resume starts from),
        or None when the folder has none. A damaged header or table raises CheckpointError."""
        return self._cached("checkpoint_step", self._read_checkpoint_step)

    def _read_checkpoint_step(self):
        path = self._path / "checkpoint.bin"
        if not path.exists():
            return None
        return _sinklab.checkpoint_step(str(path))

    def __repr__(self):
        summary = self.summary
        if summary is None:
            status = self.state
        elif summary.get("stop_reason") == STOP_NON_FINITE:
            status = f"diverged after {summary['steps']} steps"
        else:
            status = f"finished, {summary['steps']} steps ({summary.get('stop_reason')})"
        return f"<sinklab.Run {self.name!r}: {status}, {self._path}>"
