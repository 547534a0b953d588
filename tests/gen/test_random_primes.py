# SPDX-License-Identifier: MIT OR Apache-2.0
"""tests/random_primes.py: its fields files are valid, deterministic, cover
every shape, and generate (C, assembly at every level the analysis picks,
Fp2 where asked) without tripping any of the generator's own checks (no
spill at <= 4 limbs, every value released, carry plans within their bounds).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_random_primes

The generation test runs one seed's 14 primes of 1 to 12 limbs through
`gen/fieldgen` as a user would (about 12 s on two cores). Up to 16 limbs the
same seed took 53 s, five 15- and 16-limb fields most of it; those sizes are
generated, built and run through every suite on each build by the extra
primes (tests/extra_fields.toml: 13, 14, 15 and 16 limbs, random, p = 1 mod
2^10, no spare bit, pseudo-Mersenne, 2^a*3^b-1). The full per-level suite on
random primes of any size is a CMake option away (tests/random_primes.py's
docstring).
"""
import importlib.util
import os
import subprocess
import tempfile
import unittest

from fg import spec

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(REPO, "gen", "fieldgen")
_spec = importlib.util.spec_from_file_location("random_primes", os.path.join(REPO, "tests", "random_primes.py"))
rp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rp)

SEED = 5        # the seed generated below (the others are only parsed)
LIMBS = 12      # its primes' largest limb count (the docstring says why)


class TestRandomPrimes(unittest.TestCase):
    def test_deterministic(self):
        self.assertEqual(rp.fields_toml(3, 14, 1, 16), rp.fields_toml(3, 14, 1, 16))
        self.assertNotEqual(rp.fields_toml(3, 14, 1, 16), rp.fields_toml(4, 14, 1, 16))

    def test_valid_and_covering(self):
        """Every field of 8 seeds parses (the spec re-checks primality, size and
        that the non-residue is one); all shapes, limb counts 1..16 and both
        kinds of extension occur."""
        shapes, limbs, nrs = set(), set(), set()
        for seed in range(1, 9):
            text = rp.fields_toml(seed, 14, 1, 16)
            fields = spec.loads(text, "seed %d" % seed)
            self.assertEqual(len(fields), 14)
            for line in text.splitlines():
                if line.startswith("["):
                    shapes.add(line.split("#")[1].split(",")[0].strip().split(" mod 2^")[0])
            for f in fields:
                limbs.add((f.p.bit_length() + 63) // 64)
                nrs.add(f.fp2_non_residue)
                self.assertIsNotNone(f.sqrt_ratio_z)
        self.assertEqual(limbs, set(range(1, 17)))
        self.assertIn(-1, nrs)
        self.assertIn(None, nrs)
        self.assertTrue(nrs - {-1, None}, "no extension with a non-residue other than -1")
        for want in ("random", "p = -1", "2^a * 3^b - 1", "sparse (Solinas)", "2^k - c",
                     "limbs of 0", "p = 1", "p = 5 mod 8"):
            self.assertTrue(any(s.startswith(want) for s in shapes), (want, sorted(shapes)))

    def test_limb_range(self):
        for f in spec.loads(rp.fields_toml(9, 10, 3, 4)):
            self.assertIn((f.p.bit_length() + 63) // 64, (3, 4))

    def test_generates(self):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = os.path.join(tmp, "primes.toml")
            with open(cfg, "w") as f:
                f.write(rp.fields_toml(SEED, 14, 1, LIMBS))
            out = os.path.join(tmp, "out")
            proc = subprocess.run(["sh", LAUNCHER, "--config", cfg, "--out", out],
                                  capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            for f in spec.load(cfg):
                d = os.path.join(out, f.name)
                for name in ("fg_%s.h" % f.name, "fg_%s.c" % f.name):
                    self.assertTrue(os.path.isfile(os.path.join(d, name)), (f.name, name))


if __name__ == "__main__":
    unittest.main()
