#!/usr/bin/env bash
# Installs what cross-compiling sinklab for 64-bit ARM and running it under emulation need, on an x86-64
# Debian 12 machine (docs/arm64.md): the cross compiler, the arm64 builds of sinklab's libraries, and
# qemu-user with its binfmt_misc entries. Idempotent: when everything is present it prints nothing and
# touches nothing.
# On an arm64 machine this is not needed: scripts/setup.sh installs the native packages.
set -euo pipefail
source "$(dirname "$0")/debian_packages.sh"
cd "$(dirname "$0")/.."
dev_root="${SINKLAB_ARM64_DEV:-$HOME/.cache/sinklab/arm64-dev}"
packages=(
  crossbuild-essential-arm64 qemu-user cmake make pkg-config ccache
  qemu-user-binfmt   # the binfmt_misc entry for AArch64 children (death and command tests): test-arm64.sh
  nlohmann-json3-dev libcli11-dev                 # header-only, any architecture
  # arm64 -dev packages that install beside the amd64 ones (Multi-Arch: same)
  libzip-dev:arm64 libxxhash-dev:arm64 libutf8proc-dev:arm64 libboost-math-dev:arm64 libgtest-dev:arm64
  zlib1g-dev:arm64
  # the libraries of the -dev packages that do not (below)
  libdnnl2:arm64 libyaml-cpp0.7:arm64 libonig5:arm64
)
# These -dev packages are not Multi-Arch: same, so installing the arm64 one would remove the amd64 one
# (and break the x86-64 build): their arm64 builds are unpacked, with their libraries, into $dev_root,
# which cmake/aarch64-linux-gnu.cmake searches first. oneDNN's also differ in dnnl_config.h.
# Each as "-dev package:its library"; both at the version of the library apt installed above.
unpacked=(libdnnl-dev:libdnnl2 libyaml-cpp-dev:libyaml-cpp0.7 libonig-dev:libonig5)
sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup-arm64: adding the arm64 architecture to dpkg"
  $sudo dpkg --add-architecture arm64
  $sudo apt-get update -qq
fi
mapfile -t missing < <(missing_packages "${packages[@]}")
if ((${#missing[@]} > 0)); then
  echo "setup-arm64: installing ${missing[*]}"
  $sudo apt-get update -qq
  # --no-remove: never trade an installed (amd64) package for an arm64 one.
  $sudo apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}" >/dev/null
fi
versions=()
for pair in "${unpacked[@]}"; do
  dev=${pair%%:*} lib=${pair##*:}
  version=$(dpkg-query -W -f='${Version}' "$lib:arm64")
  versions+=("$dev:arm64=$version" "$lib:arm64=$version")
done
stamp="$dev_root/.packages"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "${versions[*]}" ]]; then
  echo "setup-arm64: unpacking ${versions[*]} into $dev_root"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download -qq "${versions[@]}" 2> >(grep -v unsandboxed >&2))
  rm -rf "$dev_root.partial"
  mkdir -p "$dev_root.partial"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dev_root.partial"; done
  # pkg-config files name /usr: point them at the folder.
  sed -i "s|=/usr\$|=$dev_root/usr|; s|=/usr/|=$dev_root/usr/|" \
    "$dev_root.partial"/usr/lib/aarch64-linux-gnu/pkgconfig/*.pc
  echo "${versions[*]}" >"$dev_root.partial/.packages"
  rm -rf "$dev_root"
  mv "$dev_root.partial" "$dev_root"
fi
