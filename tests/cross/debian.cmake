# SPDX-License-Identifier: MIT OR Apache-2.0
# The part of the toolchain files in this folder that every target shares:
# Debian's cross compiler <triple>-gcc, the target's GMP where Debian's
# multiarch package puts it (/usr/{include,lib}/<triple>), and qemu-user's
# qemu-<cpu> to run the test programs. Set FG_CROSS_TRIPLE and FG_CROSS_CPU,
# then include this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${FG_CROSS_CPU})
set(CMAKE_C_COMPILER ${FG_CROSS_TRIPLE}-gcc)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${FG_CROSS_CPU})
set(GMP_INCLUDE_DIR /usr/include/${FG_CROSS_TRIPLE} CACHE PATH "gmp.h for the target")
set(GMP_LIBRARY /usr/lib/${FG_CROSS_TRIPLE}/libgmp.so CACHE FILEPATH "libgmp for the target")
