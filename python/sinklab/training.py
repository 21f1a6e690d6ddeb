"""Training, sweeps and tasks in-process: `train`, `compare` and `task` (docs/python.md, "Training").

`train` runs the same code as `sinklab train` (train/train_in_folder.h), so a run trained here is
bit-identical to one trained by the command line with the same config, seed and threads. The C++ half is
python/bindings/training_*.cpp; this file checks the arguments and turns them into the command's flags.
"""

import _thread
import contextlib
import json
import math
import numbers
import os
import pathlib
import re
import shlex
import signal
import tempfile
import threading

from . import _sinklab
from .errors import FileError, Error
from .runs import Run
from .sweeps import Sweep

__all__ = ["Task", "train", "compare", "task", "POSITION_ROLES"]

# The flags a task writes for every position (core/observe/position_roles.h): a `roles` array holds their
# bitwise or. sink_key: a key attention may park weight on (BOS); no_op_row: a query row with nothing to
# do (a non-trigger row); active_row: a query row doing the task's work (the trigger row).
POSITION_ROLES = dict(_sinklab._position_roles)


# --- argument checks: a wrong argument is named in a TypeError or ValueError before anything runs ---

def _check_type(name, value, types, expected):
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        raise TypeError(f"{name}: expected {expected}, got {type(value).__name__} {value!r}")


def _path_text(name, value):
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if isinstance(text, str):
            if not text:
                raise ValueError(f"{name}: the path is empty")
            return text
    raise TypeError(f"{name}: expected a path (str or os.PathLike), got {type(value).__name__} {value!r}")


def _check_config(config):
    if not isinstance(config, dict) and not isinstance(config, (str, os.PathLike)):
        raise TypeError(f"config: expected a config file path (str or os.PathLike) or a dict of config keys, "
                        f"got {type(config).__name__} {config!r}")
    if not isinstance(config, dict):
        _path_text("config", config)


def _optional_path_text(name, value):
    return "" if value is None else _path_text(name, value)


# A string YAML reads back as itself when written plain (no quotes): a path or name of these characters
# that is no YAML word for null, a bool or a number. Plain, an override names the run as the same --set
# does on the command line ("normalizer=relu"); any other string is written double-quoted.
_PLAIN_STRING = re.compile(r"[A-Za-z_./][A-Za-z0-9_./+-]*\Z")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", ".nan"}
# Characters a double-quoted YAML scalar must escape besides JSON's: those YAML does not print, and
# NEL, LS and PS, which it reads as line breaks (folded into a space).
_YAML_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _is_number_text(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _yaml_string(key, text, plain_when_safe=True):
    """`text` as a YAML scalar that reads back as exactly this string: plain when that is safe (and
    plain_when_safe), else double-quoted (JSON's escapes are YAML's)."""
    if any("\ud800" <= c <= "\udfff" for c in text):
        raise ValueError(f"{key}: {text!r} is not valid Unicode text (it has a lone surrogate)")
    if (plain_when_safe and _PLAIN_STRING.match(text) and text.lower() not in _YAML_WORDS
            and not _is_number_text(text)):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _YAML_UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _yaml_scalar(key, value):
    """A Python value as the YAML text of a config value ('true', '3e-4', 'relu', '"run #2"', '[1, 2]'): a
    str is always read back as that string, never as null, a bool, a number or a cut-off comment."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise ValueError(f"{key}: {value!r} is not a finite number")
        return repr(float(value))
    if isinstance(value, str):
        return _yaml_string(key, value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_string(key, v, plain_when_safe=False) if isinstance(v, str)
                               else _yaml_scalar(key, v) for v in value) + "]"
    raise TypeError(f"{key}: a config value must be a number, string, bool, None or list, "
                    f"got {type(value).__name__} {value!r}")


def _override_list(overrides):
    """overrides as `--set` texts: a dict {"model.heads": 2} or an iterable of "key=value" strings."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        sets = []
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise TypeError(f"overrides: keys must be config key strings like 'train.max_steps', got {key!r}")
            sets.append(f"{key}={_yaml_scalar(key, value)}")
        return sets
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides: expected a dict {key: value} or a list of 'key=value' strings, got one string "
                        f"{overrides!r} (wrap it in a list)")
    try:
        sets = list(overrides)
    except TypeError:
        raise TypeError("overrides: expected a dict {key: value} or a list of 'key=value' strings, "
                        f"got {type(overrides).__name__}") from None
    for item in sets:
        if not isinstance(item, str) or "=" not in item:
            raise ValueError(f"overrides: expected 'key=value' strings, got {item!r}")
    return sets


def _whole_number_text(name, value):
    if value is None:
        return None
    _check_type(name, value, (numbers.Integral,), "a whole number")
    return str(int(value))  # range checked by the config loader, as --seed / --threads are


def _yaml_lines(mapping, indent=""):
    lines = []
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise TypeError(f"config: keys must be strings, got {key!r}")
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.extend(_yaml_lines(value, indent + "  "))
        else:
            if isinstance(value, str):
                text = _yaml_string(key, value, plain_when_safe=False)
            else:
                text = _yaml_scalar(key, value)
            lines.append(f"{indent}{key}: {text}")
    return lines


@contextlib.contextmanager
def _config_file(config):
    """The config as a file: a path as it is; a dict written to a temporary config.yaml (its `name` key,
    if any, names the run; else the run is called "config", after the file, as the loader does)."""
    if isinstance(config, dict):
        with tempfile.TemporaryDirectory(prefix="sinklab-config-") as folder:
            path = pathlib.Path(folder) / "config.yaml"
            path.write_text("\n".join(_yaml_lines(config)) + "\n", encoding="utf-8")
            yield str(path)
    else:
        text = _path_text("config", config)
        if not os.path.isfile(text):
            raise FileError(f"config {text}: no such file")
        yield text


# --- train ---

def _resume_hint(folder):
    return f"sinklab.train(resume={str(folder)!r})"


# The C++ half (train/train_in_folder.cpp) words its messages for the command line; a Python caller reads
# the arguments of sinklab.train instead: `force=True` where the terminal says `--force`.
_FLAG_ARGUMENTS = {"--out": "out", "--resume": "resume", "--seed": "seed", "--threads": "threads", "--name": "name"}
_SUGGESTED_COMMAND = re.compile(r"`\S*sinklab train ([^`]*)`")
_FLAG_WITH_PATH = re.compile(r"--(out|resume) (\S*/\S*?)([:;,]?)(?=\s|$)")  # a folder the call did not name
_BARE_FLAG = re.compile(r"--(out|resume|seed|threads|name)\b")


def _train_call(flag_words):
    """`sinklab train` arguments (shell words) as the sinklab.train call that does the same."""
    positional, keywords, overrides = [], [], []
    words = iter(shlex.split(flag_words))
    for word in words:
        if word == "--force":
            keywords.append("force=True")
        elif word == "--set":
            overrides.append(next(words, ""))
        elif word in _FLAG_ARGUMENTS:
            keywords.append(f"{_FLAG_ARGUMENTS[word]}={next(words, '')!r}")
        else:
            positional.append("config" if word == "CONFIG" else repr(word))
    if overrides:
        keywords.append(f"overrides={overrides!r}")
    return "`sinklab.train(" + ", ".join(positional + keywords) + ")`"


def _in_python_words(message, given):
    """A train message with the command's flags named as sinklab.train's arguments; `given` maps the flags
    to the texts this call passed for them."""
    message = _SUGGESTED_COMMAND.sub(lambda m: _train_call(m.group(1)), message)
    # The command's --skip-finished has no sinklab.train twin: a script checks the folder before it calls.
    message = message.replace(", or --skip-finished to keep a finished run of this config", "")
    message = message.replace("--force", "force=True").replace("--set ", "override ")
    for flag, value in sorted(given.items(), key=lambda item: -len(item[1] or "")):
        if value:
            message = message.replace(f"{flag} {value}", f"{_FLAG_ARGUMENTS[flag]}={value!r}")
    message = _FLAG_WITH_PATH.sub(lambda m: f"{m.group(1)}={m.group(2)!r}{m.group(3)}", message)
    return _BARE_FLAG.sub(lambda m: m.group(1), message)


@contextlib.contextmanager
def _python_wording(given=None, unless_from=()):
    """Rewords the message of an exception raised inside (but not of one in `unless_from`, the user's own)."""
    try:
        yield
    except Exception as error:
        if error.args and isinstance(error.args[0], str) and not any(error is e for e in unless_from):
            error.args = (_in_python_words(error.args[0], given or {}),) + error.args[1:]
        raise


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _deliver_to_python_handler(number):
    """After a run stopped on SIGTERM or SIGHUP: a handler the program installed for it runs now (it may
    raise); the default action (ending the interpreter) is not taken, Ctrl-C's KeyboardInterrupt is."""
    handler = signal.getsignal(number)
    if callable(handler) and handler is not signal.default_int_handler:
        signal.raise_signal(number)


class _TrainingsInProcess:
    """The sinklab.train calls in progress in this process, which share one set of signal handlers
    (train/interrupt.h): a signal asks every one of them to stop. Each call it stopped raises KeyboardInterrupt
    in its own thread; the signal itself reaches Python's handler once, in the main thread: there a stopped call
    raises it, else the last call to end hands it over (so a Ctrl-C is never lost, nor counted twice)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running = 0
        self._signal = 0  # the signal that asked since the count was last 0
        self._raised_in_main = False

    def begin(self):
        with self._lock:
            if self._running == 0:
                self._signal, self._raised_in_main = 0, False
            self._running += 1

    def end(self, number, raises_in_main):
        """number: the signal that asked while this call trained (0: none); raises_in_main: this call raises it
        in the main thread itself."""
        with self._lock:
            self._running -= 1
            if number:
                self._signal = number
                self._raised_in_main = self._raised_in_main or raises_in_main
            if self._running == 0 and self._signal and not self._raised_in_main:
                # As if the signal came now (the C++ handlers are gone): Python's handler runs in the main
                # thread; a handler left at SIG_DFL or SIG_IGN is not called, so SIGTERM does not end the
                # interpreter here either.
                _thread.interrupt_main(self._signal)


_trainings = _TrainingsInProcess()


def _command_line(config_label, sets, out, resume, seed, threads, name, force):
    """The `sinklab train` flags this call amounts to, for the run's provenance.json."""
    words = ["sinklab.train"]
    if config_label:
        words.append(config_label)
    if resume:
        words += ["--resume", resume]
    for s in sets:
        words += ["--set", s]
    for flag, value in (("--out", out), ("--seed", seed), ("--threads", threads), ("--name", name)):
        if value:
            words += [flag, value]
    if force:
        words.append("--force")
    return words


def train(config=None, overrides=None, out=None, seed=None, threads=None, name=None, on_log=None, quiet=True,
          force=False, resume=None):
    """Trains one run in this process, exactly as `sinklab train CONFIG --set ...` does (same folder,
    files, messages and bits).

    config: a config file (str or os.PathLike) or a dict of config keys; not needed with `resume`.
    overrides: {key: value} or ["key=value", ...], as --set. out: the run folder (default
    runs/<name>-seed<seed>, the name derived from the overrides as the command line does). seed, threads:
    whole numbers, as --seed / --threads. name: the run name. on_log(step, record): called with every
    metrics.jsonl line as a dict; an exception it raises stops the run at a checkpoint and propagates.
    quiet: no progress lines on stderr. force: start over in a folder that holds a run. resume: an
    unfinished run's folder (or its checkpoint.bin) to continue bit-identically, as --resume.

    Returns the run as a sinklab.Run (its `state` says "finished", or "diverged": summary["non_finite"]
    says what went non-finite). Ctrl-C, SIGTERM or SIGHUP stops the run at a checkpoint and raises
    KeyboardInterrupt saying which signal and how to continue it (a Python handler the program installed for
    SIGTERM or SIGHUP runs first); Python's own handlers are back afterwards. Calls in several threads at once
    are all stopped by one signal; each raises KeyboardInterrupt in its thread, and the signal reaches
    Python's handler once, in the main thread, after the last of them. Errors name these arguments
    (`force=True`), not the command line's flags.
    """
    if config is None and resume is None:
        raise TypeError("train: give a config (a file or a dict), or resume=RUN_DIR")
    if config is not None:
        _check_config(config)
    sets = _override_list(overrides)
    out_text = _optional_path_text("out", out)
    resume_text = _optional_path_text("resume", resume)
    seed_text = _whole_number_text("seed", seed)
    threads_text = _whole_number_text("threads", threads)
    if name is not None:
        _check_type("name", name, (str,), "a string")
    if on_log is not None and not callable(on_log):
        raise TypeError(f"on_log: expected a function on_log(step, record), got {type(on_log).__name__} {on_log!r}")
    _check_type("quiet", quiet, (bool,), "True or False")
    _check_type("force", force, (bool,), "True or False")

    from_on_log = []  # an exception on_log raised propagates as it is

    def log_record(step, line):
        try:
            on_log(step, json.loads(line))
        except BaseException as error:
            from_on_log.append(error)
            raise

    given = {"--out": out_text, "--resume": resume_text, "--seed": seed_text, "--threads": threads_text,
             "--name": name}
    with contextlib.ExitStack() as stack:
        stack.enter_context(_python_wording(given, unless_from=from_on_log))
        config_text = "" if config is None else stack.enter_context(_config_file(config))
        config_label = "<dict>" if isinstance(config, dict) else config_text
        words = _command_line(config_label, sets, out_text, resume_text, seed_text, threads_text, name, force)
        stop_signal = 0
        raises_here = False
        _trainings.begin()
        try:
            folder, outcome, steps, stop_signal = _sinklab._train(
                config_text, sets, out_text, resume_text, seed_text, threads_text, name, quiet, force,
                None if on_log is None else log_record, words)
            raises_here = outcome == "interrupted" and threading.current_thread() is threading.main_thread()
        finally:
            _trainings.end(stop_signal, raises_here)
    folder = pathlib.Path(folder)
    if outcome == "interrupted":
        by = ""
        if stop_signal not in (0, signal.SIGINT):
            if raises_here:  # in another thread, _trainings hands the signal to the main thread's handler
                _deliver_to_python_handler(stop_signal)
            by = f" by {_signal_name(stop_signal)}"
        raise KeyboardInterrupt(f"sinklab.train: interrupted{by} at step {steps}; the checkpoint is in {folder}: "
                                f"continue with {_resume_hint(folder)}")
    return Run(folder)


# --- compare ---

def _sinklab_executable():
    """The sinklab binary for the sweep's trainings: $SINKLAB_EXECUTABLE, else the one this package was
    built with (build/python/sinklab/ -> build/sinklab)."""
    override = os.environ.get("SINKLAB_EXECUTABLE")
    path = pathlib.Path(override) if override else pathlib.Path(__file__).resolve().parents[2] / "sinklab"
    if not path.is_file() or not os.access(path, os.X_OK):
        source = "SINKLAB_EXECUTABLE" if override else "the build next to this package"
        raise FileError(f"compare: the sinklab binary {path} (from {source}) is missing or not executable: build it "
                        "with scripts/build.sh, or set SINKLAB_EXECUTABLE to a sinklab binary")
    return str(path)


def compare(sweep, jobs=2, out=None, sets=None, dry_run=False):
    """Runs a sweep in this process, as `sinklab compare SWEEP --jobs N [--out DIR] [--set k=v]...
    [--dry-run]` does: every run a `sinklab train` child (the binary beside this package, or
    $SINKLAB_EXECUTABLE), finished runs skipped, then the report. Returns the sweep as a sinklab.Sweep
    (with dry_run, only its folder: nothing ran).

    Raises SweepError for a wrong sweep, Error when a run failed (the others still ran) or damaged run
    files were moved aside (their runs trained again: the command's exit 4), and
    KeyboardInterrupt on Ctrl-C once the children are stopped (calling compare again resumes).
    """
    sweep_text = _path_text("sweep", sweep)
    if not os.path.isfile(sweep_text):
        raise FileError(f"sweep {sweep_text}: no such file")
    _check_type("jobs", jobs, (numbers.Integral,), "a whole number")
    if not 1 <= jobs <= 4096:
        raise ValueError(f"jobs: expected 1 .. 4096 trainings at once, got {jobs}")
    out_text = _optional_path_text("out", out)
    set_list = _override_list(sets)
    _check_type("dry_run", dry_run, (bool,), "True or False")
    executable = _sinklab_executable()
    folder, code, stop_signal = _sinklab._compare(sweep_text, int(jobs), out_text, set_list, dry_run, executable)
    folder = pathlib.Path(folder)
    if stop_signal:
        raise KeyboardInterrupt(f"sinklab.compare: interrupted; the finished runs are kept in {folder}: "
                                f"call sinklab.compare({sweep_text!r}, ...) again to resume")
    if code == _sinklab._COMPARE_EXIT_FILES_MOVED_ASIDE:  # the command's exit 4 (docs/compare.md)
        raise Error(f"compare {sweep_text}: damaged run files were moved aside and their runs trained again "
                    f"(see the messages above); every run is finished in {folder}")
    if code != 0:
        raise Error(f"compare {sweep_text}: some runs failed or the report could not be written "
                    f"(see the messages above); the rest is in {folder}")
    return folder if dry_run else Sweep(folder)


# --- tasks ---

class Task:
    """A config's task: `name`, `shape` (input, seq_len, input_dim, output_dim, loss), batches as NumPy arrays
    and the fixed evaluation set. Arrays: `inputs` [B, T, input_dim] float32 or `input_ids` [B, T] int32,
    `targets` [B, T, output_dim] float32 or `target_ids` [B, T] int32 (-1: not scored), and `roles` [B, T]
    uint8 (POSITION_ROLES flags)."""

    def __init__(self, native):
        self._native = native

    @property
    def name(self):
        return self._native.name

    @property
    def shape(self):
        return self._native.shape

    def __repr__(self):
        return f"Task({self.name!r}, {self.shape})"

    def batch(self, seed, size=None, split="train"):
        """`size` samples (default: the config's train.batch_size) drawn from a generator seeded with
        `seed` (0 .. 2^64-1): the same seed always gives the same batch. split: "train" or "eval" (the
        evaluation's draws, e.g. its fixed trigger position)."""
        _check_type("seed", seed, (numbers.Integral,), "a whole number")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed: expected 0 .. 2^64-1, got {seed}")
        if size is None:
            size = self._native.batch_size
        _check_type("size", size, (numbers.Integral,), "a whole number")
        if not 1 <= size < 2**31:
            raise ValueError(f"size: expected 1 .. 2^31-1 samples, got {size}")
        _check_type("split", split, (str,), "'train' or 'eval'")
        if split not in ("train", "eval"):
            raise ValueError(f"split: expected 'train' or 'eval', got {split!r}")
        return self._native.batch(int(seed), int(size), split)

    def eval_batch(self):
        """The fixed evaluation set (task.eval_samples from task.eval_seed, at task.eval_seq_len when set),
        exactly as training and `sinklab eval` evaluate on it."""
        return self._native.eval_batch()


def task(config, overrides=None):
    """The task of a config (a file or a dict) with overrides ({key: value} or ["key=value", ...])."""
    _check_config(config)
    sets = _override_list(overrides)
    with _python_wording(), _config_file(config) as path:
        return Task(_sinklab._task(path, sets))
