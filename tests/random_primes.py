#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Random primes of every shape the analysis tells apart, as a fields file.

    tests/random_primes.py [--seed N] [--count N] [--limbs A-B] > primes.toml

Writes a fields.toml-format file of COUNT random primes (default 14) of A..B
64-bit limbs (default 1-16), the same file for the same arguments. The shapes
cycle through what decides the generated code: random primes at full width
(no spare bit), with 1..63 spare bits and with one; p = -1 mod 2^64 (the
Montgomery quotient is the low word itself); 2^a * 3^b - 1 (p + 1 has zero
low limbs); sparse Solinas primes; pseudo-Mersenne 2^k - c and 2^k + c; limbs
of 0, 2^64 - 1, 2^32, 2^32 - 1 or 2^63; high 2-adicity (p = 1 mod 2^s, also
p = 1 mod 2^(64j)); p = 5 mod 8. About four in five get an Fp2 extension:
non_residue = -1 where p = 3 mod 4 (half of those), else a small
non-residue, checked with the Jacobi symbol. Every field gets a
sqrt_ratio_z, the first non-residue of NON_RESIDUES (chosen without the
random stream, so a seed's primes and extensions are those it gave before
the key existed). Each table has a comment with its shape, bits and limbs.

To run the whole per-level suite (GMP differential, known answers, ABI,
valgrind constant-time, Fp2) on such primes instead of tests/extra_fields.toml:

    tests/random_primes.py --seed 7 > /tmp/primes.toml
    cmake -S . -B build-primes -DFIELDGEN_EXTRA_PRIMES_FILE=/tmp/primes.toml -DFIELDGEN_BENCH=OFF
    cmake --build build-primes -j && ctest --test-dir build-primes -j -R '\\.r7_'

tests/gen/test_random_primes.py generates the kernels of a few seeds' worth
in CTest (no build); the full suite over 280 of them is in the README.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gen"))
from fg.numtheory import is_probable_prime, jacobi, smallest_nonresidue  # noqa: E402

M64 = (1 << 64) - 1
MIN_BITS = 33                       # the spec takes p > 2^32
NON_RESIDUES = [-2, 2, -3, 3, 5, -5, 6, -6, -7, 7, 10, -10, 11, -11, 13, -13]


def prime_of_bits(rng, bits, low=1, mod=2):
    """A random prime of exactly `bits` bits with p = low mod `mod`."""
    while True:
        x = rng.getrandbits(bits) | (1 << (bits - 1))
        x = x - x % mod + low
        if x.bit_length() == bits and is_probable_prime(x):
            return x


def width(n, spare):
    return max(64 * n - spare, MIN_BITS)


def full(rng, n):
    return "random, no spare bit", prime_of_bits(rng, width(n, 0)), None


def spare(rng, n):
    s = rng.choice([1, rng.randint(2, 40), rng.randint(41, 63)])
    b = width(n, s)
    return "random, %d spare bits" % (64 * n - b), prime_of_bits(rng, b), None


def minus_one_mod_2_64(rng, n):
    if n == 1:
        return full(rng, n)
    b = width(n, rng.choice([0, rng.randint(1, 40)]))
    return "p = -1 mod 2^64", prime_of_bits(rng, b, low=M64, mod=1 << 64), None


def sidh(rng, n):
    lo, hi = max(MIN_BITS + 1, 64 * (n - 1) + 1), 64 * n
    while True:
        bits = rng.randint(lo, hi)
        a = rng.randint(max(1, bits // 4), max(1, 3 * bits // 4))
        b = max(1, round((bits - a) / 1.5849625007211563))     # 3^b ~ 2^(bits - a)
        p = (1 << a) * 3 ** b - 1
        if lo <= p.bit_length() <= hi and is_probable_prime(p):
            return "2^a * 3^b - 1", p, "2^%d * 3^%d - 1" % (a, b)


def solinas(rng, n):
    lo, hi = max(MIN_BITS + 1, 64 * (n - 1) + 1), 64 * n
    while True:
        k = rng.randint(lo, hi)
        p, text = 1 << k, "2^%d" % k
        for e in sorted(rng.sample(range(1, k), rng.randint(1, 4)), reverse=True):
            sign = rng.choice([1, -1])
            p += sign << e
            text += " %s 2^%d" % ("+-"[sign < 0], e)
        sign = rng.choice([1, -1])
        p += sign
        text += " %s 1" % "+-"[sign < 0]
        if MIN_BITS <= p.bit_length() <= 64 * n and p.bit_length() > 64 * (n - 1) and is_probable_prime(p):
            return "sparse (Solinas)", p, text


def pseudo_mersenne(rng, n):
    k = rng.choice([64 * n, rng.randint(max(MIN_BITS + 1, 64 * (n - 1) + 1), 64 * n)])
    sign = rng.choice([-1, -1, 1])
    if sign > 0:
        k = min(k, 64 * n - 1)
    for c in range(1, 1 << 24, 2):
        p = (1 << k) + sign * c
        if is_probable_prime(p):
            return "2^k %s c" % "+-"[sign < 0], p, "2^%d %s %d" % (k, "+-"[sign < 0], c)
    raise AssertionError("no prime 2^%d +- c" % k)


def special_words(rng, n):
    words = [0, M64, 1 << 32, (1 << 32) - 1, 1 << 63]
    while True:
        w = [rng.choice(words) if rng.random() < 0.6 else rng.getrandbits(64) for _ in range(n)]
        if w[-1] == 0:
            w[-1] = rng.choice([M64, 1 << 63, 1 << 32])
        p = sum(x << (64 * i) for i, x in enumerate(w))
        if p.bit_length() >= MIN_BITS and p % 2 and is_probable_prime(p):
            return "limbs of 0, 2^64-1, 2^32(-1), 2^63", p, None


def two_adic(rng, n):
    b = width(n, rng.choice([0, rng.randint(1, 40)]))
    if n > 1 and rng.random() < 0.3:
        s = 64 * rng.randint(1, n - 1)
    else:
        s = rng.randint(10, min(40, b - 2))
    s = min(s, b - 2)
    return "p = 1 mod 2^%d" % s, prime_of_bits(rng, b, low=1, mod=1 << s), None


def five_mod_8(rng, n):
    b = width(n, rng.choice([0, rng.randint(1, 40)]))
    return "p = 5 mod 8", prime_of_bits(rng, b, low=5, mod=8), None


SHAPES = [full, spare, minus_one_mod_2_64, sidh, solinas, pseudo_mersenne, special_words,
          two_adic, five_mod_8]


def extension(rng, p):
    """An extension key for p (or None): -1 for half of the p = 3 mod 4, else a
    small non-residue."""
    r = rng.random()
    if r < 0.2:
        return None
    if p % 4 == 3 and r < 0.6:
        return -1
    for nr in rng.sample(NON_RESIDUES, len(NON_RESIDUES)):
        if jacobi(nr % p, p) == -1:
            return nr
    return None


def sqrt_ratio_z(p):
    """sqrt_ratio's Z: the first non-residue in NON_RESIDUES' order, else the
    smallest positive one (every small one can be a square mod p)."""
    return next((z for z in NON_RESIDUES if jacobi(z % p, p) == -1), None) or smallest_nonresidue(p)


def fields_toml(seed, count, lo, hi):
    rng = random.Random(seed)
    out = ["# %d random primes of %d..%d limbs: tests/random_primes.py --seed %d --count %d --limbs %d-%d"
           % (count, lo, hi, seed, count, lo, hi)]
    for i in range(count):
        n = rng.randint(lo, hi)
        shape, p, text = SHAPES[(seed + i) % len(SHAPES)](rng, n)
        assert is_probable_prime(p) and MIN_BITS <= p.bit_length() <= 1024
        nr = extension(rng, p)
        out.append("")
        out.append("[r%d_%d]   # %s, %d bits, %d limbs" % (seed, i, shape, p.bit_length(), (p.bit_length() + 63) // 64))
        out.append('modulus = "%s"' % (text or hex(p)))
        out.append('byte_order = "%s"' % rng.choice(["big", "little"]))
        if nr is not None:
            out.append("extension = { degree = 2, non_residue = %d }" % nr)
        out.append("sqrt_ratio_z = %d" % sqrt_ratio_z(p))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=14)
    ap.add_argument("--limbs", default="1-16", help="A-B: limb counts (1..16)")
    a = ap.parse_args()
    try:
        lo, hi = (int(x) for x in a.limbs.split("-"))
    except ValueError:
        ap.error("--limbs takes A-B, e.g. 1-16")
    if not 1 <= lo <= hi <= 16 or a.seed < 0 or a.count < 1:
        ap.error("--limbs within 1-16, --seed >= 0, --count >= 1")
    sys.stdout.write(fields_toml(a.seed, a.count, lo, hi))


if __name__ == "__main__":
    main()
