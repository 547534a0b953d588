#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes protocols/p256/fgp_p256_table.h: P-256's curve constants and the
fixed-base comb table of fgp_p256.c, in fg_p256's internal form, and RFC
6979's first HMAC key (32 zero bytes) as fgp_sha256.h's precomputed key state.

    /usr/bin/python3 protocols/p256/gen_table.py            (re)write the header
    /usr/bin/python3 protocols/p256/gen_table.py --check    exit 1 if it is stale

The table: for window i in [0, COMB_WINDOWS) and j in [0, COMB_ENTRIES),
(2 j + 1) * 2^(COMB_BITS * i) * G in affine coordinates: the odd multiples,
so that an odd scalar recoded into COMB_WINDOWS odd signed digits of
magnitude < 2^COMB_BITS (fgp_p256.c, comb_recode: never zero) is a sum of one
table point per window, with no doublings.
Field elements are written as fg_p256 values: Montgomery form x * 2^256 mod p
in four little-endian 64-bit limbs (fgp_p256.c checks FG_P256_MONTGOMERY and
FG_P256_LIMBS at compile time). Pure Python integers; deterministic output.
"""
import os
import sys

P = 2**256 - 2**224 + 2**192 + 2**96 - 1
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

# 6 bits: 43 windows of 32 points (87 KB) measured faster for signing than 7
# bits' 37 windows of 64 (150 KB, OpenSSL's shape): each constant-time lookup
# reads its whole window, and the smaller table stays in cache (docs/protocols-p256.md).
COMB_BITS = 6                            # bits per signed digit
COMB_WINDOWS = (256 + COMB_BITS - 1) // COMB_BITS  # 43: the top window holds the top 4 bits
COMB_ENTRIES = 1 << (COMB_BITS - 1)      # 32 odd multiples per window: |digit| in {1, 3, .., 63}

# RFC 6979 section 3.2 step c: the HMAC key K starts as 32 zero bytes, so the
# states after its padded blocks (ipad, opad: RFC 2104) are constants.
SHA256_K = [
    int(x, 16) for x in """
    428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3
    72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da
    983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13
    650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070
    19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208
    90befffa a4506ceb bef9a3f7 c67178f2""".split()
]
SHA256_H0 = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]
HMAC_IPAD, HMAC_OPAD = 0x36, 0x5C

MONT_R = 2**256
LIMB_MASK = 2**64 - 1
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fgp_p256_table.h")
COMMAND = "/usr/bin/python3 protocols/p256/gen_table.py"


def on_curve(pt):
    x, y = pt
    return (y * y - (x * x * x + A * x + B)) % P == 0


def add(p1, p2):
    """Affine addition; None is the point at infinity."""
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return None
        lam = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def mul(k, pt):
    acc = None
    for bit in bin(k)[2:]:
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, pt)
    return acc


def sha256_block(h, block):
    """FIPS 180-4's compression of one 64-byte block into the state h."""
    m32 = 2**32 - 1

    def rotr(x, n):
        return ((x >> n) | (x << (32 - n))) & m32

    w = [int.from_bytes(block[4 * t:4 * t + 4], "big") for t in range(16)]
    for t in range(16, 64):
        s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
        s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & m32)
    a, b, c, d, e, f, g, hh = h
    for t in range(64):
        t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[t] + w[t]) & m32
        t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) & m32
        a, b, c, d, e, f, g, hh = (t1 + t2) & m32, a, b, c, (d + t1) & m32, e, f, g
    return [(x + y) & m32 for x, y in zip(h, (a, b, c, d, e, f, g, hh))]


def hmac_zero_key_state(pad):
    """An fgp_sha256_ctx initializer: the state after the zero key's padded block."""
    h = sha256_block(SHA256_H0, bytes([pad]) * 64)
    return "{{" + ", ".join("0x%08xu" % x for x in h) + "}, {0}, 0, 64}"


def limbs(v):
    m = v * MONT_R % P
    return "{" + ", ".join("0x%016xu" % ((m >> (64 * i)) & LIMB_MASK) for i in range(4)) + "}"


def element(v):
    return "{" + limbs(v) + "}"


def render():
    g = (GX, GY)
    assert on_curve(g) and mul(N, g) is None
    out = [
        "/* SPDX-License-Identifier: MIT OR Apache-2.0 */",  # the licence (tests/spdx_check.py)
        "/*",
        " * Generated by " + COMMAND + " -- DO NOT EDIT. Regenerate with:",
        " *     " + COMMAND,
        " * (--check: fail when this file is stale; CTest fieldgen.gen.p256_table).",
        " * Contents: P-256's curve constant b and base point G, RFC 6979's first HMAC key",
        " *   (32 zero bytes) as fgp_sha256.h's precomputed key state, and the fixed-base comb",
        " *   table FGP_P256_COMB[i][c][j] = coordinate c (0: x, 1: y) of the affine point",
        " *   (2 j + 1) * 2^(%d i) * G, for i < %d windows and j < %d entries." % (COMB_BITS, COMB_WINDOWS, COMB_ENTRIES),
        " * Repr: fg_p256 internal form, Montgomery x * 2^256 mod p, 4 little-endian 64-bit limbs.",
        " * Included by fgp_p256.c only.",
        " */",
        "#ifndef FGP_P256_TABLE_H",
        "#define FGP_P256_TABLE_H",
        "#define FGP_P256_COMB_BITS %d" % COMB_BITS,
        "#define FGP_P256_COMB_WINDOWS %d" % COMB_WINDOWS,
        "#define FGP_P256_COMB_ENTRIES %d" % COMB_ENTRIES,
        "static const fg_p256 FGP_P256_B = " + element(B) + ";",
        "static const fg_p256 FGP_P256_GX = " + element(GX) + ";",
        "static const fg_p256 FGP_P256_GY = " + element(GY) + ";",
        "static const fgp_hmac_key FGP_P256_RFC6979_K0 = {",
        "    " + hmac_zero_key_state(HMAC_IPAD) + ",",
        "    " + hmac_zero_key_state(HMAC_OPAD) + ",",
        "};",
        "static const fg_p256 FGP_P256_COMB[FGP_P256_COMB_WINDOWS][2][FGP_P256_COMB_ENTRIES] = {",
    ]
    base = g
    for i in range(COMB_WINDOWS):
        pts = []
        acc = base
        twice = add(base, base)
        for _ in range(COMB_ENTRIES):
            pts.append(acc)
            acc = add(acc, twice)
        out.append("  { /* window %d: odd multiples of 2^%d G */" % (i, COMB_BITS * i))
        for c in range(2):
            out.append("    {")
            out.extend("      " + element(pt[c]) + "," for pt in pts)
            out.append("    },")
        out.append("  },")
        for _ in range(COMB_BITS):
            base = add(base, base)
    out.append("};")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main(argv):
    if argv not in ([], ["--check"]):
        sys.stderr.write("usage: %s [--check]\n" % COMMAND)
        return 2
    text = render()
    if argv == ["--check"]:
        try:
            with open(OUT) as f:
                current = f.read()
        except OSError as e:
            sys.stderr.write("gen_table.py: %s: cannot read (%s); run %s\n" % (OUT, e.strerror, COMMAND))
            return 1
        if current != text:
            sys.stderr.write("gen_table.py: %s is stale; run %s\n" % (OUT, COMMAND))
            return 1
        print("gen_table.py: %s is up to date" % OUT)
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print("gen_table.py: wrote %s" % OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
