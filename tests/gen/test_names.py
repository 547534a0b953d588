# SPDX-License-Identifier: MIT OR Apache-2.0
"""Names that cannot clash, and inputs the parser must refuse cleanly (issue
54 item 1, issue 53 defects 4 and 5), through the command line as a user runs
it: every bad fields file exits 2 with one message naming the file, the field
and the key, and leaves the output directory exactly as it was.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_names
"""

import os
import shutil
import tempfile
import unittest

from .harness import REPO, run, snapshot

EXTRA = os.path.join(REPO, "tests", "extra_fields.toml")


def table(name, modulus="2^127 - 1", order="little", extra=""):
    return f'[{name}]\nmodulus = "{modulus}"\nbyte_order = "{order}"\n{extra}\n'


class Case(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # one good output directory, made once; every bad run must leave it alone
        cls.tmp = tempfile.mkdtemp(prefix="fieldgen-test-names-")
        cls.good = os.path.join(cls.tmp, "good.toml")
        with open(cls.good, "w") as f:
            f.write(table("m127"))
        proc = run(["--config", cls.good, "--out", "out"], cls.tmp)
        assert proc.returncode == 0, proc.stderr
        cls.before = snapshot(os.path.join(cls.tmp, "out"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def refused(self, text, field, key, *needles):
        """TEXT as the config: exit 2, one message naming the file, FIELD and
        KEY (None: no key) and holding each of NEEDLES; out/ untouched."""
        path = os.path.join(self.tmp, "bad.toml")
        with open(path, "w") as f:
            f.write(text)
        proc = run(["--config", path, "--out", "out"], self.tmp)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        msg = proc.stderr
        self.assertNotIn("Traceback", msg)
        self.assertTrue(msg.startswith(f"fieldgen: error: {path}"), msg)
        if field is not None:
            self.assertIn(f"field '{field}'", msg)
        if key is not None:
            self.assertIn(f"key '{key}'", msg)
        else:
            self.assertNotIn(", key '", msg)
        for n in needles:
            self.assertIn(n, msg)
        self.assertEqual(snapshot(os.path.join(self.tmp, "out")), self.before, "output directory changed")
        return msg


class TestReservedNames(Case):
    def test_runtime_names(self):
        # generated/cpu/fg_cpu.{c,h} would overwrite the runtime's names
        for name in ("cpu", "isa", "tune", "CPU", "sel", "vectors"):
            with self.subTest(name=name):
                self.refused(table(name), name, None, f"'{name}' is reserved", "choose another name")

    def test_runtime_prefixes(self):
        for name in ("cpu_x", "isa_level", "tune_zen"):
            with self.subTest(name=name):
                self.refused(table(name), name, None, "starts with the reserved prefix")

    def test_test_namespace(self):
        # the extra test primes live under test_*: no user field may take it
        for name in ("test", "test_p384", "Test_x"):
            with self.subTest(name=name):
                self.refused(table(name), name, None, "reserved")

    def test_field_prefix_of_another(self):
        # [x] with an extension makes fg_x_fp2_mul, and so would [x_fp2]
        text = table("x", extra="extension = { degree = 2, non_residue = -1 }") + table("x_fp2", "2^61 - 1")
        self.refused(text, "x_fp2", None, "begins with 'x_'", "fg_x_*")
        # in either order, and whatever the case
        self.refused(table("X_mul", "2^61 - 1") + table("x"), "X_mul", None, "begins with 'x_'")

    def test_names_that_do_not_clash_are_accepted(self):
        # p256 beside p256n (the shipped pair), a trailing '_' beside its stem
        path = os.path.join(self.tmp, "fine.toml")
        with open(path, "w") as f:
            f.write(table("p256", "2^255 - 19") + table("p256n") + table("Int", "2^61 - 1") + table("int_", "2^89 - 1"))
        proc = run(["--config", path, "--list"], self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_long_name(self):
        self.refused(table("a" * 65), None, None, "65 characters, above the limit of 64")

    def test_unknown_key_suggests(self):
        msg = self.refused('[k]\nmodulus = "2^127 - 1"\nbyteorder = "big"\n', "k", "byteorder",
                           "did you mean 'byte_order'?")
        self.assertIn("known keys: byte_order, extension, modulus, sqrt_ratio_z", msg)


class TestExtraPrimesNamespace(unittest.TestCase):
    def test_user_field_named_like_an_extra_prime(self):
        """The README's own example ([p384], also an extra test prime) must
        not collide: the extra primes generate as test_NAME."""
        tmp = tempfile.mkdtemp(prefix="fieldgen-test-names-")
        self.addCleanup(shutil.rmtree, tmp, True)
        user = os.path.join(tmp, "user.toml")
        with open(user, "w") as f:
            f.write(table("p384", "2^384 - 2^128 - 2^96 + 2^32 - 1", "big"))
        self.assertEqual(run(["--config", user, "--out", "u"], tmp).returncode, 0)
        proc = run(["--test-primes", "--config", EXTRA, "--out", "x", "--field", "test_p384"], tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.isfile(os.path.join(tmp, "u", "p384", "fg_p384.h")))
        self.assertTrue(os.path.isfile(os.path.join(tmp, "x", "test_p384", "fg_test_p384.h")))
        self.assertFalse(os.path.exists(os.path.join(tmp, "x", "p384")))
        with open(os.path.join(tmp, "x", "test_p384", "fg_test_p384.h")) as f:
            head = f.read()
        self.assertIn("gen/fieldgen --config", head)
        self.assertIn("--test-primes", head)    # the recorded command regenerates the same names
        self.assertIn("fg_test_p384_mul", head)
        self.assertNotIn("fg_p384_", head)

    def test_every_extra_prime_is_namespaced(self):
        proc = run(["--test-primes", "--config", EXTRA, "--list"], REPO)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        names = [line.split(":")[0] for line in proc.stdout.splitlines() if not line.startswith(" ")]
        self.assertGreaterEqual(len(names), 20)
        self.assertTrue(all(n.startswith("test_") for n in names), names)
        # and without the flag, the same file is a user's config like any other
        proc = run(["--config", EXTRA, "--list"], REPO)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("p384: p = ", proc.stdout)


class TestParserBounds(Case):
    """Issue 53 defect 4: deep nesting ended in a RecursionError traceback."""

    def test_nested_parentheses(self):
        self.refused(table("k", "(" * 2000 + "2^127 - 1" + ")" * 2000), "k", "modulus", "nested more than 100 deep")

    def test_repeated_unary_minus(self):
        self.refused(table("k", "-" * 2000 + "5"), "k", "modulus", "nested more than 100 deep")

    def test_exponent_towers(self):
        self.refused(table("k", "2^" * 1000 + "1"), "k", "modulus", "nested more than 100 deep")

    def test_long_expression(self):
        self.refused(table("k", "+".join(["1"] * 3000)), "k", "modulus", "longer than 4096")

    def test_shallow_nesting_still_parses(self):
        path = os.path.join(self.tmp, "deep_ok.toml")
        with open(path, "w") as f:
            f.write(table("k", "(" * 50 + "2^127 - 1" + ")" * 50) + table("j", "-(-(2^61 - 1))"))
        self.assertEqual(run(["--config", path, "--list"], self.tmp).returncode, 0)

    def test_deep_toml(self):
        self.refused("[k]\nmodulus = " + "[" * 5000 + "]" * 5000 + "\n", None, None, "nested too deeply")


class TestSqrtRatioZ(Case):
    """Issue 53 defect 5: a Z wider than 64 bits made a macro C cannot hold."""

    def test_too_wide(self):
        # a non-residue mod 2^127 - 1 just above 2^64 passes every other check
        p = 2**127 - 1
        z = next(z for z in range(2**64, 2**64 + 1000) if pow(z, (p - 1) // 2, p) == p - 1)
        self.refused(table("k", extra=f"sqrt_ratio_z = {z}"), "k", "sqrt_ratio_z", "below 2^63")
        self.refused(table("k", extra=f"sqrt_ratio_z = {-z}"), "k", "sqrt_ratio_z", "below 2^63")

    def test_widest_accepted(self):
        p = 2**127 - 1
        z = next(z for z in range(2**63 - 1, 2**62, -1) if pow(z, (p - 1) // 2, p) == p - 1)
        path = os.path.join(self.tmp, "z.toml")
        with open(path, "w") as f:
            f.write(table("k", extra=f"sqrt_ratio_z = {z}"))
        tmp_out = os.path.join(self.tmp, "zout")
        self.assertEqual(run(["--config", path, "--out", tmp_out], self.tmp).returncode, 0)
        with open(os.path.join(tmp_out, "k", "fg_k.h")) as f:
            self.assertIn(str(z), f.read())


if __name__ == "__main__":
    unittest.main()
