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
# Never the build machine's own multiarch libraries: without the target's
# libssl-dev, FindOpenSSL would otherwise pick /usr/lib/x86_64-linux-gnu's
# libcrypto and the link would fail; not found, the protocol tests that
# compare against OpenSSL are left out (the RFC vectors still run)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/include/x86_64-linux-gnu /lib/x86_64-linux-gnu)
