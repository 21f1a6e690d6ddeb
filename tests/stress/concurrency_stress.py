#!/usr/bin/python3
"""Concurrency stress test (issue 49, docs/reliability.md "Concurrency stress test").

Several worker threads run random operations on a few shared folders for --seconds: `sinklab` commands as
child processes (train, resume, a train killed or interrupted mid-run, eval in every mode, report, inspect,
export, compare, and the same command twice at once) and, in this process, sinklab.train, the Python
readers (Run, Sweep) and model passes (plain, cached, hooked, with a hook that calls the model, evaluate).
Invariants, each a finding when broken:
  - a command exits 0, or with a documented status and one `sinklab: error:` line that is a refusal this
    concurrency may cause (a held lock, a run in the way, a file not there yet); never a signal it was not
    sent, a traceback, an abort or a timeout (a hang is reported with its command line);
  - every file under its final name in the shared folders parses with the project's own readers, and no
    temporary is left by a writer that finished (one of a killed writer is allowed: the next write of that
    name removes it, docs/reliability.md "Atomic, checked writes");
  - every finished run is byte-identical (checkpoint.bin, attention maps, summary.json and metrics.jsonl
    less their wall-clock fields) to a solo run of its config made first in a private folder; model passes
    on its weights give the solo model's bits;
  - of two plain `train` into one folder at once, at most one trains; the other refuses;
  - after the stress, Ctrl-C still raises KeyboardInterrupt in this process (sinklab.train restored Python's
    handler however its calls overlapped).
Run: /usr/bin/python3 tests/stress/concurrency_stress.py --build build [--seconds 600] [--seed N]
"""
import argparse
import collections
import contextlib
import csv
import faulthandler
import io
import json
import os
import pathlib
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import xml.etree.ElementTree as ElementTree
import zipfile

import numpy as np

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
PAPER = SOURCE_DIR / "configs/paper/1x1_softmax.yaml"
LM = SOURCE_DIR / "configs/normlimits/ci_tiny.yaml"
CORPUS = SOURCE_DIR / "tests/fixtures/corpus/kjv_excerpt.txt"
# the only fields two runs of one config may differ in
TIMING = {"steps_per_second", "wall_seconds", "time_seconds"}
# Provenance, not results: the CLI and the Python module of one build folder may be built at two commits.
PROVENANCE = {"git_revision"}

# The run kinds: a config and its overrides. "long" runs last long enough to be killed mid-run and resumed.
KINDS = {
    "short": (PAPER, {"train.max_steps": 120, "train.log_every": 20}),
    "long": (PAPER, {"train.max_steps": 2500, "train.checkpoint_every": 100, "train.log_every": 100}),
    "lm": (LM, {"train.max_steps": 12, "optimizer.warmup_steps": 4, "task.corpus": str(CORPUS)}),
}
SLOTS = {"a": "short", "b": "short", "c": "long", "d": "long", "e": "lm"}
SWEEP_YAML = """name: tiny
base: {base}
variants:
  - name: softmax
  - name: relu
    set: {{model.attention.normalizer: relu}}
grid:
  seed: [0]
"""
SWEEP_SETS = ["train.max_steps=40", "threads=1"]

# Known defects that the lead integrates at 10:00; each may be left out by name (--skip) until it is fixed.
SKIPPABLE = {
    "same-output-writers": "two eval/report/export writing one output at once (issue 49 item 1)",
    "nested-hooks": "a hook that calls the model (issue 49 item 2)",
    "overlapping-python-train": "two sinklab.train in threads at once (issue 49 item 3)",
    "force-beside-writers": "train --force (force=True) while other commands write into the run folder: it then "
                            "runs alone (found by this test: the clearing fails on files that come and go)",
}

# Refusals a command may give when another command holds or is changing its folder. Any other exit-2
# message is a finding.
EXPECTED_REFUSALS = [
    r"in use by|held by|in use \(pid|another .* (is )?(writing|running)",
    r"holds a finished run|holds an unfinished run|already holds",
    r"nothing to resume|no checkpoint|before its first checkpoint|has no checkpoint",
    r"no such run folder|not a directory \(expected a run or sweep directory\)|no summary\.json",
    r"cannot read the config file: no such file",
    # a folder whose run a `train --force` is replacing, or whose --force failed
    r"is missing, so this is not a sinklab run folder|is neither a run folder nor a model folder|not a run folder",
    r"checkpoint\.bin: cannot open: No such file or directory",  # a run killed before its first checkpoint
]


def expected_refusal(message):
    """A refusal that another command on the same folder may cause. A temporary file is never one."""
    return ".tmp" not in message and any(re.search(p, message) for p in EXPECTED_REFUSALS)


# Temporaries: `<name>.tmp` (older writers), `<name>.<pid>-<hex>.tmp`, gnuplot's `.partial` pictures.
TEMPORARY = re.compile(r"\.tmp$|\.partial")
WRITER_PID = re.compile(r"\.(\d+)-[0-9a-f]+\.tmp$")


def quoted(words):
    return " ".join(shlex.quote(str(w)) for w in words)


def set_flags(overrides):
    return [w for k, v in overrides.items() for w in ("--set", f"{k}={v}")]


class Findings:
    def __init__(self):
        self.lock = threading.Lock()
        self.items = []

    def add(self, kind, detail, repro="", context=()):
        with self.lock:
            for item in self.items:  # the same finding again (a later check of the same file) is counted
                if item["kind"] == kind and item["detail"] == detail.strip():
                    item["times"] += 1
                    return
            self.items.append({"kind": kind, "detail": detail.strip(), "repro": repro, "context": list(context),
                               "times": 1})
        print(f"FINDING [{kind}] {detail.strip()[:400]}" + (f"\n    repro: {repro}" if repro else ""), flush=True)


class Slot:
    """A shared folder and the operations using it. A check of its files waits until none runs, and new
    operations wait for the check, so the checker never sees a live writer's temporary."""

    def __init__(self, name, path, kind):
        self.name, self.path, self.kind = name, path, kind
        self.cond = threading.Condition()
        self.active = {}  # op id -> description
        self.checking = False
        self.killed = False  # a writer of this folder was killed since its last finished training
        self.history = collections.deque(maxlen=6)  # the last operations that ended, for findings

    def note(self, text):
        with self.cond:
            self.history.append(text)

    @contextlib.contextmanager
    def use(self, description):
        """Yields the list of the operations on this folder that overlap this one; it grows while it runs."""
        key = object()
        with self.cond:
            while self.checking:
                self.cond.wait()
            overlapping = [d for d, _ in self.active.values()]
            for _, others in self.active.values():
                others.append(description)
            self.active[key] = (description, overlapping)
        try:
            yield overlapping
        finally:
            with self.cond:
                del self.active[key]
                self.cond.notify_all()

    @contextlib.contextmanager
    def alone(self):
        """Runs an operation with no other on this folder (as a check does); yields no overlapping ones."""
        with self.exclusive(wait=True):
            yield []

    @contextlib.contextmanager
    def exclusive(self, wait=False):
        with self.cond:
            while wait and (self.active or self.checking):
                self.cond.wait()
            got = not self.active and not self.checking
            if got:
                self.checking = True
        try:
            yield got
        finally:
            if got:
                with self.cond:
                    self.checking = False
                    self.cond.notify_all()


class Stress:
    def __init__(self, args):
        self.args = args
        self.build = pathlib.Path(args.build).resolve()
        self.sinklab = self.build / "sinklab"
        self.root = pathlib.Path(args.work_dir or tempfile.mkdtemp(prefix="sinklab-stress-")).resolve()
        self.private = self.root / "private"
        self.shared = self.root / "shared"
        self.findings = Findings()
        self.counts = collections.Counter()
        self.refusals = collections.Counter()
        self.count_lock = threading.Lock()
        self.env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
        self.stop = threading.Event()
        self.killed_pids = set()  # sinklab processes this test killed: their temporaries may stay
        self.in_process = {}  # thread id -> (start, description): a watchdog for in-process operations
        self.in_process_lock = threading.Lock()
        self.skip = set(args.skip)
        self.slots = {n: Slot(n, self.shared / "runs" / n, k) for n, k in SLOTS.items()}
        self.slots["sweep"] = Slot("sweep", self.shared / "sweep", "sweep")
        self.slots["out"] = Slot("out", self.shared / "out", "out")
        self.slots["scratch"] = Slot("scratch", self.shared / "scratch", "scratch")  # fresh folders per operation
        self.scratch_runs = 0
        self.sweep_spec = self.root / "tiny.yaml"
        self.reference = {}  # kind -> reference run folder
        self.reference_model = {}  # kind -> (inputs, parameters, output, evaluate result)
        self.shared_model = {}  # kind -> one model of the solo run, used by every worker thread at once
        self.newline_exempt = set()  # report file suffixes that do not end with a newline in a solo report

    # ---- running commands ----

    def count(self, key):
        with self.count_lock:
            self.counts[key] += 1

    def command(self, words, slot, op, sent=None, delay=None):
        """Runs `sinklab WORDS` in the shared folder; with `sent`, sends that signal after `delay` seconds.
        Returns (status, stderr) after checking the status and the message."""
        argv = [str(self.sinklab), *map(str, words)]
        with self.using(slot, quoted(words)) as others:
            start = time.monotonic()
            child = subprocess.Popen(argv, cwd=self.shared, env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, errors="replace")
            signalled = None
            if sent is not None:
                try:
                    child.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    child.send_signal(sent)
                    signalled = sent
            try:
                out, err = child.communicate(timeout=self.args.command_timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                out, err = child.communicate()
                slot.killed = True
                with self.count_lock:
                    self.killed_pids.add(child.pid)
                self.findings.add("hang", f"`sinklab {quoted(words)}` still ran after {self.args.command_timeout} s "
                                  f"(killed); stderr tail: {err[-300:]}", quoted(["sinklab", *words]), others)
                return None, err
            if child.returncode < 0:  # SIGKILL, or Ctrl-C before the handler is installed: no clean-up
                slot.killed = True
                with self.count_lock:
                    self.killed_pids.add(child.pid)
        self.count(op)
        self.judge(words, child.returncode, out, err, signalled, others, time.monotonic() - start)
        slot.note(f"{quoted(words[:2])}... -> {child.returncode}")
        if self.args.verbose:
            last = err.strip().splitlines()[-1:] or [""]
            print(f"{op}: sinklab {quoted(words)} -> {child.returncode} {last[0][:150]}", flush=True)
        return child.returncode, err

    def judge(self, words, status, out, err, signalled, others, seconds):
        repro = quoted(["sinklab", *words])
        errors = [line for line in err.splitlines() if line.startswith("sinklab: error:")]
        for bad in ("Traceback", "terminate called", "Aborted", "AddressSanitizer", "runtime error:",
                    "Segmentation fault", "std::"):
            if bad in err:
                self.findings.add("crash-text", f"`{repro}` printed '{bad}' (status {status}):\n{err[-800:]}",
                                  repro, others)
                return
        if status == 0:
            return
        if signalled is not None and status in (-signalled, 128 + signalled):
            if status > 0 and "interrupted" not in err:
                self.findings.add("signal-message", f"`{repro}` stopped by {signalled} without saying so:\n"
                                  f"{err[-500:]}", repro, others)
            return
        if status < 0:
            self.findings.add("signal-death", f"`{repro}` died of signal {-status}:\n{err[-500:]}", repro, others)
            return
        if status != 2 or len(errors) != 1:
            self.findings.add("exit-status", f"`{repro}` exited {status} with {len(errors)} error lines:\n"
                              f"{err[-800:]}", repro, others)
            return
        message = errors[0]
        if expected_refusal(message) or self.changed_meanwhile(message, others):
            with self.count_lock:
                self.refusals[re.sub(r"\d+", "N", message.replace(str(self.shared), "SHARED"))[:160]] += 1
            return
        self.findings.add("unexpected-refusal", f"`{repro}` refused with a message this concurrency should not "
                          f"cause ({seconds:.1f} s):\n{message}", repro, others)

    def using(self, slot, description):
        if "force-beside-writers" in self.skip and ("--force" in description or "force=True" in description):
            return slot.alone()
        return slot.use(description)

    @staticmethod
    def changed_meanwhile(message, others):
        """A refusal caused by what an overlapping operation did to the folder: `train --force` (force=True)
        removes a run's files, eval/, export/ and report/ with them, so a command may lose a file or the
        folder it writes into; `inspect --eval` during a training compares a checkpoint of the middle of
        the run with the summary.json written at its end."""
        forced = any("--force" in o or "force=True" in o for o in others)
        trained = any(o.startswith("train ") or o.startswith("sinklab.train(") for o in others)
        return ("no such file" in message.lower() and forced) or \
            ("differs from the re-evaluation" in message and trained)

    def python_op(self, op, slot, description, body):
        """Runs body() in this thread under the watchdog; a sinklab error with a message is a refusal,
        any other exception a finding."""
        import sinklab.errors
        with self.using(slot, description) as others:
            with self.in_process_lock:
                self.in_process[threading.get_ident()] = (time.monotonic(), description)
            try:
                body()
            except (sinklab.errors.Error, ValueError) as error:  # ValueError: an argument (out=, resume=) refused
                message = str(error)
                if not expected_refusal(message) and not self.changed_meanwhile(message, others):
                    self.findings.add("unexpected-refusal", f"{description}: {type(error).__name__}: {message}",
                                      description, others)
                else:
                    with self.count_lock:
                        self.refusals["python: " + re.sub(r"\d+", "N",
                                                          message.replace(str(self.shared), "SHARED"))[:150]] += 1
            except Exception:
                self.findings.add("python-exception", f"{description}:\n{traceback.format_exc()[-1500:]}",
                                  description, others)
            finally:
                with self.in_process_lock:
                    self.in_process.pop(threading.get_ident(), None)
                slot.note(description)
        self.count(op)
        if self.args.verbose:
            print(f"{op}: {description} done", flush=True)

    # ---- setup: the solo references ----

    def train_words(self, kind, out, *extra):
        config, overrides = KINDS[kind]
        return ["train", config, *set_flags(overrides), "--threads", "1", "--out", out, "--quiet", *extra]

    def solo(self, words, cwd):
        done = subprocess.run([str(self.sinklab), *map(str, words)], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"setup failed: sinklab {quoted(words)}:\n{done.stderr}")

    def setup(self):
        import sinklab
        self.private.mkdir(parents=True)
        (self.shared / "runs").mkdir(parents=True)
        (self.shared / "out").mkdir()
        (self.shared / "scratch").mkdir()
        self.sweep_spec.write_text(SWEEP_YAML.format(base=PAPER))
        for kind in KINDS:
            folder = self.private / kind
            self.solo(self.train_words(kind, folder), self.private)
            self.reference[kind] = folder
            model = sinklab.load_model(folder)
            inputs = self.inputs(folder)
            parameters = {k: np.array(v) for k, v in model.parameters().items()}
            self.reference_model[kind] = (inputs, parameters, np.array(model(inputs)), model.evaluate())
            self.shared_model[kind] = sinklab.load_model(folder)
        self.solo(["compare", self.sweep_spec, "--jobs", "1", "--out", self.private / "sweep",
                   *[w for s in SWEEP_SETS for w in ("--set", s)]], self.private)
        # Two shared folders start with a finished run (a copy of the solo one), the others empty.
        for name in ("a", "c"):
            shutil.copytree(self.reference[SLOTS[name]], self.slots[name].path, symlinks=True)
        # Which text outputs of a solo report end without a newline (their end cannot be checked).
        self.solo(["report", self.reference["short"], "--no-render"], self.private)
        for path in (self.reference["short"] / "report").rglob("*"):
            if path.is_file() and path.suffix in (".md", ".dat", ".gp", ".csv", ".js", ".css", ".html"):
                if not path.read_bytes().endswith(b"\n"):
                    self.newline_exempt.add(path.suffix)

    @staticmethod
    def inputs(folder):
        import sinklab
        batch = sinklab.task(folder / "config.yaml").eval_batch()
        return (batch["inputs"] if "inputs" in batch else batch["input_ids"])[:4]

    # ---- file checks ----

    def check_slot(self, slot, final=False):
        """Every file of the slot parses; no temporary unless a killed writer left it; a finished run is the
        solo run's bits. Skipped (returns False) while an operation uses the slot, unless final."""
        with slot.exclusive(wait=final) as got:
            if not got:
                return False
            self.count("check")
            for path in sorted(p for p in slot.path.rglob("*") if p.is_file() or p.is_symlink()):
                self.check_file(slot, path)
            if slot.kind in KINDS and (slot.path / "summary.json").exists():
                self.check_run(slot, slot.path, self.reference[slot.kind])
            if slot.kind == "sweep" and (slot.path / "sweep.json").exists():
                self.check_sweep(slot)
            return True

    def check_file(self, slot, path):
        relative = path.relative_to(self.shared)
        if TEMPORARY.search(path.name):
            pid = WRITER_PID.search(path.name)
            # A killed writer's temporary stays (docs/reliability.md); an unnamed one only until rewritten.
            if (int(pid.group(1)) in self.killed_pids) if pid else slot.killed:
                self.count("stale-temporary-of-killed-writer")
            else:
                self.findings.add("leftover-temporary", f"{relative} is left behind by a writer that was not killed",
                                  "", list(slot.history))
            return
        try:
            problem = self.parse(path, slot.killed)
        except Exception as error:  # any reader error is the finding
            problem = f"{type(error).__name__}: {error}"
        if problem:
            self.findings.add("half-written", f"{relative}: {problem}", "", list(slot.history))

    def parse(self, path, killed):
        data = path.read_bytes()
        name, suffix = path.name, path.suffix
        if name.endswith(".lock"):  # flock files (.lock, .report.lock): their content is a pid or nothing
            return None
        if not data and suffix not in (".log", ".jsonl"):  # a log without lines yet is whole
            return "empty file"
        if suffix == ".json":
            json.loads(data)
        elif suffix == ".jsonl":
            if data and not data.endswith(b"\n"):
                if killed:  # an append cut by SIGKILL; --resume cuts the log back to its checkpoint
                    return None
                return "does not end with a whole line"
            for line in data.splitlines():
                json.loads(line)
        elif suffix == ".npy":
            np.load(io.BytesIO(data), allow_pickle=False)
        elif suffix == ".npz":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                bad = archive.testzip()
                if bad:
                    return f"entry {bad} fails its CRC"
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                for key in arrays.files:
                    arrays[key]
        elif suffix == ".safetensors":
            size = int.from_bytes(data[:8], "little")
            header = json.loads(data[8:8 + size])
            end = max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
            if len(data) != 8 + size + end:
                return f"{len(data)} bytes, its header says {8 + size + end}"
        elif suffix == ".svg":
            ElementTree.fromstring(data)
        elif suffix == ".png":
            if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[-12:-4] != b"\x00\x00\x00\x00IEND":
                return "not a whole PNG (signature or IEND chunk missing)"
        elif suffix == ".csv":
            rows = list(csv.reader(io.StringIO(data.decode())))
            if len({len(r) for r in rows}) > 1:
                return "rows of different lengths"
        elif suffix == ".yaml":
            import sinklab
            if name == "config.yaml":
                sinklab.task(path)  # the config loader
        if suffix == ".html" and not data.rstrip().endswith(b"</html>"):
            return "does not end with </html>"
        if suffix in (".md", ".dat", ".gp", ".csv", ".js", ".css") and suffix not in self.newline_exempt:
            if not data.endswith(b"\n"):
                return "does not end with a newline (a solo report's files do)"
        return None

    def check_run(self, slot, folder, reference):
        """A finished run against its solo reference, read through the project's readers too."""
        import sinklab
        try:
            run = sinklab.Run(folder)
            run.summary, run.metrics, run.heads, run.checkpoint_step, run.snapshots, run.info
        except Exception as error:
            self.findings.add("unreadable-run", f"{folder.relative_to(self.shared)}: {type(error).__name__}: {error}")
            return
        differences = []
        if (folder / "checkpoint.bin").read_bytes() != (reference / "checkpoint.bin").read_bytes():
            differences.append("checkpoint.bin")
        if self.summary_numbers(folder) != self.summary_numbers(reference):
            differences.append("summary.json")
        if self.metrics_lines(folder) != self.metrics_lines(reference):
            differences.append("metrics.jsonl")
        for npy in (reference / "attention").glob("*.npy"):
            mine = folder / "attention" / npy.name
            if not mine.exists() or mine.read_bytes() != npy.read_bytes():
                differences.append(f"attention/{npy.name}")
        if differences:
            self.findings.add("not-identical", f"{folder.relative_to(self.shared)}: {', '.join(differences)} "
                              f"differ from the solo run {reference.relative_to(self.root)}")

    @staticmethod
    def summary_numbers(folder):
        summary = json.loads((folder / "summary.json").read_text())
        return {k: v for k, v in summary.items() if k not in TIMING | PROVENANCE}

    @staticmethod
    def metrics_lines(folder):
        return [{k: v for k, v in json.loads(line).items() if k not in TIMING}
                for line in (folder / "metrics.jsonl").read_text().splitlines()]

    def check_sweep(self, slot):
        import sinklab
        try:
            sweep = sinklab.Sweep(slot.path)
            sweep.table
        except Exception as error:
            self.findings.add("unreadable-sweep", f"shared/sweep: {type(error).__name__}: {error}")
            return
        for run_folder in (self.private / "sweep").iterdir():
            mine = slot.path / run_folder.name
            if (run_folder / "summary.json").exists() and (mine / "summary.json").exists():
                self.check_run(slot, mine, run_folder)

    # ---- the operations ----

    def run_slot(self, rng, kinds=("short", "long", "lm")):
        return self.slots[rng.choice([n for n, k in SLOTS.items() if k in kinds])]

    def op_train(self, rng):
        slot = self.run_slot(rng)
        extra = rng.choice([[], [], ["--skip-finished"], ["--force"]] if rng.random() < 0.3 else [[]])
        self.command(self.train_words(slot.kind, slot.path, *extra), slot, "train")

    def op_resume(self, rng):
        slot = self.run_slot(rng)
        self.command(["train", "--resume", slot.path, "--quiet"], slot, "resume")

    def op_kill(self, rng):
        slot = self.run_slot(rng, ("long",) * 3 + ("short",))
        state = "unfinished" if (slot.path / "checkpoint.bin").exists() and not (slot.path / "summary.json").exists() \
            else "other"
        words = ["train", "--resume", slot.path, "--quiet"] if state == "unfinished" else \
            self.train_words(slot.kind, slot.path, "--force")
        sent = rng.choice([signal.SIGKILL, signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
        self.command(words, slot, f"kill-{signal.Signals(sent).name}", sent=sent, delay=rng.uniform(0.1, 3.0))

    def eval_words(self, rng, slot):
        if slot.kind == "lm":
            mode = rng.choice([["--stream", "--window", "16", "--keep-first", "0,1", "--tokens", "96"],
                               ["--ablate", "mask_bos_key"], ["--head-ablation"]])
        else:
            mode = rng.choice([[], ["--ablate", "mask_bos_key"], ["--ablate", "zero_bos_weight", "--heads", "L0H0"],
                               ["--massive", "set_zero"], ["--massive", "set_mean"], ["--head-ablation"]])
        return ["eval", slot.path, *mode]

    def op_eval(self, rng):
        slot = self.run_slot(rng)
        words = self.eval_words(rng, slot)
        if rng.random() < 0.2 and "--stream" not in words:  # an output outside the run, shared by workers
            self.command(words + ["--out", self.shared / "out" / "eval.json"], self.slots["out"], "eval")
        else:
            self.command(words, slot, "eval")

    def report_words(self, rng):
        slot = self.run_slot(rng) if rng.random() < 0.8 else self.slots["sweep"]
        return slot, ["report", slot.path, *(["--no-render"] if rng.random() < 0.6 else [])]

    def op_report(self, rng):
        slot, words = self.report_words(rng)
        self.command(words, slot, "report")

    def op_inspect(self, rng):
        slot = self.run_slot(rng)
        self.command(["inspect", slot.path, *(["--eval"] if rng.random() < 0.5 else [])], slot, "inspect")

    def export_words(self, rng, slot):
        words = ["export", slot.path, "--format", rng.choice(["npz", "safetensors"])]
        vectors = slot.kind != "lm"  # evaluation outputs are exported for vector tasks only
        return words + (["--eval-samples", "4"] if vectors and rng.random() < 0.3 else [])

    def op_export(self, rng):
        slot = self.run_slot(rng)
        self.command(self.export_words(rng, slot), slot, "export")

    def compare_words(self):
        return ["compare", self.sweep_spec, "--jobs", "1", "--out", self.slots["sweep"].path,
                *[w for s in SWEEP_SETS for w in ("--set", s)]]

    def op_compare(self, rng):
        self.command(self.compare_words(), self.slots["sweep"], "compare")

    def op_twin(self, rng):
        """One command twice at once: two writers of one folder (or one output)."""
        choices = ["train", "compare"]
        if "same-output-writers" not in self.skip:
            choices += ["eval", "report", "export"]
        what = rng.choice(choices)
        slot = self.run_slot(rng)
        if what == "train":
            if (slot.path / "summary.json").exists() and rng.random() < 0.7:
                slot = self.slots[rng.choice(["c", "d"])]
            words = self.train_words(slot.kind, slot.path)
        elif what == "compare":
            slot, words = self.slots["sweep"], self.compare_words()
        elif what == "eval":
            words = self.eval_words(rng, slot)
        elif what == "report":
            slot, words = self.report_words(rng)
        else:
            words = self.export_words(rng, slot)
        results = [None, None]

        def one(i):
            results[i] = self.command(words, slot, f"twin-{what}")
        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if what == "train" and all(r is not None and r[0] == 0 for r in results):
            self.findings.add("two-trainers", f"two `{quoted(words)}` into one folder both exited 0",
                              quoted(["sinklab", *words]) + "  # twice at once")

    def op_py_train(self, rng):
        import sinklab
        slots = [self.run_slot(rng, ("short", "long"))]
        if "overlapping-python-train" not in self.skip and rng.random() < 0.5:
            slots.append(self.run_slot(rng, ("short", "long")))  # two sinklab.train in threads at once

        def body(slot, resume, force):
            config, overrides = KINDS[slot.kind]
            if resume:
                sinklab.train(resume=slot.path)
            else:
                sinklab.train(config, overrides=overrides, out=slot.path, threads=1, force=force)

        def one(slot):
            resume, force = rng.random() < 0.4, rng.random() < 0.1
            where = slot.path.relative_to(self.shared)
            description = f"sinklab.train(resume={where})" if resume else \
                f"sinklab.train({KINDS[slot.kind][0].name}, out={where}, force={force})"
            self.python_op("py-train", slot, description, lambda: body(slot, resume, force))
        threads = [threading.Thread(target=one, args=(s,)) for s in slots[1:]]
        for t in threads:
            t.start()
        one(slots[0])
        for t in threads:
            t.join()

    def op_py_overlap(self, rng):
        """Two sinklab.train calls in threads into fresh folders, the first to start ending first (the case
        that lost Ctrl-C for good, issue 49 item 3); both must give the solo runs' bits."""
        import sinklab
        if "overlapping-python-train" in self.skip:
            return
        slot = self.slots["scratch"]
        with self.count_lock:
            self.scratch_runs += 1
            base = slot.path / f"pair{self.scratch_runs}"
        pair = [("short", base / "short"), ("long", base / "long")]

        def one(kind, folder):
            config, overrides = KINDS[kind]
            self.python_op("py-overlap", slot, f"sinklab.train({config.name}, out={folder.relative_to(self.shared)})",
                           lambda: sinklab.train(config, overrides=overrides, out=folder, threads=1))
        threads = [threading.Thread(target=one, args=p) for p in pair]
        threads[0].start()
        time.sleep(0.05)
        threads[1].start()
        for t in threads:
            t.join()
        with slot.exclusive(wait=True):
            for kind, folder in pair:
                if (folder / "summary.json").exists():
                    self.check_run(slot, folder, self.reference[kind])
                else:
                    self.findings.add("unfinished", f"{folder.relative_to(self.shared)}: sinklab.train returned "
                                      "without a summary.json")

    def op_py_read(self, rng):
        import sinklab
        if rng.random() < 0.25:
            slot = self.slots["sweep"]

            def body():
                if (slot.path / "sweep.json").exists():
                    sweep = sinklab.Sweep(slot.path)
                    sweep.table
                    [r.state for r in sweep.runs]
            self.python_op("py-read", slot, "sinklab.Sweep(sweep).table", body)
            return
        slot = self.run_slot(rng)

        def body():
            run = sinklab.Run(slot.path)
            run.state
            if run.finished:
                run.summary, run.heads, run.attention(0, 0, "mean"), run.snapshots
            run.config, run.info, run.checkpoint_step
            if not any("train" in d for d, _ in list(slot.active.values())):
                run.metrics  # a live run's log is appended to while read
        self.python_op("py-read", slot, f"sinklab.Run({slot.path.relative_to(self.shared)})", body)

    def op_py_model(self, rng):
        import sinklab
        slot = self.run_slot(rng)
        inputs, parameters, output, evaluated = self.reference_model[slot.kind]

        shared = rng.random() < 0.4

        def body():
            model = self.shared_model[slot.kind] if shared else sinklab.load_model(slot.path)
            mine = model.parameters()
            solo = all(np.array_equal(mine[k], v) for k, v in parameters.items()) and len(mine) == len(parameters)
            out = np.array(model(inputs))
            cached, cache = model.run_with_cache(inputs)
            if not np.array_equal(np.array(cached), out) or "logits" not in cache.keys():
                raise AssertionError("run_with_cache gave another output than model(x), or no logits")
            hooked = np.array(model.run_with_hooks(inputs, [("logits", lambda v, n: np.zeros_like(v))]))
            if not np.array_equal(hooked, np.zeros_like(hooked)):
                raise AssertionError("a logits hook returning zeros did not give zeros")
            if solo and not np.array_equal(out, output):
                raise AssertionError("the solo run's weights give other outputs than the solo model")
            if "nested-hooks" not in self.skip:
                self.nested(model, inputs, out, rng)
            if rng.random() < 0.3:
                result = model.evaluate()
                if solo:
                    for key in ("mse", "max_abs_error", "loss", "accuracy"):
                        a, b = result.get(key), evaluated.get(key)
                        if not (a == b or (a is None and b is None) or (np.isnan(a) and np.isnan(b))):
                            raise AssertionError(f"evaluate()[{key!r}] {a} differs from the solo model's {b}")
        where = f"the solo {slot.kind} model shared by all threads" if shared else \
            f"sinklab.load_model({slot.path.relative_to(self.shared)})"
        self.python_op("py-model", slot, f"passes of {where}", body)

    @staticmethod
    def nested(model, inputs, plain, rng):
        """A hook that calls the model: the outer pass keeps all of its own hooks, and the inner pass's hooks
        stay in the inner pass (docs/python.md, run_with_hooks)."""
        first = "blocks.0.attn.weights"
        zeros = ("logits", lambda v, n: np.zeros_like(v))
        inner_outputs = []
        calls = {"model(x)": lambda: model(inputs), "run_with_cache": lambda: model.run_with_cache(inputs)[0],
                 "run_with_hooks": lambda: model.run_with_hooks(inputs, [zeros])}
        call = rng.choice(sorted(calls))

        def hook(value, name):
            inner_outputs.append(np.array(calls[call]()))
        outer = np.array(model.run_with_hooks(inputs, [(first, hook), zeros]))
        if not np.array_equal(outer, np.zeros_like(outer)):
            raise AssertionError(f"a hook that calls {call} left the outer pass's later hook unapplied "
                                 "(issue 49 item 2)")
        outer = np.array(model.run_with_hooks(inputs, [(first, hook)]))
        if not np.array_equal(outer, plain):
            raise AssertionError(f"a hook that calls {call} changed the outer pass's output (issue 49 item 2)")
        expected = np.zeros_like(plain) if call == "run_with_hooks" else plain
        if not all(np.array_equal(o, expected) for o in inner_outputs):
            raise AssertionError(f"{call} inside a hook gave another output than outside (issue 49 item 2)")

    OPS = {"train": 3, "resume": 2, "kill": 2, "eval": 3, "report": 2, "inspect": 2, "export": 2, "compare": 1,
           "twin": 3, "py_train": 2, "py_overlap": 1, "py_read": 3, "py_model": 2}

    def worker(self, index):
        rng = random.Random(self.args.seed * 1000 + index)
        names = list(self.OPS)
        weights = [self.OPS[n] for n in names]
        while not self.stop.is_set():
            op = rng.choices(names, weights)[0]
            getattr(self, f"op_{op}")(rng)
            for slot in self.slots.values():
                if rng.random() < 0.3:
                    self.check_slot(slot)

    # ---- the end: finish every run, check everything ----

    def finish(self):
        for name, kind in SLOTS.items():
            slot = self.slots[name]
            if (slot.path / "summary.json").exists():
                continue
            if (slot.path / "checkpoint.bin").exists():
                status, err = self.command(["train", "--resume", slot.path, "--quiet"], slot, "finish")
                if status == 0:
                    continue
            self.command(self.train_words(kind, slot.path, "--force"), slot, "finish")
        self.command(self.compare_words(), self.slots["sweep"], "finish")
        for slot in self.slots.values():
            if slot.kind in KINDS:
                if not (slot.path / "summary.json").exists():
                    self.findings.add("unfinished", f"{slot.name}: no summary.json after the final resume")
                status, err = self.command(["inspect", slot.path], slot, "finish")
                if status != 0:
                    self.findings.add("inspect", f"`sinklab inspect {slot.path}` exited {status}: {err[-300:]}")
            self.check_slot(slot, final=True)

    def ctrl_c_still_works(self):
        """Python's SIGINT handler is back and raises, whatever overlapping sinklab.train calls did."""
        handler = signal.getsignal(signal.SIGINT)
        if handler is not signal.default_int_handler:
            self.findings.add("signals", f"SIGINT's handler is {handler!r}, not Python's, after the stress "
                              "(issue 49 item 3)")
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(40):
                time.sleep(0.05)
            self.findings.add("signals", "SIGINT sent to this process did not raise KeyboardInterrupt after the "
                              "sinklab.train calls (issue 49 item 3)")
        except KeyboardInterrupt:
            pass

    def watchdog(self):
        hung = []
        with self.in_process_lock:
            for ident, (start, description) in self.in_process.items():
                if time.monotonic() - start > self.args.command_timeout:
                    hung.append(description)
        for description in hung:
            self.findings.add("hang", f"{description} still runs after {self.args.command_timeout} s")
        if hung:
            faulthandler.dump_traceback(all_threads=True)
        return hung

    def run(self):
        print(f"concurrency stress: seed {self.args.seed}, {self.args.seconds} s, {self.args.workers} workers, "
              f"folder {self.root}" + (f", skipping {sorted(self.skip)}" if self.skip else ""), flush=True)
        start = time.monotonic()
        self.setup()
        print(f"solo references made in {time.monotonic() - start:.1f} s", flush=True)
        workers = [threading.Thread(target=self.worker, args=(i,), daemon=True) for i in range(self.args.workers)]
        for w in workers:
            w.start()
        end = time.monotonic() + self.args.seconds
        while time.monotonic() < end:
            time.sleep(0.5)
            if self.watchdog():
                break
        self.stop.set()
        deadline = time.monotonic() + self.args.command_timeout + 30
        for w in workers:
            w.join(timeout=max(0.0, deadline - time.monotonic()))
        if any(w.is_alive() for w in workers):
            self.watchdog()
            self.findings.add("hang", "a worker did not end within the command timeout after the stress")
            return self.report(hung=True)
        self.finish()
        self.ctrl_c_still_works()
        return self.report()

    def report(self, hung=False):
        print("operations: " + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items())))
        print("refusals seen (expected under concurrency):")
        for message, n in self.refusals.most_common():
            print(f"  {n:4d} x {message}")
        items = self.findings.items
        print(f"seed {self.args.seed}: {len(items)} finding(s)")
        for item in items:
            times = f" ({item['times']} times)" if item["times"] > 1 else ""
            print(f"- [{item['kind']}]{times} {item['detail'][:1500]}")
            if item["repro"]:
                print(f"  command: {item['repro']}")
            if item["context"]:
                print(f"  the folder's other (or last) operations: {item['context']}")
        if not items and not self.args.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            print(f"files kept in {self.root}")
        sys.stdout.flush()
        if hung:
            os._exit(1)
        return 1 if items else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(SOURCE_DIR / "build"), help="build folder (sinklab, python/)")
    parser.add_argument("--seconds", type=float, default=60, help="how long the random operations run")
    parser.add_argument("--workers", type=int, default=4, help="worker threads, each running one operation")
    parser.add_argument("--seed", type=int, default=None, help="seed of the workers' choices (default: random)")
    parser.add_argument("--command-timeout", type=float, default=240, help="seconds after which a command hangs")
    parser.add_argument("--work-dir", help="folder to work in (default: a new temporary folder)")
    parser.add_argument("--verbose", action="store_true", help="print every operation and its outcome")
    parser.add_argument("--keep", action="store_true", help="keep the folder even without findings")
    parser.add_argument("--skip", action="append", default=[], choices=sorted(SKIPPABLE),
                        help="leave out a known defect's operation: " +
                        "; ".join(f"{k}: {v}" for k, v in SKIPPABLE.items()))
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(2**31)
    sys.path.insert(0, str(pathlib.Path(args.build).resolve() / "python"))
    faulthandler.enable()
    return Stress(args).run()


if __name__ == "__main__":
    sys.exit(main())
