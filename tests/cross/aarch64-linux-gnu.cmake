# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build of the portable C level for aarch64 (64-bit Arm, little-endian),
# run under qemu-user (README "Tests", .ci/run's cross stage). Debian 12:
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgmp-dev:arm64 qemu-user
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=tests/cross/aarch64-linux-gnu.cmake
# FIELDGEN_ASM is OFF by itself (the processor is not x86-64); CTest runs the
# test programs through qemu-aarch64 (debian.cmake).
set(FG_CROSS_TRIPLE aarch64-linux-gnu)
set(FG_CROSS_CPU aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian.cmake)
