# SPDX-License-Identifier: MIT OR Apache-2.0
"""The hybrid Fp2 mul and sqr (gen/fg/targets/x86_64/hybrid.py): which fields the zen
tuning's ifma level runs them for, the shape the interleaving relies on (a
vector middle without general-purpose registers, a scalar half without rbp,
straight-line deterministic text), and (when the CPU has AVX512-IFMA/VBMI,
BMI2 and ADX and a C compiler is found) the functions run through ctypes
against Python integers, with r aliasing a and b, at 7 to 16 limbs.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_x86_64_hybrid
"""

import ctypes
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg.targets.x86_64 import hybrid as x86_64_hybrid  # noqa: E402
from fg.targets.x86_64 import ifma as x86_64_ifma  # noqa: E402
from peachpy.x86_64.registers import GeneralPurposeRegister, rsp  # noqa: E402
from gen.test_x86_64_ifma import FIELDS, MASKED_OPERAND, _fa, _planned, sel, sel_bit  # noqa: E402

FIELDS = dict(FIELDS, m521="2^521 - 1", p610="2^305 * 3^192 - 1")


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return set(re.search(r"^flags\s*:(.*)$", f.read(), re.M).group(1).split())
    except (OSError, AttributeError):
        return set()


def _can_run():
    need = {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512ifma", "avx512vbmi", "bmi2", "adx"}
    return need <= _cpu_flags()


class Choice(unittest.TestCase):
    """x86_64_hybrid.chosen over the generator's own path (targets.x86_64.plan)."""

    def choice(self, name):
        fa = _planned(name, FIELDS[name])
        text = fa.text
        for op in ("mul", "sqr"):
            have = getattr(fa, "fp2_%s_ifma_zen" % op)
            self.assertEqual("\nfg_%s_fp2_%s_ifma_zen:" % (name, op) in text, have, (name, op))
        return fa.fp2_mul_ifma_zen, fa.fp2_sqr_ifma_zen

    def test_measured_choices(self):
        self.assertEqual(self.choice("p434"), (True, False))     # mul 216 / 237; sqr 207 / 172
        self.assertEqual(self.choice("p503"), (True, True))      # 257 / 305; 219 / 226
        self.assertEqual(self.choice("m521"), (True, False))     # 281 / 304; 211 / 195
        self.assertEqual(self.choice("p610"), (True, True))      # 400 / 427; 298 / 338
        self.assertEqual(self.choice("p751"), (False, True))     # 547 / 504; 373 / 403
        self.assertEqual(self.choice("t996"), (False, False))    # 16 limbs: the pure IFMA kernels

    def test_tuning(self):
        # the zen4 tuning's ifma level runs it, and nothing else does
        fa = _planned("p503", FIELDS["p503"])
        for op in ("mul", "sqr"):
            masks = dict((k, m) for k, m, _, _ in sel(fa, "fp2_" + op))
            self.assertEqual(masks["ifma_zen"], sel_bit("ifma", "zen4"), op)
        self.assertEqual(dict((k, m) for k, m, _, _ in sel(fa, "fp2_mul"))["ifma"],
                         sel_bit("ifma", "generic") | sel_bit("ifma", "zen"))

    def test_unsupported(self):
        self.assertFalse(x86_64_hybrid.supported(_fa("p503", FIELDS["p503"], nr=None)))
        self.assertFalse(x86_64_hybrid.supported(_fa("q", FIELDS["p503"], nr=-3)))
        self.assertFalse(x86_64_hybrid.supported(_fa("p384", "2^384 - 2^128 - 2^96 + 2^32 - 1")))


class Shape(unittest.TestCase):
    def test_vector_middle_uses_no_gpr(self):
        # the scalar half holds every general-purpose register but rbp and rsp
        # there: the vector middle may read only rsp (its frame) and rip
        for name in ("p503", "p751", "t996"):
            fa = _fa(name, FIELDS[name])
            for vop in ("c1", "c1s"):
                _, _, head, mid, tail, frame = x86_64_hybrid._vector_half(fa, vop)
                self.assertEqual(frame % 64, 0)
                for ins, ops in mid:
                    regs = [o for o in ops if isinstance(o, GeneralPurposeRegister)]
                    regs += [r for o in ops for r in (getattr(getattr(o, "address", None), "base", None),)
                             if isinstance(r, GeneralPurposeRegister)]
                    self.assertEqual([r for r in regs if r != rsp], [], (name, vop, ins, ops))
                self.assertTrue(head and mid and tail)

    def test_text(self):
        fa = _planned("p503", FIELDS["p503"])
        text = fa.text
        for op in ("mul", "sqr"):
            a = x86_64_hybrid.emit(fa, op)
            self.assertEqual(a, x86_64_hybrid.emit(fa, op))             # deterministic
            self.assertIn(a.strip("\n"), text)
            sym = "fg_p503_fp2_%s_ifma_zen" % op
            body = a[a.index("\n%s:" % sym):]
            instrs = [ln.split(None, 1) for ln in (x.strip() for x in body.splitlines()[1:])
                      if ln and not ln.startswith((".", "#")) and not ln.endswith(":")]
            names = [i[0] for i in instrs]
            v = names.index("vzeroupper")         # then the pops of the callee-saved registers
            self.assertEqual(set(names[v + 1:-1]), {"popq"})
            self.assertEqual(names[-1], "ret")
            self.assertFalse([i for i in names if i.startswith("j") or i.startswith("call")])
            # rbp: pushed, the frame's copy of rsp, popped; nothing else touches it
            rbp = [" ".join(i) for i in instrs if len(i) > 1 and "%rbp" in i[1]]
            self.assertEqual(rbp, ["pushq %rbp", "movq %rsp, %rbp", "movq %rbp, %rsp", "popq %rbp"])
            # both halves are there, interleaved: IFMA between the first and last MULX
            mulx = [k for k, i in enumerate(names) if i == "mulxq"]
            ifma = [k for k, i in enumerate(names) if i.startswith("vpmadd52")]
            self.assertTrue(mulx and ifma)
            self.assertLess(mulx[0], ifma[len(ifma) // 2])
            self.assertLess(ifma[len(ifma) // 2], mulx[-1])

    def test_no_masked_operand_access(self):
        # the vector half loads and stores its partial vectors as narrow pieces
        # (x86_64.ifma.PAGE_SAFE_TAIL): 7 limbs (tail 7) and 12 (tail 4)
        masked = MASKED_OPERAND
        for name in ("p434", "p751"):
            fa = _planned(name, FIELDS[name])
            for op in ("mul", "sqr"):
                if x86_64_hybrid.supported(fa, op):
                    self.assertIsNone(masked.search(x86_64_hybrid.emit(fa, op)), (name, op))


@unittest.skipUnless(_can_run(), "the CPU lacks AVX-512 IFMA/VBMI, BMI2 or ADX")
class Run(unittest.TestCase):
    def check(self, name, count=120):
        fa = _planned(name, FIELDS[name])
        p, n = fa.p, fa.n
        rinv = pow(1 << (64 * n), -1, p)
        text = fa.text
        for op in ("mul", "sqr"):       # the kernels not chosen too (every supported size works)
            if "\nfg_%s_fp2_%s_ifma_zen:" % (name, op) not in text and x86_64_hybrid.supported(fa, op):
                text += "\n" + x86_64_hybrid.emit(fa, op)
        with tempfile.TemporaryDirectory() as d:
            src, so = os.path.join(d, "k.S"), os.path.join(d, "k.so")
            with open(src, "w") as f:
                f.write(text + '\n.section .note.GNU-stack,"",%progbits\n')
            subprocess.run([os.environ.get("CC", "cc"), "-shared", "-o", so, src], check=True)
            lib = ctypes.CDLL(so)
            T = ctypes.c_uint64 * (2 * n)
            rng = random.Random(n)
            edge = [0, 1, 2, p - 1, p - 2] + [(1 << k) % p for k in range(0, p.bit_length(), 37)]
            edge += [p - (1 << k) for k in range(0, p.bit_length() - 1, 41)]
            vals = [tuple(rng.choice(edge) for _ in range(4)) for _ in range(count)]
            vals += [tuple(rng.randrange(p) for _ in range(4)) for _ in range(count)]

            def limbs(x0, x1):
                return T(*[(x >> (64 * i)) & (2 ** 64 - 1) for x in (x0, x1) for i in range(n)])

            def value(t, h):
                return sum(t[h * n + i] << (64 * i) for i in range(n))
            for op in ("mul", "sqr"):
                if not x86_64_hybrid.supported(fa, op):
                    continue
                fn = getattr(lib, "fg_%s_fp2_%s_ifma_zen" % (name, op))
                for k, (a0, a1, b0, b1) in enumerate(vals):
                    A, B = limbs(a0, a1), limbs(b0, b1)
                    if op == "sqr":
                        r = A if k % 2 else T()
                        fn(r, A)
                        want = ((a0 * a0 - a1 * a1) * rinv % p, 2 * a0 * a1 * rinv % p)
                    else:
                        r = [A, B, T()][k % 3]
                        fn(r, A, B)
                        want = ((a0 * b0 - a1 * b1) * rinv % p, (a0 * b1 + a1 * b0) * rinv % p)
                    self.assertEqual((value(r, 0), value(r, 1)), want, (name, op, k))

    def test_p434(self):
        self.check("p434")

    def test_p503(self):
        self.check("p503")

    def test_p610(self):
        self.check("p610")

    def test_p751(self):
        self.check("p751")

    def test_t996(self):
        self.check("t996", 60)


if __name__ == "__main__":
    unittest.main()
