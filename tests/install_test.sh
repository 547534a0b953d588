#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Install check: `cmake --install` this build into a scratch prefix, then build
# and run a consumer project that uses find_package(fieldgen 1.0) and links
# fieldgen::fieldgen (with this build's compiler and flags, e.g. sanitizers).
# FIELDGEN_RUN: the cross build's emulator, empty natively.
set -eu
build=$1 src=$2 dir=$3 cc=$4 cflags=${5:-}
rm -rf "$dir" && mkdir -p "$dir/consumer"
cmake --install "$build" --prefix "$dir/prefix" >/dev/null
cat > "$dir/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(fieldgen 1.0 REQUIRED)
add_executable(demo demo.c)
target_link_libraries(demo PRIVATE fieldgen::fieldgen)
CMAKE
cp "$src/tests/vendor_demo.c" "$dir/consumer/demo.c"
cmake -S "$dir/consumer" -B "$dir/consumer/build" -DCMAKE_PREFIX_PATH="$dir/prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" >/dev/null
cmake --build "$dir/consumer/build" >/dev/null
${FIELDGEN_RUN:-} "$dir/consumer/build/demo"
