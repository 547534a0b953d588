/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime: the architectures' parts, one line per target of the
 * generator (gen/fg/targets/). No include guard: fg_cpu.h includes this list
 * in three stages (FG_CPU_STAGE 1: each part's levels, inside the fg_isa
 * enumeration; 2: its macros; 3: with FG_CPU_PROBE, its level names and
 * probes for runtime/fg_cpu.c). The x86-64 part comes last: it is the
 * default part of an architecture without one of its own. */
#include "fg_cpu_aarch64.h"
#include "fg_cpu_x86_64.h"
