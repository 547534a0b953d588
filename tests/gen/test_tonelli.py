# SPDX-License-Identifier: MIT OR Apache-2.0
"""gen/fg/tonelli.py: the windowed constant-time Tonelli-Shanks program.

reference() runs the program and the tables the C code is generated from.
These tests hold it to the definition of a square root on every element of
small primes with every window, on the 2-adicities of the test primes, and
check the shape of the program (digits found before they are used, the
squaring count, table sizes and the memory budget).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_tonelli
"""
import random
import unittest

from fg import numtheory, tonelli

# p = 1 mod 8 with 2-adicities 3 to 13, every element tried
SMALL = [17, 41, 97, 193, 257, 641, 769, 7681, 12289, 40961]
# (p, limbs) of the extra test primes with p = 1 mod 8, and larger 2-adicities
WIDE = {
    "gold64": (2**64 - 2**32 + 1, 1),
    "p224": (2**224 - 2**96 + 1, 4),
    "bls12_381_r": (0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, 4),
    "pallas": (0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001, 4),
    "fermat65537": (65537, 1),
    "p786433": (786433, 1),
}


def setup(p):
    s, q = numtheory.two_adicity(p)
    g = pow(numtheory.smallest_nonresidue(p), q, p)
    return s, g


def is_square(a, p):
    return a % p == 0 or pow(a, (p - 1) // 2, p) == 1


def proth(bits, s):
    """The smallest prime k 2^s + 1 of `bits` bits with k odd."""
    k = (1 << (bits - 1 - s)) | 1
    while not numtheory.is_probable_prime(k * 2**s + 1):
        k += 2
    return k * 2**s + 1


class TestExhaustive(unittest.TestCase):
    def test_every_element_every_window(self):
        for p in SMALL:
            s, g = setup(p)
            for w in range(1, min(tonelli.MAX_WINDOW, s - 1) + 1):
                pr = tonelli.params(p, 1, s, g, window=w)
                with self.subTest(p=p, s=s, window=w):
                    for a in range(p):
                        r = tonelli.reference(a, p, pr)
                        self.assertEqual(r * r % p == a, is_square(a, p), f"a = {a}")

    def test_a_wrong_table_entry_is_caught(self):
        # the exhaustive test can fail: spoil one entry of each table in turn
        p = 12289
        s, g = setup(p)
        pr = tonelli.params(p, 1, s, g, window=3)
        for t in range(len(pr["tables"]) + 1):
            with self.subTest(table=t if t < len(pr["tables"]) else "ident"):
                bad = dict(pr, tables=[list(x) for x in pr["tables"]], ident=list(pr["ident"]))
                tab = bad["tables"][t] if t < len(pr["tables"]) else bad["ident"]
                tab[-1] = tab[-1] * g % p
                wrong = sum(1 for a in range(1, p) if is_square(a, p)
                            and tonelli.reference(a, p, bad) ** 2 % p != a)
                self.assertGreater(wrong, 0)


class TestWide(unittest.TestCase):
    def test_random_squares_and_non_squares(self):
        rng = random.Random(5)
        cases = dict(WIDE, proth512_s200=(proth(512, 200), 8), proth1024_s600=(proth(1024, 600), 16))
        for name, (p, n) in cases.items():
            s, g = setup(p)
            pr = tonelli.params(p, n, s, g)
            with self.subTest(field=name, s=s, plan=pr["text"]):
                for _ in range(20):
                    x = rng.randrange(1, p)
                    a = x * x % p
                    r = tonelli.reference(a, p, pr)
                    self.assertEqual(r * r % p, a)
                    b = a * pow(g, 2 * rng.randrange(1 << (s - 1)) + 1, p) % p  # a non-square
                    self.assertNotEqual(tonelli.reference(b, p, pr) ** 2 % p, b)
                self.assertEqual(tonelli.reference(0, p, pr), 0)
                # roots whose logarithm has every digit at its extremes
                for e in (0, 1, (1 << (s - 1)) - 1, 1 << (s - 2)):
                    a = pow(g, 2 * e, p)
                    self.assertEqual(tonelli.reference(a, p, pr) ** 2 % p, a)


def op_cost(pl, n):
    """The estimate of a program, op by op, from tonelli's unit costs."""
    mul, sqr, scan, cmp = tonelli._unit_costs(n)
    W = max(pl["widths"])
    total = 0
    for op in pl["program"]:
        if op[0] == "sqr":
            total += op[3] * sqr
        elif op[0] == "ident":
            total += (1 << W) * cmp
        else:
            total += mul + (1 << pl["widths"][op[-1]]) * scan
    return total


def balanced_cost(pl, n):
    """The same estimate for the recursion split in the middle."""
    mul, sqr, scan, cmp = tonelli._unit_costs(n)
    widths, B = pl["widths"], pl["bounds"]

    def solve(i, j):
        if j == i + 1:
            return (1 << max(widths)) * cmp
        h = i + (j - i) // 2
        return ((B[j] - B[h]) * sqr + solve(i, h) + solve(h, j)
                + sum(mul + (1 << widths[k]) * scan for k in range(i, h)))
    return solve(0, len(widths)) + sum(mul + (1 << x) * scan for x in widths)


class TestShape(unittest.TestCase):
    def test_program(self):
        for nb in list(range(1, 70)) + [95, 127, 200]:
            for w in range(1, min(tonelli.MAX_WINDOW, nb) + 1):
                for n in (1, 4, 16):
                    pl = tonelli.plan(nb, w, n)
                    widths = pl["widths"]
                    with self.subTest(nb=nb, w=w, n=n):
                        self.assertEqual(sum(widths), nb)
                        self.assertTrue(all(1 <= x <= w for x in widths))
                        self.assertEqual(widths[1:], [w] * (len(widths) - 1))
                        found, finals = set(), []
                        for op in pl["program"]:
                            if op[0] == "ident":
                                self.assertNotIn(op[1], found)
                                self.assertLess(op[2], pl["temps"])
                                found.add(op[1])
                            elif op[0] in ("corr", "final"):
                                self.assertIn(op[-1], found)   # a digit is used only once found
                                self.assertGreaterEqual(pl["sizes"][op[-2]], 1 << widths[op[-1]])
                                self.assertLess(pl["shifts"][op[-2]], nb + 1)
                                if op[0] == "final":
                                    finals.append(op[-1])
                                    self.assertEqual(pl["shifts"][op[-2]], pl["bounds"][op[-1]])
                            else:
                                self.assertGreaterEqual(op[3], 1)
                                self.assertLess(max(op[1], op[2]), pl["temps"])
                        self.assertEqual(found, set(range(len(widths))))
                        self.assertEqual(finals, list(range(len(widths))))
                        self.assertEqual(len(set(pl["shifts"])), len(pl["shifts"]))
                        # the chosen splits cost no more than splitting in the middle
                        self.assertAlmostEqual(op_cost(pl, n), pl["cost"], delta=1e-6 * pl["cost"])
                        self.assertLessEqual(pl["cost"], balanced_cost(pl, n) * (1 + 1e-9))

    def test_budget_and_gain(self):
        for name, (p, n) in WIDE.items():
            s, g = setup(p)
            pr = tonelli.params(p, n, s, g)
            with self.subTest(field=name):
                self.assertLessEqual(pr["bytes"], tonelli.TABLE_BUDGET_BYTES)
                self.assertLess(pr["squarings"] + pr["multiplications"], (s - 1) * (s - 2) // 2)
        # p224 (2-adicity 96): the classical algorithm squares 4465 times
        p, n = WIDE["p224"]
        pr = tonelli.params(p, n, *setup(p))
        self.assertLess(pr["squarings"] + pr["multiplications"], 4465 // 8)
        # over the budget at every window: the smallest tables, still a root
        p = proth(1024, 600)
        pr = tonelli.params(p, 16, *setup(p))
        self.assertGreater(pr["bytes"], tonelli.TABLE_BUDGET_BYTES)
        self.assertEqual(pr["window"], min(range(1, tonelli.MAX_WINDOW + 1),
                                           key=lambda w: tonelli.table_entries(tonelli.plan(599, w, 16))))

    def test_deterministic(self):
        p, n = WIDE["bls12_381_r"]
        s, g = setup(p)
        self.assertEqual(tonelli.params(p, n, s, g), tonelli.params(p, n, s, g))


if __name__ == "__main__":
    unittest.main()
