# Cross build of the portable C level for aarch64 (64-bit Arm, little-endian),
# run under qemu-user (README "Tests", .ci/run's cross stage). Debian 12:
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgmp-dev:arm64 qemu-user
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=tests/cross/aarch64-linux-gnu.cmake
# FIELDGEN_ASM is OFF by itself (the processor is not x86-64); CTest runs the
# test programs through qemu-aarch64, which finds the arm64 C library and GMP
# where Debian's multiarch packages put them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(GMP_INCLUDE_DIR /usr/include/aarch64-linux-gnu CACHE PATH "gmp.h for the target")
set(GMP_LIBRARY /usr/lib/aarch64-linux-gnu/libgmp.so CACHE FILEPATH "libgmp for the target")
