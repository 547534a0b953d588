# SPDX-License-Identifier: MIT OR Apache-2.0
"""gen/fg/safegcd.py: the schedule and word operations of the safegcd inversion.

divsteps_half() runs the C's divsteps, rows packed two entries to a word,
and checks each half against textbook(); reference_inverse()
runs the whole inversion as the C does. These tests hold them to
pow(a, -1, p) on every element of small primes and on edge and random
elements of wide ones, to the textbook divstep over whole batches, and the
schedule to Bernstein-Yang's bound for every size of prime fieldgen takes.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_safegcd
"""
import random
import unittest
from unittest import mock

from fg import safegcd
from fg.safegcd import HALF, M62, M64, textbook

SMALL = [3, 5, 7, 11, 13, 251, 257, 65521, 65537]
WIDE = {
    "p256": 2**256 - 2**224 + 2**192 + 2**96 - 1,
    "p25519": 2**255 - 19,
    "p503": 2**250 * 3**159 - 1,
    "p751": 2**372 * 3**239 - 1,
    "p224": 2**224 - 2**96 + 1,
    "m127": 2**127 - 1,
    "gold64": 2**64 - 2**32 + 1,
    "m521": 2**521 - 1,
    "secp256k1": 2**256 - 2**32 - 977,
    "bls12_381": int("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
                     "1eabfffeb153ffffb9feffffffffaaab", 16),
}


def limbs(p):
    return -(-p.bit_length() // 64)


class Schedule(unittest.TestCase):
    def test_halves_cover_the_bound(self):
        # every bit length fieldgen accepts (33 to 1024), on its limb count
        for bits in range(33, 1025):
            p = (1 << (bits - 1)) + 1            # any odd number of that size
            pr = safegcd.params(p, limbs(p))
            bound = safegcd.iteration_bound(bits)
            with self.subTest(bits=bits):
                self.assertEqual(pr["bound"], bound)
                self.assertGreaterEqual(pr["iterations"], bound)
                self.assertLess(pr["iterations"] - HALF, bound)       # no half to spare
                self.assertEqual(pr["iterations"], pr["halves"] * HALF)
                self.assertEqual(pr["batches"], -(-pr["halves"] // 2))
                self.assertEqual(2 * (pr["batches"] - 1) + pr["last_halves"], pr["halves"])
                self.assertIn(pr["last_halves"], (1, 2))

    def test_shipped_counts(self):
        # the figures the generated comments and headers print
        self.assertEqual(safegcd.iteration_bound(256), 741)
        pr = safegcd.params(WIDE["p256"], 4)
        self.assertEqual((pr["halves"], pr["batches"], pr["last_halves"], pr["iterations"]),
                         (25, 13, 1, 750))
        pr = safegcd.params(WIDE["p751"], 12)
        self.assertEqual((pr["bound"], pr["iterations"], pr["batches"]), (2168, 2190, 37))

    def test_inversion_choice(self):
        # fg_NAME_inv: Fermat's chain on one limb, the divsteps from two
        self.assertEqual(safegcd.params(2**61 - 1, 1)["inv_method"], "fermat")
        self.assertEqual(safegcd.params(2**64 - 59, 1)["inv_method"], "fermat")
        self.assertEqual(safegcd.params(2**127 - 1, 2)["inv_method"], "safegcd")
        self.assertEqual(safegcd.params(WIDE["p256"], 4)["inv_method"], "safegcd")


class Packing(unittest.TestCase):
    def test_rows_read_back_within_the_bound(self):
        edge = [-(1 << HALF), -(1 << HALF) + 1, -1, 0, 1, (1 << HALF) - 1, 1 << HALF]
        for lo in edge:
            for hi in edge:
                w = (lo + (hi << 32)) & M64
                self.assertEqual(safegcd.unpack_row(w), (lo, hi))

    def test_31_steps_would_not_pack(self):
        # the reason for 30-step halves: +-2^31 in the high half share a word
        self.assertEqual((1 << 63) & M64, (-(1 << 63)) & M64)
        with mock.patch.object(safegcd, "HALF", 31):
            # g = 0: 31 halvings, u = 2^31, which the low half cannot hold
            with self.assertRaises(AssertionError):
                safegcd.divsteps_half(1, 1, 0)

    def test_extremes(self):
        # all halvings (u doubles to 2^30) and long runs of swaps and additions
        for delta in (1, -1, 0, 5, -60, 61, -(1 << 20), 1 << 20):
            for f, g in ((1, 0), (1, M62), (M62, M62), (M62, 1), (1, 1), (0x5555555555555555 & M62, 0x2AAAAAAAAAAAAAAB)):
                d, fw, gw, m = safegcd.divsteps_half(delta, f, g)
                td, tf, tg, tm = textbook(delta, f, g, HALF)
                self.assertEqual((d, m), (td, tm))
        self.assertEqual(safegcd.divsteps_half(1, 1, 0)[3], (1 << HALF, 0, 0, 1))


class Batches(unittest.TestCase):
    def test_against_the_textbook(self):
        rng = random.Random(5)
        for _ in range(3000):
            f = rng.getrandbits(62) | 1
            g = rng.getrandbits(62) >> rng.randrange(62)
            delta = rng.choice([1, 1, 1, rng.randrange(-200, 200)])
            for halves in (1, 2):
                d, t = safegcd.divsteps_batch(delta, f, g, halves)
                td, _, _, tt = textbook(delta, f, g, halves * HALF)
                scale = 1 << (safegcd.BATCH - halves * HALF)
                self.assertEqual(d, td)
                self.assertEqual(t, tuple(scale * e for e in tt))

    def test_a_wrong_combination_is_caught(self):
        # the batch's own checks (T (f, g) = 0 mod 2^62) fail for a wrong product
        real = safegcd.divsteps_half

        def transposed(delta, f, g):
            d, fw, gw, (u, v, q, r) = real(delta, f, g)
            return d, fw, gw, (u, q, v, r)
        with mock.patch.object(safegcd, "divsteps_half", transposed):
            with self.assertRaises(AssertionError):
                for f in range(1, 200, 2):
                    safegcd.divsteps_batch(1, f, 12345, 2)


class Inverse(unittest.TestCase):
    def test_every_element_of_small_primes(self):
        for p in SMALL:
            for a in range(p):
                with self.subTest(p=p, a=a):
                    expect = pow(a, -1, p) if a else 0
                    self.assertEqual(safegcd.reference_inverse(p, a), expect)

    def test_wide_primes(self):
        rng = random.Random(7)
        for name, p in WIDE.items():
            r2 = pow(2, 128 * limbs(p), p)                  # the Montgomery start value
            elems = [0, 1, 2, 3, p - 1, p - 2, (p + 1) // 2, (p - 1) // 2,
                     2**(p.bit_length() - 1) % p, p - 2**64 % p]
            elems += [rng.randrange(p) for _ in range(40)]
            for a in elems:
                with self.subTest(field=name, a=a):
                    expect = pow(a, -1, p) if a else 0
                    self.assertEqual(safegcd.reference_inverse(p, a), expect)
                    self.assertEqual(safegcd.reference_inverse(p, a, r2), r2 * expect % p)

    def test_a_short_schedule_fails(self):
        # The bound is a worst case: random 256-bit inputs reach g = 0 after
        # about 530 divsteps (at most about 560), so 480 leave g != 0 on most
        # inputs and the reference's final check must catch it.
        p = WIDE["p256"]
        real = safegcd.params

        def short(p_, n_):
            pr = dict(real(p_, n_))
            pr.update(halves=16, batches=8, last_halves=2)
            return pr
        rng = random.Random(11)
        with mock.patch.object(safegcd, "params", short):
            with self.assertRaises(AssertionError):
                for _ in range(20):
                    safegcd.reference_inverse(p, rng.randrange(1, p))


if __name__ == "__main__":
    unittest.main()
