"""sinklab from Python: runs and sweeps as data, models with caches and hooks, training in-process.

Reference and examples: docs/python.md. Start Python or Jupyter with the package on the path through
scripts/python.sh, or set PYTHONPATH=build/python yourself.
"""

from . import _sinklab, hooks
from .errors import (CheckpointError, ConfigError, Error, FileError, RunFileError, RunFolderBusy, SweepError,
                     TaskError)
from .models import Model, build_model, construct, load_model

load_config = _sinklab.load_config
config_yaml = _sinklab.config_yaml

__all__ = [
    "CheckpointError", "ConfigError", "Error", "FileError", "RunFileError", "RunFolderBusy", "SweepError",
    "TaskError", "load_config", "config_yaml", "Model", "build_model", "construct", "load_model", "hooks",
]
