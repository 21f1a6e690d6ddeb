#!/usr/bin/env python3
"""Open models (Hugging Face folders) in sinklab against the PyTorch twin: prompt processing and memory.

  python3 bench/open_model_speed.py [--configs llama,neox] [--T 1024] [--threads 1,2] [--rounds 3]
                                    [--work DIR] [--out results.json]
  python3 bench/open_model_speed.py --smoke          # tiny shapes, T 64, one round: a check in seconds

For each config a random checkpoint folder of a realistic small shape is written once with
`tools/open_models_twin.py write-random` into --work (default /tmp/sinklab_open_model_speed; never
the repository) and reused while its config stamp matches:
  llama  Llama-style: hidden 768, 12 layers, 12 heads, 4 kv heads (GQA), intermediate 2048, vocab 32000,
         untied head (~0.12 B parameters)
  neox   the shape of Pythia-160m: hidden 768, 12 layers, 12 heads, intermediate 3072, vocab 50304,
         rotary_pct 0.25, parallel residual (~0.16 B parameters)
Every 2-D tensor is then rescaled in place to std 1/sqrt(its second dimension) (rescale_worker: at
this width write-random's std 0.25 makes float32 itself good to only ~2e-3).
Token ids: T uniformly random ids (seed 0), the first one the model's BOS; batch 1.

Every measurement is its own child process (OMP_NUM_THREADS and OPENBLAS_NUM_THREADS = the row's
threads), and the sides run alternated A B C A B C for --rounds rounds:
  A  sinklab `model(ids)`: sinklab.load_model(DIR, threads=n), one warm-up pass, --reps timed passes.
     It runs the evaluation's attention path, so the [B, H, T, T] weights of every layer exist (an
     observed pass).
  B  sinklab `run_with_cache(ids)`: the same, keeping a cache of every activation (views into the
     pass's memory), to show what caching costs.
  C  the twin: tools/open_models_twin.py's forward() in float32 under torch.no_grad(),
     torch.set_num_threads(n); one warm-up, --reps timed passes. Its forward keeps every layer's
     probabilities and residual stream too, so it does the same work as A. The weights are read by
     this script straight into float32 tensors (the twin's own reader goes through float64 and would
     double its peak memory; the forward is the twin's, unchanged).
A round's time is the median of its passes; a row shows the median over rounds and the range
(min-max) of the round medians; ratio = twin / sinklab (medians); tokens/s = T / time.
Peak memory: ru_maxrss of each child (wait4), minus nothing: the interpreter, NumPy or torch, the
weights and the passes. Beside it "weights + one window" as docs/open-models.md estimates it:
parameters x 4 bytes + layers x 2 x heads x T^2 x 4 bytes (scores and weights of one window); the
issue's target is peak <= 1.2 x that.
Same work: in round 1 at the first thread count each side saves its logits; max |a - b| / max |b|
between sinklab and the float32 twin (and both against the twin in float64) is printed and must
be <= 1e-4, and sinklab's parameter count must equal the checkpoint's.

Decode, side by side: sinklab's KV-cache stream (`sinklab eval DIR --stream --method kv-cache --window 8
--keep-first 0`, the row's seconds per scored token) and the twin's decode_with_cache (tools/open_models_twin.py: one token at a time through a KV cache,
keys cached before RoPE) over the first --decode ids (default 128), timed as a whole after an 8-token
warm-up, ms per token, one child per round after the prompt sides; its logits are checked against
forward() on the same ids (<= 1e-4). sinklab's side is measured where `sinklab eval MODEL_DIR --stream` has a KV-cache path
(`build/sinklab eval --help` names one; otherwise the row says not measured). The two caches differ in
length (8 tokens against 8 .. 128): at these widths the weights, not the attention, take the time.

Writes the markdown table to stdout and everything (rows, every round, errors, load averages, the
machine) to --out as JSON. Needs Debian's python3-torch and the Python module in build/python.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"  # Debian's: it has torch, NumPy, and builds/python's module matches it
TWIN = os.path.join(ROOT, "tools", "open_models_twin.py")
TOLERANCE = 1e-4

# write-random arguments per config; --positions only has to cover T.
CONFIGS = {
    "llama": ["--family", "llama", "--hidden", "768", "--layers", "12", "--heads", "12", "--kv-heads", "4",
              "--intermediate", "2048", "--vocab", "32000", "--untied"],
    "neox": ["--family", "gpt_neox", "--hidden", "768", "--layers", "12", "--heads", "12",
             "--intermediate", "3072", "--vocab", "50304", "--rotary-pct", "0.25"],
}
SMOKE_CONFIGS = {
    "llama": ["--family", "llama", "--hidden", "64", "--layers", "2", "--heads", "4", "--kv-heads", "2",
              "--intermediate", "128", "--vocab", "256", "--untied"],
    "neox": ["--family", "gpt_neox", "--hidden", "64", "--layers", "2", "--heads", "4",
             "--intermediate", "256", "--vocab", "256", "--rotary-pct", "0.25"],
}
SIDES = ("sinklab", "sinklab_cache", "twin")


# ----------------------------------------------------------------------------------------------------
# children (run as `/usr/bin/python3 bench/open_model_speed.py --worker SIDE ...`); the parent below
# imports nothing but the standard library, so its memory adds nothing to a child's ru_maxrss
# ----------------------------------------------------------------------------------------------------


def rss_now_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def read_f32_folder(folder, torch, np):
    """{name: float32 tensor} of model.safetensors (F32 tensors), read straight into float32."""
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {entry['dtype']}; the benchmark writes F32 only")
        begin, end = entry["data_offsets"]
        values = np.fromfile(path, dtype="<f4", count=(end - begin) // 4, offset=8 + n + begin)
        tensors[name] = torch.from_numpy(values.reshape(entry["shape"]))
    return tensors


def worker(args):
    import numpy as np
    result = {"side": args.worker, "rss_start_mb": rss_now_mb()}
    ids = np.load(args.ids)
    if args.worker == "sinklab_decode":  # the CLI's KV-cache stream: a cache of 8, one token at a time
        n = args.decode
        with tempfile.TemporaryDirectory() as tmp:
            stream = os.path.join(tmp, "ids.npy")
            np.save(stream, ids[0, :n + 8].astype(np.int32))
            out = os.path.join(tmp, "stream.json")
            subprocess.run([os.path.join(ROOT, "build", "sinklab"), "eval", args.dir, "--stream", "--tokens", stream,
                            "--window", "8", "--keep-first", "0", "--method", "kv-cache", "--threads",
                            str(args.threads), "--out", out], check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                row = json.load(f)["streaming"][0]
        # The row's time covers the 8-token prefix pass and every scored token after it.
        result["ms"] = [row["seconds"] * 1000.0 / row["scored"]]
        result["load_s"] = 0.0
        print(json.dumps(result))
        return
    if args.worker in ("sinklab", "sinklab_cache"):
        import sinklab
        result["rss_import_mb"] = rss_now_mb()
        t0 = time.perf_counter()
        model = sinklab.load_model(args.dir, threads=args.threads)
        result["load_s"] = time.perf_counter() - t0
        result["parameters"] = int(sum(p.size for p in model.parameters().values()))
        result["rss_loaded_mb"] = rss_now_mb()
        if args.worker == "sinklab":
            def run():
                return model(ids)
        else:
            def run():
                out, cache = model.run_with_cache(ids)
                result["cached_activations"] = len(cache.keys()) if hasattr(cache, "keys") else None
                return out
    else:
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import open_models_twin as twin
        torch = twin.torch
        torch.set_num_threads(args.threads)
        result["rss_import_mb"] = rss_now_mb()
        t0 = time.perf_counter()
        with open(os.path.join(args.dir, "config.json")) as f:
            config = json.load(f)
        dtype = torch.float64 if args.worker == "twin64" else torch.float32
        if args.worker == "twin_decode" and args.decode > ids.shape[1]:
            raise ValueError(f"--decode {args.decode} is more than the {ids.shape[1]} ids")
        tensors = read_f32_folder(args.dir, torch, np)
        if dtype == torch.float64:
            tensors = {k: v.double() for k, v in tensors.items()}
        result["load_s"] = time.perf_counter() - t0
        result["parameters"] = int(sum(v.numel() for v in tensors.values()))
        result["rss_loaded_mb"] = rss_now_mb()
        tids = torch.from_numpy(ids.astype(np.int64))

        if args.worker == "twin_decode":  # token by token with a KV cache: N steps, timed as a whole
            n = args.decode
            with torch.no_grad():
                twin.decode_with_cache(config, tensors, tids[0, :8], dtype)  # warm-up
                t0 = time.perf_counter()
                steps = twin.decode_with_cache(config, tensors, tids[0, :n], dtype)
                result["ms"] = [(time.perf_counter() - t0) * 1000.0 / n]  # per token
                full = twin.forward(config, tensors, tids[:, :n], dtype)["logits"][0]
            result["decode_vs_forward"] = float((steps - full).abs().max() / full.abs().max())
            result["rss_end_mb"] = rss_now_mb()
            print(json.dumps(result))
            return

        def run():
            with torch.no_grad():
                return twin.forward(config, tensors, tids, dtype)["logits"].numpy()
    out = run()  # warm-up
    times = []
    for _ in range(args.reps):
        out = None  # as a loop that keeps only the latest logits would
        t0 = time.perf_counter()
        out = run()
        times.append((time.perf_counter() - t0) * 1000.0)
    result["ms"] = times
    if args.save_logits:
        np.save(args.save_logits, np.asarray(out, dtype=np.float32 if args.worker != "twin64" else np.float64))
    result["rss_end_mb"] = rss_now_mb()
    print(json.dumps(result))


def rescale_worker(folder):
    """write-random draws every matrix at std 0.25 and the embeddings at 0.5 (so that the tiny test
    fixtures have sharp attention). At width 768 that gives attention scores of std ~50 and logits up to
    ~80, where float32 itself is only good to ~2e-3 of float64 (measured on both sides), so no two float32
    programs could be checked within 1e-4. Every 2-D tensor is scaled in place to std 1/sqrt(its second
    dimension) (fan-in for [out, in] weights; the embedding's width for embedding tables): scores of
    std ~1, non-uniform attention, well-conditioned float32. The time of a pass does not depend on the
    values. expected.bin (the reference of the old values) is removed."""
    import numpy as np
    path = os.path.join(folder, "model.safetensors")
    with open(path, "r+b") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
        for name, entry in header.items():
            if name == "__metadata__" or len(entry["shape"]) != 2 or entry["dtype"] != "F32":
                continue
            begin, end = entry["data_offsets"]
            f.seek(8 + n + begin)
            values = np.frombuffer(f.read(end - begin), dtype="<f4").astype(np.float64)
            values *= (1.0 / math.sqrt(entry["shape"][1])) / values.std()
            f.seek(8 + n + begin)
            f.write(values.astype("<f4").tobytes())
    stale = os.path.join(folder, "expected.bin")
    if os.path.exists(stale):
        os.remove(stale)


def compare_worker(args):
    import numpy as np
    files = dict(pair.split("=", 1) for pair in args.compare)
    arrays = {k: np.load(v).astype(np.float64) for k, v in files.items()}
    out = {}

    def err(a, b):
        return float(np.abs(arrays[a] - arrays[b]).max() / np.abs(arrays[b]).max())
    out["sinklab_vs_twin"] = err("sinklab", "twin")
    out["sinklab_cache_vs_sinklab"] = err("sinklab_cache", "sinklab")
    if "twin64" in arrays:
        out["sinklab_vs_twin64"] = err("sinklab", "twin64")
        out["twin_vs_twin64"] = err("twin", "twin64")
    out["max_abs_logit"] = float(np.abs(arrays["twin"]).max())
    print(json.dumps(out))


# ----------------------------------------------------------------------------------------------------
# the parent
# ----------------------------------------------------------------------------------------------------


def run_child(cmd, threads, log_path):
    """Runs cmd with the row's thread environment; returns (last stdout line as JSON, peak RSS MB)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               PYTHONPATH=os.path.join(ROOT, "build", "python") + (":" + os.environ["PYTHONPATH"]
                                                                   if os.environ.get("PYTHONPATH") else ""))
    with open(log_path, "w") as out, open(log_path + ".err", "w") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(log_path) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    if proc.returncode != 0 or not lines:
        with open(log_path + ".err") as f:
            sys.exit(f"failed (exit {proc.returncode}): {' '.join(cmd)}\n{f.read()[-3000:]}")
    return json.loads(lines[-1]), usage.ru_maxrss / 1024.0


def safetensors_parameters(folder):
    """Parameter count of the folder's weights from the safetensors header (F32 tensors)."""
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
    return sum(math.prod(e["shape"]) for k, e in header.items() if k != "__metadata__")


def ensure_model(name, write_args, T, work):
    """Writes the random checkpoint once; reuses it while the stamp (its write-random arguments) matches."""
    folder = os.path.join(work, name)
    args = write_args + ["--positions", str(max(2048, T)), "--seed", "0", "--windows", "1", "--seq-len", "8",
                         "(then rescaled)"]
    stamp = os.path.join(folder, "bench_stamp.json")
    if os.path.exists(stamp):
        with open(stamp) as f:
            if json.load(f) == args:
                return folder
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run([PYTHON, TWIN, "write-random", "--out", folder] + args[:-1], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    subprocess.run([PYTHON, os.path.abspath(__file__), "--rescale", folder], check=True, cwd=ROOT)
    with open(stamp, "w") as f:
        json.dump(args, f)
    print(f"{name}: wrote {folder} in {time.perf_counter() - t0:.0f} s", flush=True)
    return folder


def write_ids(folder, T, work):
    """T random ids (seed 0), BOS first, as [1, T] int64 .npy; written by a child (NumPy stays out of here)."""
    path = os.path.join(work, f"{os.path.basename(folder)}_ids_T{T}.npy")
    code = ("import json, numpy as np, sys; c = json.load(open(sys.argv[1])); "
            "ids = np.random.default_rng(0).integers(0, c['vocab_size'], size=(1, int(sys.argv[2])), dtype=np.int64); "
            "ids[0, 0] = c.get('bos_token_id') or 0; np.save(sys.argv[3], ids)")
    subprocess.run([PYTHON, "-c", code, os.path.join(folder, "config.json"), str(T), path], check=True)
    return path


def memory_estimate_mb(config, parameters, T):
    layers = config.get("num_hidden_layers", config.get("n_layer"))
    heads = config.get("num_attention_heads", config.get("n_head"))
    weights = parameters * 4 / 2**20
    window = layers * 2 * heads * T * T * 4 / 2**20
    return weights, window


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def stream_has_kv_cache():
    """(True/False, why): does `build/sinklab eval --help` name a KV-cache path for --stream?"""
    exe = os.path.join(ROOT, "build", "sinklab")
    if not os.path.exists(exe):
        return False, "build/sinklab is missing"
    text = subprocess.run([exe, "eval", "--help"], capture_output=True, text=True).stdout
    hits = [l.strip() for l in text.splitlines() if "kv" in l.lower() and "cache" in l.lower()]
    if hits:
        return True, hits[0]
    return False, "`sinklab eval --help` names no KV cache: --stream recomputes each window"


def median_range(values):
    return statistics.median(values), min(values), max(values)


def bench_config(name, write_args, args, work, results):
    folder = ensure_model(name, write_args, args.T, work)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    ids = write_ids(folder, args.T, work)
    parameters = safetensors_parameters(folder)
    weights_mb, window_mb = memory_estimate_mb(config, parameters, args.T)
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    errors = None
    for ti, threads in enumerate(args.threads):
        rounds = {s: [] for s in SIDES}
        decode_rounds = []
        for r in range(args.rounds):
            saved = {}
            for side in SIDES:
                cmd = [PYTHON, os.path.abspath(__file__), "--worker", side, "--dir", folder, "--ids", ids,
                       "--threads", str(threads), "--reps", str(args.reps)]
                if ti == 0 and r == 0:
                    saved[side] = os.path.join(work, f"{name}_logits_{side}.npy")
                    cmd += ["--save-logits", saved[side]]
                res, rss = run_child(cmd, threads, os.path.join(logs, f"{name}_{side}_{threads}_{r}.log"))
                res["peak_mb"] = rss
                res["median_ms"] = statistics.median(res["ms"])
                rounds[side].append(res)
                print(f"  {name} T {args.T} threads {threads} round {r + 1} {side:13s} "
                      f"{res['median_ms']:9.1f} ms (passes {', '.join(f'{v:.0f}' for v in res['ms'])})  "
                      f"peak {rss:6.0f} MB  load {res['load_s']:.1f} s", flush=True)
                if res["parameters"] != parameters:
                    sys.exit(f"{name}: {side} has {res['parameters']} parameters, the checkpoint {parameters}")
            if args.decode:
                res, rss = run_child([PYTHON, os.path.abspath(__file__), "--worker", "twin_decode", "--dir", folder,
                                      "--ids", ids, "--threads", str(threads), "--reps", "1", "--decode",
                                      str(args.decode)], threads,
                                     os.path.join(logs, f"{name}_twin_decode_{threads}_{r}.log"))
                res["peak_mb"] = rss
                decode_rounds.append(res)
                print(f"  {name} decode {args.decode} tokens threads {threads} round {r + 1} twin "
                      f"{res['ms'][0]:7.2f} ms/token  peak {rss:6.0f} MB  decode vs forward "
                      f"{res['decode_vs_forward']:.1e}", flush=True)
                sres, srss = run_child([PYTHON, os.path.abspath(__file__), "--worker", "sinklab_decode", "--dir", folder,
                                        "--ids", ids, "--threads", str(threads), "--reps", "1", "--decode",
                                        str(args.decode)], threads,
                                       os.path.join(logs, f"{name}_sinklab_decode_{threads}_{r}.log"))
                res["sinklab_ms"] = sres["ms"][0]
                res["sinklab_peak_mb"] = srss
                print(f"  {name} decode {args.decode} tokens threads {threads} round {r + 1} sinklab "
                      f"{sres['ms'][0]:7.2f} ms/token  peak {srss:6.0f} MB (sinklab eval --stream --method kv-cache)",
                      flush=True)
                if res["decode_vs_forward"] > TOLERANCE:
                    sys.exit(f"{name}: the twin's decode and forward disagree by {res['decode_vs_forward']:.2e}")
            if saved:
                if args.float64_check:
                    saved["twin64"] = os.path.join(work, f"{name}_logits_twin64.npy")
                    run_child([PYTHON, os.path.abspath(__file__), "--worker", "twin64", "--dir", folder, "--ids", ids,
                               "--threads", str(max(args.threads)), "--reps", "0", "--save-logits",
                               saved["twin64"]], max(args.threads), os.path.join(logs, f"{name}_twin64.log"))
                errors, _ = run_child([PYTHON, os.path.abspath(__file__), "--compare"] +
                                      [f"{k}={v}" for k, v in saved.items()], 1, os.path.join(logs, f"{name}_cmp.log"))
                for v in saved.values():
                    os.remove(v)
                print(f"{name}: max relative logit error sinklab vs twin (float32) {errors['sinklab_vs_twin']:.2e}"
                      + (f"; vs twin float64: sinklab {errors['sinklab_vs_twin64']:.2e}, twin float32 "
                         f"{errors['twin_vs_twin64']:.2e}" if "twin64" in saved else "")
                      + f"; run_with_cache vs model(ids) {errors['sinklab_cache_vs_sinklab']:.1e}"
                      + f" (max |logit| {errors['max_abs_logit']:.1f})", flush=True)
                if errors["sinklab_vs_twin"] > TOLERANCE:
                    sys.exit(f"{name}: sinklab and the twin disagree by {errors['sinklab_vs_twin']:.2e} > {TOLERANCE}")
        row = {"model": name, "family": config["model_type"], "parameters": parameters, "T": args.T,
               "threads": threads, "weights_mb": weights_mb, "window_mb": window_mb, "logit_error": errors,
               "rounds": rounds}
        for side in SIDES:
            row[side + "_ms"] = median_range([x["median_ms"] for x in rounds[side]])
            row[side + "_peak_mb"] = max(x["peak_mb"] for x in rounds[side])
            row[side + "_rss_import_mb"] = statistics.median(x["rss_import_mb"] for x in rounds[side])
        row["ratio"] = row["twin_ms"][0] / row["sinklab_ms"][0]
        row["round_ratios"] = [t["median_ms"] / s["median_ms"] for s, t in zip(rounds["sinklab"], rounds["twin"])]
        row["ratio_cache"] = row["twin_ms"][0] / row["sinklab_cache_ms"][0]
        row["decode_tokens"] = args.decode
        row["twin_decode_rounds"] = decode_rounds
        if decode_rounds:
            row["twin_decode_ms_per_token"] = median_range([x["ms"][0] for x in decode_rounds])
            row["twin_decode_peak_mb"] = max(x["peak_mb"] for x in decode_rounds)
            row["sinklab_decode_ms_per_token"] = median_range([x["sinklab_ms"] for x in decode_rounds])
            row["sinklab_decode_peak_mb"] = max(x["sinklab_peak_mb"] for x in decode_rounds)
        results.append(row)


def fmt_ms(m):
    f = (lambda v: f"{v:,.0f}") if m[0] >= 100 else (lambda v: f"{v:.2f}")
    return f"{f(m[0])} ({f(m[1])}-{f(m[2])})"


def table(rows):
    lines = ["| model | T | threads | sinklab ms | sinklab run_with_cache ms | twin ms | ratio twin / sinklab "
             "(cache) | tokens/s sinklab / twin | sinklab peak MB | run_with_cache peak MB | twin peak MB | "
             "weights + window MB | sinklab peak / (weights + window) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        budget = r["weights_mb"] + r["window_mb"]
        lines.append(
            f"| {r['model']} ({r['parameters'] / 1e6:.1f} M) | {r['T']} | {r['threads']} | {fmt_ms(r['sinklab_ms'])} | "
            f"{fmt_ms(r['sinklab_cache_ms'])} | {fmt_ms(r['twin_ms'])} | {r['ratio']:.2f}x ({r['ratio_cache']:.2f}x) | "
            f"{r['T'] / r['sinklab_ms'][0] * 1000:,.0f} / {r['T'] / r['twin_ms'][0] * 1000:,.0f} | "
            f"{r['sinklab_peak_mb']:,.0f} | {r['sinklab_cache_peak_mb']:,.0f} | {r['twin_peak_mb']:,.0f} | "
            f"{r['weights_mb']:,.0f} + {r['window_mb']:,.0f} = {budget:,.0f} | {r['sinklab_peak_mb'] / budget:.2f} |")
    return "\n".join(lines)


def decode_table(rows, sinklab_note):
    lines = ["| model | decode tokens | threads | sinklab ms/token | twin ms/token | ratio twin / sinklab | "
             "sinklab peak MB | twin peak MB |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "twin_decode_ms_per_token" not in r:
            continue
        m = r["twin_decode_ms_per_token"]
        k = r.get("sinklab_decode_ms_per_token")
        ours = fmt_ms(k) if k else sinklab_note
        ratio = f"{m[0] / k[0]:.2f}x" if k else "-"
        ours_peak = f"{r['sinklab_decode_peak_mb']:,.0f}" if k else "-"
        lines.append(f"| {r['model']} | {r['decode_tokens']} | {r['threads']} | {ours} | {fmt_ms(m)} | {ratio} | "
                     f"{ours_peak} | {r['twin_decode_peak_mb']:,.0f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default="llama,neox", help="comma-separated, of " + ", ".join(CONFIGS))
    parser.add_argument("--T", type=int, default=1024)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3, help="timed passes per child, after one warm-up")
    parser.add_argument("--work", default=None, help="where the model folders go (default /tmp/sinklab_open_model_speed)")
    parser.add_argument("--out", default=None, help="JSON of every row and round")
    parser.add_argument("--no-float64-check", dest="float64_check", action="store_false",
                        help="skip the twin's float64 logits (the reference both float32 sides are compared with)")
    parser.add_argument("--decode", type=int, default=128,
                        help="tokens of the twin's token-by-token decode with a KV cache (0: none)")
    parser.add_argument("--smoke", action="store_true", help="tiny models, T 64, 1 thread, 1 round, 1 pass")
    # children
    parser.add_argument("--worker", choices=SIDES + ("twin64", "twin_decode", "sinklab_decode"), help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--rescale", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    parser.add_argument("--save-logits", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        return worker(args)
    if args.compare:
        return compare_worker(args)
    if args.rescale:
        return rescale_worker(args.rescale)

    specs = SMOKE_CONFIGS if args.smoke else CONFIGS
    if args.smoke:
        args.T, args.threads, args.rounds, args.reps, args.decode = 64, "1", 1, 1, min(args.decode, 16)
    names = [c for c in args.configs.split(",") if c]
    for c in names:
        if c not in specs:
            parser.error(f"--configs: unknown config {c!r} (known: {', '.join(specs)})")
    args.threads = [int(t) for t in args.threads.split(",") if t]
    if args.rounds < 1 or args.reps < 1:
        parser.error("--rounds and --reps must be >= 1")
    work = args.work or os.path.join(tempfile.gettempdir(),
                                     "sinklab_open_model_speed" + ("_smoke" if args.smoke else ""))
    if os.path.realpath(work).startswith(os.path.realpath(ROOT) + os.sep):
        parser.error(f"--work {work} is inside the repository: model folders go under /tmp or elsewhere")
    os.makedirs(work, exist_ok=True)
    if not os.path.isdir(os.path.join(ROOT, "build", "python", "sinklab")):
        sys.exit("build/python/sinklab is missing: build first with ./scripts/build.sh")

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    load_before = loadavg()
    print(f"load average before: {load_before}", flush=True)
    rows = []
    for name in names:
        bench_config(name, specs[name], args, work, rows)
    load_after = loadavg()
    kv, why = stream_has_kv_cache()
    print()
    print(table(rows))
    print()
    decode = ("not measured: " + why) if not kv else (
        "sinklab: `sinklab eval --stream --method kv-cache` with a cache of 8 tokens (the row's seconds per "
        "scored token); the twin: decode_with_cache from an empty cache")
    print(f"decode: {decode}")
    if args.decode:
        print()
        print(decode_table(rows, "not measured" if not kv else "see note"))
    print(f"load average before {load_before}, after {load_after}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"started": started, "command": " ".join(sys.argv), "load_before": load_before,
                       "load_after": load_after, "decode": decode, "rows": rows,
                       "table": table(rows), "decode_table": decode_table(rows, "not measured" if not kv else
                                                                          "see note")}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
