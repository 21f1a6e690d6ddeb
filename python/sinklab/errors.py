"""The exceptions sinklab raises. Their messages are the command line's (docs/python.md, "Errors")."""


class Error(Exception):
    """Any error sinklab reports about what it was given."""


class ConfigError(Error, ValueError):
    """A config file or override is wrong. `source`, `line` (1-based, 0 if none) and `key` say where."""

    def __init__(self, message, source="", line=0, key=""):
        super().__init__(message)
        self.source = source
        self.line = line
        self.key = key


class TaskError(Error, ValueError):
    """A task cannot be built from its options."""


class CheckpointError(Error):
    """A checkpoint is missing, corrupt, or belongs to another model."""


class RunFileError(Error):
    """A file of a run folder (summary.json, metrics.jsonl, a .npy) is missing or corrupt."""


class FileError(Error, OSError):
    """A file could not be read or written."""


class SweepError(Error, ValueError):
    """A sweep file or its options are wrong."""


class RunFolderBusy(Error):
    """Another process is writing the run folder."""


class TokenizerError(Error, ValueError):
    """A tokenizer.json (or tokenizer_config.json) is missing, malformed or unsupported, or an id names no token."""
