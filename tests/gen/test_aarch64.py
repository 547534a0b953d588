# SPDX-License-Identifier: MIT OR Apache-2.0
"""The AArch64 kernels (gen/fg/targets/aarch64) run by an interpreter of
the instructions they use (targets/aarch64/sim.py) against Python
integers: every op of the shipped fields and of every extra prime (limb
counts 1 to 16, both forms), on random, edge and carry-stress inputs, with
the result aliasing an operand; the interpreter also checks the ABI
(x19-x28 and sp restored, x18/x29/x30 untouched), straight-line code and
memory accesses inside the arguments, frame and table. qemu runs the same
kernels in the cross build (.ci/aarch64.sh).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_aarch64
"""

import os
import random
import sys
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg import analysis, spec  # noqa: E402
from fg.targets import aarch64  # noqa: E402
from fg.targets.aarch64 import fp2, kernels, sim  # noqa: E402

COUNT = int(os.environ.get("FIELDGEN_AARCH64_SIM_COUNT", "6"))
TABLE = 0x20000000
MASK = (1 << 64) - 1


def limbs(x, n):
    return [(x >> (64 * i)) & MASK for i in range(n)]


def value(words):
    return sum(w << (64 * i) for i, w in enumerate(words))


def reference(fa, op, a, b, t):
    """The value each op must produce (the C level's contract)."""
    p, n = fa.p, fa.n
    R = 1 << (64 * n)
    rinv = pow(R, -1, p) if fa.form == "montgomery" else 1
    if op == "mul_wide":
        return a * b
    if op == "sqr_wide":
        return a * a
    if op == "redc":
        return t * rinv % p
    if op == "mul":
        return a * b * rinv % p
    if op == "sqr":
        return a * a * rinv % p
    x = a * b if op == "mul_lazy" else a * a
    if fa.form == "pseudo_mersenne":
        # lazy: the C's two folds without its final subtraction, below 2p:
        # w = t_lo + t_hi C_FOLD (C_FOLD = 2^(64n) mod p), then with
        # k = bits of p, (w mod 2^k) + (w >> k) c
        k = 64 * (n - 1) + fa.k_top_bits
        w = (x % R) + (x >> (64 * n)) * fa.c_fold
        return (w % (1 << k)) + (w >> k) * fa.c
    # lazy: (x + m p) / R with m = -x p^-1 mod R, below 2p
    m = (-x * pow(p, -1, R)) % R
    return (x + m * p) // R


def run(fa, kn, op, a, b, t, alias=None):
    """Run one kernel; returns its output limbs. alias "a": the result is
    written over a's (or t's) limbs."""
    n = fa.n
    lines = [line.replace("@P@", "TABLE") for line in kn.text()]
    mem = {}
    for i, w in enumerate(fa.p_limbs):
        mem[TABLE + 8 * i] = w
    out_words = 2 * n if op.endswith("_wide") else n
    base_out, base_a, base_b = 0x100000, 0x200000, 0x300000
    if op == "redc":
        for i, w in enumerate(limbs(t, 2 * n)):
            mem[base_a + 8 * i] = w
        regions = [(base_a, base_a + 16 * n)]
    else:
        for i, w in enumerate(limbs(a, n)):
            mem[base_a + 8 * i] = w
        for i, w in enumerate(limbs(b, n)):
            mem[base_b + 8 * i] = w
        regions = [(base_a, base_a + 8 * n), (base_b, base_b + 8 * n)]
    if alias:
        base_out = base_a
        regions.append((base_a, base_a + 8 * out_words))
    else:
        regions.append((base_out, base_out + 8 * out_words))
    sim.run(lines, {"x0": base_out, "x1": base_a, "x2": base_b}, mem, regions, "TABLE", TABLE)
    return value([mem[base_out + 8 * i] for i in range(out_words)])


def inputs(fa, rng):
    """Operand pairs: edges, carry-stress limbs, random."""
    p, n = fa.p, fa.n
    edge = [0, 1, 2, p - 1, p - 2, (p - 1) // 2]
    special = [0, 1, MASK, 1 << 63, (1 << 32) - 1] + list(fa.p_limbs)
    out = [(x, y) for x in edge for y in (0, 1, p - 1)]
    for _ in range(COUNT):
        out.append((rng.randrange(p), rng.randrange(p)))
        out.append((value([rng.choice(special) for _ in range(n)]) % p,
                    value([rng.choice(special) for _ in range(n)]) % p))
    if fa.form == "pseudo_mersenne" and fa.lazy_pm:
        # the lazy range of a pseudo-Mersenne field: every limb pattern, as
        # operands of mul and sqr too (docs/api.md)
        top = 1 << (64 * n)
        out += [(top - 1, top - 1), (top - 1, p), (p, p + 1)]
        for _ in range(COUNT):
            out.append((rng.randrange(top), rng.randrange(top)))
            out.append((value([rng.choice(special) for _ in range(n)]),
                        value([rng.choice(special) for _ in range(n)])))
    return out


def wide_inputs(fa, rng):
    """redc inputs within its bound: t < p R (Montgomery), any t < 2^(128n) otherwise."""
    p, n = fa.p, fa.n
    top = p << (64 * n) if fa.form == "montgomery" else 1 << (128 * n)
    out = [0, 1, top - 1, (p - 1) ** 2, top // 2]
    for _ in range(COUNT):
        out.append(rng.randrange(top))
        out.append(rng.randrange(p) * rng.randrange(p))
        out.append(min(top - 1, value([rng.choice([0, MASK, 1 << 63]) for _ in range(2 * n)])))
    return out


def fp2_reference(fa, a, b):
    """(c0, c1) = a * b in Fp2 (u^2 = nr), in the internal form."""
    p, n = fa.p, fa.n
    rinv = pow(1 << (64 * n), -1, p) if fa.form == "montgomery" else 1
    (a0, a1), (b0, b1) = a, b
    return ((a0 * b0 + fa.fp2.nr * a1 * b1) * rinv % p, (a0 * b1 + a1 * b0) * rinv % p)


def fp2_inputs(fa, rng):
    """Pairs of Fp2 elements: edge halves (0, 1, p-1, p-2) and random ones."""
    p = fa.p
    edge = [0, 1, p - 1, p - 2]
    out = [((x, y), (y, x)) for x in edge for y in edge]
    out += [((p - 1, p - 1), (p - 1, p - 1))]
    for _ in range(3 * COUNT):
        out.append(((rng.randrange(p), rng.randrange(p)), (rng.randrange(p), rng.randrange(p))))
    return out


def run_fp2(fa, kn, a, b, alias=0):
    """Run an Fp2 kernel on elements a, b (pairs); alias 1: r over a, 2: r over b."""
    n = fa.n
    lines = [line.replace("@P@", "TABLE") for line in kn.text()]
    mem = {TABLE + 8 * i: w for i, w in enumerate(list(fa.p_limbs) + fp2.table_words(fa))}
    base_a, base_b, base_out = 0x200000, 0x300000, 0x100000
    for base, x in ((base_a, a), (base_b, b)):
        for i, w in enumerate(limbs(x[0], n) + limbs(x[1], n)):
            mem[base + 8 * i] = w
    regions = [(base_a, base_a + 16 * n), (base_b, base_b + 16 * n)]
    out = {0: base_out, 1: base_a, 2: base_b}[alias]
    regions.append((out, out + 16 * n))
    sim.run(lines, {"x0": out, "x1": base_a, "x2": base_b}, mem, regions, "TABLE", TABLE)
    return (value([mem[out + 8 * i] for i in range(n)]), value([mem[out + 8 * (n + i)] for i in range(n)]))


def fields():
    out = []
    for path, test_primes in ((os.path.join(REPO, "fields.toml"), False),
                              (os.path.join(TESTS, "extra_fields.toml"), True)):
        out += [analysis.analyze(fs) for fs in spec.load(path, test_primes=test_primes)]
    return out


class TestKernels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fields = fields()

    def test_every_limb_count(self):
        counts = {fa.n for fa in self.fields if aarch64.ops(fa)}
        self.assertEqual(counts, set(range(1, 17)))
        forms = {fa.form for fa in self.fields if aarch64.ops(fa)}
        self.assertEqual(forms, {"montgomery", "pseudo_mersenne"})

    def test_against_integers(self):
        for fa in self.fields:
            rng = random.Random(f"{fa.name} {fa.p}")
            pairs = inputs(fa, rng)
            wides = wide_inputs(fa, rng)
            for op, kn in aarch64.build_all(fa):
                with self.subTest(field=fa.name, op=op):
                    if op == "redc":
                        for i, t in enumerate(wides):
                            got = run(fa, kn, op, 0, 0, t, alias=(i % 2 == 1))
                            self.assertEqual(got, reference(fa, op, 0, 0, t), f"t = {t:#x}")
                        continue
                    for i, (a, b) in enumerate(pairs):
                        if op.startswith("sqr"):
                            b = a
                        got = run(fa, kn, op, a, b, 0, alias=(i % 2 == 1))
                        self.assertEqual(got, reference(fa, op, a, b, 0), f"a = {a:#x}, b = {b:#x}")

    def test_fp2_against_integers(self):
        """The one-function Fp2 kernels (fp2.py) of every field whose Fp2 is
        lazy (p503, p751 and the extra primes with an extension: nr = -1,
        -k and +k, both forms), against (a0 + a1 u)(b0 + b1 u) with
        u^2 = nr, on edge and random halves, the result over a (and, for
        mul, over b)."""
        seen = set()
        for fa in self.fields:
            for op, kn in aarch64.build_fp2(fa):
                seen.add((fa.name, op))
                with self.subTest(field=fa.name, op=op):
                    for i, (a, b) in enumerate(fp2_inputs(fa, random.Random(f"fp2 {fa.name}"))):
                        if op == "fp2_sqr":
                            b = a
                        got = run_fp2(fa, kn, a, b, alias=i % 3)
                        self.assertEqual(got, fp2_reference(fa, a, b), f"a = {a}, b = {b}")
        for name in ("p503", "p751"):
            self.assertIn((name, "fp2_mul"), seen)
            self.assertIn((name, "fp2_sqr"), seen)
        nrs = {fa.fp2.nr for fa in self.fields if aarch64.plan(fa).fp2_ops}
        self.assertTrue(any(nr < -1 for nr in nrs) and any(nr > 0 for nr in nrs), nrs)

    def test_straight_line_and_abi(self):
        """No branch, no x18/x29/x30, sp balanced: the interpreter raises on
        each; here the text itself (every kernel ends in its one ret)."""
        for fa in self.fields:
            for op, kn in aarch64.build_all(fa) + aarch64.build_fp2(fa):
                text = kn.text()
                self.assertEqual(sum(1 for line in text if line.strip() == "ret"), 1)
                for line in text:
                    ins = line.split()
                    if ins and not ins[0].startswith("."):
                        self.assertNotRegex(line, r"\bx(18|29|30)\b")
                        self.assertFalse(ins[0].startswith("b") and ins[0] != "bti", line)

    def test_committed_files(self):
        """The committed generated/*/fg_*_aarch64.S, statically: each function
        is straight-line (its one RET last, no branch), starts with its BTI
        landing pad, uses only the instructions the interpreter knows (no
        division), and addresses memory only as [register, #constant]; the
        file has the property note."""
        import glob
        import re
        allowed = {"hint", "ret", "mov", "movz", "movk", "movn", "adr", "mul", "umulh", "adds", "adcs", "adc",
                   "add", "subs", "sbcs", "sbc", "sub", "csel", "extr", "and", "lsl", "lsr", "ldr", "ldp", "str", "stp"}
        files = sorted(glob.glob(os.path.join(REPO, "generated", "*", "fg_*_aarch64.S")))
        self.assertTrue(files)
        for path in files:
            with open(path) as f:
                text = f.read()
            self.assertIn("0xc0000000, 4, 3", text)
            self.assertIn(".note.GNU-stack", text)
            functions = re.findall(r"^(fg_\w+_aarch64):\n(.*?)^\t\.cfi_endproc", text, re.M | re.S)
            self.assertGreaterEqual(len(functions), 5, path)
            for name, body in functions:
                ins = [line.split("//")[0].strip() for line in body.split("\n")]
                ins = [i for i in ins if i and not i.startswith(".") and not i.startswith("#")]
                with self.subTest(function=name):
                    self.assertTrue(ins[0].startswith("hint\t#34"), ins[0])
                    self.assertEqual(ins[-1], "ret")
                    self.assertEqual(sum(1 for i in ins if i == "ret"), 1)
                    for i in ins:
                        self.assertIn(i.split()[0], allowed, i)
                        for m in re.findall(r"\[[^\]]*\]", i):
                            self.assertRegex(m, r"^\[(x([0-9]|1[0-7]|19|2[0-8])|sp), #[0-9]+\]$", i)

    def test_interpreter_catches_a_dropped_carry(self):
        """A kernel with one ADCS turned into ADDS must fail: the test can fail."""
        fa = next(f for f in self.fields if f.name == "p256")
        kn = kernels.build(fa, "mul", "m")
        lines = kn.text()
        i = next(i for i, line in enumerate(lines) if line.startswith("\tadcs"))
        kn.text = lambda: lines[:i] + [lines[i].replace("adcs", "adds")] + lines[i + 1:]
        rng = random.Random(1)
        bad = 0
        for a, b in inputs(fa, rng):
            bad += run(fa, kn, "mul", a, b, 0) != reference(fa, "mul", a, b, 0)
        self.assertGreater(bad, 0)

    def test_shift_plans(self):
        """shift_plan's instructions, run by the interpreter, give the 128-bit
        x * v of MUL/UMULH for every shape it accepts (0, 1, 2^a, 2^a - 1,
        2^a + 1, 2^64 - 2^a (+ 1), 2^64 - 1, p256's and p224's limbs), on
        edge and random x; other constants need more than the limit."""
        rng = random.Random(7)
        shapes = [0, 1, 2, MASK, MASK - 1, 0xffffffff, 0xffffffff00000000, 0xffffffff00000001,
                  1 << 63, (1 << 63) + 1, (1 << 63) - 1]
        for a in (1, 2, 17, 31, 32, 33, 62, 63):
            shapes += [1 << a, (1 << a) - 1, (1 << a) + 1, (MASK + 1 - (1 << a)) & MASK,
                       (MASK + 2 - (1 << a)) & MASK]
        xs = [0, 1, 2, MASK, MASK - 1, 1 << 63, 0xffffffff, 1 << 32] + [rng.getrandbits(64) for _ in range(40)]
        base = 0x100000
        accepted = 0
        for v in shapes:
            plan = kernels.shift_plan(v)
            if plan is None:
                continue
            accepted += 1
            ops, lo, hi = plan
            self.assertLessEqual(len(ops), kernels.SHIFT_MAX)
            names = {"X": "x1", "LO": "x3", "HI": "x4", "T": "x5", "xzr": "xzr"}
            lines = ["\t%s\t%s" % (m, ", ".join(names.get(o, o) for o in operands)) for m, operands in ops]
            lines += ["\tstr\t%s, [x0, #0]" % names[lo], "\tstr\t%s, [x0, #8]" % names[hi], "\tret"]
            for x in xs:
                mem = {}
                sim.run(lines, {"x0": base, "x1": x}, mem, [(base, base + 16)], "TABLE", TABLE)
                self.assertEqual(mem[base] | mem[base + 8] << 64, x * v, f"v = {v:#x}, x = {x:#x}")
        self.assertGreaterEqual(accepted, 40)
        self.assertIsNone(kernels.shift_plan((1 << 40) + (1 << 3) + (1 << 20)))
        self.assertIsNone(kernels.shift_plan(0xbce6faada7179e84))

    def test_reduction_rows(self):
        """p = -1 mod 2^64 with every limb of (p + 1) / 2^64 a shift plan
        (p256, 2^521 - 1) reduces by rows without a multiplier: p256's mul
        and sqr keep only the product's 32 and 20 multiplies, and a row with
        one shift or one borrow wrong fails the integer check."""
        by_name = {fa.name: fa for fa in self.fields}
        self.assertIsNotNone(kernels.row_plans(by_name["p256"]))
        self.assertIsNotNone(kernels.row_plans(by_name["test_m521"]))
        self.assertIsNone(kernels.row_plans(by_name["p503"]))     # Q has limbs that need MUL
        self.assertIsNone(kernels.row_plans(by_name["p256n"]))    # p != -1 mod 2^64
        # Q = [2^51, 1]: the product m * Q_1 = m reaches no top word, which is
        # then the chain's carry alone
        odd = analysis.analyze(spec.loads('[q1]\nmodulus = "2^128 + 2^115 - 1"\nbyte_order = "big"\n')[0])
        self.assertIsNotNone(kernels.row_plans(odd))
        rng = random.Random(5)
        pairs, wides = inputs(odd, rng), wide_inputs(odd, rng)
        for op, kn in aarch64.build_all(odd):
            if op == "redc":
                for t in wides:
                    self.assertEqual(run(odd, kn, op, 0, 0, t), reference(odd, op, 0, 0, t), t)
                continue
            for a, b in pairs:
                b = a if op.startswith("sqr") else b
                self.assertEqual(run(odd, kn, op, a, b, 0), reference(odd, op, a, b, 0), (op, a, b))
        fa = by_name["p256"]
        muls = {op: kernels.build(fa, op, "k").counts for op in ("mul", "sqr", "redc")}
        self.assertEqual([muls[op].get("mul", 0) + muls[op].get("umulh", 0) for op in ("mul", "sqr", "redc")],
                         [32, 20, 0])
        rng = random.Random(3)
        wides = wide_inputs(fa, rng)
        for mutate in (lambda t: t.replace("#32", "#31", 1), lambda t: t.replace("sbc\t", "adc\t", 1),
                       lambda t: t.replace("adcs\t", "adds\t", 1)):
            kn = kernels.build(fa, "redc", "r")
            lines = kn.text()
            i = next(i for i, line in enumerate(lines) if mutate(line) != line)
            kn.text = lambda: lines[:i] + [mutate(lines[i])] + lines[i + 1:]
            bad = sum(run(fa, kn, "redc", 0, 0, t) != reference(fa, "redc", 0, 0, t) for t in wides)
            self.assertGreater(bad, 0, lines[i])

    def test_deterministic(self):
        fa = self.fields[0]
        planned = aarch64.plan(fa)
        self.assertTrue(planned)
        comment = lambda what: "/* %s */\n" % what
        text = aarch64.emit(fa, planned, comment)
        self.assertEqual(text, aarch64.emit(fa, planned, comment))
        self.assertEqual(list(text), [f"{fa.name}/fg_{fa.name}_aarch64.S"])
        self.assertTrue(text[f"{fa.name}/fg_{fa.name}_aarch64.S"].startswith("/* AArch64 kernels"))


if __name__ == "__main__":
    unittest.main()
