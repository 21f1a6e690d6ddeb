#!/usr/bin/env python3
"""Counts, from the disassembly of an AArch64 build of sinklab, the vector and the scalar floating-point
instructions of each hot kernel, per ISA level (docs/arm64.md, "Speed"). qemu times nothing, so this is
what says, without an ARM machine, whether a kernel runs NEON or SVE loops or fell back to scalar code.

  tools/arm64_vector_census.py build-arm64/sinklab            # the markdown table
  tools/arm64_vector_census.py build-arm64/sinklab --check    # exit 1 if a hot kernel's loops are all scalar

A kernel is a function of an isa_neon or isa_sve namespace (core/cpu/isa_dispatch.h) whose name matches
one of HOT_KERNELS. `vector` counts instructions on NEON registers (v0.4s, q1, ...) or SVE's (z0.s, p0);
`scalar fp` counts floating-point arithmetic on single registers (fadd s0, s1, s2). A loop is a branch
back within the function: `vector` loops have vector instructions in their body, `scalar fp only` loops
compute floats one at a time (NEON's remainder loops after a vector loop, or a loop the compiler left
scalar). Static counts: one loop body each, whatever its trip count.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

# What a training step spends its time in outside oneDNN's matmuls, by source file and function.
HOT_KERNELS = {
    "softmax rows": r"::softmax_short_row\(",
    "fused attention (T <= 64)": r"::fused::isa_\w+::",
    "tiled attention": r"::tiled::isa_\w+::",
    "layer norm, RMS norm": r"::(layer_norm|rms_norm)_(forward|backward)\(",
    "AdamW": r"::adam_update\(",
    "element-wise": r"::kernels::isa_\w+::(add|sub|mul|div|add_scalar|mul_scalar)_(forward|backward)\(",
    "GELU, exp, tanh": r"::kernels::isa_\w+::(gelu|exp|tanh)_forward\(",
    "cross-entropy": r"::cross_entropy_(forward|backward)\(",
}
FP_OPS = r"(fadd|fsub|fmul|fdiv|fmadd|fmsub|fnmadd|fnmsub|fmla|fmls|fmax|fmin|fmaxnm|fminnm|fsqrt|fneg|fabs|frecpe|frsqrte|fcvt\w*|scvtf|ucvtf|fcmp\w*|fcsel)"
VECTOR_OPERAND = re.compile(r"\b(v\d+\.\d*[bhsd]|q\d+|z\d+\.[bhsdq]|p\d+(/[zm])?)\b")
SCALAR_FP = re.compile(r"^\s*[0-9a-f]+:\s+" + FP_OPS + r"\s+[sdh]\d+")
HEADER = re.compile(r"^[0-9a-f]+ <(.*)>:$")
ADDRESS = re.compile(r"^\s*([0-9a-f]+):\s+\S")
# Conditional and unconditional branches, compare-and-branch, test-and-branch, SVE's b.<cond> after whilelo.
BRANCH = re.compile(r"\s(?:b|b\.\w+|cbn?z|tbn?z)\s+(?:[wx]\d+,\s*(?:#\d+,\s*)?)?([0-9a-f]+)\s<")


def objdump_program():
    for name in ("aarch64-linux-gnu-objdump", "objdump"):
        if shutil.which(name):
            return name
    sys.exit("arm64_vector_census: no objdump (binutils-aarch64-linux-gnu on x86-64, binutils on arm64)")


def census(binary):
    text = subprocess.run([objdump_program(), "-d", "--no-show-raw-insn", "-C", binary], check=True,
                          capture_output=True, text=True).stdout
    if "file format elf64-littleaarch64" not in text[:2000]:
        sys.exit(f"arm64_vector_census: {binary} is not an AArch64 ELF file")
    counts = collections.defaultdict(collections.Counter)
    function, body = None, []

    def close():
        if function is None:
            return
        c = counts[function]
        c["functions"] += 1
        # A loop: a branch back to an address of the same function; its body is [target, branch].
        addresses = [a for a, _ in body]
        for address, line in body:
            c["instructions"] += 1
            c["vector"] += bool(VECTOR_OPERAND.search(line))
            c["scalar fp"] += bool(not VECTOR_OPERAND.search(line) and SCALAR_FP.match(line))
            m = BRANCH.search(line)
            if not m or int(m.group(1), 16) >= address or int(m.group(1), 16) < addresses[0]:
                continue
            loop = [l for a, l in body if int(m.group(1), 16) <= a <= address]
            if any(VECTOR_OPERAND.search(l) for l in loop):
                c["vector loops"] += 1
            elif any(SCALAR_FP.match(l) for l in loop):
                c["scalar fp loops"] += 1

    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            close()
            name = m.group(1)
            level = re.search(r"::isa_(neon|sve)::", name)
            kernel = next((k for k, pattern in HOT_KERNELS.items() if re.search(pattern, name)), None)
            function = (kernel, level.group(1)) if level and kernel else None
            body = []
            continue
        a = ADDRESS.match(line)
        if function is not None and a:
            body.append((int(a.group(1), 16), line))
    close()
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", help="an AArch64 build of sinklab (build-arm64/sinklab)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a hot kernel's loops are all scalar")
    args = parser.parse_args()
    counts = census(args.binary)
    print("| kernel | level | functions | instructions | vector | scalar fp | loops: vector | loops: scalar fp only |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    missing = []
    for kernel in HOT_KERNELS:
        for level in ("neon", "sve"):
            c = counts.get((kernel, level))
            if not c:
                missing.append(f"{kernel} ({level}): no function found")
                continue
            print(f"| {kernel} | {level} | {c['functions']} | {c['instructions']} | {c['vector']} | {c['scalar fp']} "
                  f"| {c['vector loops']} | {c['scalar fp loops']} |")
            # Straight-line vector code (a fully unrolled short row) has no loop at all.
            if c["vector"] == 0 or (c["vector loops"] == 0 and c["scalar fp loops"] > 0):
                missing.append(f"{kernel} ({level}): its loops are scalar")
    for m in missing:
        print(f"arm64_vector_census: {m}", file=sys.stderr)
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
