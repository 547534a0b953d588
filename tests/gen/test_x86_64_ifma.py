# SPDX-License-Identifier: MIT OR Apache-2.0
"""The AVX-512 IFMA Fp2 mul and sqr emitter (gen/fg/targets/x86_64/ifma.py): which fields
it accepts, deterministic self-contained text, straight-line shape, and (when the
CPU has AVX512-IFMA/VBMI and a C compiler is found) the generated functions run
through ctypes against Python integers, for fields of 1, 3, 5, 6, 7, 8, 12 and 16
limbs, with aliasing and with every operand against an inaccessible page.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_x86_64_ifma
"""

import ctypes
import functools
import mmap
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg import analysis, spec  # noqa: E402
from fg.targets.x86_64 import ifma as x86_64_ifma  # noqa: E402

FIELDS = {
    "p503": "2^250 * 3^159 - 1",        # 8 limbs, 10 digits, K = 4
    "p751": "2^372 * 3^239 - 1",        # 12 limbs, 15 digits, K = 7
    "p434": "2^216 * 3^137 - 1",        # 7 limbs
    "t57": "2^55 * 3 - 1",              # 1 limb, K = 1
    "t996": "2^522 * 3^299 - 1",        # 16 limbs, 20 digits, K = 10
    "t3": "2^71 * 3^72 - 1",            # 3 limbs
    "t5": "2^178 * 3^87 - 1",           # 5 limbs
    "t6": "2^191 * 3^117 - 1",          # 6 limbs
}

# a masked load or store of r, a or b (rdi, rsi, rdx) in AT&T syntax
MASKED_OPERAND = re.compile(r"\d+\(%r(di|si|dx)\)\{%k|\{%k\d\}(\{z\})?, \d*\(%r(di|si|dx)\)|"
                            r"\d+\(%r(di|si|dx)\), %zmm\d+\{%k")


def _fa(name, modulus, nr=-1):
    """A fresh x86-64 kernel set of the field (nothing built yet): what the
    backends take, reading through to the frozen model."""
    from fg.targets import x86_64
    ext = "" if nr is None else "extension = { degree = 2, non_residue = %d }\n" % nr
    text = '[%s]\nmodulus = "%s"\nbyte_order = "little"\n%s' % (name, modulus, ext)
    return x86_64.Kernels(analysis.analyze(spec.loads(text)[0]))


def sel(ks, op):
    """The dispatch plan's branches of op at the x86-64 target (gen/fg/dispatch.py)."""
    from fg import dispatch
    from fg.targets import x86_64
    return dispatch.build([(x86_64, ks)]).sel("x86_64", op)


def sel_bit(level, tune):
    from fg import dispatch
    from fg.targets import x86_64
    return dispatch.sel_bit(x86_64, level, tune)


@functools.lru_cache(maxsize=None)
def _planned(name, modulus, nr=-1):
    """The field analysed and its kernels generated as gen/fieldgen does
    (targets.x86_64.plan: its kernel set), once per module run: the tests only
    read the result, and generating the 12- to 16-limb fields is most of this
    suite's time."""
    from fg.targets import x86_64
    return x86_64.plan(_fa(name, modulus, nr).model)


def _cpu_has_ifma():
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(re.search(r"^flags\s*:(.*)$", f.read(), re.M).group(1).split())
    except (OSError, AttributeError):
        return False
    return {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512ifma", "avx512vbmi"} <= flags


class Supported(unittest.TestCase):
    def test_accepts(self):
        for name, mod in FIELDS.items():
            self.assertTrue(x86_64_ifma.supported(_fa(name, mod)), name)
            self.assertTrue(x86_64_ifma.supported_sqr(_fa(name, mod)), name)
        self.assertTrue(x86_64_ifma.supported(_fa("m521", "2^521 - 1")))
        self.assertTrue(x86_64_ifma.supported_sqr(_fa("m521", "2^521 - 1")))

    def test_rejects(self):
        self.assertFalse(x86_64_ifma.supported(_fa("p503", FIELDS["p503"], nr=None)))   # no Fp2
        self.assertFalse(x86_64_ifma.supported(_fa("q", "2^250 * 3^159 - 1", nr=-3)))   # u^2 != -1
        self.assertFalse(x86_64_ifma.supported(_fa("p384", "2^384 - 2^128 - 2^96 + 2^32 - 1")))
        self.assertFalse(x86_64_ifma.supported(_fa("m61", "2^61 - 1")))                 # pseudo-Mersenne
        self.assertFalse(x86_64_ifma.supported(_fa("b1024", "2^399 * 3^394 - 1")))     # Z < 2p fails
        self.assertFalse(x86_64_ifma.supported_sqr(_fa("b1024", "2^399 * 3^394 - 1")))
        self.assertFalse(x86_64_ifma.supported_sqr(_fa("q", "2^250 * 3^159 - 1", nr=-3)))
        # 1023 bits in 16 limbs: the mul's bound holds, the sqr's (T < 4p^2) does not
        # the Fp mul needs no extension, but the shape of p + 1
        self.assertTrue(x86_64_ifma.supported_mul(_fa("p503", FIELDS["p503"], nr=None)))
        self.assertFalse(x86_64_ifma.supported_mul(_fa("p384", "2^384 - 2^128 - 2^96 + 2^32 - 1", nr=None)))
        b1023 = _fa("b1023", "2^76 * 3^597 - 1")
        self.assertTrue(x86_64_ifma.supported(b1023))
        self.assertFalse(x86_64_ifma.supported_sqr(b1023))


class Choose(unittest.TestCase):
    """The cost model picks the IFMA kernels where they measured faster (the
    table in x86_64_ifma, above RATIO) and the scalar path elsewhere."""

    def choice(self, name, modulus):
        # the generator's own path (targets.x86_64.plan: its kernels() calls
        # x86_64.ifma.choose on the scalar kernels), shared with ZenChoice
        fa = _planned(name, modulus)
        text = cli_text(fa)
        self.assertEqual("fg_%s_fp2_mul_ifma:" % name in text, fa.fp2_ifma)
        self.assertEqual("fg_%s_fp2_sqr_ifma:" % name in text, fa.fp2_ifma_sqr)
        return fa.fp2_ifma, fa.fp2_ifma_sqr

    def test_measured_choices(self):
        self.assertEqual(self.choice("p751", FIELDS["p751"]), (True, True))      # 0.61x, 0.76x
        self.assertEqual(self.choice("p503", FIELDS["p503"]), (True, False))     # 0.85x, a tie
        self.assertEqual(self.choice("p434", FIELDS["p434"]), (False, False))    # 1.14x, 1.39x
        self.assertEqual(self.choice("m521", "2^521 - 1"), (False, False))       # 1.06x, 1.41x
        self.assertEqual(self.choice("t996", FIELDS["t996"]), (True, True))      # 0.58x, 0.63x

    def test_no_extension_no_kernel(self):
        from fg.targets.x86_64 import mont as x86_64_mont
        fa = _fa("p503", FIELDS["p503"], nr=None)
        from fg.targets import x86_64
        x86_64.choose_levels(fa, x86_64_mont.kernel_choice(fa))
        self.assertEqual(x86_64_ifma.choose(fa, x86_64_mont.emit_montgomery(fa)), (False, False, ""))


class Text(unittest.TestCase):
    def assert_straight_line(self, text, symbol):
        """The function's body (from its ELF label on): it ends in vzeroupper,
        ret and has no jump or call."""
        body = text[text.index("\n%s:" % symbol):]
        instrs = [ln.split()[0] for ln in body.splitlines()[1:]
                  if ln.startswith("\t") and not ln.startswith("\t.")]
        self.assertEqual(instrs[-2:], ["vzeroupper", "ret"])
        self.assertFalse([i for i in instrs if i.startswith("j") or i.startswith("call")])
        return body

    def test_deterministic_and_shape(self):
        fa = _fa("p751", FIELDS["p751"])
        a, b = x86_64_ifma.emit_fp2_mul(fa), x86_64_ifma.emit_fp2_mul(fa)
        self.assertEqual(a, b)
        self.assertIn("#define FG_P751_IFMA_C .Lfg_p751_ifma_c", a)
        self.assertIn("#define FG_P751_IFMA_C Lfg_p751_ifma_c", a)
        self.assertLess(a.index(".section .rodata"), a.index("\n.text\n"))
        self.assertLess(a.index("\n.text\n"), a.index("\nfg_p751_fp2_mul_ifma:"))
        self.assert_straight_line(a, "fg_p751_fp2_mul_ifma")
        # every {1to8} broadcast is printed as such (PeachPy 0.2.0 dropped it)
        self.assertIn("(%rsp){1to8}", a)

    def test_no_masked_operand_access(self):
        # PAGE_SAFE_TAIL: no load or store of r, a or b is masked, whatever the
        # limb count (on the Zen 4 a masked access whose masked-off lanes reach
        # the next page cost ~500 TSC ticks); with the switch off the partial
        # vectors are masked again (the pattern finds them)
        masked = MASKED_OPERAND
        for name in ("p751", "t996", "t57", "p434", "t3", "t5", "t6"):
            fa = _fa(name, FIELDS[name])
            for text in (x86_64_ifma.emit_fp2_mul(fa), x86_64_ifma.emit_fp2_sqr(fa), x86_64_ifma.emit_mul(fa)):
                self.assertIsNone(masked.search(text), name)
        old = x86_64_ifma.PAGE_SAFE_TAIL
        try:
            x86_64_ifma.PAGE_SAFE_TAIL = False
            for name in ("p434", "p751"):
                self.assertIsNotNone(masked.search(x86_64_ifma.emit_fp2_mul(_fa(name, FIELDS[name]))), name)
        finally:
            x86_64_ifma.PAGE_SAFE_TAIL = old

    def test_sqr_text(self):
        fa = _fa("p751", FIELDS["p751"])
        a, b = x86_64_ifma.emit_fp2_sqr(fa), x86_64_ifma.emit_fp2_sqr(fa)
        self.assertEqual(a, b)
        # own table labels: the mul's and the sqr's text go into one .S
        self.assertIn("#define FG_P751_IFMAS_C .Lfg_p751_ifmas_c", a)
        self.assertNotIn("FG_P751_IFMA_C", a)
        body = self.assert_straight_line(a, "fg_p751_fp2_sqr_ifma")
        self.assertNotIn("%rdx", body)          # two arguments
        mul = x86_64_ifma.emit_fp2_mul(fa)
        nmul = lambda t: len(re.findall(r"\tvpmadd52[lh]uq ", t))
        self.assertLess(nmul(a), nmul(mul))     # two products instead of four


@unittest.skipUnless(_cpu_has_ifma() and shutil.which(os.environ.get("CC", "cc")),
                     "needs an AVX512-IFMA/VBMI CPU and a C compiler")
class Run(unittest.TestCase):
    def _check(self, name, mod, count, op="mul"):
        fa = _fa(name, mod)
        p, n = fa.p, fa.n
        R = 1 << (64 * n)
        rinv = pow(R, -1, p)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.S")
            so = os.path.join(d, "k.so")
            with open(src, "w") as f:
                f.write({"mul": x86_64_ifma.emit_fp2_mul, "sqr": x86_64_ifma.emit_fp2_sqr,
                         "fmul": x86_64_ifma.emit_mul}[op](fa))
                f.write('\n.section .note.GNU-stack,"",%progbits\n')
            subprocess.run([os.environ.get("CC", "cc"), "-shared", "-o", so, src], check=True)
            fn = getattr(ctypes.CDLL(so), "fg_%s_mul_ifma" % name if op == "fmul" else "fg_%s_fp2_%s_ifma" % (name, op))
            T = ctypes.c_uint64 * (2 * n)
            rng = random.Random(n)
            edge = [0, 1, 2, p - 1, p - 2] + [(1 << k) % p for k in range(0, p.bit_length(), 37)]
            edge += [p - (1 << k) for k in range(0, p.bit_length() - 1, 41)]
            vals = [(rng.choice(edge), rng.choice(edge), rng.choice(edge), rng.choice(edge))
                    for _ in range(count)]
            vals += [tuple(rng.randrange(p) for _ in range(4)) for _ in range(count)]

            def limbs(x0, x1):
                return T(*[(x >> (64 * i)) & (2 ** 64 - 1) for x in (x0, x1) for i in range(n)])

            def value(t, h):
                return sum(t[h * n + i] << (64 * i) for i in range(n))
            self._guarded(fn, op, n, rng.choice(vals), p, rinv, name)
            for k, (a0, a1, b0, b1) in enumerate(vals):
                A, B = limbs(a0, a1), limbs(b0, b1)
                if op == "fmul":                # Fp: r = a0 b0 / R, r == a, r == b, separate
                    X, Y = T(*A[:n]), T(*B[:n])
                    r = [X, Y, T()][k % 3]
                    fn(r, X, Y)
                    self.assertEqual(value(r, 0), a0 * b0 * rinv % p, (name, op, k))
                    continue
                if op == "sqr":
                    r = A if k % 2 else T()
                    fn(r, A)                    # r == a, or separate
                    want0 = (a0 * a0 - a1 * a1) * rinv % p
                    want1 = 2 * a0 * a1 * rinv % p
                    self.assertEqual((value(r, 0), value(r, 1)), (want0, want1), (name, op, k))
                    continue
                if k % 3 == 0:
                    r = A
                    fn(A, A, B)                 # r == a
                elif k % 3 == 1:
                    r = B
                    fn(B, A, B)                 # r == b
                else:
                    r = T()
                    fn(r, A, B)
                want0 = (a0 * b0 - a1 * b1) * rinv % p
                want1 = (a0 * b1 + a1 * b0) * rinv % p
                self.assertEqual((value(r, 0), value(r, 1)), (want0, want1), (name, k))

    def _guarded(self, fn, op, n, val, p, rinv, name):
        """One call with each operand (2n limbs; n for the Fp mul) ending at an
        inaccessible page and one starting right after it: an access past
        either end faults (a masked one would not, test_no_masked_operand_access)."""
        size = 8 * (n if op == "fmul" else 2 * n)
        buf = mmap.mmap(-1, 3 * mmap.PAGESIZE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        self.assertEqual(libc.mprotect(base + mmap.PAGESIZE, mmap.PAGESIZE, 0), 0)   # PROT_NONE
        T = ctypes.c_uint64 * (size // 8)
        end, start = base + mmap.PAGESIZE - size, base + 2 * mmap.PAGESIZE
        a0, a1, b0, b1 = val
        words = lambda xs: [(x >> (64 * i)) & (2 ** 64 - 1) for x in xs for i in range(n)]
        try:
            for ra, rb in ((end, start), (start, end)):
                A, B = T.from_address(ra), T.from_address(rb)
                A[:] = words((a0,) if op == "fmul" else (a0, a1))
                B[:] = words((b0,) if op == "fmul" else (b0, b1))
                if op == "sqr":
                    fn(B, A)                # r at the other end
                    want = [(a0 * a0 - a1 * a1) * rinv % p, 2 * a0 * a1 * rinv % p]
                else:
                    fn(A, A, B)             # r = a
                    want = ([a0 * b0 * rinv % p] if op == "fmul" else
                            [(a0 * b0 - a1 * b1) * rinv % p, (a0 * b1 + a1 * b0) * rinv % p])
                out = B if op == "sqr" else A
                got = [sum(out[h * n + i] << (64 * i) for i in range(n)) for h in range(len(want))]
                self.assertEqual(got, want, (name, op, "guard page"))
        finally:
            libc.mprotect(base + mmap.PAGESIZE, mmap.PAGESIZE, 3)
            buf.close()

    def test_fields(self):
        for name, mod in FIELDS.items():
            self._check(name, mod, 150)

    def test_fields_sqr(self):
        for name, mod in FIELDS.items():
            self._check(name, mod, 150, "sqr")

    def test_fields_fp_mul(self):
        # the Fp mul (emit_mul, not wired into the dispatcher), no Fp2 needed
        for name, mod in list(FIELDS.items()) + [("b1023", "2^76 * 3^597 - 1")]:
            self._check(name, mod, 100, "fmul")



class ZenChoice(unittest.TestCase):
    """x86_64_mont.kernel_choice_zen: what AMD Zen cores run at adx where it
    differs from the generic plan (measured on the shipped and test fields;
    the rules are on the shape of p and the generated code, never a name)."""

    def at_adx(self, fa, op, tune):
        if op.startswith("fp2_"):           # None: the C path
            bit = sel_bit("adx", tune)
            return ([k for k, m, _, _ in sel(fa, op) if m & bit] + [None])[0]
        return dict((fa.dispatch if tune == "generic" else fa.dispatch_zen)[op])["adx"]

    def test_zen_forms_from_5_limbs(self):
        # p751, p503: every product's adx kernel has a Zen form (no split rows)
        # and Zen runs it, at adx and ifma; redc's rows at adx never split, so
        # it has none; the one-function Fp2 kernels get Zen forms up to 10
        # limbs (p503), above that Zen runs the C path (p751)
        for name in ("p751", "p503"):
            fa = _planned(name, FIELDS[name])
            fp2 = ["fp2_sqr", "fp2_mul"] if fa.n <= 10 else []
            self.assertEqual(fa.zen_forms, ["mul_wide", "sqr_wide", "mul", "sqr", "mul_lazy", "sqr_lazy"] + fp2, name)
            for op in ("mul", "mul_wide", "sqr", "sqr_wide", "mul_lazy", "sqr_lazy", "fp2_mul", "fp2_sqr"):
                self.assertEqual(self.at_adx(fa, op, "generic"), "adx", (name, op))
                want = "adx_zen" if not op.startswith("fp2_") or fp2 else None
                self.assertEqual(self.at_adx(fa, op, "zen"), want, (name, op))
            self.assertEqual(self.at_adx(fa, "redc", "zen"), "adx")
            self.assertEqual(dict(fa.dispatch_zen["mul"])["bmi2"], "bmi2")
            from fg import dispatch
            from fg.targets import x86_64
            self.assertTrue(dispatch.build([(x86_64, fa)]).tuned)
            # the ifma level runs the Zen form too (but p751's IFMA Fp mul,
            # x86_64.ifma.choose_mul); the bmi2 level never
            want = {"adx"} if fa.mul_ifma else {"adx", "ifma"}
            self.assertEqual(fa.mul_ifma, name == "p751")
            for kernel, mask, _, _ in sel(fa, "mul"):
                zen_bits = {lv for lv in ("c",) + fa.LEVELS if mask & sel_bit(lv, "zen")}
                self.assertEqual(zen_bits == want, kernel == "adx_zen", kernel)
                self.assertEqual(zen_bits == {"ifma"} and
                                 mask == sel_bit("ifma", "zen") | sel_bit("ifma", "zen4"),
                                 kernel == "ifma", kernel)
            # the same products as the adx kernel, only the carries differ
            self.assertEqual(fa.kernel_cost[("mul", "adx_zen")][0], fa.kernel_cost[("mul", "adx")][0])
            self.assertIn("fg_%s_mul_adx_zen:" % name, cli_text(fa))

    def test_choose_mul(self):
        # the IFMA Fp mul at ifma under the zen tuning: from p751's size up
        # (FMUL_RATIO, measured on Zen 5), not p503, p434 or p610; its
        # squaring entry at 16 limbs (FSQR_RATIO), not sidh928's or p751's
        for name, mod, want, want_sqr in (("p503", FIELDS["p503"], False, False),
                                          ("p434", FIELDS["p434"], False, False),
                                          ("p610", "2^305 * 3^192 - 1", False, False),
                                          ("p751", FIELDS["p751"], True, False),
                                          ("t928", "2^476 * 3^285 - 1", True, False),
                                          ("t996", FIELDS["t996"], True, True)):
            fa = _planned(name, mod)
            self.assertEqual(fa.mul_ifma, want, name)
            self.assertEqual(fa.sqr_ifma, want_sqr, name)
            text = cli_text(fa)
            for op, w in (("mul", want), ("sqr", want_sqr)):
                self.assertEqual(fa.at_ifma[(op, "zen")] == "ifma", w, (name, op))
                self.assertNotEqual(fa.at_ifma[(op, "generic")], "ifma", (name, op))
                self.assertEqual("fg_%s_%s_ifma:" % (name, op) in text, w, (name, op))
            if want_sqr:
                # the squaring entry is the mul's code after b = a (both
                # after the CET landing pad)
                body = lambda op: text.split("\nfg_%s_%s_ifma:" % (name, op))[1].split(".size")[0].split("\n")
                mul, sqr = [[l for l in body(op) if l.startswith("\t")] for op in ("mul", "sqr")]
                self.assertEqual(mul[0].strip(), "endbr64")
                self.assertEqual(sqr[0].strip(), "endbr64")
                self.assertEqual(sqr[1].split(), ["movq", "%rsi,", "%rdx"])
                self.assertEqual(sqr[2:], mul[1:])
        self.assertFalse(_planned("p256", "2^256 - 2^224 + 2^192 + 2^96 - 1", None).mul_ifma)

    def test_no_zen_forms_below_5_limbs(self):
        # r254: 4 limbs, no MULX-by-2^k rows: Zen runs the adx squaring that
        # the generic plan replaces by bmi2's, and no Zen form exists
        fa = _planned("r254", "0x2891da55360adfb192fda3253140303532848c3faf64e17f01998c11b18c4543")
        self.assertEqual(fa.zen_forms, [])
        self.assertEqual(self.at_adx(fa, "sqr", "generic"), "bmi2")
        self.assertEqual(self.at_adx(fa, "sqr", "zen"), "adx")
        self.assertEqual(self.at_adx(fa, "mul", "zen"), "adx")
        self.assertNotIn("_adx_zen:", cli_text(fa))

    def test_p256_adx_mul(self):
        # p256's reduction rows multiply by 2^32: Zen runs the mul's and the
        # sqr's shift-row Zen forms (ZEN_SHIFT_ROWS), Intel the bmi2 mul and
        # the adx sqr; every other op the same kernel on both
        fa = _planned("p256", "2^256 - 2^224 + 2^192 + 2^96 - 1", None)
        self.assertEqual(fa.zen_forms, ["mul", "sqr"])
        self.assertEqual(self.at_adx(fa, "mul", "generic"), "bmi2")
        self.assertEqual(self.at_adx(fa, "mul", "zen"), "adx_zen")
        self.assertEqual(self.at_adx(fa, "sqr", "generic"), "adx")
        self.assertEqual(self.at_adx(fa, "sqr", "zen"), "adx_zen")
        self.assertEqual({op: p for op, p in fa.dispatch_zen.items() if op not in ("mul", "sqr")},
                         {op: p for op, p in fa.dispatch.items() if op not in ("mul", "sqr")})


def cli_text(fa):
    """The field's generated assembly (kernels only), as _planned built it."""
    return fa.text


if __name__ == "__main__":
    unittest.main()
