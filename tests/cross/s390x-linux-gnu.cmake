# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build of the portable C level for s390x, a big-endian 64-bit target,
# run under qemu-user (README "Tests", .ci/run's cross stage). Debian 12:
#   dpkg --add-architecture s390x && apt-get update
#   apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross libgmp-dev:s390x qemu-user
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=tests/cross/s390x-linux-gnu.cmake
# FIELDGEN_ASM is OFF by itself (the processor is not x86-64); CTest runs the
# test programs through qemu-s390x (debian.cmake).
set(FG_CROSS_TRIPLE s390x-linux-gnu)
set(FG_CROSS_CPU s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian.cmake)
