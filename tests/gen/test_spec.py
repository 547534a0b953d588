# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 1 (gen/fg/spec.py, gen/fg/numtheory.py): fields.toml parsing, the
modulus expression language, and every validation error of issue 2.

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_spec

Error messages are asserted verbatim: they are the user interface. A
SpecError's str() is "<path>: field '<name>', key '<key>': <detail>".
"""

import dataclasses
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from fg import numtheory, spec
from fg.spec import SpecError

from . import configs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = "cfg/fields.toml"   # the path a message must name; loads() never opens it
LIMIT_MSG = "field name must be a C identifier (letters, digits, '_', not starting with a digit, not a C keyword)"

P25519 = 2**255 - 19
P256 = 2**256 - 2**224 + 2**192 + 2**96 - 1
P503 = 2**250 * 3**159 - 1
P751 = 2**372 * 3**239 - 1
P256N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551   # the P-256 group order


def field(name="f", modulus='"2^255 - 19"', byte_order='"little"', extra=""):
    """TOML text of one field table; arguments are raw TOML values."""
    text = f"[{name}]\n"
    if modulus is not None:
        text += f"modulus = {modulus}\n"
    if byte_order is not None:
        text += f"byte_order = {byte_order}\n"
    return text + extra


class SpecErrorCase(unittest.TestCase):
    def assertSpecError(self, text, expected):
        """loads(text) raises SpecError whose full message is PATH + expected."""
        with self.assertRaises(SpecError) as cm:
            spec.loads(text, PATH)
        self.assertEqual(str(cm.exception), f"{PATH}{expected}")
        return cm.exception

    def assertModulusError(self, modulus, detail):
        e = self.assertSpecError(field(modulus=modulus), f": field 'f', key 'modulus': {detail}")
        self.assertEqual((e.path, e.field, e.key, e.detail), (PATH, "f", "modulus", detail))


class TestModulusValue(SpecErrorCase):
    """Not prime, even, below 2^32, above 1024 bits: each message names the text."""

    def test_not_prime(self):
        self.assertModulusError('"2^64 + 1"', "2^64 + 1 is not prime")          # 274177 * 67280421310721
        self.assertModulusError('"2^255 - 21"', "2^255 - 21 is not prime")
        # psi_12: strong pseudoprime to every prime base up to 37
        self.assertModulusError("318665857834031151167461", "318665857834031151167461 is not prime")
        self.assertModulusError('"(2^127 - 1) * (2^89 - 1)"', "(2^127 - 1) * (2^89 - 1) is not prime")
        self.assertModulusError('"(2^521 - 1)^2"', "(2^521 - 1)^2 has 1042 bits, above the 1024-bit limit (16 limbs)")

    def test_even(self):
        self.assertModulusError('"2^40"', "2^40 is even")
        self.assertModulusError('"2^255 - 18"', "2^255 - 18 is even")
        self.assertModulusError("4294967296", "4294967296 is even")   # exactly 2^32: not below

    def test_below_2_32(self):
        self.assertModulusError('"2^32 - 5"', "2^32 - 5 is below 2^32")   # prime, but too small
        self.assertModulusError("65537", "65537 is below 2^32")
        self.assertModulusError('"3"', "3 is below 2^32")
        self.assertModulusError('"0"', "0 is below 2^32")
        self.assertModulusError('"-(2^255 - 19)"', "-(2^255 - 19) is below 2^32")
        self.assertModulusError("-7", "-7 is below 2^32")

    def test_smallest_admitted(self):
        fs, = spec.loads(field(modulus='"2^32 + 15"'), PATH)   # smallest prime above 2^32
        self.assertEqual(fs.p, 4294967311)

    def test_above_1024_bits(self):
        self.assertModulusError('"2^1024 + 643"', "2^1024 + 643 has 1025 bits, above the 1024-bit limit (16 limbs)")
        self.assertModulusError('"2^1279 - 1"', "2^1279 - 1 has 1279 bits, above the 1024-bit limit (16 limbs)")

    def test_largest_admitted(self):
        fs, = spec.loads(field(modulus='"2^1024 - 105"'), PATH)
        self.assertEqual(fs.p.bit_length(), 1024)


class TestNames(SpecErrorCase):
    def test_not_identifier(self):
        for name, header in [("1abc", "1abc"), ("a-b", "a-b"), ("a b", '"a b"'), ("", '""'),
                             ("p.256", '"p.256"'), ("\u00e9", '"\u00e9"'), ("p256$", '"p256$"')]:
            with self.subTest(name=name):
                self.assertSpecError(field(name=header), f": field '{name}': {LIMIT_MSG}")

    def test_c_keyword(self):
        for name in ["int", "while", "static", "unsigned", "restrict", "inline", "_Bool"]:
            with self.subTest(name=name):
                self.assertSpecError(field(name=name), f": field '{name}': {LIMIT_MSG}")

    def test_identifiers_accepted(self):
        names = ["_p", "P256", "p_2_255_19", "Int", "int_", "x"]
        text = "".join(field(name=n) for n in names)
        self.assertEqual([fs.name for fs in spec.loads(text, PATH)], names)

    def test_not_a_table(self):
        self.assertSpecError("f = 5\n", ": field 'f': must be a table ([name] followed by key = value lines)")


class TestKeys(SpecErrorCase):
    def test_unknown_key(self):
        self.assertSpecError(field(extra='prime = "2^255 - 19"\n'),
                             ": field 'f', key 'prime': unknown key (known keys: byte_order, extension, modulus, sqrt_ratio_z)")
        self.assertSpecError(field(extra="Modulus = 5\n"),
                             ": field 'f', key 'Modulus': unknown key (did you mean 'modulus'? "
                             "known keys: byte_order, extension, modulus, sqrt_ratio_z)")

    def test_sub_table_is_unknown_key(self):
        self.assertSpecError(field() + "[f.opts]\nx = 1\n",
                             ": field 'f', key 'opts': unknown key (known keys: byte_order, extension, modulus, sqrt_ratio_z)")

    def test_missing_key(self):
        self.assertSpecError(field(modulus=None),
                             ": field 'f', key 'modulus': missing; expected the prime, as an expression string or an integer")
        self.assertSpecError(field(byte_order=None),
                             ": field 'f', key 'byte_order': missing; expected \"big\" or \"little\"")

    def test_bad_byte_order(self):
        for raw, shown in [('"Big"', "'Big'"), ('"network"', "'network'"), ('""', "''"), ("1", "1"),
                           ("true", "True")]:
            with self.subTest(byte_order=raw):
                self.assertSpecError(field(byte_order=raw),
                                     f": field 'f', key 'byte_order': must be \"big\" or \"little\", not {shown}")

    def test_modulus_wrong_type(self):
        for raw in ["true", "false", "1.5e80", "inf", "[4294967311]", "{ value = 4294967311 }",
                    "1979-05-27"]:
            with self.subTest(modulus=raw):
                self.assertModulusError(raw, "must be a string expression or an integer")


class TestMalformedExpression(SpecErrorCase):
    """Each malformed expression names the 1-based column of the problem."""

    CASES = [
        # (expression, column, message)
        ("2^255 -", 8, "expected a number or '(', found end of expression"),            # trailing operator
        ("2^255 - 19 +", 13, "expected a number or '(', found end of expression"),
        ("2**255 - 19", 3, "expected a number or '(', found '*'"),
        ("(2^255 - 19", 12, "expected ')', found end of expression"),                   # unbalanced (
        ("2^(255 - 19", 12, "expected ')', found end of expression"),
        ("((2)", 5, "expected ')', found end of expression"),
        ("2^255 - 19)", 11, "unexpected ')' after a complete expression"),              # unbalanced )
        ("()", 2, "expected a number or '(', found ')'"),
        ("(2 3)", 4, "expected ')', found '3'"),
        ("2 3", 3, "unexpected 3 after a complete expression"),
        ("2^255 - 1$9", 10, "unexpected character '$'"),                                # bad characters
        ("2^255 \u2212 19", 7, "unexpected character '\u2212'"),
        ("0x", 2, "unexpected character 'x'"),
        ("2^255 / 19", 7, "unexpected character '/'"),
        ("p - 19", 1, "unexpected character 'p'"),
        ("", 1, "empty expression"),
        ("2^-1", 2, "negative exponent"),
        ("2^(3 - 5) + 2^255", 2, "negative exponent"),
        ("2^5000", 2, "exponent 5000 is larger than 4096"),                              # huge exponent
        ("2 ^ 4097 - 1", 3, "exponent 4097 is larger than 4096"),
        ("3^(2^13)", 2, "exponent 8192 is larger than 4096"),
    ]

    def test_parse_expression_errors(self):
        for text, column, message in self.CASES:
            with self.subTest(expr=text):
                with self.assertRaises(spec.ExprError) as cm:
                    spec.parse_expression(text)
                self.assertEqual(cm.exception.column, column)
                self.assertEqual(str(cm.exception), f"column {column}: {message}")

    def test_spec_errors(self):
        for text, column, message in self.CASES:
            with self.subTest(expr=text):
                raw = text.replace("\\", "\\\\").replace('"', '\\"')
                self.assertModulusError(f'"{raw}"', f"malformed expression {text!r}: column {column}: {message}")

    def test_exponent_bound_is_inclusive(self):
        self.assertEqual(spec.parse_expression("2^4096"), 2**4096)

    def test_trailing_space_accepted(self):
        # _tokenize's "break  # trailing white space" is unreachable: '.' matches the space.
        self.assertEqual(spec.parse_expression("2^255 - 19 "), P25519)

    def test_trailing_newline(self):
        # A TOML multi-line string ends in a newline; _TOKEN.match returns None there.
        fs, = spec.loads(field(modulus='"""\n2^255 - 19\n"""'), PATH)
        self.assertEqual(fs.p, P25519)

    def test_blank_is_empty(self):
        self.assertModulusError('"   "', "malformed expression '   ': column 1: empty expression")

    def test_huge_exponent_message(self):
        # The exponent 4096^4096 would have 14,797 digits: the inner power is
        # refused for its size before it is computed or printed.
        with self.assertRaises(spec.ExprError) as cm:
            spec.parse_expression("2^(4096^4096)")
        self.assertEqual(cm.exception.column, 8)
        self.assertIn("power exceeds", str(cm.exception))

    def test_huge_decimal_literal(self):
        with self.assertRaises(SpecError) as cm:
            spec.loads(field(modulus='"' + "9" * 5000 + '"'), PATH)
        self.assertTrue(str(cm.exception).startswith(f"{PATH}: field 'f', key 'modulus': "))

    def test_huge_bare_integer(self):
        with self.assertRaises(SpecError) as cm:
            spec.loads(field(modulus="9" * 5000), PATH)
        self.assertTrue(str(cm.exception).startswith(f"{PATH}"))

    def test_leading_zero(self):
        # int('0255', 0) raises ValueError in _tokenize. Either reading it as
        # decimal 255 or an ExprError with a column is acceptable; a traceback is not.
        try:
            value = spec.parse_expression("2^0255 - 19")
        except spec.ExprError as e:
            self.assertEqual(e.column, 3)
        else:
            self.assertEqual(value, P25519)

    def test_nested_power_is_bounded(self):
        # MAX_EXPONENT bounds each exponent, not the value: ((2^4096)^4096)^4096
        # needs 8 GiB. Run it in a child with 1 GiB of address space and 3 s;
        # a bounded parser rejects it at once.
        code = ("import sys; from fg import spec\n"
                "try:\n    spec.parse_expression('((2^4096)^4096)^4096')\n"
                "except spec.ExprError:\n    sys.exit(0)\nsys.exit(1)\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(spec.__file__))))
        proc = subprocess.run(["sh", "-c", 'ulimit -v 1048576; exec "$0" -B -c "$1"', sys.executable, code],
                              env=env, timeout=3, capture_output=True)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode()[-300:])


class TestDuplicates(SpecErrorCase):
    def test_exact_duplicate(self):
        self.assertSpecError(field("p256") + field("q") + field("p256"),
                             ": field 'p256': duplicate field (line 7; first defined as 'p256' on line 1)")

    def test_case_only_duplicate(self):
        self.assertSpecError(field("p256") + field("P256"),
                             ": field 'P256': duplicate field (line 4; first defined as 'p256' on line 1)")
        self.assertSpecError(field("Foo_Bar") + "\n" + field("fOO_bAR"),
                             ": field 'fOO_bAR': duplicate field (line 5; first defined as 'Foo_Bar' on line 1)")

    def test_quoted_and_commented_headers(self):
        self.assertSpecError('["p1"]  # first\n' + field(name="p1")[5:] + "[ P1 ] # again\n",
                             ": field 'P1': duplicate field (line 4; first defined as 'p1' on line 1)")

    def test_case_only_duplicate_inline_table(self):
        # Both become FG_P256_* macros; _check_duplicates only scans [headers].
        with self.assertRaises(SpecError):
            spec.loads('p256 = { modulus = "2^255 - 19", byte_order = "big" }\n' + field("P256"), PATH)


class TestDocument(SpecErrorCase):
    def test_not_toml(self):
        for text in [field(modulus=""), "[f\n", '[f]\nmodulus = "2^255 - 19\n', "f = = 1\n",
                     field() + "modulus = 5\n"]:
            with self.subTest(text=text):
                with self.assertRaises(SpecError) as cm:
                    spec.loads(text, PATH)
                msg = str(cm.exception)
                self.assertTrue(msg.startswith(f"{PATH}: not valid TOML: "), msg)
                self.assertRegex(msg, r"\(at line \d+, column \d+\)$")

    def test_not_toml_position(self):
        with self.assertRaises(SpecError) as cm:
            spec.loads('[f]\nmodulus = "2^255 - 19"\nbyte_order = \n', PATH)
        self.assertEqual(str(cm.exception), f"{PATH}: not valid TOML: Invalid value (at line 3, column 14)")
        self.assertEqual((cm.exception.field, cm.exception.key), (None, None))

    def test_empty(self):
        for text in ["", "\n\n", "# only a comment\n"]:
            with self.subTest(text=text):
                self.assertSpecError(text, ": defines no field (add a [name] table with modulus and byte_order)")

    def test_load_names_real_path(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "my fields.toml")
            with open(path, "w") as f:
                f.write(field(modulus='"2^64 + 1"'))
            with self.assertRaises(SpecError) as cm:
                spec.load(path)
            self.assertEqual(str(cm.exception), f"{path}: field 'f', key 'modulus': 2^64 + 1 is not prime")
            os.remove(path)
            with self.assertRaises(SpecError) as cm:
                spec.load(path)
            self.assertEqual(str(cm.exception), f"{path}: cannot read: No such file or directory")
            with open(path, "wb") as f:
                f.write(b"[f]\nmodulus = \"2^255 - 19\"\n# \xff\n")
            with self.assertRaises(SpecError) as cm:
                spec.load(path)
            self.assertEqual(str(cm.exception), f"{path}: not UTF-8 (invalid start byte at byte 29)")


class TestExpressions(unittest.TestCase):
    def test_values(self):
        for text, value in [
            ("0", 0), ("42", 42), ("0x0007", 7), ("0x10", 16), ("0XfF", 255),
            ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("2 - 3 - 4", -5), ("2 * 3 * 4", 24),
            ("2^3^2", 512),                 # right-associative: 2^(3^2)
            ("(2^3)^2", 64),
            ("-2^2", -4), ("(-2)^2", 4), ("--3", 3), ("+5", 5), ("2^-(-3)", 8),
            ("2 * -3", -6), ("2^2^0", 2), ("0^0", 1),
            ("  2^255\t-\t19", P25519), ("((((7))))", 7),
            ("0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff", P256),
            ("2^(250) * 3^(159) - 1", P503),
        ]:
            with self.subTest(expr=text):
                self.assertEqual(spec.parse_expression(text), value)

    def test_forms_in_toml(self):
        text = (field("hexstr", '"0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff"')
                + field("paren", '"2^(2^3 * (31 + 1) - 1) - (2^5 - 13)"')
                + field("rassoc", '"2^2^5 + 15"')
                + field("unary", '"-(-2^64) - 59"')
                + field("bare", "4294967311", '"big"')
                + field("barehex", "0x7fffffffffffffffffffffffffffffff")
                + field("big_int", str(P25519)))
        got = {fs.name: fs for fs in spec.loads(text, PATH)}
        self.assertEqual(got["hexstr"].p, P256)
        self.assertEqual(got["paren"].p, P25519)
        self.assertEqual(got["rassoc"].p, 2**32 + 15)
        self.assertEqual(got["unary"].p, 2**64 - 59)
        self.assertEqual((got["bare"].p, got["bare"].modulus_text, got["bare"].byte_order),
                         (4294967311, "4294967311", "big"))
        self.assertEqual((got["barehex"].p, got["barehex"].modulus_text), (2**127 - 1, str(2**127 - 1)))
        self.assertEqual(got["big_int"].p, P25519)
        self.assertEqual(got["paren"].modulus_text, "2^(2^3 * (31 + 1) - 1) - (2^5 - 13)")
        self.assertEqual(list(got), ["hexstr", "paren", "rassoc", "unary", "bare", "barehex", "big_int"])

    def test_spec_is_immutable(self):
        fs, = spec.loads(field(), PATH)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            fs.p = 7

    def test_shipped_fields(self):
        # the fixture (tests/gen/fixtures/shipped.toml) holds the shipped tables
        fields = spec.load(configs.FIXTURE)
        self.assertEqual([(fs.name, fs.p, fs.byte_order) for fs in fields], [
            ("p256", P256, "big"),
            ("p25519", P25519, "little"),
            ("p503", P503, "little"),
            ("p751", P751, "little"),
            ("p256n", P256N, "big"),
        ])
        self.assertEqual([fs.modulus_text for fs in fields], [
            "2^256 - 2^224 + 2^192 + 2^96 - 1", "2^255 - 19", "2^250 * 3^159 - 1", "2^372 * 3^239 - 1",
            "0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"])
        self.assertEqual(P256, 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff)
        self.assertEqual(P25519, 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed)

    def test_repo_config_agrees_with_fixture(self):
        # fields.toml loads, whatever a user added or removed, and every
        # shipped table still in it is the fixture's
        fixture = {fs.name: fs for fs in spec.load(configs.FIXTURE)}
        for fs in spec.load(configs.REPO_CONFIG):
            if fs.name in fixture:
                with self.subTest(field=fs.name):
                    self.assertEqual(fs, fixture[fs.name])

    def test_extra_fields_load(self):
        fields = spec.load(os.path.join(REPO, "tests", "extra_fields.toml"))
        self.assertGreaterEqual(len(fields), 6)
        bits = [fs.p.bit_length() for fs in fields]
        self.assertLessEqual(min(bits), 64)
        self.assertEqual(max(bits), 1024)


def _sieve(n):
    s = bytearray([1]) * n
    s[0] = s[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if s[i]:
            s[i * i::i] = bytearray(len(s[i * i::i]))
    return s


class TestPrimality(unittest.TestCase):
    PRIMES = [
        P256, P25519, P503, P751,
        2**127 - 1, 2**521 - 1, 2**61 - 1, 2**89 - 1,
        2**448 - 2**224 - 1,                       # Goldilocks
        2**64 - 2**32 + 1,                         # 64-bit Goldilocks
        2**256 - 2**32 - 977,                      # secp256k1
        2**130 - 5, 2**1024 - 105, 2**32 + 15,
        0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,   # BLS12-381 r
        0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001,   # Pallas
    ]
    COMPOSITES = [
        561, 41041, 3215031751,                    # Carmichael
        2047, 3277, 4033, 4681, 8321,              # strong pseudoprimes to base 2
        2**255 - 21, 2**64 + 1, 2**32 + 1,
        3825123056546413051,                       # spsp to bases 2..23, factors > 1000
        318665857834031151167461,                  # psi_12: spsp to bases 2..37
        3317044064679887385961981,                 # psi_13: spsp to bases 2..41
        (2**127 - 1) * (2**89 - 1), (2**61 - 1) * (2**64 - 59),
        (2**255 - 19) * (2**256 - 2**32 - 977), P25519 ** 2, 1009 ** 2, 4294967311 ** 2,
    ]

    def test_known_primes(self):
        for p in self.PRIMES:
            with self.subTest(p=hex(p)):
                self.assertTrue(numtheory.is_probable_prime(p))

    def test_composites(self):
        for n in self.COMPOSITES:
            with self.subTest(n=n if n < 2**100 else hex(n)):
                self.assertFalse(numtheory.is_probable_prime(n))

    def test_composites_rejected_by_spec(self):
        for n in self.COMPOSITES:
            if n >= 2**32 and n.bit_length() <= 1024:
                with self.subTest(n=n if n < 2**100 else hex(n)):
                    with self.assertRaises(SpecError) as cm:
                        spec.loads(field(modulus=str(n)), PATH)
                    self.assertEqual(cm.exception.detail, f"{n} is not prime")

    def test_small_numbers_match_sieve(self):
        s = _sieve(130140)
        for n in range(-3, 130140):
            if numtheory.is_probable_prime(n) != bool(n >= 0 and s[n]):
                self.fail(f"is_probable_prime({n}) is wrong")

    def test_32_to_64_bit_against_deterministic_mr(self):
        # Deterministic Miller-Rabin with the first 12 primes is exact below 3.3e24.
        import random
        rng = random.Random(1)

        def mr_exact(n):
            if n % 2 == 0:
                return False
            d, s = n - 1, 0
            while d % 2 == 0:
                d, s = d // 2, s + 1
            for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
                x = pow(a, d, n)
                if x in (1, n - 1):
                    continue
                for _ in range(s - 1):
                    x = x * x % n
                    if x == n - 1:
                        break
                else:
                    return False
            return True

        candidates = [rng.randrange(2**32, 2**64) | 1 for _ in range(3000)]
        candidates += [2**64 - k for k in range(1, 400, 2)] + [2**32 + k for k in range(1, 400, 2)]
        for n in candidates:
            self.assertEqual(numtheory.is_probable_prime(n), mr_exact(n), n)

    def test_strong_lucas_alone(self):
        # Every composite that reaches the Lucas step has passed 24 Miller-Rabin
        # bases, so a broken Lucas test would go unnoticed; test it on its own
        # against the known strong Lucas pseudoprimes (OEIS A217255).
        slpsp = [5459, 5777, 10877, 16109, 18971, 22499, 24569, 25199, 40309, 58519,
                 75077, 97439, 100127, 113573, 115639, 130139]
        s = _sieve(130140)
        for n in range(5, 130140, 2):
            expected = bool(s[n]) or n in slpsp
            if numtheory._strong_lucas(n) != expected:
                self.fail(f"_strong_lucas({n}) should be {expected}")
        for p in self.PRIMES:
            self.assertTrue(numtheory._strong_lucas(p), hex(p))

    def test_jacobi(self):
        for n in [3, 5, 7, 9, 15, 21, 4294967311]:
            for a in list(range(-5, 40)) + [n - 1, n, n + 1]:
                if n in (3, 5, 7, 4294967311):   # prime: Euler's criterion
                    e = pow(a, (n - 1) // 2, n)
                    expected = 0 if a % n == 0 else (1 if e == 1 else -1)
                    self.assertEqual(numtheory.jacobi(a, n), expected, (a, n))
        # multiplicative in the denominator: (a/15) = (a/3)(a/5)
        for a in range(60):
            self.assertEqual(numtheory.jacobi(a, 15), numtheory.jacobi(a, 3) * numtheory.jacobi(a, 5))


class TestExtension(SpecErrorCase):
    """extension = { degree = 2, non_residue = n }: every error, exact message."""

    P3MOD4 = '"2^255 - 19"'  # 2^255-19 = 1 mod 4: -1 is a residue, 2 is not

    def ext(self, value, modulus=None):
        return field(modulus=modulus or self.P3MOD4, extra=f"extension = {value}\n")

    def test_accepted(self):
        (fs,) = spec.loads(self.ext("{ degree = 2, non_residue = 2 }"), PATH)
        self.assertEqual(fs.fp2_non_residue, 2)
        (fs,) = spec.loads(self.ext("{ degree = 2, non_residue = -1 }", '"2^250 * 3^159 - 1"'), PATH)
        self.assertEqual(fs.fp2_non_residue, -1)
        (fs,) = spec.loads(field(), PATH)
        self.assertIsNone(fs.fp2_non_residue)

    def test_residue_rejected(self):
        self.assertSpecError(self.ext("{ degree = 2, non_residue = -1 }"),
                             ": field 'f', key 'extension.non_residue': -1 is a quadratic residue mod p, "
                             "so u^2 = -1 does not define a field; choose a quadratic non-residue")

    def test_zero_and_too_large(self):
        for nr in ("0", "70000", "-70000"):
            self.assertSpecError(self.ext(f"{{ degree = 2, non_residue = {nr} }}"),
                                 ": field 'f', key 'extension.non_residue': must be a nonzero integer "
                                 f"with |non_residue| <= 65536, not {nr}")

    def test_multiple_of_p_rejected(self):
        self.assertSpecError(self.ext("{ degree = 2, non_residue = 4294967311 }", "4294967311"),
                             ": field 'f', key 'extension.non_residue': must be a nonzero integer "
                             "with |non_residue| <= 65536, not 4294967311")

    def test_degree(self):
        self.assertSpecError(self.ext("{ degree = 3, non_residue = 2 }"),
                             ": field 'f', key 'extension.degree': only degree 2 is supported, not 3")
        self.assertSpecError(self.ext("{ degree = true, non_residue = 2 }"),
                             ": field 'f', key 'extension.degree': only degree 2 is supported, not True")

    def test_types_and_keys(self):
        self.assertSpecError(self.ext("2"), ": field 'f', key 'extension': must be a table "
                                            "{ degree = 2, non_residue = <integer> }")
        self.assertSpecError(self.ext('{ degree = 2, non_residue = "2" }'),
                             ": field 'f', key 'extension.non_residue': must be an integer, not '2'")
        self.assertSpecError(self.ext("{ degree = 2, non_residue = 2, tower = 1 }"),
                             ": field 'f', key 'extension.tower': unknown key (known keys: degree, non_residue)")
        self.assertSpecError(self.ext("{ degree = 2 }"),
                             ": field 'f', key 'extension.non_residue': missing")


class TestSqrtRatioZ(SpecErrorCase):
    """sqrt_ratio_z = Z: every error, exact message."""

    def z(self, value, modulus=None):
        return field(modulus=modulus or '"2^255 - 19"', extra=f"sqrt_ratio_z = {value}\n")

    def test_accepted(self):
        (fs,) = spec.loads(self.z("2"), PATH)
        self.assertEqual(fs.sqrt_ratio_z, 2)
        (fs,) = spec.loads(self.z("-10", '"2^256 - 2^224 + 2^192 + 2^96 - 1"'), PATH)
        self.assertEqual(fs.sqrt_ratio_z, -10)
        (fs,) = spec.loads(field(), PATH)
        self.assertIsNone(fs.sqrt_ratio_z)

    def test_residue_rejected(self):
        # 2^255-19 = 5 mod 8: -1 is a square, 2 is not
        self.assertSpecError(self.z("-1"), ": field 'f', key 'sqrt_ratio_z': -1 is a quadratic residue mod p; "
                                           "sqrt_ratio needs a non-residue Z (the smallest positive one here is 2)")

    def test_zero_and_range(self):
        for z in ("0", "4294967311", "-4294967311", "4294967312"):
            self.assertSpecError(self.z(z, "4294967311"),
                                 f": field 'f', key 'sqrt_ratio_z': must be a nonzero integer with |Z| < p, not {z}")

    def test_types(self):
        self.assertSpecError(self.z('"2"'), ": field 'f', key 'sqrt_ratio_z': must be an integer, not '2'")
        self.assertSpecError(self.z("true"), ": field 'f', key 'sqrt_ratio_z': must be an integer, not True")
        self.assertSpecError(self.z("2.0"), ": field 'f', key 'sqrt_ratio_z': must be an integer, not 2.0")


if __name__ == "__main__":
    unittest.main()
