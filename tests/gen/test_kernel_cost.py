# SPDX-License-Identifier: MIT OR Apache-2.0
"""The kernel counter (gen/fg/targets/x86_64/cost.py): what it counts on a GAS text,
that it refuses code that is not straight-line, and what it counts on the
shipped p503/p751 kernels (the machine-code cross-check of the headers is
tests/kernel_cost.py).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_kernel_cost
"""

import os
import sys
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg.targets.x86_64 import cost as kernel_cost  # noqa: E402

TEXT = """\
#ifdef __APPLE__
_fg_t_mul_adx:
#else
fg_t_mul_adx:
#endif
pushq %rbx
\tmovq 0(%rsi), %rdx
\tmulxq 0(%rdi), %rax, %rbx
\tmulq %rcx
\timulq %rcx, %rax
\tadcxq %rax, %r8
\tadoxq %rbx, %r9
\tadcq $0, %r10
\tsbbq %r11, %r11
\tcmovc %r8, %r9
\tsetc %al
\tshrdq $1, %r8, %r9
\tshlq $3, %r8
\tbtq $63, %r8
\taddq %r8, %r9
\txorq %rax, %rax
\tleaq (%rax,%rax), %rax
\tmovq $5, %rcx
\tmovq %rax, 8(%rdi)
\tmovq %rcx, %rdx
\txorq %rax, %rcx
popq %rbx
\tret
"""


class Field:
    name = "t"


class KernelCost(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(kernel_cost.count(TEXT, "fg_t_mul_adx", kernel_cost.MULTS), 3)
        # adcx adox adc sbb cmovc setc shl bt; not shrd (port 1), add, xor, lea, mov, push, pop
        self.assertEqual(kernel_cost.count(TEXT, "fg_t_mul_adx", kernel_cost.P06), 8)
        # ALU: adcx adox adc sbb cmovc setc shrd shl bt add lea, mov $5 and the
        # xor of two registers; not the multiplications, loads, stores, register
        # moves, push, pop or the zeroing xor
        self.assertEqual(kernel_cost.costs(Field(), TEXT), {("mul", "adx"): (3, 8, 13)})
        self.assertEqual(kernel_cost.count_alu(TEXT, "fg_t_mul_adx"), 13)

    def test_alu_class(self):
        """The same class on objdump's spelling (tests/kernel_cost.py reads it)."""
        alu = kernel_cost.is_alu
        for mn, ops in (("adc", "$0x0,%r9"), ("mov", "$0x26,%edx"), ("xor", "%eax,%ecx"), ("lea", "0x1(%rax),%rax"),
                        ("cmovb", "%r8,%r9"), ("shr", "$0x20,%rbp"), ("sub", "$0xffffffffffffffff,%rbx")):
            self.assertTrue(alu(mn, ops), mn + " " + ops)
        for mn, ops in (("mulx", "0x8(%r8),%r11,%r9"), ("mul", "%rcx"), ("imul", "$0x26,%r11,%r11"),
                        ("mov", "0x8(%rsi),%rcx"), ("mov", "%rcx,0x8(%rdi)"), ("mov", "%rax,%rdx"),
                        ("push", "%rbx"), ("pop", "%r15"), ("xor", "%ecx,%ecx"), ("ret", ""),
                        ("mov", "0x10(%rsp,%rax,8),%rcx")):
            self.assertFalse(alu(mn, ops), mn + " " + ops)

    def test_not_straight_line(self):
        for jump in ("\tjc 1f\n", "\tjmp fg_other\n", "\tcall fg_other\n"):
            text = TEXT.replace("\tret\n", jump + "\tret\n")
            with self.assertRaisesRegex(ValueError, "not straight-line"):
                kernel_cost.costs(Field(), text)

    def test_absent(self):
        with self.assertRaisesRegex(ValueError, "not found"):
            kernel_cost.count(TEXT, "fg_t_sqr_adx", kernel_cost.P06)
        self.assertEqual(kernel_cost.costs(type("F", (), {"name": "u"})(), TEXT), {})

    def test_zero_limbs_skipped(self):
        """p503 and p751 (p + 1 = 2^e 3^f): the adx kernels multiply exactly the
        schoolbook products plus, per reduction row, the nonzero limbs of p + 1
        (the reduction skips its low zero limbs), counted on the shipped text."""
        for name, p in (("p503", 2**250 * 3**159 - 1), ("p751", 2**372 * 3**239 - 1)):
            n = (p.bit_length() + 63) // 64
            limbs = [((p + 1) >> (64 * i)) & (2**64 - 1) for i in range(n)]
            red = n * sum(1 for x in limbs if x)
            with open(os.path.join(REPO, "generated", name, "fg_%s_x86_64.S" % name)) as f:
                text = f.read()
            got = kernel_cost.costs(type("F", (), {"name": name})(), text)
            self.assertEqual(got[("mul", "adx")][0], n * n + red, name)
            self.assertEqual(got[("sqr", "adx")][0], n * (n + 1) // 2 + red, name)
            self.assertEqual(got[("redc", "adx")][0], red, name)
            self.assertEqual(got[("mul_wide", "adx")][0], n * n, name)
            # the adx Fp2 kernels: three wide products and two reductions
            # (mul), two fused products (sqr)
            count = lambda op: kernel_cost.count(text, "fg_%s_fp2_%s_adx" % (name, op), kernel_cost.MULTS)
            self.assertEqual(count("mul"), 3 * n * n + 2 * red, name)
            self.assertEqual(count("sqr"), 2 * (n * n + red), name)

if __name__ == "__main__":
    unittest.main()
