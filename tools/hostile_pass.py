#!/usr/bin/env python3
"""A hostile-input pass over the built `sinklab` binary and the Python module (docs/fuzzing.md, "The hostile
pass"): hundreds of generated inputs over the surfaces of issue 47 (output paths, input files, config values,
flags, Python arrays), each run with a timeout on a fresh copy of a tiny trained run, each outcome classified:

  ok          the command did its work (exit 0, or 3 for a training that diverged, as documented)
  refusal     exit 2 or 1 with a message (no internal-error marks), or a Python exception sinklab documents
  CRASH       a signal, a segfault of the interpreter, an internal error (bad_alloc, terminate, a traceback)
  HANG        the timeout ran out
  DESTROYED   a file that was there before (a run file, a FIFO, a device, a file behind a symlink) changed
              its bytes or its type, or a run-owned file name was written, where the command had no business
  WRONG EXIT  a message, but an exit code other than 2 (user error) or 1 (internal): listed, not fatal

Prints a table of counts per surface and every non-clean case; exits 1 on any CRASH, HANG or DESTROYED.
Python 3 standard library plus NumPy. Usage:

  python3 tools/hostile_pass.py [--build build] [--jobs 2] [--timeout 10] [--only SURFACE] [--keep]
"""
import argparse
import concurrent.futures
import hashlib
import os
import pathlib
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

SOURCE = pathlib.Path(__file__).resolve().parents[1]
CONFIG = SOURCE / "configs/paper/1x1_softmax.yaml"  # the smallest model: one layer, one head
INTERNAL_MARKS = ("terminate called", "Segmentation fault", "Aborted", "bad_alloc", "internal error", "Traceback",
                  "AddressSanitizer", "core dumped")
RUN_FILES = ("checkpoint.bin", "summary.json", "metrics.jsonl", "config.yaml", "run.json",
             "train.log", "attention_snapshots.npz")


class Case:
    """One hostile input: `argv` (a sinklab command, RUN standing for the case's run copy, TMP for its own
    folder) or `python` (code run with sys.argv[1] = the run copy, sys.argv[2] = TMP); `setup(run, tmp)`
    damages or prepares files first and returns extra paths that must come out untouched."""

    def __init__(self, surface, name, argv=None, python=None, setup=None, chosen=None):
        self.surface, self.name, self.argv, self.python, self.setup = surface, name, argv, python, setup
        self.chosen = chosen  # filled by setup when the argv depends on what it made: {"argv": [...]}


# --- file fingerprints: what "destroyed" compares ---

def fingerprint(path):
    """Type, size and (for regular files) a hash of the first and last MiB and the mtime; nothing opened that
    could block (FIFOs, devices) or read gigabytes (sparse files)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ("missing",)
    kind = stat.S_IFMT(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return (kind, os.readlink(path))
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return (kind, st.st_rdev)
    if not stat.S_ISREG(st.st_mode):
        return (kind,)
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        digest.update(f.read(1 << 20))
        if st.st_size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            digest.update(f.read(1 << 20))
    return (kind, st.st_size, st.st_mtime_ns, digest.hexdigest())


def watched(run, extra):
    """The run folder's own files (the command must never change them) and the case's extra victims."""
    paths = [run / name for name in os.listdir(run)] if run.is_dir() else []
    return [p for p in paths if not p.is_dir() or p.is_symlink()] + [pathlib.Path(p) for p in extra]


# --- damaged files ---

def make_fifo(path):
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def make_char_device(path, minor=3):
    """A node like /dev/null (1, 3), /dev/zero (1, 5), /dev/full (1, 7) or /dev/urandom (1, 9), made in the
    case's folder: a command that replaces or writes through it harms nothing of the machine's."""
    path.unlink(missing_ok=True)
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))


def billion_laughs():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev = chr(ord("a") + i - 1)
        name = chr(ord("a") + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def zip_bomb(path, name="L0H0.mean.npy", gigabytes=3):
    """An .npz whose one entry claims a [n] float64 array of `gigabytes` that inflates from a few MB."""
    n = gigabytes * (1 << 30) // 8
    header = ("{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n).encode()
    header += b" " * (63 - (len(header) + 10) % 64) + b"\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open(name, "w", force_zip64=True) as entry:
            entry.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
            zeros = bytes(1 << 24)
            for _ in range(n * 8 // len(zeros)):
                entry.write(zeros)


def damage(kind, path):
    """Replaces the file at `path` by a damaged one of `kind`."""
    original = path.read_bytes() if path.is_file() else b""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    rng = random.Random(kind + path.name)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        make_char_device(path, 5)
    elif kind == "dev-urandom":
        make_char_device(path, 9)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(original[: len(original) // 2])
    elif kind == "zeroed":
        path.write_bytes(bytes(len(original)))
    elif kind == "garbage":
        path.write_bytes(bytes(rng.getrandbits(8) for _ in range(max(64, len(original)))))
    elif kind == "flipped":
        data = bytearray(original or b"\0")
        data[len(data) // 2] ^= 0x55
        path.write_bytes(bytes(data))
    elif kind == "sparse-12GB":
        with open(path, "wb") as f:
            f.write(original[:64])
            f.truncate(12 << 30)
    elif kind == "folder":
        path.mkdir()
    else:
        raise ValueError(kind)


DAMAGES = ("fifo", "dev-zero", "dev-urandom", "empty", "truncated", "zeroed", "garbage", "flipped", "sparse-12GB",
           "folder")

PY_PRELUDE = """
import sys, pathlib
import numpy as np
import sinklab
run, tmp = sys.argv[1], pathlib.Path(sys.argv[2])
try:
{body}
    print("HOSTILE-OK")
except (sinklab.Error, ValueError, TypeError, KeyError, IndexError, OSError) as error:
    print("HOSTILE-REFUSED", type(error).__name__, str(error)[:300])
    sys.exit(2)
"""


def python_case(surface, name, body, setup=None):
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return Case(surface, name, python=PY_PRELUDE.format(body=indented), setup=setup)


# --- the surfaces ---

def output_path_cases(has_lm):
    writers = {
        "eval --out": ["eval", "RUN", "--out", "{X}"],
        "eval --ablate --out": ["eval", "RUN", "--ablate", "zero_bos_weight", "--out", "{X}"],
        "eval --head-ablation --out": ["eval", "RUN", "--head-ablation", "--out", "{X}"],
        "export safetensors --out": ["export", "RUN", "--format", "safetensors", "--out", "{X}"],
        "export npz --out": ["export", "RUN", "--format", "npz", "--out", "{X}"],
        "report --out": ["report", "RUN", "--no-render", "--out", "{X}"],
    }
    if has_lm:
        writers["eval --stream --out"] = ["eval", "LM", "--stream", "--window", "8", "--keep-first", "0,1",
                                          "--out", "{X}"]
    # A run's own file name is watched even where this run has no such file yet: writing one there is the fault.
    targets = {f"RUN/{f}": (lambda f: lambda run, tmp: (run / f, [run / f]))(f) for f in RUN_FILES}
    targets["RUN itself"] = lambda run, tmp: (run, [])
    targets["a FIFO"] = lambda run, tmp: (make_fifo(tmp / "fifo") or tmp / "fifo", [tmp / "fifo"])
    targets["a char device"] = lambda run, tmp: (make_char_device(tmp / "null") or tmp / "null", [tmp / "null"])
    # Never the machine's own /dev/null or /dev/full: a faulty command replaces the node by a regular file.
    targets["a node like /dev/full"] = lambda run, tmp: (make_char_device(tmp / "full", 7) or tmp / "full",
                                                          [tmp / "full"])

    def symlinked(run, tmp):  # RUN/eval is a link to a folder holding a file the command would write
        elsewhere = tmp / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        (elsewhere / "out.json").write_text("precious\n")
        shutil.rmtree(run / "eval", ignore_errors=True)
        (run / "eval").symlink_to(elsewhere)
        return run / "eval" / "out.json", [elsewhere / "out.json"]

    targets["through a symlinked RUN/eval"] = symlinked
    cases = []
    for wname, argv in writers.items():
        for tname, target in targets.items():
            chosen = {}

            def setup(run, tmp, target=target, argv=argv, chosen=chosen):
                path, extra = target(run, tmp)
                chosen["argv"] = [str(path) if a == "{X}" else a for a in argv]
                return extra
            cases.append(Case("output paths", f"{wname} {tname}", argv=argv, setup=setup, chosen=chosen))
    # Python writers: train into a run's file or a FIFO as `out`.
    for tname in ("RUN/summary.json", "RUN/checkpoint.bin", "a FIFO"):
        target = targets[tname]

        def setup(run, tmp, target=target):
            path, extra = target(run, tmp)
            (tmp / "target").write_text(str(path))
            return extra
        cases.append(python_case("output paths", f"sinklab.train(out={tname})", f"""
sinklab.train({str(CONFIG)!r}, overrides={{"train.max_steps": 2}}, out=(tmp / "target").read_text(), threads=1)
""", setup=setup))

    def report_figures(run, tmp):  # a symlinked report/figures/ must not be written through
        victim = tmp / "victim"
        victim.mkdir(exist_ok=True)
        for name in ("bos_mass.svg", "bos_mass.dat", "bos_mass.gp", "attention_L0H0.svg"):
            (victim / name).write_text("precious\n")
        (run / "report").mkdir(exist_ok=True)
        (run / "report" / "figures").symlink_to(victim)
        return [victim / n for n in os.listdir(victim)]
    cases.append(Case("output paths", "report RUN with a symlinked report/figures", argv=["report", "RUN",
                                                                                        "--no-render"],
                      setup=report_figures))
    return cases


def input_file_cases():
    readers = {
        "eval": ["eval", "RUN", "--out", "TMP/out.json"],
        "inspect": ["inspect", "RUN"],
        "inspect --eval": ["inspect", "RUN", "--eval"],
        "report": ["report", "RUN", "--no-render", "--out", "TMP/report"],
        "export": ["export", "RUN", "--format", "npz", "--out", "TMP/model.npz"],
        "train --resume": ["train", "--resume", "RUN", "--quiet"],
    }
    python_readers = {
        "Run.summary/config/metrics": "r = sinklab.Run(run); r.summary; r.config; r.metrics; r.state",
        "Run.snapshots": "sinklab.Run(run).snapshots",
        "load_model": "sinklab.load_model(run)",
    }
    cases = []
    for file in ("checkpoint.bin", "summary.json", "metrics.jsonl", "config.yaml", "run.json",
                 "attention_snapshots.npz"):
        for kind in DAMAGES:
            def setup(run, tmp, file=file, kind=kind):
                damage(kind, run / file)
                return []
            for rname, argv in readers.items():
                cases.append(Case("input files", f"{rname}: {file} {kind}", argv=argv, setup=setup))
            for rname, body in python_readers.items():
                cases.append(python_case("input files", f"{rname}: {file} {kind}", body, setup=setup))
    # YAML that expands exponentially, and an .npz that inflates to 3 GB.
    def laughs(run, tmp):
        (run / "config.yaml").write_text(billion_laughs())
        return []

    def bomb(run, tmp):
        for npz in run.glob("*.npz"):
            zip_bomb(npz)
        (run / "attention_snapshots.npz").unlink(missing_ok=True)
        zip_bomb(run / "attention_snapshots.npz")
        return []
    for label, setup in (("billion laughs config.yaml", laughs), ("zip bomb .npz", bomb)):
        for rname, argv in readers.items():
            cases.append(Case("input files", f"{rname}: {label}", argv=argv, setup=setup))
        for rname, body in python_readers.items():
            cases.append(python_case("input files", f"{rname}: {label}", body, setup=setup))
    return cases


CONFIG_VALUES = ("1e300", "-1", "0", "1e-45", "4.9e-324", "nan", "inf", "-inf", "abc", "[1, 2]", "{a: 1}",
                 "99999999999999999999", "2147483648", "''", "null", "true")


def config_value_cases(keys, limit):
    rng = random.Random(47)
    pairs = [(k, v) for k in keys for v in CONFIG_VALUES]
    rng.shuffle(pairs)
    cases = []
    for key, value in sorted(pairs[:limit]):
        argv = ["train", str(CONFIG), "--out", "TMP/run", "--quiet", "--threads", "1", "--set",
                "train.max_steps=3", "--set", f"{key}={value}"]
        cases.append(Case("config values", f"{key}={value}", argv=argv))
    for key, value in (("analysis.snapshot_samples", "10000000"), ("task.eval_samples", "10000000"),
                       ("analysis.snapshot_every", "1"), ("task.eval_seq_len", "20000"), ("optimizer.lr", "1e-45")):
        argv = ["train", str(CONFIG), "--out", "TMP/run", "--quiet", "--threads", "1", "--set",
                "train.max_steps=3", "--set", f"{key}={value}"]
        cases.append(Case("config values", f"issue: {key}={value}", argv=argv))
    return cases


def flag_cases(has_lm):
    flags = [
        ["train", str(CONFIG), "--seed", "abc"], ["train", str(CONFIG), "--seed", "-1"],
        ["train", str(CONFIG), "--threads", "0"], ["train", str(CONFIG), "--threads", "100000"],
        ["train", str(CONFIG), "--set"], ["train", str(CONFIG), "--set", "="], ["train", str(CONFIG), "--set", "a"],
        ["train", str(CONFIG), "--name", "../x"], ["train", str(CONFIG), "--name", ""],
        ["train", str(CONFIG), "--out", ""], ["train", "/dev/zero"], ["train", "/dev/null"], ["train", "TMP"],
        ["train", "--resume", "RUN", "--force"],
        ["eval", "RUN", "--samples", "0"], ["eval", "RUN", "--samples", "-5"], ["eval", "RUN", "--samples", "1e30"],
        ["eval", "RUN", "--samples", "10000000"], ["eval", "RUN", "--seq-len", "0"],
        ["eval", "RUN", "--seq-len", "100000"], ["eval", "RUN", "--ablate", "everything"],
        ["eval", "RUN", "--ablate", "zero_bos_weight", "--heads", "L9H9"],
        ["eval", "RUN", "--heads", "L0H0"], ["eval", "RUN", "--eval-trigger", "99999"],
        ["eval", "RUN", "--massive", "set_zero", "--massive-layer", "7"], ["eval", "RUN", "--windows", "-1"],
        ["eval", "/dev/null"], ["eval", "TMP/nothing"], ["inspect", "/"], ["inspect", "RUN", "--wide"],
        ["export", "RUN"], ["export", "RUN", "--format", "onnx"], ["export", "RUN", "--format", "npz",
                                                                  "--eval-samples", "100000000"],
        ["report", "TMP/nothing"], ["report", "RUN", "--seed", "abc"], ["error-vs-sink", "RUN", "--betas", "nan"],
        ["error-vs-sink", "RUN", "--betas", "-1"], ["probe", "--synthetic", "--eps", "1e-300", "--out", "TMP/p"],
        ["probe", "--synthetic", "--L", "0", "--out", "TMP/p"], ["schedule", "--ranks", "0"],
        ["compare", str(CONFIG)], ["construct"], ["--version", "--version"],
        ["nonsense-command"], ["eval"], ["train"],
    ]
    if has_lm:
        flags += [["sample", "LM", "--prompt", "the", "--tokens", "1000000"],
                  ["sample", "LM", "--prompt", "\xff\xfe", "--tokens", "5"],
                  ["sample", "LM", "--prompt", "the", "--tokens", "-1"],
                  ["sample", "LM", "--prompt", "the", "--tokens", "5", "--temperature", "nan"],
                  ["eval", "LM", "--stream", "--window", "0"], ["eval", "LM", "--stream", "--window", "99999999"],
                  ["eval", "LM", "--stream", "--keep-first", "-1"], ["probe", "LM", "--eps", "1e-300",
                                                                    "--out", "TMP/p"]]
    return [Case("flags", " ".join(argv)[:90], argv=argv) for argv in flags]


def python_array_cases():
    arrays = {
        "broadcast uint8 2^27 x 8 ids": "np.broadcast_to(np.zeros(8, np.uint8), (2**27, 8))",
        "broadcast float 2^27 x T x d": "np.broadcast_to(np.zeros(16, np.float32), (2**27, 8, 16))",
        "broadcast float 2^40 samples": "np.broadcast_to(np.zeros(16, np.float32), (2**40, 1, 16))",
        "NaN inputs": "np.full((2, 8, 16), np.nan, np.float32)",
        "inf inputs": "np.full((2, 8, 16), np.inf, np.float32)",
        "float64 inputs": "np.zeros((2, 8, 16))",
        "int inputs": "np.zeros((2, 8, 16), np.int64)",
        "bool inputs": "np.zeros((2, 8, 16), bool)",
        "complex inputs": "np.zeros((2, 8, 16), np.complex64)",
        "object inputs": "np.empty((2, 8, 16), object)",
        "string inputs": "np.full((2, 8, 16), 'a')",
        "0-d": "np.float32(1)",
        "1-d": "np.zeros(16, np.float32)",
        "4-d": "np.zeros((1, 2, 8, 16), np.float32)",
        "zero samples": "np.zeros((0, 8, 16), np.float32)",
        "zero positions": "np.zeros((2, 0, 16), np.float32)",
        "too long": "np.zeros((1, 100000, 16), np.float32)",
        "wrong width": "np.zeros((1, 8, 17), np.float32)",
        "negative strides": "np.zeros((2, 8, 16), np.float32)[::-1, ::-1]",
        "fortran order": "np.asfortranarray(np.zeros((2, 8, 16), np.float32))",
        "non-aligned": "np.zeros(2 * 8 * 16 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(2, 8, 16)",
        "read-only": "(lambda a: (a.setflags(write=False), a)[1])(np.zeros((2, 8, 16), np.float32))",
        "a list": "[[[0.0] * 16] * 8] * 2",
        "a ragged list": "[[0.0] * 16, [0.0]]",
        "None": "None",
        "a string": "'abc'",
        "a memoryview": "memoryview(np.zeros((2, 8, 16), np.float32))",
    }
    calls = {"model()": "m({a})", "run_with_cache": "m.run_with_cache({a})",
             "run_with_hooks": "m.run_with_hooks({a}, {{'logits': lambda v, n: None}})"}
    cases = []
    for aname, expr in arrays.items():
        for cname, call in calls.items():
            cases.append(python_case("python arrays", f"{cname}: {aname}",
                                     f"m = sinklab.load_model(run)\n{call.format(a=expr)}"))
    others = {
        "hook keeps its evaluate array": "m = sinklab.load_model(run)\nkept = []\n"
                                         "m.evaluate(hooks={'logits': lambda v, n: kept.append(v)})\n"
                                         "[float(k.sum()) for k in kept]",
        "hook returns a huge broadcast": "m = sinklab.load_model(run)\nm.run_with_hooks(np.zeros((1, 8, 16), "
                                         "np.float32), {'logits': lambda v, n: np.broadcast_to(np.float32(0), "
                                         "(2**40, 8, 16))})",
        "hook runs its own model": "m = sinklab.load_model(run)\nx = np.zeros((1, 8, 16), np.float32)\n"
                                   "m.run_with_hooks(x, {'logits': lambda v, n: (m(x), None)[1]})",
        "task batch 2^31-1": f"sinklab.task({str(CONFIG)!r}).batch(0, size=2**31 - 1)",
        "task batch 2^40": f"sinklab.task({str(CONFIG)!r}).batch(0, size=2**40)",
        "evaluate samples 10^6": "sinklab.load_model(run).evaluate(samples=10**6)",
        "evaluate samples 2^40": "sinklab.load_model(run).evaluate(samples=2**40)",
        "parameters outlive the model": "p = sinklab.load_model(run).parameters()\n"
                                        "[float(v.sum()) for v in p.values()]",
        "cache outlives the model": "c = sinklab.load_model(run).run_with_cache(np.zeros((1, 8, 16), np.float32))[1]\n"
                                    "[float(c[k].sum()) for k in c.keys()]",
    }
    for name, body in others.items():
        cases.append(python_case("python arrays", name, body))
    return cases


# --- running ---

def classify(case, done, before, after, timed_out):
    if timed_out:
        return "HANG", "no end within the timeout"
    changed = [str(p) for p, (b, a) in zip(before[0], zip(before[1], after)) if b != a]
    if changed:
        return "DESTROYED", "changed: " + ", ".join(changed)
    text = (done.stderr or "") + (done.stdout or "")
    if done.returncode < 0:
        return "CRASH", f"signal {-done.returncode}"
    if any(mark in text for mark in INTERNAL_MARKS) and "HOSTILE-REFUSED" not in text:
        mark = next(m for m in INTERNAL_MARKS if m in text)
        return "CRASH", f"internal error ({mark}), exit {done.returncode}"
    if done.returncode == 0 or (done.returncode == 3 and "diverged" in text):  # 3: a documented divergence
        return "ok", ""
    if done.returncode in (1, 2) and text.strip():
        return "refusal", text.strip().splitlines()[-1][:200]
    if text.strip():  # a message, but an exit code that is neither 2 (user error) nor 1 (internal)
        return "WRONG EXIT", f"exit {done.returncode}: " + text.strip().splitlines()[0][:160]
    return "CRASH", f"exit {done.returncode} without a message"


def run_case(index, case, base, lm, work, build, timeout, keep):
    tmp = work / f"case{index}"
    tmp.mkdir()
    run = tmp / "run-copy"
    shutil.copytree(base, run, symlinks=True)
    lm_copy = None
    if lm:
        lm_copy = tmp / "lm-copy"
        shutil.copytree(lm, lm_copy, symlinks=True)
    extra = case.setup(run, tmp) if case.setup else []
    argv = case.chosen["argv"] if case.chosen else case.argv
    paths = watched(run, extra or [])
    before = (paths, [fingerprint(p) for p in paths])
    env = dict(os.environ, PYTHONPATH=str(build / "python"), SINKLAB_EXECUTABLE=str(build / "sinklab"))
    if case.python:
        command = [sys.executable, "-c", case.python, str(run), str(tmp)]
    else:
        def word(a):
            return a.replace("RUN", str(run)).replace("TMP", str(tmp)).replace("LM", str(lm_copy or "LM"))
        command = [str(build / "sinklab")] + [word(a) for a in argv]
    timed_out = False
    try:
        done = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, errors="replace",
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as expired:
        timed_out = True
        done = subprocess.CompletedProcess(command, -999, expired.stdout or "", expired.stderr or "")
    after = [fingerprint(p) for p in paths]
    outcome, detail = classify(case, done, before, after, timed_out)
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return case, outcome, detail


def train_base(build, work, config, sets, name):
    out = work / name
    done = subprocess.run([str(build / "sinklab"), "train", str(config), "--out", str(out), "--quiet",
                           "--threads", "1"] + [w for s in sets for w in ("--set", s)], cwd=SOURCE,
                          capture_output=True, text=True)
    return out if done.returncode == 0 else None


def flattened_keys(build, run):
    code = ("import sys, sinklab\nc = sinklab.load_config(sys.argv[1])\n"
            "def walk(d, p=''):\n    for k, v in d.items():\n"
            "        yield from walk(v, p + k + '.') if isinstance(v, dict) else [p + k]\n"
            "print('\\n'.join(walk(c)))")
    done = subprocess.run([sys.executable, "-c", code, str(run / "config.yaml")], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(build / "python")))
    keys = [k for k in done.stdout.split() if k]
    return keys or ["seed", "threads", "model.d_model", "model.heads", "model.layers", "train.max_steps",
                    "train.batch_size", "optimizer.lr", "task.seq_len", "task.eval_samples"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(SOURCE / "build"), help="the build folder (sinklab, python/)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case before it counts as a HANG")
    parser.add_argument("--config-cases", type=int, default=240, help="config key=value pairs drawn")
    parser.add_argument("--only", help="run one surface only")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    build = pathlib.Path(args.build).resolve()
    if not (build / "sinklab").is_file():
        sys.exit(f"hostile_pass: {build / 'sinklab'} not found: build first (scripts/build.sh) or pass --build")
    if os.geteuid() != 0:
        print("hostile_pass: not root: the device-node cases are skipped", file=sys.stderr)
    work = pathlib.Path(tempfile.mkdtemp(prefix="sinklab-hostile-"))
    try:
        base = train_base(build, work, CONFIG, ["train.max_steps=20", "train.log_every=5",
                                                "analysis.snapshot_every=10"], "base")
        if base is None:
            base = train_base(build, work, CONFIG, ["train.max_steps=20"], "base-plain")
        if base is None:
            sys.exit("hostile_pass: the tiny base run could not be trained")
        lm = train_base(build, work, SOURCE / "configs/normlimits/ci_tiny.yaml", ["train.max_steps=12"], "lm")
        cases = (output_path_cases(lm is not None) + input_file_cases() +
                 config_value_cases(flattened_keys(build, base), args.config_cases) + flag_cases(lm is not None) +
                 python_array_cases())
        if os.geteuid() != 0:
            cases = [c for c in cases if "device" not in c.name]
        if args.only:
            cases = [c for c in cases if c.surface == args.only]
        print(f"hostile_pass: {len(cases)} cases, timeout {args.timeout:g} s, {args.jobs} at once, in {work}",
              flush=True)
        results = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_case, i, c, base, lm, work, build, args.timeout, args.keep)
                       for i, c in enumerate(cases)]
            for future in concurrent.futures.as_completed(futures):
                results.append(future.result())
                if len(results) % 100 == 0:
                    print(f"hostile_pass: {len(results)} / {len(cases)} done", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(results)
    sys.exit(1 if any(outcome in ("CRASH", "HANG", "DESTROYED") for _, outcome, _ in results) else 0)


OUTCOMES = ("ok", "refusal", "WRONG EXIT", "CRASH", "HANG", "DESTROYED")


def report(results):
    surfaces = sorted({case.surface for case, _, _ in results})
    print(f"\n{'surface':<16}" + "".join(f"{o:>11}" for o in OUTCOMES) + f"{'total':>8}")
    for surface in surfaces + ["all"]:
        rows = [r for r in results if surface in ("all", r[0].surface)]
        counts = [sum(1 for _, o, _ in rows if o == outcome) for outcome in OUTCOMES]
        print(f"{surface:<16}" + "".join(f"{n:>11}" for n in counts) + f"{len(rows):>8}")
    bad = sorted((r for r in results if r[1] not in ("ok", "refusal")),
                 key=lambda r: (r[1], r[0].surface, r[0].name))
    if bad:
        print(f"\n{len(bad)} non-clean case(s):")
        for case, outcome, detail in bad:
            print(f"  {outcome:<9} [{case.surface}] {case.name}: {detail}")


if __name__ == "__main__":
    main()
