# SPDX-License-Identifier: MIT OR Apache-2.0
"""gen/fg/chains.py: the addition chains behind the fixed exponentiations.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_chains

Each chain is run here by an interpreter of its own, on integers mod a prime
with pow() as the reference, so a chain that computes a wrong power fails
whatever chains.evaluate says. The costs are checked against counts worked
out by hand for exponents whose shape is known.
"""

import random
import unittest

from fg import chains

P503 = 2**250 * 3**159 - 1
P751 = 2**372 * 3**239 - 1
P256 = 2**256 - 2**224 + 2**192 + 2**96 - 1
P384 = 2**384 - 2**128 - 2**96 + 2**32 - 1


def run(chain, x, p):
    """x^e mod p by the chain's program, one instruction at a time."""
    t = {0: x % p}
    for ins in chain.program:
        if ins[0] == "sqr":
            _, dst, src, k = ins
            v = t[src]
            for _ in range(k):
                v = v * v % p
            t[dst] = v
        else:
            _, dst, a, b = ins
            t[dst] = t[a] * t[b] % p
    assert max(t) < chain.registers
    return t[chain.result]


def counts(chain):
    sq = sum(ins[3] for ins in chain.program if ins[0] == "sqr")
    mu = sum(1 for ins in chain.program if ins[0] == "mul")
    return sq, mu


class TestChains(unittest.TestCase):
    def check(self, e, p):
        c = chains.best_chain(e)
        self.assertEqual(chains.evaluate(c), e)
        self.assertEqual(counts(c), (c.squarings, c.multiplications))
        rng = random.Random(e & 0xFFFF)
        for _ in range(3):
            x = rng.randrange(2, p)
            self.assertEqual(run(c, x, p), pow(x, e, p))
        return c

    def test_field_exponents(self):
        for p in (P503, P751, P256, P384, 2**255 - 19, 2**127 - 1, 2**64 - 2**32 + 1):
            for e in (p - 2, (p - 1) // 2, (p + 1) // 4, (p - 3) // 4, (p - 5) // 8):
                if e >= 1:
                    self.check(e, p)

    def test_random_and_small_exponents(self):
        rng = random.Random(7)
        for e in list(range(1, 300)) + [rng.getrandbits(b) | 1 for b in (64, 200, 521, 1024)] \
                + [(1 << 200) - 1, ((1 << 90) - 1) << 40 | 5, (((1 << 33) - 1) << 70) | ((1 << 50) - 1)]:
            self.check(e, P503)

    def test_no_worse_than_plain_windows(self):
        # the run digits are an option, never a loss against the windows alone
        rng = random.Random(11)
        for e in [P503 - 2, P256 - 2, (P751 - 3) // 4] + [rng.getrandbits(400) for _ in range(5)]:
            plain = min((chains._sliding(e, w, False) for w in range(1, 8)), key=lambda ch: ch.cost)
            self.assertLessEqual(chains.best_chain(e).cost, plain.cost + 1e-9)

    def test_trailing_run_uses_run_digits(self):
        # (p-3)/4 of p503 = 2^248 3^159 - 1: the 3^159 - 1 part, then 248 ones.
        # Sliding windows alone spend 106 multiplications (w = 5: 15 table
        # entries, 41 windows over the top part, 50 over the run); run digits
        # of 10 and 20 ones take the run in 12 + 2 windows after 15 more
        # squarings and 2 multiplications to build them.
        c = self.check((P503 - 3) // 4, P503)
        self.assertEqual((c.squarings, c.multiplications), (516, 72))
        self.assertIn("run digits", c.method)
        plain = min((chains._sliding((P503 - 3) // 4, w, False) for w in range(1, 8)),
                    key=lambda ch: ch.cost)
        self.assertEqual(plain.multiplications, 106)
        # the leading run alone (p503's (p+1)/4 has none) gains nothing
        c = self.check((P503 + 1) // 4, P503)
        self.assertNotIn("run digits", c.method)

    def test_p256_runs_in_the_middle(self):
        # p - 2 = 2^256 - 2^224 + 2^192 + 2^96 - 3: 32 ones, bit 192, 94 ones
        # (bits 95..2), bit 0. Run digits of 2, 4, .., 32 ones built from x
        # (31 squarings, which are also the leading run's, and 5
        # multiplications); 94 = 32 + 32 + 16 + 8 + 4 + 2 takes 6 and the two
        # single bits 2: 13 multiplications, 255 squarings (the windows alone:
        # 39 multiplications)
        c = self.check(P256 - 2, P256)
        self.assertEqual((c.squarings, c.multiplications), (255, 13))

    def test_sliding_rejects_nothing_it_builds(self):
        for e in (1, 2, 3, 0b1011, (1 << 64) - 1):
            for w in range(1, 8):
                for levels in range(4):
                    c = chains._sliding(e, w, False, levels)
                    self.assertEqual(chains.evaluate(c), e)


if __name__ == "__main__":
    unittest.main()
