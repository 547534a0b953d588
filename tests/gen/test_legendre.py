"""gen/fg/legendre.py: the binary-GCD Legendre symbol the C code runs.

reference() is the C algorithm step for step (same steps, same word widths);
these tests hold it to Euler's criterion and check that the step count and
the shrinking word widths never cut a value short, including on inputs
built to keep a and b long."""
import random
import unittest

from fg import legendre

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
        # p751: 12 words for 798 steps, then 64 steps each of 11..2 words, 63 of 1
        p = legendre.params(SHIPPED["p751"], 12)
        self.assertEqual(p["steps"], 1501)
        self.assertEqual(p["schedule"][0], (12, 798))
        self.assertEqual(p["word_steps"], 13799)
        self.assertLess(p["word_steps"], 0.77 * 12 * p["steps"])


class TestReference(unittest.TestCase):
    def test_small_primes_exhaustive(self):
        for p in SMALL_PRIMES:
            for x in range(p):
                self.assertEqual(legendre.reference(x, p), euler(x, p), (p, x))

    def test_shipped_and_large(self):
        rng = random.Random(1)
        primes = list(SHIPPED.values()) + [2**61 - 1, 2**127 - 1, 2**521 - 1, 2**1024 - 105]
        for p in primes:
            xs = [0, 1, 2, 3, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**(p.bit_length() - 1) % p]
            xs += [rng.randrange(p) for _ in range(150)]
            for x in xs:
                self.assertEqual(legendre.reference(x, p), euler(x, p), (p.bit_length(), x))

    def test_slow_inputs(self):
        # inputs whose binary GCD keeps both values long: the width bound is
        # asserted inside reference() before every step
        for p in (SHIPPED["p256"], SHIPPED["p503"], 2**127 - 1):
            for x in (p - 1, p // 2, p // 3, (p * 2) // 3, (p + 1) // 2 + 1, p - 3):
                self.assertEqual(legendre.reference(x, p), euler(x, p))

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

if __name__ == "__main__":
    unittest.main()
