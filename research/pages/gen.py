# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes masked.S and pieces.S (in the current directory): a field's IFMA
Fp2 mul, Fp2 sqr and Fp mul with x86_64_ifma.PAGE_SAFE_TAIL off (partial
vectors as masked accesses, what every kernel had before 2026-12-05) and on
(what ships), symbols fg_t_masked_* and fg_t_pieces_*, and forms.h with the
limb count and the forms written; page.c times them. With x86_64_ifma as it
was at 45ac87d (its switch TAIL_FORM), also overlap.S, the overlapping form.
Run with an interpreter that has PeachPy (Debian's /usr/bin/python3):

    cd SCRATCH && /usr/bin/python3 .../research/pages/gen.py "2^216 * 3^137 - 1"
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gen"))
from fg import analysis, spec  # noqa: E402
from fg.targets import x86_64  # noqa: E402
from fg.targets.x86_64 import ifma as x86_64_ifma  # noqa: E402

modulus = sys.argv[1] if len(sys.argv) > 1 else "2^216 * 3^137 - 1"
text = '[t]\nmodulus = "%s"\nbyte_order = "little"\nextension = { degree = 2, non_residue = -1 }\n' % modulus
fa = x86_64.Kernels(analysis.analyze(spec.loads(text)[0]))  # the backends take a kernel set
FORMS = ("masked", "overlap", "pieces") if hasattr(x86_64_ifma, "TAIL_FORM") else ("masked", "pieces")
for tag in FORMS:
    x86_64_ifma.PAGE_SAFE_TAIL = tag != "masked"
    if hasattr(x86_64_ifma, "TAIL_FORM"):
        x86_64_ifma.TAIL_FORM = tag
    asm = x86_64_ifma.emit_fp2_mul(fa) + x86_64_ifma.emit_fp2_sqr(fa) + x86_64_ifma.emit_mul(fa)
    for pre in ("fg_t_", "FG_T_", ".Lfg_t_"):
        asm = asm.replace(pre, pre + tag + "_")
    with open(tag + ".S", "w") as f:
        f.write(asm + '\n.section .note.GNU-stack,"",%progbits\n')
with open("forms.h", "w") as f:
    f.write("#define NL %d\n#define FORMS(X) %s\n" % (fa.n, " ".join("X(%s)" % t for t in FORMS)))
print("%s: %d limbs" % (modulus, fa.n))
