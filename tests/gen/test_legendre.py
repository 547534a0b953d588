# SPDX-License-Identifier: MIT OR Apache-2.0
"""gen/fg/legendre.py: the two Legendre symbol algorithms the C code runs.

reference_bgcd() is the binary GCD step for step (same steps, same word
widths), reference_divsteps() the divsteps with their sign bookkeeping word
for word; these tests hold both to Euler's criterion on every prime size
(each is correct for any odd prime, whichever params() picks), check that
the binary GCD's step count and shrinking widths never cut a value short,
and check the divsteps proof's two claims: the signed reciprocity law and
the lemma that counts f's sign changes from the transition matrix."""
import math
import random
import unittest

from fg import legendre, numtheory, safegcd

SHIPPED = {
    "p256": 2**256 - 2**224 + 2**192 + 2**96 - 1,
    "p25519": 2**255 - 19,
    "p503": 2**250 * 3**159 - 1,
    "p751": 2**372 * 3**239 - 1,
}
SMALL_PRIMES = [p for p in range(3, 600) if all(p % d for d in range(2, int(p**0.5) + 1))]


def euler(x, p):
    x %= p
    return 1 if x == 0 or pow(x, (p - 1) // 2, p) == 1 else -1


class TestSchedule(unittest.TestCase):
    def test_counts_and_widths(self):
        for bits in list(range(2, 200)) + [255, 256, 503, 751, 1023, 1024]:
            n = -(-bits // 64)
            sched = legendre.schedule(bits)
            self.assertEqual(sum(c for _, c in sched), 2 * bits - 1)
            self.assertEqual(sched[0][0], n)
            self.assertEqual(sched[-1][0], 1)
            widths = [w for w, _ in sched]
            self.assertEqual(widths, sorted(set(widths), reverse=True))
            # the full width lasts at least L steps; afterwards at most 64 steps a width
            self.assertGreaterEqual(sched[0][1], bits)
            for w, c in sched[1:]:
                self.assertLessEqual(c, 64)

    def test_shipped_word_steps(self):
        # 751 bits: 12 words for 798 steps, then 64 steps each of 11..2 words, 63 of 1
        sched = legendre.schedule(751)
        self.assertEqual(sum(c for _, c in sched), 1501)
        self.assertEqual(sched[0], (12, 798))
        word_steps = sum(w * c for w, c in sched)
        self.assertEqual(word_steps, 13799)
        self.assertLess(word_steps, 0.77 * 12 * 1501)
        # a 3-limb field keeps the binary GCD and renders its schedule
        p = legendre.params(2**189 - 25, 3)
        self.assertEqual(p["method"], "bgcd")
        self.assertEqual(p["word_steps"], sum(w * c for w, c in legendre.schedule(189)))

    def test_method_choice(self):
        for n, p in ((1, 2**61 - 1), (2, 2**127 - 1), (3, 2**189 - 25)):
            self.assertEqual(legendre.params(p, n)["method"], "bgcd")
        for name, n in (("p256", 4), ("p25519", 4), ("p503", 8), ("p751", 12)):
            pr = legendre.params(SHIPPED[name], n)
            self.assertEqual(pr["method"], "divsteps")
            self.assertEqual(pr["halves"], safegcd.params(SHIPPED[name], n)["halves"])


class TestReference(unittest.TestCase):
    REFS = (legendre.reference_bgcd, legendre.reference_divsteps)

    def test_small_primes_exhaustive(self):
        for p in SMALL_PRIMES:
            for x in range(p):
                for ref in self.REFS:
                    self.assertEqual(ref(x, p), euler(x, p), (ref.__name__, p, x))

    def test_shipped_and_large(self):
        rng = random.Random(1)
        primes = list(SHIPPED.values()) + [2**61 - 1, 2**127 - 1, 2**521 - 1, 2**1024 - 105]
        for p in primes:
            xs = [0, 1, 2, 3, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**(p.bit_length() - 1) % p]
            xs += [rng.randrange(p) for _ in range(150)]
            for x in xs:
                for ref in self.REFS:
                    self.assertEqual(ref(x, p), euler(x, p), (ref.__name__, p.bit_length(), x))
        # the dispatching reference() follows params()' choice
        self.assertEqual(legendre.reference(3, SHIPPED["p503"]), euler(3, SHIPPED["p503"]))

    def test_slow_inputs(self):
        # inputs whose binary GCD keeps both values long: the width bound is
        # asserted inside reference() before every step
        for p in (SHIPPED["p256"], SHIPPED["p503"], 2**127 - 1):
            for x in (p - 1, p // 2, p // 3, (p * 2) // 3, (p + 1) // 2 + 1, p - 3):
                self.assertEqual(legendre.reference_bgcd(x, p), euler(x, p))
                self.assertEqual(legendre.reference_divsteps(x, p), euler(x, p))

    def test_rules_matter(self):
        # each sign rule is needed: without either, the exhaustive test above
        # would fail (so it can)
        def variant(x, p, reciprocity, halving):
            a, b, s = (x % p or 1), p, 0
            for _ in range(legendre.steps(p.bit_length())):
                if a & 1:
                    if a < b:
                        s ^= reciprocity and (a & b & 2) >> 1
                        a, b = b - a, a
                    else:
                        a -= b
                a >>= 1
                s ^= halving and ((b >> 1) ^ (b >> 2)) & 1
            return -1 if s else 1
        for p in (11, 13, 19, 23):
            self.assertTrue(all(variant(x, p, 1, 1) == euler(x, p) for x in range(p)))
            self.assertTrue(any(variant(x, p, 0, 1) != euler(x, p) for x in range(p)), p)
            self.assertTrue(any(variant(x, p, 1, 0) != euler(x, p) for x in range(p)), p)



class TestDivstepsProof(unittest.TestCase):
    def test_signed_reciprocity(self):
        # (A | |B|)(B | |A|) = (-1)^((A-1)/2 (B-1)/2 + [A < 0 and B < 0])
        for a in range(-51, 52, 2):
            for b in range(-51, 52, 2):
                if math.gcd(a, b) != 1:
                    continue
                e = ((a - 1) // 2) * ((b - 1) // 2) + (a < 0 and b < 0)
                self.assertEqual(numtheory.jacobi(a, abs(b)) * numtheory.jacobi(b, abs(a)), (-1) ** (e % 2),
                                 (a, b))

    def test_sign_change_lemma(self):
        # f's + to - changes over a half = those of s0 ^ (the packed row's
        # sign), followed by f's sign after the half; checked on the halves
        # of real runs (f's sign varies along them)
        rng = random.Random(3)
        halves = 0
        for p in (SHIPPED["p503"], SHIPPED["p25519"], 2**61 - 1, 1000003):
            for _ in range(40):
                delta, f, g = 1, p, rng.randrange(1, p)
                while g:
                    s0 = int(f < 0)
                    true, proxy = [s0], [s0]
                    u, v, q, r = 1, 0, 0, 1
                    for _ in range(safegcd.HALF):
                        delta, f, g, (u1, v1, q1, r1) = safegcd.textbook(delta, f, g, 1)
                        u, v, q, r = u1 * u + v1 * q, u1 * v + v1 * r, q1 * u + r1 * q, q1 * v + r1 * r
                        true.append(int(f < 0))
                        proxy.append(s0 ^ (((u + (v << 32)) & legendre.M64) >> 63))
                    proxy.append(int(f < 0))
                    ups = [sum(1 for x, y in zip(seq, seq[1:]) if (x, y) == (0, 1)) for seq in (true, proxy)]
                    self.assertEqual(ups[0], ups[1])
                    halves += 1
        self.assertGreater(halves, 500)

    def test_terms_matter(self):
        # dropping any one of the divsteps' sign terms gives wrong symbols
        # on the exhaustive small primes, so the tests above can fail
        def variant(x, p, drop):
            delta, f, g, k = 1, p, (x % p or 1), 0
            for _ in range(safegcd.iteration_bound(p.bit_length())):
                if delta > 0 and g & 1:
                    if drop != "reciprocity":
                        k ^= (f % 4 == 1 and g % 4 == 3)
                    if drop != "sign":
                        k ^= (f > 0 and g < 0)
                    delta, f, g = 1 - delta, g, (g - f) >> 1
                elif g & 1:
                    delta, g = 1 + delta, (g + f) >> 1
                else:
                    delta, g = 1 + delta, g >> 1
                if drop != "halving":
                    k ^= f % 8 in (3, 5)
            return -1 if k else 1
        for p in (11, 13, 19, 23, 101):
            self.assertTrue(all(variant(x, p, None) == euler(x, p) for x in range(p)))
            for drop in ("reciprocity", "sign", "halving"):
                self.assertTrue(any(variant(x, p, drop) != euler(x, p) for x in range(p)), (p, drop))


if __name__ == "__main__":
    unittest.main()
