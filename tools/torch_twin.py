#!/usr/bin/env python3
"""The PyTorch twin of sinklab's training runs, for the speed comparison (docs/golden.md, "PyTorch twin").

  OMP_NUM_THREADS=N OPENBLAS_NUM_THREADS=N python3 tools/torch_twin.py --config NAME --threads N \\
      --warmup 20 --steps 200 --repeats 5 [--train-to-stop]
  python3 tools/torch_twin.py --config kjv_char --threads 1 --warmup 2 --steps 3 --repeats 3 \\
      [--seq-len 1024 --batch 4] [--corpus data/corpora/kjv.txt]
  python3 tools/torch_twin.py --config gpt2_small --threads 1 --warmup 2 --steps 3 --repeats 1 [--seq-len 64 --batch 4]
  python3 tools/torch_twin.py --config nanogpt_cpu --threads 1 --train-steps 2000 [--eval-windows 240]
  ... [--autocast]   language models: the forward in CPU autocast to bfloat16 (sinklab's train.precision: bf16)

Timing mode prints one JSON line: ms per full training step (batch generation + forward + loss +
backward + optimizer step), median over `repeats` blocks of `steps` steps after `warmup` steps, the
parameter count and the first step's loss (before any update).
--train-to-stop (trigger configs) trains until max |pred - y| over the step's batch < 5e-3 (or
--max-steps) and prints one JSON line with the step count and wall seconds.
--train-steps N (language models) trains N steps, then measures the mean cross-entropy of
--eval-windows windows drawn from the validation part, and prints one JSON line with the wall
seconds of the N steps, the validation loss and the mean training loss of the last 50 steps.

kjv_char is configs/normlimits/kjv_char.yaml: char windows of the KJV (tools/char_lm_task.py), token
embedding, 4 pre-LN blocks with rotary positions in their attention, final LayerNorm, output head
(tools/models.py, TokenLmModel), mean cross-entropy over the scored positions, AdamW with the config's
warmup + cosine learning rate and gradient clipping at norm 1. --seq-len / --batch change its window
length and batch.

gpt2_small is configs/bench/gpt2_small.yaml: GPT-2-small's body (TokenLmModel with tied embeddings):
token embedding plus learned positions [T, 768], 12 pre-LN blocks (d 768, 12 heads of 64, scale
1/sqrt(64), MLP 3072 with exact erf GELU as sinklab's `gelu`, biases), final LayerNorm, logits = h E^T;
matrices and embeddings N(0, 0.02^2), no residual-projection scaling (sinklab's init: normal). AdamW at
a constant lr 1e-4, weight decay 0, no clipping: sinklab's defaults for the keys the config leaves out
(schedule constant, warmup_steps 0, clip_grad_norm 0, betas (0.9, 0.95), eps 1e-8). sinklab's trainer
still computes the global gradient norm for its metrics when it does not clip; the twin does the same.
Its token ids are uniformly random, not the KJV's words (there is no word tokenizer in tools/): a
window is BOS (0) then T - 1 ids drawn uniformly from 1 .. 12,168, scored as sinklab scores a word window
(position i on id i + 1, the last position not at all). A step's time does not depend on the token
values; the first loss is that of random targets under the untrained model, not the corpus's.
--seq-len / --batch as for kjv_char (default 64 and 4; the learned positions follow --seq-len).

nanogpt_cpu is configs/bench/nanogpt_cpu.yaml, nanoGPT's CPU recipe on KJV characters: char windows
as kjv_char's, TokenLmModel with 4 blocks (d 128, 4 heads of 32, MLP 512, biases), learned positions,
tied embeddings; AdamW betas (0.9, 0.99), weight decay 0.1, lr 1e-3 with 100 warmup steps and cosine
to 1e-4 at step 2000, clipping at norm 1; batch 12 x T 64.
"""
import argparse
import json
import math
import os
import re
import resource
import statistics
import sys
import time

TRIGGER_CONFIGS = ("1x1_softmax", "1x1_relu", "2x2_softmax", "2x2_relu", "4x4_softmax", "4x4_relu", "medium")
LM_CONFIGS = ("kjv_char", "gpt2_small", "nanogpt_cpu")
CHAR_CONFIGS = ("kjv_char", "nanogpt_cpu")  # read the corpus
LM_DEFAULTS = {"kjv_char": (1024, 4), "gpt2_small": (64, 4), "nanogpt_cpu": (64, 12)}  # (seq_len, batch) of each config file
GPT2_VOCAB = 12169  # configs/bench/gpt2_small.yaml's model.vocab_size (BOS, <unk>, 12,167 words)
CONFIGS = TRIGGER_CONFIGS + LM_CONFIGS
STOP_MAX_ABS_ERROR = 5e-3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, choices=CONFIGS)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--autocast", action="store_true",
                        help="language models: forward under torch.autocast('cpu', dtype=torch.bfloat16), the "
                             "peer of sinklab's train.precision: bf16")
    parser.add_argument("--train-to-stop", action="store_true")
    parser.add_argument("--max-steps", type=int, default=50_000, help="cap for --train-to-stop")
    parser.add_argument("--train-steps", type=int, help="language models: train this many steps, then the validation loss")
    parser.add_argument("--eval-windows", type=int, default=240, help="with --train-steps: validation windows (default 240)")
    parser.add_argument("--seq-len", type=int,
                        help="language models: window length, BOS included (default kjv_char 1024, gpt2_small 64)")
    parser.add_argument("--batch", type=int, help="language models: windows per step (default 4)")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "data", "corpora", "kjv.txt"),
                        help="kjv_char: the text file (default data/corpora/kjv.txt, from scripts/get_corpus.sh)")
    args = parser.parse_args()
    for name in ("threads", "steps", "repeats", "max_steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(args, name)})")
    if args.warmup < 0:
        parser.error(f"--warmup must be >= 0 (got {args.warmup})")
    if args.config in LM_CONFIGS:
        if args.train_to_stop:
            parser.error(f"--train-to-stop needs a trigger config; {args.config} is a language model (no stop rule)")
        seq_len, batch = LM_DEFAULTS[args.config]
        args.seq_len = seq_len if args.seq_len is None else args.seq_len
        args.batch = batch if args.batch is None else args.batch
        if args.seq_len < 2:
            parser.error(f"--seq-len must be >= 2 (got {args.seq_len})")
        if args.batch < 1:
            parser.error(f"--batch must be >= 1 (got {args.batch})")
        if args.train_steps is not None and (args.train_steps < 1 or args.eval_windows < 1):
            parser.error(f"--train-steps and --eval-windows must be >= 1 (got {args.train_steps}, {args.eval_windows})")
        if args.config in CHAR_CONFIGS and not os.path.isfile(args.corpus):
            parser.error(f"--corpus {args.corpus}: no such file (scripts/get_corpus.sh writes data/corpora/kjv.txt)")
    elif args.train_steps is not None:
        parser.error(f"--train-steps needs a language model ({', '.join(LM_CONFIGS)}), not {args.config}")
    elif args.seq_len is not None or args.batch is not None:
        parser.error(f"--seq-len and --batch apply to {', '.join(LM_CONFIGS)} only, not {args.config}")
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
from char_lm_task import BOS, IGNORED, CharWindowTask  # noqa: E402
from trigger_task import TriggerTask  # noqa: E402


class Setup:
    def __init__(self, model, task, batch, lr):
        self.model, self.task, self.batch, self.lr = model, task, batch, lr


class LmSetup(Setup):
    """A language model: AdamW with a constant or a warmup + cosine learning rate, gradient clipping at
    clip_grad_norm (0 = none: the norm is still computed, as sinklab's trainer does for its metrics)."""

    def __init__(self, model, task, batch, lr, weight_decay, schedule="constant", min_lr=0.0, warmup_steps=0,
                 max_steps=0, clip_grad_norm=0.0, betas=(0.9, 0.95)):
        super().__init__(model, task, batch, lr)
        self.betas = betas
        if schedule not in ("constant", "cosine"):
            raise ValueError(f"unknown schedule {schedule!r}")
        self.schedule, self.min_lr, self.warmup_steps, self.max_steps = schedule, min_lr, warmup_steps, max_steps
        self.weight_decay, self.clip_grad_norm = weight_decay, clip_grad_norm

    def learning_rate(self, step):
        """train/lr_schedule.cpp: constant lr, or cosine: linear warmup, then cosine decay to min_lr at max_steps."""
        if self.schedule == "constant":
            return self.lr
        if step < self.warmup_steps:
            return self.lr * (step + 1) / self.warmup_steps
        progress = min(1.0, (step - self.warmup_steps) / max(self.max_steps - self.warmup_steps, 1))
        return self.min_lr + 0.5 * (self.lr - self.min_lr) * (1.0 + math.cos(math.pi * progress))


class RandomTokenTask:
    """Windows of uniformly random token ids laid out as data/text_lm_task.cpp lays out a word window:
    BOS (0), then seq_len - 1 ids uniform over 1 .. vocab_size - 1; position i is scored on the id at
    i + 1, the last position has no target (IGNORED). For timing only: a step's cost does not depend on
    the ids."""

    def __init__(self, vocab_size, seq_len):
        self.vocab_size, self.seq_len = vocab_size, seq_len

    def sample(self, batch, generator):
        """Returns (input ids, target ids), both int64 [batch, seq_len]."""
        window = torch.randint(1, self.vocab_size, (batch, self.seq_len - 1), generator=generator)
        inputs = torch.cat([torch.full((batch, 1), BOS, dtype=torch.int64), window], dim=1)
        targets = torch.cat([window, torch.full((batch, 1), IGNORED, dtype=torch.int64)], dim=1)
        return inputs, targets


def init_pre_norm(model):
    """sinklab's init of a pre-LN model: matrices and embeddings N(0, 0.02^2), Linear biases 0, LayerNorm (1, 0)."""
    for name, p in model.named_parameters():
        with torch.no_grad():
            if p.dim() == 2:
                p.normal_(0.0, 0.02)
            elif ".ln" not in name and not name.startswith("final_norm."):
                p.zero_()  # Linear biases; LayerNorm keeps its (1, 0) default


def build(config):
    """Model, task and optimizer settings of one named configuration (configs/paper/*.yaml; the paper arXiv 2603.11487 s.3-4)."""
    if config == "kjv_char":
        task = CharWindowTask(ARGS.corpus, ARGS.seq_len, val_fraction=0.05)
        model = models.TokenLmModel(task.vocab_size, ARGS.seq_len, n_layers=4, d_model=128, n_heads=8, d_head=16,
                                    d_hidden=512, rope=True)
        init_pre_norm(model)
        return LmSetup(model, task, batch=ARGS.batch, lr=3e-3, weight_decay=0.1, schedule="cosine", min_lr=3e-4,
                       warmup_steps=100, max_steps=2000, clip_grad_norm=1.0)
    if config == "nanogpt_cpu":
        task = CharWindowTask(ARGS.corpus, ARGS.seq_len, val_fraction=0.05)
        model = models.TokenLmModel(task.vocab_size, ARGS.seq_len, n_layers=4, d_model=128, n_heads=4, d_head=32,
                                    d_hidden=512, tie_embeddings=True)
        init_pre_norm(model)
        return LmSetup(model, task, batch=ARGS.batch, lr=1e-3, weight_decay=0.1, schedule="cosine", min_lr=1e-4,
                       warmup_steps=100, max_steps=2000, clip_grad_norm=1.0, betas=(0.9, 0.99))
    if config == "gpt2_small":
        task = RandomTokenTask(GPT2_VOCAB, ARGS.seq_len)
        model = models.TokenLmModel(GPT2_VOCAB, ARGS.seq_len, n_layers=12, d_model=768, n_heads=12, d_head=64,
                                    d_hidden=3072, tie_embeddings=True)
        init_pre_norm(model)
        # The config sets no schedule, warmup or clipping keys: sinklab's defaults (constant lr, no clipping).
        return LmSetup(model, task, batch=ARGS.batch, lr=1e-4, weight_decay=0.0)
    if config == "medium":
        # A conventional pre-LN transformer driven by the same task through 16 -> 256 -> 16 projections;
        # its output is a fresh projection, not a residual stream, so it learns the "mean" target.
        model = models.PreNormModel(4, 256, n_heads=8, d_head=32, d_hidden=1024, d_io=16)
        init_pre_norm(model)
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


def validation_loss(model, task, batch, windows):
    """Mean cross-entropy over the scored positions of `windows` windows drawn from the validation part
    (a generator of its own, seed + 2), `batch` windows a pass, as sinklab's eval_loss."""
    generator = torch.Generator().manual_seed(ARGS.seed + 2)
    total, count = 0.0, 0
    model.eval()
    with torch.no_grad():
        for begin in range(0, windows, batch):
            ids, targets = task.sample(min(batch, windows - begin), generator, part="val")
            logits = model(ids)
            total += torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                                       ignore_index=IGNORED, reduction="sum").item()
            count += int((targets != IGNORED).sum())
    model.train()
    return total / count


def main():
    torch.set_num_threads(ARGS.threads)
    torch.manual_seed(ARGS.seed)
    setup = build(ARGS.config)
    if ARGS.autocast and not isinstance(setup, LmSetup):
        sys.exit("torch_twin.py: --autocast is for the language-model configs (kjv_char, gpt2_small, nanogpt_cpu)")
    data_rng = torch.Generator().manual_seed(ARGS.seed + 1)
    model, task, batch = setup.model, setup.task, setup.batch
    if isinstance(setup, LmSetup):
        opt = torch.optim.AdamW(model.parameters(), lr=setup.lr, betas=setup.betas, eps=1e-8,
                                weight_decay=setup.weight_decay)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=setup.lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    step_index = [0]

    def train_step():
        if isinstance(setup, LmSetup):
            ids, targets = task.sample(batch, data_rng)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=ARGS.autocast):
                logits = model(ids)
            # The loss in float32, as sinklab's (autocast would run cross_entropy in float32 anyway).
            loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                                     targets.reshape(-1), ignore_index=IGNORED)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if setup.clip_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), setup.clip_grad_norm)
            else:  # sinklab's gradient_norm(): computed for its metrics even without clipping
                torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in model.parameters()]))
            for group in opt.param_groups:
                group["lr"] = setup.learning_rate(step_index[0])
            opt.step()
            step_index[0] += 1
            return None, None, loss.detach()
        x, y, _ = task.sample(batch, data_rng)
        pred = model(x)
        loss = torch.nn.functional.mse_loss(pred, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return pred.detach(), y, loss.detach()

    report = {"framework": "pytorch", "config": ARGS.config, "threads": ARGS.threads,
              "precision": "autocast-bf16" if ARGS.autocast else "float32",
              "parameters": sum(p.numel() for p in model.parameters())}
    if ARGS.train_steps is not None:
        start = time.perf_counter()
        losses = [train_step()[2].item() for _ in range(ARGS.train_steps)]
        wall = time.perf_counter() - start
        report.update(mode="train_steps", steps=ARGS.train_steps, wall_seconds=round(wall, 3),
                      ms_per_step=round(1e3 * wall / ARGS.train_steps, 4),
                      train_loss_last_50=round(statistics.mean(losses[-50:]), 5),
                      val_loss=round(validation_loss(model, task, batch, ARGS.eval_windows), 5),
                      eval_windows=ARGS.eval_windows)
    elif ARGS.train_to_stop:
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
        first_loss = None
        for _ in range(ARGS.warmup):
            _, _, loss = train_step()
            first_loss = loss.item() if first_loss is None else first_loss
        per_step, cpu_per_step = [], []
        for _ in range(ARGS.repeats):
            start, cpu_start = time.perf_counter(), time.process_time()
            for _ in range(ARGS.steps):
                _, _, loss = train_step()
                if first_loss is None:  # --warmup 0: the first timed step (.item() costs nothing on CPU)
                    first_loss = loss.item()
            loss.item()  # CPU ops are synchronous; this only keeps the last step's result observable
            per_step.append(1e3 * (time.perf_counter() - start) / ARGS.steps)
            cpu_per_step.append(1e3 * (time.process_time() - cpu_start) / ARGS.steps)  # all threads
        report.update(ms_per_step_median=round(statistics.median(per_step), 4),
                      ms_per_step_all=[round(v, 4) for v in per_step], first_loss=round(first_loss, 5),
                      cpu_ms_per_step_median=round(statistics.median(cpu_per_step), 4))
    report.update(peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  torch_version=torch.__version__, torch_threads=torch.get_num_threads(),
                  blas=blas_library(), batch=batch, seq_len=task.seq_len, lr=setup.lr, seed=ARGS.seed)
    if isinstance(setup, LmSetup):
        report.update(vocab_size=task.vocab_size, ln_vocab_size=round(math.log(task.vocab_size), 5))
    if not ARGS.train_to_stop and ARGS.train_steps is None:
        report.update(warmup=ARGS.warmup, steps=ARGS.steps, repeats=ARGS.repeats)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
