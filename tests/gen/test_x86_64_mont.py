# SPDX-License-Identifier: MIT OR Apache-2.0
"""The Montgomery kernel builder's Zen choices (gen/fg/targets/x86_64/mont.py): the
zero-register choice (Kernel.zero_mem and _build): how a kernel without a
zero register clears the flags and adds zero words, what it counts, and which
shipped kernels take it; and the shift rows below 5 limbs (ZEN_SHIFT_ROWS):
which kernels multiply by 2^k limbs without MULX.  The kernels' results are
checked against GMP by the diff/sweep suites (p751's fused mul at adx.zen,
p610's and r702's among the extra fields; p256's and s256's mul and sqr).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_x86_64_mont
"""

import os
import re
import sys
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg import analysis, spec  # noqa: E402
from fg.targets import x86_64  # noqa: E402
from fg.targets.x86_64 import mont as x86_64_mont  # noqa: E402
from fg.targets.x86_64.mont import Kernel, ADCX, MOV, TEST, XOR  # noqa: E402
from peachpy.x86_64.registers import rsp  # noqa: E402
from peachpy.x86_64.operand import MemoryOperand  # noqa: E402


def kernel(zero_mem):
    return Kernel("adx", x86_64_mont._tables("t"), tune="zen", zero_mem=zero_mem)


def shipped_analysis(name):
    """A fresh x86-64 kernel set (what the backends take) of a shipped field of fields.toml."""
    fields = spec.load(os.path.join(REPO, "fields.toml"))
    return x86_64.Kernels(analysis.analyze(next(f for f in fields if f.name == name)))


def shipped(name):
    """The GAS text of a shipped field's Montgomery kernels, as generated."""
    return x86_64_mont.emit_montgomery(shipped_analysis(name))


def extra(name):
    """A fresh x86-64 kernel set of an extra prime of tests/extra_fields.toml."""
    fields = spec.load(os.path.join(TESTS, "extra_fields.toml"))
    return x86_64.Kernels(analysis.analyze(next(f for f in fields if f.name == name)))


def body(text, symbol):
    lines = text.split("\n")
    i = lines.index(symbol + ":")
    out = []
    for line in lines[i + 1:]:
        out.append(line)
        if line.strip() == "ret":
            return "\n".join(out)
    raise AssertionError(symbol)


class TestZeroMem(unittest.TestCase):
    def test_register_zero_by_default(self):
        k = kernel(False)
        reg = k.zero
        k.clear_flags()
        self.assertEqual(k.code[-1], (XOR, (reg, reg)))
        self.assertEqual(k.zero_reads, 0)
        self.assertNotIn(reg, k.free)            # the register holds zero for the whole kernel

    def test_flags_cleared_by_a_free_register(self):
        k = kernel(True)
        free = list(k.free)
        k.clear_flags()
        ins, ops = k.code[-1]
        self.assertIs(ins, XOR)
        self.assertEqual(ops[0], ops[1])
        self.assertIn(ops[0], free)              # a register with no value in it

    def test_flags_cleared_by_test_when_every_register_is_taken(self):
        k = kernel(True)
        vals = [k.new() for _ in range(len(k.free))]
        self.assertEqual(k.free, [])
        k.clear_flags()
        self.assertEqual(k.code[-1], (TEST, (rsp, rsp)))
        for v in vals:
            k.kill(v)

    def test_zero_is_a_constant_and_counted(self):
        k = kernel(True)
        n_free = len(k.free)
        self.assertEqual(n_free, len(kernel(False).free) + 1)   # one register more for values
        z = k.zero
        self.assertIsInstance(z, MemoryOperand)
        v = k.new()
        k.emit(ADCX, v.reg, k.zero)
        self.assertEqual(k.zero_reads, 2)
        k.kill(v)


class TestReadOnlySlots(unittest.TestCase):
    def test_a_pointer_spilled_twice_is_stored_once(self):
        k = kernel(True)
        ap = k.bind(x86_64_mont.rsi, x86_64_mont.PRIO_ROW_PTR, "a")
        self.assertTrue(ap.ro)
        for _ in range(3):                       # spill, reload, three times
            k.to_memory(ap)
            k.r(ap)
            k.unlock()
        self.assertEqual(k.stack_moves(), 4)     # one store, three loads
        self.assertEqual(k.nslots, 1)
        k.kill(ap)

    def test_a_value_spilled_twice_is_stored_twice(self):
        k = kernel(True)
        v = k.new()
        k.emit(MOV, v.reg, 7)
        k.unlock()
        self.assertFalse(v.ro)
        for _ in range(2):
            k.to_memory(v)
            k.r(v)                               # the register is now its only copy
            k.unlock()
        k.emit(MOV, v.reg, k.const("q", 0))      # a constant is not the stack
        self.assertEqual(k.stack_moves(), 4)     # two stores, two loads
        k.kill(v)


def based(o, reg):
    """Whether operand o is a memory operand addressed from reg."""
    return isinstance(o, MemoryOperand) and getattr(o.address, "base", None) is reg


def tail_setup(field, early_park=False):
    """A kernel at the start of a final subtraction: the output pointer in rdi
    and the field's n reduced words in registers; (k, shape, rp, words)."""
    k = kernel(False)
    k.early_park = early_park
    sh = x86_64_mont._Shape(shipped_analysis(field))
    rp = k.bind(x86_64_mont.rdi, x86_64_mont.PRIO_OUTPTR, "out")
    words = []
    for _ in range(sh.n):
        w = k.new()
        k.emit(MOV, w.reg, 1)
        k.unlock()
        words.append(w)
    return k, sh, rp, words


class TestTailKeepsOutputPointer(unittest.TestCase):
    """_final_sub's tails: the output pointer is not the spill victim, the
    squarings park their lowest originals early, a middle tail short of
    registers stores first."""

    def test_tail_short_of_registers_spills_a_word(self):
        k, sh, rp, words = tail_setup("p503")    # the reduced words, all in registers
        self.assertLess(len(k.free), sh.n)       # too few registers for the n copies
        start = len(k.code)
        x86_64_mont._final_sub(k, sh, words, None, rp)
        tail = k.code[start:]
        spilled = [ops[1] for ins, ops in tail if ins is MOV and based(ops[0], rsp)]
        self.assertTrue(spilled)                 # the tail did spill ...
        self.assertNotIn(x86_64_mont.rdi, spilled)   # ... words, not the pointer
        stores = [ops[0] for ins, ops in tail if ins is MOV and based(ops[0], x86_64_mont.rdi)]
        self.assertEqual(len(stores), sh.n)      # every store through rdi itself

    def test_early_park_stores_the_lowest_originals(self):
        """k.early_park (the squarings): the originals of the lowest words go
        to the stack as they are copied, and the tail reloads nothing."""
        for early in (False, True):
            k, sh, rp, words = tail_setup("p503", early)
            regs = [w.reg for w in words]
            short = sh.n - len(k.free)
            self.assertGreater(short, 0)
            start = len(k.code)
            x86_64_mont._final_sub(k, sh, words, None, rp)
            tail = k.code[start:]
            stores = [(i, ops[1]) for i, (ins, ops) in enumerate(tail) if ins is MOV and based(ops[0], rsp)]
            loads = [ops for ins, ops in tail if ins is MOV and based(ops[1], rsp)]
            subs = [i for i, (ins, ops) in enumerate(tail) if ins in (x86_64_mont.SUB, x86_64_mont.SBB)]
            if early:
                self.assertEqual([r for _, r in stores], regs[:short])
                # each stored before the chain reaches the next word
                for j, (i, _) in enumerate(stores):
                    self.assertLess(i, subs[j])
                self.assertEqual(loads, [])
            else:
                self.assertNotEqual([r for _, r in stores], regs[:short])

    def test_shipped_squarings_park_early(self):
        text = shipped("p503")
        for fn in ("fg_p503_sqr_adx_zen", "fg_p503_sqr_bmi2"):
            b = body(text, fn)
            tail = b[b.rindex("mulxq"):]
            cm = re.findall(r"^\tcmovc (\S+), %\w+$", tail, re.M)
            self.assertEqual(len(cm), 8, fn)
            from_stack = [i for i, o in enumerate(cm) if o.endswith("(%rsp)")]
            self.assertTrue(from_stack, fn)
            self.assertEqual(from_stack, list(range(len(from_stack))), fn)   # the lowest words

    def test_priority_is_the_tails_alone(self):
        """After the tail the pointer ranks as before it: rows that follow a
        tail (the Fp2 mul's T2 after c0's reduction) may spill it again."""
        k, sh, rp, words = tail_setup("p503")
        x86_64_mont._final_sub(k, sh, words, None, rp)
        self.assertEqual(rp.prio, x86_64_mont.PRIO_OUTPTR)
        self.assertIn(rp, k.live)                # still there for what follows

    def test_mid_tail_short_of_registers_stores_first(self):
        """Rows follow and the copies would spill: Uh is stored, p subtracted
        in place, the stored words taken back by CMOVC from the output."""
        k, sh, rp, words = tail_setup("p503")
        self.assertLess(len(k.free), sh.n)
        start = len(k.code)
        x86_64_mont._final_sub(k, sh, words, None, rp, last=False)
        tail = k.code[start:]
        to_stack = [ins for ins, ops in tail if any(based(o, rsp) for o in ops)]
        self.assertEqual(to_stack, [])           # no spill, no reload
        stores = [ops for ins, ops in tail if ins is MOV and isinstance(ops[0], MemoryOperand)]
        self.assertEqual(len(stores), 16)        # stored, then stored again
        back = [ops for ins, ops in tail if ins is x86_64_mont.CMOVC and based(ops[1], x86_64_mont.rdi)]
        self.assertEqual(len(back), 8)

    def test_mid_tail_with_registers_copies(self):
        """Where the copies fit, the tail copies (no store before the select)."""
        k, sh, rp, words = tail_setup("p256")
        self.assertGreaterEqual(len(k.free), sh.n)
        start = len(k.code)
        x86_64_mont._final_sub(k, sh, words, None, rp, last=False)
        tail = k.code[start:]
        stores = [ops for ins, ops in tail if ins is MOV and isinstance(ops[0], MemoryOperand)]
        self.assertEqual(len(stores), sh.n)

    def test_shipped_p503_fp2_square_first_tail(self):
        b = body(shipped("p503"), "fg_p503_fp2_sqr_adx_zen")
        # r1's tail takes its words back from r1 (stored first), not from the stack
        back = re.findall(r"^\tcmovc \d+\(%(\w+)\), %\w+$", b, re.M)
        self.assertGreaterEqual(len([r for r in back if r != "rsp"]), 8)

    def test_shipped_p503_kernels(self):
        text = shipped("p503")
        for fn in ("fg_p503_mul_adx_zen", "fg_p503_mul_bmi2", "fg_p503_redc_adx"):
            b = body(text, fn)
            self.assertNotRegex(b, r"movq %rdi, \d+\(%rsp\)", fn)
            self.assertEqual(len(re.findall(r"movq %\w+, \d+\(%rdi\)", b)), 8, fn)


class TestShippedChoice(unittest.TestCase):
    def test_p751_mul_zen_reads_the_constant(self):
        text = shipped("p751")
        self.assertIn("FG_P751_MONT_Z:", text)
        readers = set()
        for sym in re.findall(r"^(fg_p751_\w+):$", text, re.M):
            if "FG_P751_MONT_Z" in body(text, sym):
                readers.add(sym)
        # the lazy mul is the same kernel without its final subtraction
        self.assertEqual(readers, {"fg_p751_mul_adx_zen", "fg_p751_mul_lazy_adx_zen"})
        mul = body(text, "fg_p751_mul_adx_zen")
        self.assertNotIn("testq", mul)          # a free register clears the flags in every row
        # each of the 24 rows ends by adding a carry into its top word from the constant
        reads = re.findall(r"^\tado?c?xq FG_P751_MONT_Z\+0\(%rip\), %\w+$", mul, re.M)
        self.assertGreaterEqual(len(reads), 24)

    def test_p503_keeps_the_zero_register(self):
        text = shipped("p503")
        self.assertNotIn("MONT_Z", text)


def mulx_sources(text):
    """The memory operands MULX reads in a kernel's text (constants and inputs)."""
    return re.findall(r"^\tmulxq ([^,]+\)), ", text, re.M)


class TestShiftRows(unittest.TestCase):
    """Below 5 limbs the Zen forms of a prime with 2^k limbs in Q = p + 1
    (x86_64_mont.ZEN_SHIFT_ROWS): the mul's and sqr's reduction rows multiply
    by shifts (and p256's 2^64 - 2^32 + 1 limb by a SUB and an SBB), where the
    generic adx kernels multiply by MULX after the first row."""

    def test_p256_x86_64_reduction_has_no_mul(self):
        """NEGQ_KERNELS: the x86_64 mul, sqr and redc reduce by p + 1's limbs
        2^32 and 2^64 - 2^32 + 1 with shifts and a SUB/SBB pair, no MUL."""
        text = shipped("p256")
        for op, products in (("mul", 16), ("sqr", 10), ("redc", 0)):
            with self.subTest(op=op):
                b = body(text, "fg_p256_%s_x86_64" % op)
                self.assertEqual(len(re.findall(r"^\tmulq ", b, re.M)), products)
                self.assertNotIn("FG_P256_MONT_Q", b)

    def test_p256_zen_reduction_has_no_mulx(self):
        text = shipped("p256")
        for op, products in (("mul", 16), ("sqr", 10)):
            with self.subTest(op=op):
                zen, adx = body(text, "fg_p256_%s_adx_zen" % op), body(text, "fg_p256_%s_adx" % op)
                self.assertEqual(len(re.findall(r"^\tmulxq ", zen, re.M)), products)
                self.assertFalse([m for m in mulx_sources(zen) if "FG_P256_MONT" in m])
                # the generic form: MULX by 2^32 (table s) in rows 2..4, by p + 1's top limb in all four
                consts = [m for m in mulx_sources(adx) if "FG_P256_MONT" in m]
                self.assertEqual(sorted(set(consts)), ["FG_P256_MONT_Q+24(%rip)", "FG_P256_MONT_S+8(%rip)"])
                self.assertEqual(len(consts), 7)
                # four rows of two shifts and one SUB/SBB pair for the 2^64 - 2^32 + 1 limb
                self.assertEqual(len(re.findall(r"^\tshlq \$32, ", zen, re.M)), 4)
                self.assertEqual(len(re.findall(r"^\tshrq \$32, ", zen, re.M)), 4)
                self.assertEqual(len(re.findall(r"^\tsubq %", zen, re.M)), 4)
        self.assertNotIn("fg_p256_redc_adx_zen:", text)   # measured slower in throughput: MULX rows
        self.assertNotIn("fg_p256_mul_wide_adx_zen:", text)

    def test_a_2k_limb_alone_is_shifted(self):
        # p + 1 = [0, 2^17, 0, c]: the 2^17 limb by shifts in every row, c by MULX
        fa = extra("s256")
        text = x86_64_mont.emit_montgomery(fa)
        self.assertEqual(fa.zen_forms, ["mul", "sqr"])
        zen = body(text, "fg_s256_mul_adx_zen")
        consts = [m for m in mulx_sources(zen) if "FG_S256_MONT" in m]
        self.assertEqual(consts, ["FG_S256_MONT_Q+24(%rip)"] * 4)
        self.assertEqual(len(re.findall(r"^\tshlq \$17, ", zen, re.M)), 4)

    def test_no_zen_form_without_2k_limbs(self):
        # 4 limbs, p + 1 without a 2^k limb: the adx kernels are the Zen ones
        self.assertNotIn("_adx_zen:", x86_64_mont.emit_montgomery(extra("bls12_381_r")))



class TestSerialFinal(unittest.TestCase):
    """Kernel.serial_final: the x86_64 level's mul, and its squaring from 2
    limbs, end with the serial add, subtract and CMOVC select; the MULX
    levels and the one-limb squaring form Uh + Th and Uh + Th - p side by
    side and select by CMOVS (_final_pair)."""

    def selects(self, text, symbol):
        b = body(text, symbol)
        return (len(re.findall(r"^\tcmovc ", b, re.M)), len(re.findall(r"^\tcmovs ", b, re.M)))

    def test_p256(self):
        text = shipped("p256")
        for op in ("mul", "sqr"):
            with self.subTest(op=op):
                self.assertEqual(self.selects(text, "fg_p256_%s_x86_64" % op), (4, 0))
                self.assertEqual(self.selects(text, "fg_p256_%s_bmi2" % op), (0, 4))

    def test_one_limb_squaring_keeps_the_pair(self):
        text = x86_64_mont.emit_montgomery(extra("gold64"))
        self.assertEqual(self.selects(text, "fg_gold64_sqr_x86_64"), (0, 1))
        self.assertEqual(self.selects(text, "fg_gold64_mul_x86_64"), (1, 0))


class TestTwoDigitReduction(unittest.TestCase):
    """_redc_rows at 2 to 4 limbs of a generic m0inv takes two multipliers at
    once (_row_m2): m = (u0 + u1 2^64) (-p^-1) mod 2^128 from the two words
    before either row. Replayed on integers here (m_hi must be the multiplier
    the second word-by-word row would compute after the first); the kernels
    themselves are checked against GMP by the diff suites of the extra primes
    of 2 to 4 limbs (r130, p224, bls12_381_r, r254, r250)."""

    def test_multipliers_match_word_by_word(self):
        import random
        rng = random.Random(41)
        M = (1 << 64) - 1
        for name in ("r130", "p224", "bls12_381_r", "r254", "r250"):
            p = extra(name).p
            n0 = (-pow(p, -1, 1 << 64)) & M
            n1 = ((-pow(p, -1, 1 << 128)) % (1 << 128)) >> 64
            for u0, u1 in [(0, 0), (M, M), (1, 0), (0, 1)] + [
                    (rng.getrandbits(64), rng.getrandbits(64)) for _ in range(200)]:
                m_lo = u0 * n0 & M
                m_hi = ((u0 * n0) >> 64) + u0 * n1 + u1 * n0 & M
                # the word-by-word second multiplier, after row m_lo
                w1 = ((u0 + (u1 << 64) + m_lo * p) >> 64) & M
                self.assertEqual(m_hi, w1 * n0 & M, name)
                # and both rows clear the low 128 bits
                self.assertEqual((u0 + (u1 << 64) + (m_lo + (m_hi << 64)) * p) % (1 << 128), 0)

    def test_which_kernels_take_it(self):
        # one MULX by n0 of the first word and an IMUL of the second per two rows,
        # at bmi2 and adx, 2 to 4 limbs of a generic m0inv; never at 5 limbs
        # (r320) nor where m0inv = 1 (p256, p503: no multiplier at all)
        for name, n, steps in (("r130", 3, 1), ("bls12_381_r", 4, 2), ("r320", 5, 0)):
            text = x86_64_mont.emit_montgomery(extra(name))
            for level in ("bmi2", "adx"):
                with self.subTest(field=name, level=level):
                    redc = body(text, "fg_%s_redc_%s" % (name, level))
                    self.assertEqual(len(re.findall(r"^\timulq [^,]+, %rdx$", redc, re.M)),
                                     steps + (n - 2 * steps))
                    # rdx = n0, then MULX of the first word (a step) or IMUL (one row)
                    self.assertEqual(len(re.findall(r"^\tmovq \$\d+, %rdx\n\tmulxq ", redc, re.M)), steps)
        for name in ("p256", "p503"):
            self.assertNotIn("imulq", body(shipped(name), "fg_%s_redc_adx" % name))


class TestHalfR(unittest.TestCase):
    """_build_fp2_sqr forms r1 = 2 a0 a1 / R as a0 a1 / (R/2) where _half_r
    allows (m0inv = 1): the fused rows of a0 * a1, the last reduction row's
    multiplier taken mod 2^63, and r = 2H + b with b the bit that row leaves
    at 2^(64n-1). Replayed on integers here, at the operand bound the kernel
    is built for (2p - 1) and at random operands; the kernels are checked
    against GMP by the fp2 suites (p503, p751; p434, p610, m521, sidh928 and
    sidh996 among the extra fields)."""

    NAMES = ("p434", "p610", "m521", "sidh928", "sidh996")

    def primes(self):
        return [(name, shipped_analysis(name).p) for name in ("p503", "p751")] + \
            [(name, extra(name).p) for name in self.NAMES]

    def test_replay_on_integers(self):
        import random
        rng = random.Random(43)
        M = (1 << 64) - 1
        for name, p in self.primes():
            n = (p.bit_length() + 63) // 64
            self.assertEqual(p & M, M, name)                 # m0inv = 1: m is the word itself
            R = 1 << (64 * n)
            top = 2 * p - 1
            cases = [(0, 0), (1, 1), (p - 1, p - 1), (top, top), (top, 1), (1 << 63, p - 1)]
            cases += [(rng.randrange(p), rng.randrange(p)) for _ in range(300)]
            for a0, a1 in cases:
                T = a0 * a1
                for i in range(n):
                    m = (T >> (64 * i)) & M
                    if i == n - 1:
                        m &= (1 << 63) - 1                    # BTR $63
                    T += m * p << (64 * i)
                h = 64 * n - 1
                self.assertEqual(T % (1 << h), 0, name)
                H, b = T >> (64 * n), (T >> h) & 1
                r = 2 * H + b                                # BT $63, then H + H + CF
                self.assertEqual(r, T >> h)
                self.assertLess(r, 2 * p, (name, a0, a1))   # one conditional subtraction
                self.assertEqual(r % p, 2 * a0 * a1 * pow(R, -1, p) % p, (name, a0, a1))

    def test_which_kernels_take_it(self):
        sh = x86_64_mont._Shape
        for name in ("p503", "p751"):
            fa = shipped_analysis(name)
            for level in ("bmi2", "adx"):
                fused = x86_64_mont._fused_mul(sh(fa), level) and not x86_64_mont._kara(sh(fa), "mul", level)
                self.assertEqual(x86_64_mont._half_r(sh(fa), level, 2 * fa.p - 1), fused, (name, level))
        text = shipped("p503")
        for symbol in ("fg_p503_fp2_sqr_bmi2", "fg_p503_fp2_sqr_adx", "fg_p503_fp2_sqr_adx_zen"):
            with self.subTest(kernel=symbol):
                k = body(text, symbol)
                self.assertEqual(len(re.findall(r"^\tbtrq \$63, %rdx$", k, re.M)), 1)
                self.assertEqual(len(re.findall(r"^\tbtq \$63, ", k, re.M)), 1)
        # not where m0inv != 1 (r254: the multiplier is an IMUL), nor with 2^k limbs (s256)
        for name in ("r254", "s256"):
            fa = extra(name)
            for level in ("bmi2", "adx"):
                self.assertFalse(x86_64_mont._half_r(sh(fa), level, 2 * fa.p - 1), (name, level))

    def test_stc_difference_in_the_zen_forms(self):
        # d = a0 - a1 + p as (a0 - a1 - 1) + (p + 1): STC, then additions from
        # p + 1's first nonzero limb (3 for p503) on; the generic kernels keep
        # the SUB and the n additions of p
        text = shipped("p503")
        zen = body(text, "fg_p503_fp2_sqr_adx_zen")
        self.assertEqual(zen.count("\tstc\n"), 1)
        self.assertRegex(zen, r"\tstc\n\tmovq 0\(%rsi\), %\w+\n\tsbbq 64\(%rsi\)")
        self.assertIn("FG_P503_MONT_Q+24(%rip)", zen.split("\tstc\n")[1].split("mulxq")[0])
        for symbol in ("fg_p503_fp2_sqr_adx", "fg_p503_fp2_sqr_bmi2"):
            self.assertNotIn("\tstc\n", body(text, symbol))

    def test_bound(self):
        # r < 2p needs spare bits: p503 (9) and 2^127 - 1 at its own bound p - 1
        # pass, 2^127 - 1 at 2p - 1 (sums of canonical elements) does not
        p = shipped_analysis("p503").p
        self.assertTrue(x86_64_mont._half_r_fits(p, 8, 2 * p - 1))
        m127 = (1 << 127) - 1
        self.assertTrue(x86_64_mont._half_r_fits(m127, 2, m127 - 1))
        self.assertFalse(x86_64_mont._half_r_fits(m127, 2, 2 * m127 - 1))

if __name__ == "__main__":
    unittest.main()
