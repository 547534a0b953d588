# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 2 (gen/fg/analysis.py) and the known-answer vectors (gen/fg/vectors.py),
checked against independent Python arithmetic.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_analysis

Every expected value here is recomputed from p with plain integer arithmetic
or written down by hand; nothing is read back from the analysis to check the
analysis. The square-root methods are simulated step by step as
templates/c_exp.j2 performs them, so a wrong exponent or root of unity shows
up as a wrong root.
"""

import dataclasses
import os
import random
import re
import unittest

from fg import analysis, spec, tonelli, vectors
from fg.spec import FieldSpec

from . import configs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
M64 = 2**64

# name: (p, expected form, hand-derived data)
#   montgomery data: p1_zero_limbs;  pseudo_mersenne data: (k, c, c_fold)
OTHER_PRIMES = {
    "secp256k1": (2**256 - 2**32 - 977, "montgomery", 0),
    "bn254": (0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47, "montgomery", 0),
    "bls12_381": (0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
                  "montgomery", 0),
    "pallas": (0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001, "montgomery", 0),
    "p192": (2**192 - 2**64 - 1, "montgomery", 1),          # p+1 = 2^192 - 2^64: one zero limb
    "goldilocks": (2**448 - 2**224 - 1, "montgomery", 3),   # 0 spare bits; p+1 = 2^448 - 2^224
    "p2_32_15": (2**32 + 15, "montgomery", 0),               # smallest admitted prime, 1 limb
    "poly1305": (2**130 - 5, "montgomery", 0),               # c_fold = 5 * 2^62: too wide to fold
    "curve1174": (2**221 - 3, "montgomery", 0),              # c_fold = 3 * 2^35
    "curve41417": (2**414 - 17, "montgomery", 0),            # c_fold = 17 * 2^34
    "m336": (2**336 - 3, "montgomery", 0),                   # c_fold = 3 * 2^48
    "p2_1024_105": (2**1024 - 105, "montgomery", 0),         # 16 limbs, 0 spare bits
    "m383": (2**383 - 187, "pseudo_mersenne", (383, 187, 374)),
    "m511": (2**511 - 187, "pseudo_mersenne", (511, 187, 374)),
    "p2_189_25": (2**189 - 25, "pseudo_mersenne", (189, 25, 200)),
    "m89": (2**89 - 1, "montgomery", 1),                     # c_fold = 2^39; p+1 = 2^89
}
SHIPPED = {
    "p256": (2**256 - 2**224 + 2**192 + 2**96 - 1, "montgomery", 1),   # p+1 = ... + 2^96
    "p25519": (2**255 - 19, "pseudo_mersenne", (255, 19, 38)),
    "p503": (2**250 * 3**159 - 1, "montgomery", 3),
    "p751": (2**372 * 3**239 - 1, "montgomery", 5),
    "p256n": (0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551, "montgomery", 0),
}


def shipped_specs():
    # the fixture, not fields.toml: a user's fields are not the tests' business
    return configs.fixture_specs()


def extra_specs():
    return spec.load(os.path.join(REPO, "tests", "extra_fields.toml"))


def other_specs():
    return [FieldSpec(name=name, modulus_text=hex(p), p=p, byte_order="little")
            for name, (p, _form, _data) in OTHER_PRIMES.items()]


def all_specs():
    return shipped_specs() + extra_specs() + other_specs()


def euler(a, p):
    """1 for a nonzero square, -1 for a non-square, 0 for 0."""
    if a % p == 0:
        return 0
    return 1 if pow(a, (p - 1) // 2, p) == 1 else -1


def limbs_value(limbs):
    return sum(v << (64 * i) for i, v in enumerate(limbs))


# ---- the square-root methods, as templates/c_exp.j2 computes them ----------

def sqrt_p3mod4(fa, a):
    return pow(a, fa.sqrt_exp, fa.p)


def sqrt_atkin(fa, a):
    p = fa.p
    a2 = 2 * a % p
    t = pow(a2, fa.sqrt_exp, p)
    i = a2 * t * t % p
    return a * t % p * (i - 1) % p


def sqrt_tonelli_shanks(fa, a):
    """The windowed program of gen/fg/tonelli.py with this field's tables
    (tests/gen/test_tonelli.py checks it in depth)."""
    return tonelli.reference(a, fa.p, fa.tonelli)


SQRT = {"p3mod4": sqrt_p3mod4, "atkin": sqrt_atkin, "tonelli_shanks": sqrt_tonelli_shanks}


def pm_reduce(fa, t):
    """The pseudo-Mersenne reduction the analysis documents, with its word-size
    claims asserted: fold the high half times c_fold, then the bits above 2^k
    times c, then one conditional subtraction."""
    w = 64 * fa.n
    v = (t & (2**w - 1)) + (t >> w) * fa.c_fold
    assert v >> w <= fa.c_fold, "first fold overflows its extra word"
    q = v >> fa.k
    assert q * fa.c < M64, "second fold's product does not fit a word"
    v = (v & (2**fa.k - 1)) + q * fa.c
    assert v < 2**w, "second fold overflows n limbs"
    assert v < 2 * fa.p, "one subtraction does not make the result canonical"
    return v - fa.p if v >= fa.p else v


class TestConstants(unittest.TestCase):
    """Shape and constants of every field against direct arithmetic."""

    @classmethod
    def setUpClass(cls):
        cls.analyses = [analysis.analyze(fs) for fs in all_specs()]

    def test_field_count(self):
        self.assertGreaterEqual(len(self.analyses), 4 + 25 + len(OTHER_PRIMES))

    def test_shape(self):
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                p = fa.p
                bits = 0
                while (1 << bits) <= p:
                    bits += 1
                n = 1
                while 64 * n < bits:
                    n += 1
                self.assertEqual((fa.bits, fa.n, fa.spare_bits), (bits, n, 64 * n - bits))
                self.assertEqual(fa.nbytes, len(p.to_bytes((bits + 7) // 8, "big")))
                self.assertEqual((fa.p_mod4, fa.p_mod8), (p % 4, p % 8))
                self.assertEqual(len(fa.p_limbs), n)
                self.assertTrue(all(0 <= v < M64 for v in fa.p_limbs))
                self.assertEqual(limbs_value(fa.p_limbs), p)
                self.assertEqual(fa.R, 2**(64 * n))
                self.assertEqual(fa.upper, fa.name.upper())
                self.assertEqual(len(fa.limbs(p - 1)), n)
                self.assertEqual(fa.limbs(1)[0], "UINT64_C(0x0000000000000001)")

    def test_limb_counts_cover_1_to_16(self):
        # every limb count: each Karatsuba threshold (x86_64.mont._kara) crossed with odd and even n
        self.assertTrue(set(range(1, 17)) <= {fa.n for fa in self.analyses})
        self.assertIn(0, {fa.spare_bits for fa in self.analyses})

    def test_form_by_hand(self):
        expected = dict(SHIPPED, **OTHER_PRIMES)
        expected.update({  # tests/extra_fields.toml
            "gold64": (None, "montgomery", 0), "m61": (None, "pseudo_mersenne", (61, 1, 8)),
            "p64m59": (None, "montgomery", 0), "m127": (None, "pseudo_mersenne", (127, 1, 2)),
            "r130": (None, "montgomery", 0), "p224": (None, "montgomery", 0),
            "bls12_381_r": (None, "montgomery", 0), "r320": (None, "montgomery", 0),
            "p384": (None, "montgomery", 0), "r448": (None, "montgomery", 0),
            "m521": (None, "montgomery", 8), "pm1021": (None, "pseudo_mersenne", (1021, 553, 553 * 8)),
            "r1024": (None, "montgomery", 0),
            "pm189": (None, "pseudo_mersenne", (189, 25, 25 * 8)),
            "pm250": (None, "pseudo_mersenne", (250, 207, 207 * 64)),
            "p610": (None, "montgomery", 305 // 64), "sidh996": (None, "montgomery", 522 // 64),
            "r254": (None, "montgomery", 0), "p434": (None, "montgomery", 216 // 64),
            "r702": (None, "montgomery", 0), "r832": (None, "montgomery", 0),
            "sidh928": (None, "montgomery", 476 // 64), "p33": (None, "montgomery", 0),
            "r250": (None, "montgomery", 0), "r891": (None, "montgomery", 0),
            "s256": (None, "montgomery", 1)})
        seen = set()
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                _p, form, data = expected[fa.name]
                seen.add(fa.name)
                self.assertEqual(fa.form, form)
                if form == "montgomery":
                    self.assertEqual(fa.p1_zero_limbs, data)
                    self.assertEqual((fa.k, fa.c, fa.c_fold), (0, 0, 0))
                else:
                    self.assertEqual((fa.k, fa.c, fa.c_fold), data)
        self.assertEqual(seen, set(expected))

    def test_montgomery_constants(self):
        for fa in self.analyses:
            if fa.form != "montgomery":
                continue
            with self.subTest(field=fa.name):
                p, R = fa.p, 2**(64 * fa.n)
                self.assertTrue(0 <= fa.m0inv < M64)
                self.assertEqual(fa.m0inv * p % M64, M64 - 1)          # m0inv * p == -1 mod 2^64
                self.assertEqual(fa.one_internal, R % p)
                self.assertEqual(fa.r2, R * R % p)
                self.assertEqual(fa.r2 * pow(R, -1, p) % p, fa.one_internal)
                z = 0
                while z < fa.n and (p + 1) % 2**(64 * (z + 1)) == 0:
                    z += 1
                self.assertEqual(fa.p1_zero_limbs, z)
                self.assertEqual(fa.m0inv == 1, p % M64 == M64 - 1)
                self.assertEqual(fa.reduction, f"word-by-word Montgomery, R = 2^{64 * fa.n}")

    def test_mul_small_barrett(self):
        # templates/c_arith.j2's mul_small, step for step on integers: the
        # estimate q' from bits k-1..k+31 of v = c a and MU is q, q - 1 or q - 2,
        # and each of the three occurs (both correcting subtractions are
        # needed: q - 2 is rare, about 1 in 250 products for p751, 1 in 10^5
        # for p503, never seen for P-256 and 2^255-19)
        rng = random.Random(5)
        seen = set()
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                p, k = fa.p, fa.bits
                mu = 2**(k + 32) // p
                self.assertEqual(fa.mul_small_mu, mu)
                self.assertTrue(2**32 <= mu <= 2**33)
                cs = [0, 1, 2, 3, 121666, 2**31, 2**32 - 1]
                avals = [0, 1, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2]
                for _ in range(600):
                    cs.append(rng.randrange(2**32))
                    avals.append(rng.randrange(p))
                for i, c in enumerate(cs):
                    for a in (avals[i % len(avals)], avals[(7 * i + 3) % len(avals)], p - 1):
                        v = c * a
                        t = (v >> (k - 1)) % M64
                        self.assertEqual(t, v >> (k - 1))          # t < 2^33 fits the word
                        q_est = (t * mu) >> 33
                        d = v // p - q_est
                        self.assertIn(d, (0, 1, 2))
                        self.assertLess(v - q_est * p, 3 * p)
                        self.assertLess(v - q_est * p, 2**(64 * (fa.n + 1)))
                        seen.add(d)
        self.assertEqual(seen, {0, 1, 2})

    def test_shipped_special_shapes(self):
        by = {fa.name: fa for fa in self.analyses}
        for name in ("p256", "p503", "p751"):
            self.assertEqual(by[name].m0inv, 1, name)
        self.assertEqual(by["p256"].p_limbs, (M64 - 1, 2**32 - 1, 0, M64 - 2**32 + 1))
        self.assertEqual(by["p256"].redc_sums, 1)    # issue 2: "1 for p256"
        self.assertEqual(by["p25519"].special_form, "pseudo-Mersenne 2^255 - 19")
        self.assertIn("p+1 has 3 zero low limbs", by["p503"].special_form)
        self.assertIn("p+1 has 5 zero low limbs", by["p751"].special_form)
        self.assertEqual(by["bn254"].special_form, "none (generic)")
        self.assertEqual(by["secp256k1"].special_form, "3 of 4 limbs of p are 0 or 2^64-1")

    def test_pseudo_mersenne_constants(self):
        for fa in self.analyses:
            if fa.form != "pseudo_mersenne":
                continue
            with self.subTest(field=fa.name):
                p, w = fa.p, 64 * fa.n
                self.assertEqual(2**fa.k - fa.c, p)
                self.assertLess(fa.k, w)
                self.assertEqual(fa.c_fold, 2**w % p)                  # 2^(64n) == c_fold mod p
                self.assertLess(fa.c_fold, 2**31)
                self.assertEqual(fa.k_top_bits, fa.k - 64 * (fa.n - 1))
                self.assertEqual(fa.one_internal, 1)
                self.assertEqual(fa.m0inv, 0)
                self.assertEqual(fa.reduction, f"fold the high half times {fa.c_fold} (2^{w} mod p), "
                                               f"then the bits above 2^{fa.k} times {fa.c}")

    def test_pseudo_mersenne_reduction_fits(self):
        rng = random.Random(5)
        for fa in self.analyses:
            if fa.form != "pseudo_mersenne":
                continue
            with self.subTest(field=fa.name):
                top = 2**(128 * fa.n)
                for t in [0, 1, fa.p, 2 * fa.p - 1, top - 1, top - fa.p, (fa.p - 1)**2 * fa.redc_sums,
                          2**(64 * fa.n) * (2**(64 * fa.n) - 1)] + [rng.randrange(top) for _ in range(200)]:
                    self.assertEqual(pm_reduce(fa, t), t % fa.p)

    def test_not_pseudo_mersenne(self):
        # The generic rule: a prime is folded only if p = 2^k - c with a spare
        # bit and c * 2^(64n-k) < 2^31; everything else is Montgomery.
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                k = fa.bits
                c = 2**k - fa.p
                foldable = k < 64 * fa.n and c * 2**(64 * fa.n - k) < 2**31
                self.assertEqual(fa.form == "pseudo_mersenne", foldable)

    def test_redc_sums_is_maximal(self):
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                p, R = fa.p, 2**(64 * fa.n)
                bound = p * R if fa.form == "montgomery" else R * R     # t must be < bound
                k = fa.redc_sums
                self.assertGreaterEqual(k, 1)
                self.assertLess(k * (p - 1)**2, bound)
                self.assertGreaterEqual((k + 1) * (p - 1)**2, bound)
                self.assertEqual(fa.redc_bound, f"t < p * 2^{64 * fa.n}" if fa.form == "montgomery"
                                 else f"any t < 2^{128 * fa.n}")

    def test_redc_sums_shipped(self):
        by = {fa.name: fa.redc_sums for fa in self.analyses}
        self.assertEqual(by["p256"], 1)
        self.assertEqual(by["p25519"], 4)      # (2^256)^2 / (2^255 - 20)^2 = 4 - tiny
        self.assertGreater(by["p503"], 1)
        self.assertGreater(by["p751"], by["p503"])

    def test_from_bytes_wide_plan(self):
        """from_bytes_wide replayed on integers as templates/c_arith.j2 runs it:
        the high half hi of every input t < 2^(16 BYTES) through the conditional
        subtractions of 2^(J-1) p, ..., p must come out as hi mod p, so that
        t' = lo + hi' R < p R (redc's bound) and t' = t mod p. J must be the
        least that does it: J - 1 subtractions leave some hi >= p."""
        rng = random.Random(29)
        steps = set()
        for fa in self.analyses:
            if fa.form != "montgomery":
                continue
            with self.subTest(field=fa.name):
                p, R = fa.p, 2**(64 * fa.n)
                top = 2**(16 * ((fa.bits + 7) // 8))            # t < top
                hi_max = (top - 1) // R
                J = fa.wide_steps
                steps.add(J)
                self.assertEqual(fa.wide_consts, tuple(p * 2**j for j in range(J - 1, -1, -1)))
                self.assertLess(hi_max, p * 2**J)
                if J:
                    self.assertGreaterEqual(hi_max, p * 2**(J - 1))     # J - 1 would not do
                self.assertTrue(all(c < R for c in fa.wide_consts))
                his = {0, hi_max, hi_max - 1} | {rng.randrange(hi_max + 1) for _ in range(8)}
                his |= {m * p + e for m in range(2**J) for e in (-1, 0, 1, p - 1)}
                for hi in sorted(h for h in his if 0 <= h <= hi_max):
                    h = hi
                    for c in fa.wide_consts:
                        if h >= c:                      # the subtraction does not borrow
                            h -= c
                    self.assertEqual(h, hi % p)
                    lo = rng.choice([0, R - 1, rng.randrange(R)])
                    t = lo + hi * R
                    if t >= top:
                        continue
                    t2 = lo + h * R
                    self.assertLess(t2, p * R)
                    self.assertEqual(t2 % p, t % p)
        self.assertTrue({0, 1, 2} <= steps, steps)

    def test_inverse_exponent(self):
        rng = random.Random(7)
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                self.assertEqual(fa.inv_exp, fa.p - 2)
                for a in [1, 2, fa.p - 1] + [rng.randrange(1, fa.p) for _ in range(5)]:
                    self.assertEqual(pow(a, fa.inv_exp, fa.p) * a % fa.p, 1)

    def test_sqrt_method_by_residue_class(self):
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                p = fa.p
                s, q = 0, p - 1
                while q % 2 == 0:
                    s, q = s + 1, q // 2
                self.assertEqual(fa.ts_s, s)
                if p % 4 == 3:
                    self.assertEqual((fa.sqrt_method, fa.sqrt_exp), ("p3mod4", (p + 1) // 4))
                elif p % 8 == 5:
                    self.assertEqual((fa.sqrt_method, fa.sqrt_exp), ("atkin", (p - 5) // 8))
                else:
                    self.assertEqual(p % 8, 1)
                    self.assertEqual((fa.sqrt_method, fa.sqrt_exp), ("tonelli_shanks", (q - 1) // 2))
                    z = fa.ts_z
                    self.assertEqual(euler(z, p), -1)
                    self.assertTrue(all(euler(y, p) == 1 for y in range(2, z)))
                    self.assertEqual(fa.ts_root, pow(z, q, p))
                    # a primitive 2^s-th root of unity
                    self.assertEqual(pow(fa.ts_root, 2**(s - 1), p), p - 1)

    def test_all_three_methods_exercised(self):
        self.assertEqual({fa.sqrt_method for fa in self.analyses}, {"p3mod4", "atkin", "tonelli_shanks"})
        self.assertGreaterEqual(max(fa.ts_s for fa in self.analyses if fa.sqrt_method == "tonelli_shanks"), 96)

    def test_sqrt_gives_roots(self):
        rng = random.Random(11)
        for fa in self.analyses:
            method = SQRT[fa.sqrt_method]
            p = fa.p
            with self.subTest(field=fa.name, method=fa.sqrt_method):
                self.assertEqual(method(fa, 0), 0)
                squares = [1, 4, (p - 1) ** 2 % p] + [pow(rng.randrange(1, p), 2, p) for _ in range(25)]
                for a in squares:
                    r = method(fa, a)
                    self.assertEqual(r * r % p, a, f"no root of {a:#x}")
                nonsquares = 0
                while nonsquares < 5:
                    a = rng.randrange(2, p)
                    if euler(a, p) == -1:
                        nonsquares += 1
                        r = method(fa, a)
                        self.assertNotEqual(r * r % p, a)

    def test_sqrt_ratio(self):
        """The constants, and the generated algorithms replayed on integers:
        (1, y) with y^2 v = u when u/v is a square (0 included), else (0, y)
        with y^2 v = Z u; v = 0 gives y = 0 and 1 only for u = 0."""
        rng = random.Random(17)
        seen = set()
        for fa in self.analyses:
            if not fa.sqrt_ratio_method:
                continue
            p, z = fa.p, fa.sqrt_ratio_z % fa.p
            seen.add(fa.sqrt_ratio_method)
            with self.subTest(field=fa.name, method=fa.sqrt_ratio_method):
                self.assertEqual(euler(z, p), -1)
                if fa.sqrt_ratio_method == "p3mod4":
                    self.assertEqual(p % 4, 3)
                    (c,) = fa.sqrt_ratio_c
                    self.assertEqual(c * c % p, (-z) % p)
                    self.assertEqual(fa.chains["sqrt_ratio"].exponent, (p - 3) // 4)

                    def ratio(u, v):
                        w = u * pow(v, 3, p) % p
                        y1 = u * v * pow(w, (p - 3) // 4, p) % p
                        qr = y1 * y1 * v % p == u
                        return qr, y1 if qr else y1 * c % p
                elif fa.sqrt_ratio_method == "p5mod8":
                    self.assertEqual(p % 8, 5)
                    sq1, c = fa.sqrt_ratio_c
                    self.assertEqual(sq1 * sq1 % p, p - 1)
                    self.assertEqual(c * c * sq1 % p, z)
                    self.assertEqual(fa.sqrt_exp, (p - 5) // 8)   # the Atkin chain's power

                    def ratio(u, v):
                        w = u * pow(v, 7, p) % p
                        y1 = u * pow(v, 3, p) * pow(w, (p - 5) // 8, p) % p
                        ya = y1 * sq1 % p
                        if ya * ya * v % p == u:
                            y1 = ya
                        qr = y1 * y1 * v % p == u
                        yb = y1 * c % p
                        if yb * yb * v % p != z * u % p:
                            yb = yb * sq1 % p
                        return qr, y1 if qr else yb
                else:
                    self.assertEqual(p % 8, 1)

                    def ratio(u, v):
                        t = u * pow(v, -1, p) % p if v else 0
                        qr = euler(t, p) >= 0 and not (v == 0 and u != 0)
                        return qr, SQRT[fa.sqrt_method](fa, t if qr else z * t % p)
                cases = [(0, 1), (0, 0), (1, 0), (1, 1), (z, 1)] + \
                        [(rng.randrange(p), rng.randrange(1, p)) for _ in range(30)]
                for u, v in cases:
                    qr, y = ratio(u, v)
                    t = u * pow(v, -1, p) % p if v else None
                    want = (u == 0) if v == 0 else euler(t, p) >= 0
                    self.assertEqual(qr, want, f"flag of u={u:#x} v={v:#x}")
                    if v == 0:
                        self.assertEqual(y, 0)
                    else:
                        self.assertEqual(y * y * v % p, u if qr else z * u % p, f"root of u={u:#x} v={v:#x}")
        self.assertEqual(seen, {"p3mod4", "p5mod8", "generic"})

    def test_conversions(self):
        rng = random.Random(13)
        for fa in self.analyses:
            with self.subTest(field=fa.name):
                p, R = fa.p, 2**(64 * fa.n)
                mont = fa.form == "montgomery"
                for x in [0, 1, p - 1, rng.randrange(p)]:
                    self.assertEqual(fa.to_internal(x), x * R % p if mont else x)
                    self.assertEqual(fa.from_internal(fa.to_internal(x)), x)
                t = rng.randrange((p - 1) ** 2)
                self.assertEqual(fa.redc_value(t), t * pow(R, -1, p) % p if mont else t % p)
                self.assertEqual(fa.to_internal(1), fa.one_internal)


class TestNameIndependence(unittest.TestCase):
    def test_same_modulus_two_names(self):
        ignore = {"name", "upper"}
        for fs in shipped_specs() + extra_specs()[:4]:
            with self.subTest(field=fs.name):
                a = dataclasses.asdict(analysis.analyze(fs))
                b = dataclasses.asdict(analysis.analyze(dataclasses.replace(fs, name="zz_other")))
                self.assertEqual(b["name"], "zz_other")
                self.assertEqual(b["upper"], "ZZ_OTHER")
                self.assertEqual({k: v for k, v in a.items() if k not in ignore},
                                 {k: v for k, v in b.items() if k not in ignore})

    def test_byte_order_changes_only_byte_order(self):
        fs = shipped_specs()[0]
        a = dataclasses.asdict(analysis.analyze(fs))
        b = dataclasses.asdict(analysis.analyze(dataclasses.replace(fs, byte_order="little")))
        self.assertEqual({k for k in a if a[k] != b[k]}, {"byte_order"})


class TestFrozen(unittest.TestCase):
    def test_model_is_never_written(self):
        # the model is built once; targets and emitters only read it
        fa = analysis.analyze(shipped_specs()[0])
        with self.assertRaises(dataclasses.FrozenInstanceError):
            fa.n = 5
        with self.assertRaises(dataclasses.FrozenInstanceError):
            fa.zen_forms = []                # target state has no place on it

    def test_model_holds_no_target_state(self):
        names = {f.name for f in dataclasses.fields(analysis.FieldAnalysis)}
        for word in ("dispatch", "adx", "bmi2", "ifma", "zen", "aarch64", "kernel_cost", "have_asm", "tuned"):
            self.assertEqual([n for n in names if word in n], [], word)


class TestDispatch(unittest.TestCase):
    """The x86-64 target's choice per selector (targets.x86_64.choose) and the
    one dispatch plan built from it (gen/fg/dispatch.py)."""

    def kernels(self, generic, zen=None):
        from fg.targets import x86_64
        ks = x86_64.Kernels(analysis.analyze(shipped_specs()[0]))
        ks.have_asm = True
        x86_64.choose_levels(ks, generic)
        if zen is not None:
            x86_64.choose_tunings(ks, zen)
        return ks

    def test_without_asm(self):
        from fg import dispatch
        from fg.targets import x86_64
        ks = x86_64.Kernels(analysis.analyze(shipped_specs()[0]))
        self.assertFalse(ks)
        plan = dispatch.build([(x86_64, ks)])
        self.assertEqual([plan.sel("x86_64", op) for op in analysis.KERNEL_OPS], [()] * 5)
        self.assertFalse(plan.tuned)

    def test_with_asm_best_first(self):
        ks = self.kernels({("mul", "adx"): "bmi2"})
        self.assertEqual(ks.dispatch["mul"], [("adx", "bmi2"), ("bmi2", "bmi2"), ("x86_64", "x86_64")])
        self.assertEqual(ks.dispatch["redc"], [("adx", "adx"), ("bmi2", "bmi2"), ("x86_64", "x86_64")])
        self.assertEqual(set(ks.dispatch), set(analysis.KERNEL_OPS))

    def check_masks(self, sel, kernel_at):
        """Every (level, tuning) reaches exactly the kernel kernel_at names
        (or the C fallback), through the masks the dispatcher tests."""
        from fg import dispatch
        from fg.targets import x86_64
        seen = 0
        for kernel, mask, _, _ in sel:
            self.assertFalse(mask & seen, "masks overlap")
            seen |= mask
        for (level, tune), want in kernel_at.items():
            bit = dispatch.sel_bit(x86_64, level, tune)
            got = [k for k, m, _, _ in sel if m & bit]
            self.assertEqual(got, [] if want == "c" else [want], (level, tune))
        self.assertEqual(dispatch.sel_bit(x86_64, "ifma", "zen"), 1 << 9)   # FG_SEL(FG_ISA_IFMA, FG_TUNE_ZEN)

    def test_tuning_masks(self):
        from fg import dispatch
        from fg.targets import x86_64
        ks = self.kernels({("mul", "adx"): "bmi2"}, {("mul", "adx"): "adx", ("redc", "adx"): "x86_64"})
        self.assertEqual(ks.dispatch_zen["mul"], [("adx", "adx"), ("bmi2", "bmi2"), ("x86_64", "x86_64")])
        plan = dispatch.build([(x86_64, ks)])
        self.assertTrue(plan.tuned)
        want = {}
        for tune in x86_64.TUNES:
            for level in ("c",) + x86_64.LEVELS:
                at = "adx" if level == "ifma" else level
                want[(level, tune)] = "bmi2" if (tune, at) == ("generic", "adx") else at
        self.check_masks(plan.sel("x86_64", "mul"), want)
        # the generic top level's kernel is tested first (the likely branch)
        self.assertEqual(plan.sel("x86_64", "mul")[0][0], "bmi2")
        self.assertEqual(plan.sel("x86_64", "redc")[0][0], "adx")
        self.assertEqual(dict((k, c) for k, _, c, _ in plan.sel("x86_64", "redc"))["x86_64"],
                         "x86_64; zen, zen4: x86_64, adx, ifma")
        want = {(lv, t): ("x86_64" if t in x86_64.ZEN_TUNES and lv in ("adx", "ifma") else
                          "adx" if lv == "ifma" else lv) for t in x86_64.TUNES for lv in ("c",) + x86_64.LEVELS}
        self.check_masks(plan.sel("x86_64", "redc"), want)

    def test_untuned(self):
        from fg import dispatch
        from fg.targets import x86_64
        self.assertFalse(dispatch.build([(x86_64, self.kernels({}, {}))]).tuned)

    def test_width_is_the_runtimes(self):
        # the selector's bits per tuning: FG_ISA_LEVELS in runtime/fg_cpu.h
        from fg import dispatch
        with open(os.path.join(REPO, "runtime", "fg_cpu.h")) as f:
            width = int(re.search(r"^#define FG_ISA_LEVELS (\d+)", f.read(), re.M).group(1))
        self.assertEqual(dispatch.WIDTH, width)
        from fg import targets
        for t in targets.TARGETS:
            self.assertLessEqual(1 + len(t.LEVELS), width, t.NAME)


class TestVectors(unittest.TestCase):
    """Every line of vectors.generate() re-verified from scratch."""

    OPS = {"add", "sub", "mul", "mul_wide", "sqr", "neg", "inv", "sqrt", "redc", "from_bytes", "from_bytes_wide"}

    def verify(self, fa, text):
        p, n = fa.p, fa.n
        R = 2**(64 * n)
        r_inv2 = pow(R, -2, p)
        mont = fa.form == "montgomery"
        top = 2**(8 * ((p.bit_length() + 7) // 8))
        seen = {}
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.startswith("#"):
                continue
            op, *args = line.split()
            where = f"{fa.name} line {lineno}: {line[:120]}"
            seen.setdefault(op, []).append(args)
            vals = [None if x == "none" else int(x, 16) for x in args]
            if op in ("add", "sub", "mul", "mul_wide"):
                a, b, r = vals
                self.assertTrue(0 <= a < p and 0 <= b < p, where)
                want = {"add": (a + b) % p, "sub": (a - b) % p, "mul": a * b % p,
                        "mul_wide": (a * R % p) * (b * R % p) if mont else a * b}[op]
                self.assertEqual(r, want, where)
            elif op in ("sqr", "neg", "inv"):
                a, r = vals
                self.assertTrue(0 <= a < p, where)
                if op == "sqr":
                    self.assertEqual(r, a * a % p, where)
                elif op == "neg":
                    self.assertEqual(r, (p - a) % p, where)
                else:
                    self.assertEqual(r * a % p, 1 if a else 0, where)
                    self.assertTrue(0 <= r < p, where)
            elif op == "sqrt":
                a, r = vals
                if r is None:
                    self.assertEqual(euler(a, p), -1, where)
                else:
                    self.assertTrue(0 <= r < p, where)
                    self.assertEqual(r * r % p, a, where)
            elif op == "redc":
                t, r = vals
                self.assertLessEqual(t, (p - 1) ** 2 * fa.redc_sums, where)
                self.assertLess(t, p * R if mont else R * R, where)
                want = t * r_inv2 % p if mont else t % p
                self.assertEqual(r, want, where)
            elif op == "from_bytes":
                v, ok, r = vals
                self.assertLess(v, top, where)
                self.assertEqual(ok, int(v < p), where)
                self.assertEqual(r, v if v < p else 0, where)
            elif op == "from_bytes_wide":
                L, v, r = vals
                self.assertLessEqual(L, 2 * (top.bit_length() - 1) // 8, where)
                self.assertLess(v, 2**(8 * L), where)
                self.assertEqual(r, v % p, where)
            else:
                self.fail(f"unknown op: {where}")
        return seen

    def check_coverage(self, fa, seen):
        p = fa.p
        self.assertEqual(set(seen), self.OPS)
        for op in ("sqr", "neg", "inv", "sqrt"):
            operands = {int(a[0], 16) for a in seen[op]}
            self.assertTrue({0, 1, p - 1} <= operands, op)
        self.assertTrue(any(a[1] == "none" for a in seen["sqrt"]))
        self.assertTrue(any(a[1] != "none" and int(a[0], 16) > 1 for a in seen["sqrt"]))
        redc_t = {int(a[0], 16) for a in seen["redc"]}
        self.assertIn((p - 1) ** 2 * fa.redc_sums, redc_t)
        fb = {int(a[0], 16): int(a[1]) for a in seen["from_bytes"]}
        self.assertEqual((fb[p - 1], fb.get(p, 0)), (1, 0))
        self.assertGreaterEqual(len(seen["mul"]), 36 + 24)
        # from_bytes_wide: the longest input, all ones, and a value above p
        wide = 2 * fa.nbytes
        fw = {(int(a[0], 16), int(a[1], 16)) for a in seen["from_bytes_wide"]}
        self.assertIn((wide, 2**(8 * wide) - 1), fw)
        self.assertTrue(any(v >= p for _, v in fw))

    def test_generated_lines(self):
        for fs in shipped_specs() + extra_specs() + other_specs()[:4]:
            with self.subTest(field=fs.name):
                fa = analysis.analyze(fs)
                text = vectors.generate(fa)
                self.check_coverage(fa, self.verify(fa, text))
                if fa.n <= 4:
                    self.assertEqual(text, vectors.generate(fa))      # deterministic

    def test_committed_files(self):
        # the committed vectors are fields.toml's, whatever it holds
        for fs in spec.load(configs.REPO_CONFIG):
            with self.subTest(field=fs.name):
                fa = analysis.analyze(fs)
                with open(os.path.join(REPO, "generated", "vectors", f"{fs.name}.kat")) as f:
                    text = f.read()
                self.check_coverage(fa, self.verify(fa, text))
                body = "".join(line for line in text.splitlines(True) if not line.startswith("#"))
                self.assertEqual(body, vectors.generate(fa))

    def test_emit_path(self):
        fa = analysis.analyze(shipped_specs()[1])
        out = vectors.emit(fa, "# header\n")
        self.assertEqual(list(out), ["vectors/p25519.kat"])
        self.assertTrue(out["vectors/p25519.kat"].startswith("# header\nadd "))


if __name__ == "__main__":
    unittest.main()
