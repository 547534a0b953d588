# Cross build of the portable C level for s390x, a big-endian 64-bit target,
# run under qemu-user (README "Tests", .ci/run's cross stage). Debian 12:
#   dpkg --add-architecture s390x && apt-get update
#   apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross libgmp-dev:s390x qemu-user
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=tests/cross/s390x-linux-gnu.cmake
# FIELDGEN_ASM is OFF by itself (the processor is not x86-64); CTest runs the
# test programs through qemu-s390x, which finds the s390x C library and GMP
# where Debian's multiarch packages put them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x)
set(GMP_INCLUDE_DIR /usr/include/s390x-linux-gnu CACHE PATH "gmp.h for the target")
set(GMP_LIBRARY /usr/lib/s390x-linux-gnu/libgmp.so CACHE FILEPATH "libgmp for the target")
