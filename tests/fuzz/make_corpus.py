#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes the committed seed corpus of the fuzz targets (tests/fuzz/corpus/).

    python3 tests/fuzz/make_corpus.py     # from the repository root

Each seed is a short program in the input format of fuzz_field.c (README.md):
a record is one op byte (op | alias << 4 | raw-kernel/cond << 6 | same << 7)
followed by its operands. Seeds hit every op, every aliasing pattern, the raw
kernels, Fp2 mul and sqr (add and sub with bit 6, fields with Fp2), and the edge operands 0, 1, p-1, limbs of 2^64-1, p's own limbs,
and redc's extremes (bound - 1, k*(p-1)^2). The generic corpus (for the extra
primes) is written for 4 limbs; raw operands just read differently elsewhere.
"""
import os
import sys

OPS = ["mul", "sqr", "mul_wide", "sqr_wide", "redc", "add", "sub", "neg", "inv", "sqrt",
       "from_bytes", "to_bytes", "eq", "is_zero", "cmov", "cswap"]
FIELDS = {"p256": (4, 32), "p25519": (4, 32), "p503": (8, 63), "p751": (12, 94), "generic": (4, 32)}


def op(name, alias=0, bit6=0, same=0):
    return bytes([OPS.index(name) | alias << 4 | bit6 << 6 | same << 7])


# element operands (kind byte, payload)
def raw(n, fill):
    return bytes([0]) + bytes(fill(i) & 0xff for i in range(8 * n))


def small(s):
    return bytes([1, s])


def pminus(s):  # p - 1 - s
    return bytes([2, s])


def danger(picks):  # limb i: 0..12 dangerous set, 13/14/15 = p[i]-1, p[i], p[i]+1
    return bytes([3]) + bytes(picks)


def pdanger(picks):
    return bytes([4]) + bytes(picks)


def ones(shift=0):  # (2^(64n) - 1) >> shift-step
    return bytes([5 | shift << 3])


PREV = bytes([6])


def pow2(e, minus1=False, hi=0):
    return bytes([7 | (8 if minus1 else 0) | hi << 4, e])


# wide operands for redc
def w_max(s=0):
    return bytes([1, s])


def w_sum(k, pairs):
    return bytes([2, k - 1]) + b"".join(a + b for a, b in pairs)


def w_danger(picks):
    return bytes([3]) + bytes(picks)


def w_maxsum(k):
    return bytes([4, k - 1])


def w_maxpat(picks):
    return bytes([5]) + bytes(picks)


def w_raw(n, fill):
    return bytes([0]) + bytes(fill(i) & 0xff for i in range(16 * n))


# from_bytes operands
def b_raw(nb, fill):
    return bytes([0]) + bytes(fill(i) & 0xff for i in range(nb))


def b_pplus(s):
    return bytes([1, s])


def b_pminus(s):
    return bytes([2, s])


def b_elem(e):
    return bytes([3]) + e


def seeds(n, nb):
    all_ones = [8] * n      # limbs 2^64-1
    p_limbs = [14] * n      # p itself (reduced: 0) -- with p-1/p+1 limbs around it
    p_minus = [13] * n
    p_plus = [15] * n
    mixed = [(3 * i + 5) % 16 for i in range(n)]
    edge = [pminus(0), small(0), small(1), ones(), danger(all_ones), danger(p_minus),
            danger(p_plus), pdanger(all_ones), pow2(63), pow2(64 % (64 * n)), pow2(255, True)]
    s = {}
    s["mul_edges"] = b"".join(op("mul") + a + b for a in edge[:6] for b in (pminus(0), ones()))
    s["mul_alias"] = b"".join(op("mul", al, 0, same) + danger(mixed) + pdanger(mixed)
                              for al in range(4) for same in (0, 1))
    s["sqr"] = b"".join(op("sqr", al) + e + small(0) for al in range(4) for e in edge[:6])
    s["wide"] = b"".join(op(o, al) + a + b for o in ("mul_wide", "sqr_wide") for al in range(4)
                         for a, b in ((pminus(0), pminus(0)), (ones(), danger(all_ones)), (raw(n, lambda i: 0xff), small(1))))
    s["redc_bound"] = b"".join(op("redc", al) + w for al in (0, 1) for w in
                               (w_max(0), w_max(1), w_max(255), w_maxsum(1), w_maxsum(8), w_maxpat(all_ones),
                                w_maxpat(p_limbs), w_danger([8] * (2 * n)), w_danger([14] * (2 * n))))
    s["redc_sums"] = b"".join(op("redc") + w_sum(k, [(pminus(0), pminus(0))] * k) for k in range(1, 9)) + \
        op("redc") + w_sum(8, [(ones(), danger(all_ones)), (pminus(0), pow2(7))] * 4) + \
        op("redc") + w_raw(n, lambda i: 0xff) + op("redc") + bytes([7]) + pminus(0)
    s["kernels_raw"] = b"".join(op(o, al, 1, same) + danger(all_ones) + pminus(0)
                                for o in ("mul", "sqr", "mul_wide", "sqr_wide") for al in range(4) for same in (0, 1)) + \
        b"".join(op("redc", al, 1) + w for al in range(4) for w in (w_max(0), w_maxsum(8)))
    s["add_sub_neg"] = b"".join(op(o, al) + a + b for o in ("add", "sub", "neg") for al in (0, 1, 2)
                                for a, b in ((pminus(0), pminus(0)), (small(0), pminus(0)), (pminus(0), small(1)),
                                             (small(0), small(0)), (danger(p_minus), pdanger(all_ones))))
    s["inv_sqrt"] = b"".join(op(o, al) + a + small(0) for o in ("inv", "sqrt") for al in (0, 1)
                             for a in (small(0), small(1), small(2), small(4), pminus(0), pow2(63)))
    s["bytes"] = b"".join(op("from_bytes", al) + b for al in (0, 1) for b in
                          (b_pplus(0), b_pplus(1), b_pminus(0), b_raw(nb, lambda i: 0xff), b_raw(nb, lambda i: 0),
                           b_elem(pminus(0)), b_elem(small(1)))) + \
        b"".join(op("to_bytes", al) + a + small(0) for al in (0, 1) for a in (small(0), small(1), pminus(0), ones()))
    # from_bytes_wide (from_bytes with bit 6): two length bytes, a kind byte (1: all ones)
    wide_lens = sorted({0, 1, 7, 8, 9, nb - 1, nb, nb + 16, 2 * nb - 1, 2 * nb, 2 * nb + 1})
    s["bytes_wide"] = b"".join(op("from_bytes", al, 1) + L.to_bytes(2, "little") + bytes([kind]) +
                               (bytes((0x5a + 3 * i) % 256 for i in range(min(L, 2 * nb))) if kind == 0 else b"")
                               for al in (0, 1) for L in wide_lens for kind in (0, 1))
    s["predicates"] = b"".join(op(o, al, 0, same) + a + b for o in ("eq", "is_zero") for al in (0, 3) for same in (0, 1)
                               for a, b in ((small(0), small(0)), (pminus(0), pminus(0)), (pminus(0), pminus(1)),
                                            (small(1), pow2(0))))
    # is_square runs twice an input (then as sqr): two operands a seed
    for i, pair in enumerate(((pminus(0), small(2)), (small(3), pow2(63)), (ones(), danger(mixed)),
                              (small(0), pminus(1)))):
        s[f"is_square_{i}"] = b"".join(op("is_zero", 0, 1) + a + small(0) for a in pair)
    s["select"] = b"".join(op(o, al, cond) + pminus(0) + danger(mixed) for o in ("cmov", "cswap")
                           for al in range(4) for cond in (0, 1))
    # Fp2 (fields with it): add / sub with bit 6 = fp2_mul / fp2_sqr, elements a0, b0, a1, b1
    s["fp2"] = b"".join(op(o, al, 1, same) + a0 + b0 + a1 + b1 for o in ("add", "sub") for al in range(4)
                        for same in (0, 1)
                        for a0, b0, a1, b1 in ((pminus(0), pminus(0), pminus(0), pminus(0)),
                                               (small(0), pminus(0), pminus(0), small(0)),
                                               (danger(all_ones), danger(p_minus), pdanger(mixed), ones()),
                                               (pow2(63), small(1), danger(p_plus), pminus(1))))
    s["chain"] = op("sqr") + pminus(0) + small(0) + b"".join(
        op(o) + PREV + pminus(1) for o in ("mul", "sqr", "add", "sub", "neg", "inv", "sqrt", "mul", "cswap", "sqr")) + \
        op("redc") + bytes([7]) + PREV
    return s


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for field, (n, nb) in FIELDS.items():
        d = os.path.join(root, field)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds(n, nb).items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
