"""A sweep folder as data: `Sweep(path)` reads the sweep.json `sinklab compare` wrote (sweep/sweep_manifest.h)
and gives its runs as `Run`s (python/sinklab/runs.py) and one table with a row per run. sweep.json is read
by its one C++ reader (run_files/sweep_manifest_file.h), the one compare and report use.
"""
import pathlib

import numpy as np

from . import _sinklab, tables
from .errors import FileError, SweepError
from .runs import Run

# Summary fields the table leaves out: the per-head statistics (Run.heads has them) and what the first
# columns say already (the run's config name is its variant's config's; the seed has its own column).
SUMMARY_FIELDS_LEFT_OUT = ("heads", "name", "seed", "extreme_tokens")  # the last: Run.summary holds it


class Sweep:
    """A sweep folder written by `sinklab compare`: its runs in sweep.json order and a table with one row
    per run. See docs/python.md, "Runs and sweeps"."""

    def __init__(self, path):
        self._path = pathlib.Path(path)
        if not self._path.exists():
            raise FileError(f"{self._path}: no such sweep folder")
        if not self._path.is_dir():
            raise FileError(f"{self._path}: not a folder (a sweep folder holds sweep.json and runs/)")
        manifest_path = self._path / "sweep.json"
        if not manifest_path.exists():
            raise SweepError(f"{self._path}: not a sweep folder (no sweep.json; `sinklab compare` writes one)")
        self._manifest = _sinklab.read_sweep_manifest(str(manifest_path))
        self._runs = [Run._of_sweep(self._path / entry["dir"]) for entry in self._manifest["runs"]]
        self._by_id = {entry["id"]: run for entry, run in zip(self._manifest["runs"], self._runs)}
        self._table = None

    @property
    def path(self):
        """The sweep folder (pathlib.Path)."""
        return self._path

    @property
    def name(self):
        """The sweep's name (sweep.json's, from the sweep file)."""
        return self._manifest["name"]

    @property
    def manifest(self):
        """sweep.json as a dict: name, title, source, set, and per run id, variant, seed, dir, overrides, config."""
        return self._manifest

    @property
    def runs(self):
        """The runs, as `Run`s in sweep.json order (a run not started yet has state "not started")."""
        return list(self._runs)

    def run(self, run_id):
        """The run with id `run_id` (its folder name under runs/). KeyError names the ids there are."""
        try:
            return self._by_id[run_id]
        except KeyError:
            raise KeyError(f"sweep {self.name} has no run {run_id!r}; its runs: {', '.join(self._by_id)}") from None

    def __len__(self):
        return len(self._runs)

    def __iter__(self):
        return iter(self._runs)

    @property
    def table(self):
        """One row per run: id, variant, seed, each override of sweep.json as its own column (a value
        the run does not set: None or NaN), finished, state, then summary.json's scalar fields (steps,
        stop_reason, eval_mse, sink_rate, ...; task_baselines as task_baselines.<name>), empty for runs
        without a summary. A DataFrame, or a dict of arrays without pandas (python/sinklab/tables.py).
        Reads every summary.json, no metrics."""
        if self._table is None:
            self._table = self._build_table()
        return self._table

    def _build_table(self):
        entries = self._manifest["runs"]
        summaries = [run.summary for run in self._runs]
        # sweep.json has no seed when neither the grid nor the variant sets one: the run used its config's.
        seeds = [e.get("seed") if e.get("seed") is not None or s is None else s.get("seed")
                 for e, s in zip(entries, summaries)]
        columns = {
            "id": tables.column([e["id"] for e in entries], dtype=object),
            "variant": tables.column([e["variant"] for e in entries], dtype=object),
            "seed": tables.column(seeds),
        }
        overrides = {}
        for entry in entries:
            overrides.update(dict.fromkeys(k for k in entry.get("overrides", {}) if k != "seed"))
        for key in overrides:
            columns[key] = tables.column([e.get("overrides", {}).get(key) for e in entries])
        columns["finished"] = np.array([s is not None for s in summaries], dtype=bool)
        columns["state"] = tables.column([run.state for run in self._runs], dtype=object)
        flat = [self._summary_scalars(s) for s in summaries]
        names = {}
        for row in flat:
            names.update(dict.fromkeys(row))
        for name in names:
            # A config key an override names (threads) may also be a summary field: keep both, apart.
            column_name = f"summary.{name}" if name in columns else name
            columns[column_name] = tables.column([row.get(name) for row in flat])
        return tables.table(columns)

    @staticmethod
    def _summary_scalars(summary):
        if summary is None:
            return {}
        row = {}
        for key, value in summary.items():
            if key in SUMMARY_FIELDS_LEFT_OUT:
                continue
            if isinstance(value, dict):
                row.update((f"{key}.{k}", v) for k, v in value.items() if not isinstance(v, (dict, list)))
            elif not isinstance(value, list):
                row[key] = value
        return row

    def __repr__(self):
        finished = sum(run.finished for run in self._runs)
        return f"<sinklab.Sweep {self.name!r}: {len(self._runs)} runs, {finished} finished, {self._path}>"
