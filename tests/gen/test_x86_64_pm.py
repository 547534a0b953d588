# SPDX-License-Identifier: MIT OR Apache-2.0
"""The pseudo-Mersenne kernels' Zen form (gen/fg/targets/x86_64/pm.py ZEN_FORMS):
which ops have one, what differs (the squares' order, the all-ones test by
CMOV), and what the dispatcher runs.  The kernels' results are checked
against GMP by the diff/sweep suites (p25519 and pm250 at adx.zen).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_x86_64_pm
"""

import os
import re
import sys
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg.targets.x86_64 import pm as x86_64_pm  # noqa: E402
# a kernel's text up to its ret; a field's analysis from fields.toml, from extra_fields.toml
from gen.test_x86_64_mont import body, shipped_analysis, extra  # noqa: E402


class TestZenForm(unittest.TestCase):
    def setUp(self):
        self.fa = shipped_analysis("p25519")
        self.text = x86_64_pm.emit_pseudo_mersenne(self.fa)

    def test_only_the_squaring(self):
        """The squarings, canonical and lazy (the same product order)."""
        self.assertEqual(self.fa.zen_forms, ["sqr", "sqr_lazy"])
        names = re.findall(r"^(fg_p25519_\w+_adx_zen):$", self.text, re.M)
        self.assertEqual(names, ["fg_p25519_sqr_adx_zen", "fg_p25519_sqr_lazy_adx_zen"])
        zen, adx = x86_64_pm.kernel_choice_zen(self.fa)
        self.assertEqual(zen, {("sqr", "adx"): "adx_zen", ("sqr_lazy", "adx"): "adx_zen"})

    def test_lazy_kernels_stop_before_the_select(self):
        """mul_lazy and sqr_lazy at every level: the canonical kernel's
        products, no CMOV (the select), and no more instructions."""
        for level in x86_64_pm.LEVELS:
            for op in ("mul", "sqr"):
                can = body(self.text, "fg_p25519_%s_%s" % (op, level))
                lazy = body(self.text, "fg_p25519_%s_lazy_%s" % (op, level))
                mulx = lambda b: len(re.findall(r"^\t(mulx|mul)q ", b, re.M))
                self.assertEqual(mulx(can), mulx(lazy), (op, level))
                self.assertGreater(len(re.findall(r"^\tcmov", can, re.M)), 0)
                self.assertEqual(len(re.findall(r"^\tcmov", lazy, re.M)), 0, (op, level))
                self.assertLess(lazy.count("\n"), can.count("\n"), (op, level))

    def test_a3_squared_after_words_4_and_5(self):
        """The same products; in the Zen form two ADCX/ADOX pairs (words 4
        and 5 of the doubling pass) stand between the a2^2 and a3^2 MULX."""
        gen = body(self.text, "fg_p25519_sqr_adx")
        zen = body(self.text, "fg_p25519_sqr_adx_zen")
        mulx = lambda b: sorted(line for line in b.split("\n") if line.startswith("\tmulxq"))
        self.assertEqual(mulx(gen), mulx(zen))
        for b, between in ((gen, 0), (zen, 4)):
            lines = [line for line in b.split("\n") if line.startswith("\t")]
            sq = [i for i, line in enumerate(lines) if re.match(r"^\tmulxq %rdx, ", line)]
            self.assertEqual(len(sq), 4)                 # a0^2 .. a3^2
            a2, a3 = sq[2], sq[3]
            carries = [line for line in lines[a2 + 1:a3] if re.match(r"^\tado?c?xq ", line)]
            self.assertEqual(len(carries), between)

    def test_all_ones_test_by_cmov(self):
        """The select's all-ones test: SBB and AND in the adx kernel, a CMOVC
        in the Zen form (its squaring's throughput)."""
        gen = body(self.text, "fg_p25519_sqr_adx")
        zen = body(self.text, "fg_p25519_sqr_adx_zen")
        count = lambda b, ins: len(re.findall(r"^\t%s " % ins, b, re.M))
        self.assertEqual(count(gen, "sbbq"), 1)
        self.assertEqual(count(zen, "sbbq"), 0)
        self.assertEqual(count(zen, "cmovc"), count(gen, "cmovc") + 1)

    def test_no_zen_form_where_the_order_is_the_same(self):
        """Above 4 limbs the squaring streams through memory: no Zen form."""
        fa = extra("pm1021")
        x86_64_pm.emit_pseudo_mersenne(fa)
        self.assertEqual(fa.zen_forms, [])
        self.assertEqual(x86_64_pm.kernel_choice_zen(fa), ({}, {}))


if __name__ == "__main__":
    unittest.main()
