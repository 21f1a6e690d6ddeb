"""sinklab from Python: runs and sweeps as data, models with caches and hooks, training in-process.

Reference and examples: docs/python.md. Start Python or Jupyter with the package on the path through
scripts/python.sh, or set PYTHONPATH=build/python yourself.
"""

from . import _sinklab, hooks
from .errors import (CheckpointError, ConfigError, Error, FileError, RunFileError, RunFolderBusy, SweepError,
                     TaskError, TokenizerError)
from .models import Model, build_model, construct, load_model
from .runs import Run
from .sweeps import Sweep
from .training import POSITION_ROLES, Task, compare, task, train
from .tokenizers import Tokenizer, tokenizer



def load_config(path, overrides=()):
    """The config file `path` with overrides ('key=value' strings, or a dict) applied and validated, every
    key resolved, as a dict; what a run writes to its config.yaml."""
    from .models import _path_of
    from .training import _override_list, _python_wording
    with _python_wording():
        return _sinklab.load_config(_path_of(path), _override_list(overrides))


def config_yaml(path, overrides=()):
    """The same resolved config as YAML text."""
    from .models import _path_of
    from .training import _override_list, _python_wording
    with _python_wording():
        return _sinklab.config_yaml(_path_of(path), _override_list(overrides))

__all__ = [
    "CheckpointError", "ConfigError", "Error", "FileError", "RunFileError", "RunFolderBusy", "SweepError",
    "TaskError", "load_config", "config_yaml", "Model", "build_model", "construct", "load_model", "hooks", "Run", "Sweep", "POSITION_ROLES", "Task", "compare", "task", "train",
    "TokenizerError", "Tokenizer", "tokenizer",
]
