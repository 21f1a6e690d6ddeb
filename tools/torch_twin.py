#!/usr/bin/env python3
"""The PyTorch twin of sinklab's training runs, for the speed comparison (docs/golden.md, "PyTorch twin").

  OMP_NUM_THREADS=N OPENBLAS_NUM_THREADS=N python3 tools/torch_twin.py --config NAME --threads N \\
      --warmup 20 --steps 200 --repeats 5 [--train-to-stop]

Timing mode prints one JSON line: ms per full training step (batch generation + forward + loss +
backward + Adam step), median over `repeats` blocks of `steps` steps after `warmup` steps.
--train-to-stop trains until max |pred - y| over the step's batch < 5e-3 (or --max-steps) and prints
one JSON line with the step count and wall seconds.
"""
import argparse
import json
import os
import re
import resource
import statistics
import sys
import time

CONFIGS = ("1x1_softmax", "1x1_relu", "2x2_softmax", "2x2_relu", "4x4_softmax", "4x4_relu", "medium")
STOP_MAX_ABS_ERROR = 5e-3


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, choices=CONFIGS)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-to-stop", action="store_true")
    parser.add_argument("--max-steps", type=int, default=50_000, help="cap for --train-to-stop")
    args = parser.parse_args()
    for name in ("threads", "steps", "repeats", "max_steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(args, name)})")
    if args.warmup < 0:
        parser.error(f"--warmup must be >= 0 (got {args.warmup})")
    return args


def pin_threads(n):
    """The thread pools read these when the libraries load, so they must be set before torch is imported."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        old = os.environ.get(var)
        if old is not None and old != str(n):
            print(f"warning: {var}={old} overridden to {n} (match it to --threads)", file=sys.stderr)
        os.environ[var] = str(n)


ARGS = parse_args()
pin_threads(ARGS.threads)

from torch_import import import_torch  # noqa: E402

torch = import_torch()
import models  # noqa: E402
from trigger_task import TriggerTask  # noqa: E402


class Setup:
    def __init__(self, model, task, batch, lr):
        self.model, self.task, self.batch, self.lr = model, task, batch, lr


def build(config):
    """Model, task and optimizer settings of one named configuration (configs/paper/*.yaml; the paper arXiv 2603.11487 s.3-4)."""
    if config == "medium":
        # A conventional pre-LN transformer driven by the same task through 16 -> 256 -> 16 projections;
        # its output is a fresh projection, not a residual stream, so it learns the "mean" target.
        model = models.PreNormModel(4, 256, n_heads=8, d_head=32, d_hidden=1024, d_io=16)
        for name, p in model.named_parameters():
            with torch.no_grad():
                if p.dim() == 2:
                    p.normal_(0.0, 0.02)
                elif ".ln" not in name and not name.startswith("final_norm."):
                    p.zero_()  # Linear biases; LayerNorm keeps its (1, 0) default
        return Setup(model, TriggerTask(256, 16, "mean"), batch=8, lr=1e-4)
    shape, normalizer = config.split("_")
    layers = int(shape.split("x")[0])
    heads = int(shape.split("x")[1])
    residual = layers > 1
    model = models.AttnOnlyModel(layers, heads, 16, normalizer, residual=residual)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)  # the paper's init
    task = TriggerTask(16, 16, "residual" if residual else "mean")
    return Setup(model, task, batch=128, lr=1e-4 if residual else 1e-3)


def blas_library():
    """The BLAS shared object actually mapped (Debian's torch uses whatever libblas.so.3 points to)."""
    with open("/proc/self/maps") as maps:
        found = sorted(set(re.findall(r"/\S*blas\S*\.so[\w.]*", maps.read())))
    return found[0] if found else "none"


def main():
    torch.set_num_threads(ARGS.threads)
    torch.manual_seed(ARGS.seed)
    setup = build(ARGS.config)
    data_rng = torch.Generator().manual_seed(ARGS.seed + 1)
    model, task, batch = setup.model, setup.task, setup.batch
    opt = torch.optim.Adam(model.parameters(), lr=setup.lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)

    def train_step():
        x, y, _ = task.sample(batch, data_rng)
        pred = model(x)
        loss = torch.nn.functional.mse_loss(pred, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return pred.detach(), y, loss.detach()

    report = {"framework": "pytorch", "config": ARGS.config, "threads": ARGS.threads}
    if ARGS.train_to_stop:
        start = time.perf_counter()
        stopped = False
        for step in range(1, ARGS.max_steps + 1):
            pred, y, loss = train_step()
            max_err = (pred - y).abs().max().item()
            if max_err < STOP_MAX_ABS_ERROR:
                stopped = True
                break
        report.update(mode="train_to_stop", steps=step, stopped=stopped,
                      wall_seconds=round(time.perf_counter() - start, 3),
                      final_loss=loss.item(), final_max_abs_error=max_err)
    else:
        for _ in range(ARGS.warmup):
            train_step()
        per_step = []
        for _ in range(ARGS.repeats):
            start = time.perf_counter()
            for _ in range(ARGS.steps):
                _, _, loss = train_step()
            loss.item()  # CPU ops are synchronous; this only keeps the last step's result observable
            per_step.append(1e3 * (time.perf_counter() - start) / ARGS.steps)
        report.update(ms_per_step_median=round(statistics.median(per_step), 4),
                      ms_per_step_all=[round(v, 4) for v in per_step])
    report.update(peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  torch_version=torch.__version__, torch_threads=torch.get_num_threads(),
                  blas=blas_library(), batch=batch, seq_len=task.seq_len, lr=setup.lr, seed=ARGS.seed)
    if not ARGS.train_to_stop:
        report.update(warmup=ARGS.warmup, steps=ARGS.steps, repeats=ARGS.repeats)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
