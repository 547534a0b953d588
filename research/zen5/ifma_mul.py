# SPDX-License-Identifier: MIT OR Apache-2.0
"""research/zen5: write the GAS text of the IFMA kernels the generator does
not ship for a field (gen/fg/targets/x86_64/ifma.py): the Fp mul fg_NAME_mul_ifma
(emit_mul) where choose_mul did not dispatch it, and, for fields with u^2 = -1 whose generated
code lacks them, the Fp2 mul and sqr (emit_fp2_mul, emit_fp2_sqr).

    python3 ifma_mul.py FIELDS_TOML OUT_DIR FIELD...   -> OUT_DIR/NAME_mul_ifma.S
(OUT_DIR: a gen/fieldgen --out directory; research/zen/build.sh runs this.)
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "gen"))
from fg import analysis, spec  # noqa: E402
from fg.targets import x86_64  # noqa: E402
from fg.targets.x86_64 import ifma as x86_64_ifma  # noqa: E402


def main(argv):
    config, out, names = argv[0], argv[1], argv[2:]
    fields = {f.name: f for f in spec.load(config)}
    for name in names:
        fa = x86_64.Kernels(analysis.analyze(fields[name]))  # the backends take a kernel set
        if not x86_64_ifma.supported_mul(fa):
            print("%s: no IFMA Fp mul (shape)" % name, file=sys.stderr)
            continue
        shipped = open(os.path.join(out, name, "fg_%s_x86_64.S" % name)).read()
        with open(os.path.join(out, "%s_mul_ifma.S" % name), "w") as f:
            if "fg_%s_mul_ifma:" % name not in shipped:    # p751's ships (choose_mul)
                f.write(x86_64_ifma.emit_mul(fa))
            for op, ok, emit in (("mul", x86_64_ifma.supported, x86_64_ifma.emit_fp2_mul),
                                 ("sqr", x86_64_ifma.supported_sqr, x86_64_ifma.emit_fp2_sqr)):
                if fa.fp2 is not None and ok(fa) and "fg_%s_fp2_%s_ifma:" % (name, op) not in shipped:
                    f.write("\n" + emit(fa))
            f.write('\n.section .note.GNU-stack,"",%progbits\n')


if __name__ == "__main__":
    main(sys.argv[1:])
