# Cross-compiles sinklab for 64-bit ARM Linux on an x86-64 Debian machine (docs/arm64.md):
#   ./scripts/setup-arm64.sh && ./scripts/build.sh --target aarch64
# Debian's crossbuild-essential-arm64 compiles; its multiarch :arm64 -dev packages are the libraries.
# Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR): ctest, and the test discovery at build time.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
find_program(SINKLAB_QEMU_AARCH64 qemu-aarch64 REQUIRED)
# The CPU model comes from the environment variable QEMU_CPU (qemu's own; scripts/test-arm64.sh sets it).
set(CMAKE_CROSSCOMPILING_EMULATOR ${SINKLAB_QEMU_AARCH64})
# The arm64 -dev packages that cannot be installed beside the amd64 ones (oneDNN, yaml-cpp, Oniguruma) are
# unpacked by scripts/setup-arm64.sh into a folder of their own, searched first; their CMake packages are
# relocatable and their pkg-config files rewritten to it.
if(DEFINED ENV{SINKLAB_ARM64_DEV})
  set(SINKLAB_ARM64_DEV $ENV{SINKLAB_ARM64_DEV})
else()
  set(SINKLAB_ARM64_DEV $ENV{HOME}/.cache/sinklab/arm64-dev)
endif()
if(NOT EXISTS ${SINKLAB_ARM64_DEV}/.packages)
  message(FATAL_ERROR "${SINKLAB_ARM64_DEV} holds no arm64 packages: run scripts/setup-arm64.sh first")
endif()
list(PREPEND CMAKE_PREFIX_PATH ${SINKLAB_ARM64_DEV}/usr)
# pkg-config reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR}
    ${SINKLAB_ARM64_DEV}/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
