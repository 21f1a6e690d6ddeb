#!/usr/bin/env bash
# Installs every Debian package that sinklab's build, tests, plots and tools need. Idempotent:
# when everything is present it prints nothing and touches nothing.
set -euo pipefail
source "$(dirname "$0")/debian_packages.sh"
packages=(
  cmake g++ make pkg-config git ccache
  libdnnl-dev ocl-icd-opencl-dev      # oneDNN matmul; its CMake config requires OpenCL headers
  libyaml-cpp-dev                      # configs
  nlohmann-json3-dev libcli11-dev      # JSON output, command line
  libzip-dev                           # .npz exports (zip container)
  libxxhash-dev                        # checkpoint data checksum (XXH3-64, checkpoint format 4)
  libonig-dev libutf8proc-dev          # tokenizers: Oniguruma (HF tokenizers' own regex engine) for tokenizer.json patterns, utf8proc for NFC
  libboost-math-dev                    # binomial intervals in reports (Boost.Math, header-only)
  libgtest-dev libbenchmark-dev        # tests, benchmarks
  gnuplot-nox                          # plots
  clang-14 libfuzzer-14-dev            # fuzz targets (scripts/fuzz.sh), built with OpenMP off
  libopenmpi-dev openmpi-bin           # `sinklab compare --mpi` (FindMPI) and mpirun for its tests (docs/cluster.md)
  # The Python package (python/, docs/python.md), its tests and the example notebook, for Debian's
  # /usr/bin/python3: the module, arrays, tables, tests, figures, running notebooks headless or in Jupyter.
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib
  jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-notebook
  chromium chromium-driver python3-selenium   # the sink explorer's page, tested in headless Chromium (docs/explorer.md)
)
# libxsmm: small JIT GEMMs, measured against the fused kernels (bench/small_gemm_bench.cpp); Debian builds
# it for x86-64 only, so an arm64 machine (docs/arm64.md) has no such benchmark.
if [[ "$(dpkg --print-architecture)" == amd64 ]]; then packages+=(libxsmm-dev); fi
# PyTorch only for the golden-file generator, the export check and the speed comparison (tools/), not for tests.
# libopenblas0-pthread replaces the netlib reference BLAS that Debian's torch otherwise calls.
# libjemalloc2: the twin's allocator in `bench/vs_pytorch.py --twin-malloc jemalloc`.
if [[ "${SINKLAB_WITH_TORCH:-0}" == 1 ]]; then packages+=(python3-torch python3-numpy python3-yaml libopenblas0-pthread libjemalloc2); fi

mapfile -t missing < <(missing_packages "${packages[@]}")
((${#missing[@]} == 0)) && exit 0

sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
