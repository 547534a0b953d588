#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Time fg_NAME_is_square (or another op) on the extra primes of builds.

Where the Legendre symbol's two algorithms cross (gen/fg/legendre.py,
METHOD_MIN_LIMBS) was set with this: for each build directory given (a
configured and built tree with FIELDGEN_EXTRA_PRIMES=ON, e.g. an old and a
new one), it writes a small C program that chains 200 calls of
fg_NAME_is_square (each result picks the next input, so the calls run one
after another), takes the median of 31 RDTSC runs per field, links it
against that build's libfieldgen_extra.a and libfieldgen.a, and prints one
column of cycles per call per build.

    python3 research/legendre/crossover.py OLD_BUILD NEW_BUILD [--fields a,b,...]

--op is_square_euler, inv or inv_fermat times that op the same way (inv:
each output plus one is the next input), to compare two ops of one build.

Run it on an idle core (it pins nothing itself: wrap it in taskset -c 1).
"""
import argparse
import os
import subprocess
import sys
import tempfile

FIELDS = ["p33", "m61", "gold64", "p64m59", "m127", "r130", "pm189", "r254", "p256",
          "bls12_381_r", "p384", "p434", "m521", "r702", "r1024"]


def program(fields, op):
    out = ["#include <stdio.h>", "#include <stdint.h>", "#include <stdlib.h>",
           "#include <x86intrin.h>"]
    out += [f'#include "fg_{f}.h"' for f in fields]
    out.append("static int cmp(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, "
               "y = *(const uint64_t *)b; return x < y ? -1 : x > y; }")
    out.append("int main(void) { uint64_t t[31]; unsigned aux; volatile int sink = 0;")
    for f in fields:
        out.append(f"""{{ fg_{f} a, one; uint8_t buf[sizeof(fg_{f}) * 2] = {{0}};
  for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 37 + 11);
  fg_{f}_from_bytes(&a, buf); fg_{f}_one(&one);
  for (int r = 0; r < 31; r++) {{
    int acc = 0; _mm_lfence(); uint64_t s = __rdtscp(&aux);
    for (int i = 0; i < 200; i++) {{
      {step(f, op)} }}
    t[r] = (__rdtscp(&aux) - s) / 200; sink += acc; }}
  qsort(t, 31, sizeof t[0], cmp); printf("%s %llu\\n", "{f}", (unsigned long long)t[15]); }}""")
    out.append("return 0; }")
    return "\n".join(out) + "\n"


def step(f, op):
    if op.startswith("is_square"):
        return (f"int q = fg_{f}_{op}(&a); acc += q; "
                f"if (q) fg_{f}_add(&a, &a, &one); else fg_{f}_add(&a, &a, &a);")
    return f"acc += fg_{f}_{op}(&a, &a); fg_{f}_add(&a, &a, &one);"


def run(build, src, root, tmp, tag):
    incs = [f"-I{os.path.join(root, 'runtime')}"]
    for base in (os.path.join(build, "tests", "extra"), os.path.join(root, "generated")):
        incs += [f"-I{os.path.join(base, d)}" for d in sorted(os.listdir(base))
                 if os.path.isdir(os.path.join(base, d))]
    exe = os.path.join(tmp, f"legendre_{tag}")
    subprocess.run(["gcc", "-O2", "-march=x86-64", *incs, src,
                    os.path.join(build, "tests", "libfieldgen_extra.a"),
                    os.path.join(build, "libfieldgen.a"), "-o", exe], check=True)
    res = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split("\n")
    return dict(line.split() for line in res if line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", help="build directories (their source tree is the parent "
                    "unless --root is given)")
    ap.add_argument("--root", action="append", help="source tree of each build, in order")
    ap.add_argument("--fields", default=",".join(FIELDS))
    ap.add_argument("--op", default="is_square", choices=["is_square", "is_square_euler", "inv", "inv_fermat"])
    args = ap.parse_args()
    fields = args.fields.split(",")
    roots = args.root or [os.path.dirname(os.path.abspath(b)) for b in args.builds]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "legendre.c")
        with open(src, "w") as fh:
            fh.write(program(fields, args.op))
        cols = [run(b, src, r, tmp, i) for i, (b, r) in enumerate(zip(args.builds, roots))]
    print("field        " + "".join(f"{os.path.basename(os.path.abspath(b)):>14}" for b in args.builds))
    for f in fields:
        print(f"{f:<12} " + "".join(f"{c[f]:>14}" for c in cols))


if __name__ == "__main__":
    sys.exit(main())
