#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes protocols/sidh/sidh_params_<field>.h for SIDH on p503 and p751.

Each header holds the public parameters the SIDH code needs (eA, eB, the
secret-key bit lengths and the two torsion bases, read from the vector file
vectors/sidh_<field>.txt) and the optimal isogeny strategies for Alice
(2^eA as eA/2 4-isogenies) and Bob (3^eB as eB 3-isogenies).

Strategy. Computing an l^e-isogeny walks a triangle of points: from the
kernel generator R of order l^e, l-multiplications reach a point of order l,
its isogeny is computed, and the points kept on the way are pushed through
it. A strategy for n leaves (n isogenies) is a split m: push the current
point, do m multiplications, walk the n - m leaves below, pop, and walk the
m leaves left (every kept point has been evaluated n - m times). The
standard dynamic program (De Feo, Jao, Plut 2011) minimises

    C(1) = 0,  C(n) = min_{1<=m<n} C(m) + C(n - m) + m * MUL + (n - m) * EVAL

with MUL the cost of one multiplication step (Alice: two xDBL, Bob: one
xTPL) and EVAL that of one isogeny evaluation (eval_4_isog, eval_3_isog),
both in the weights below. Ties take the smallest m, so the output is
deterministic. The list is written in the order the C walk consumes it:
S(n) = [m] + S(n - m) + S(m), n - 1 entries. The strategy changes speed only,
never results.

Pure Python integers; no dependencies. Usage:
    python3 protocols/sidh/gen_strategy.py           write the headers
    python3 protocols/sidh/gen_strategy.py --check   exit 1 if one is stale
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ("p503", "p751")
COMMAND = "python3 protocols/sidh/gen_strategy.py"

# Cost weights of one Fp2 multiplication, squaring and addition/subtraction
# (relative; measured here fp2_sqr is about 0.7 fp2_mul, an add about 0.05).
W_MUL, W_SQR, W_ADD = 20, 14, 1
# Operation counts (mul, sqr, add/sub) of the C formulas in sidh_impl.h.
COST_XDBL = (4, 2, 4)
COST_EVAL4 = (6, 2, 6)
COST_XTPL = (7, 5, 10)
COST_EVAL3 = (4, 2, 4)


def weight(counts, times=1):
    m, s, a = counts
    return times * (m * W_MUL + s * W_SQR + a * W_ADD)


def optimal_strategy(n, mul, ev):
    """The split list S(n) minimising the walk's cost (see the module doc)."""
    cost = [0] * (n + 1)
    split = [0] * (n + 1)
    for k in range(2, n + 1):
        best = None
        for m in range(1, k):
            c = cost[m] + cost[k - m] + m * mul + (k - m) * ev
            if best is None or c < best:
                best, split[k] = c, m
        cost[k] = best
    out = []

    def emit(k):
        if k == 1:
            return
        m = split[k]
        out.append(m)
        emit(k - m)
        emit(m)

    emit(n)
    assert len(out) == n - 1
    return out, cost[n]


def stack_depth(n, strat):
    """The largest number of points the C walk keeps at once (simulated)."""
    index, npts, depth, ii = 0, 0, 0, 0
    stack = []
    for row in range(1, n):
        while index < n - row:
            stack.append(index)
            depth = max(depth, len(stack))
            index += strat[ii]
            ii += 1
        index = stack.pop()
    assert ii == n - 1 and not stack
    return depth


def read_params(field):
    path = os.path.join(HERE, "vectors", "sidh_%s.txt" % field)
    params = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                continue
            if not line:
                if params:
                    break
                continue
            key, _, value = line.partition(" = ")
            params[key] = value
    for key in ("eA", "eB", "skB_bits", "FP2_BYTES", "xPA", "xQA", "xRA", "xPB", "xQB", "xRB"):
        if key not in params:
            sys.exit("%s: field %s: the params block has no key '%s'" % (path, field, key))
    return params


def c_bytes(hexstr, indent="    "):
    data = bytes.fromhex(hexstr)
    rows = []
    for i in range(0, len(data), 12):
        rows.append(indent + ", ".join("0x%02x" % b for b in data[i:i + 12]) + ",")
    return "\n".join(rows)


def c_list(values, indent="    ", per_row=16):
    rows = []
    for i in range(0, len(values), per_row):
        rows.append(indent + ", ".join(str(v) for v in values[i:i + per_row]) + ",")
    return "\n".join(rows)


def render(field):
    p = read_params(field)
    ea, eb, skb_bits = int(p["eA"]), int(p["eB"]), int(p["skB_bits"])
    if ea % 2:
        sys.exit("field %s: eA = %d is odd; this code walks 4-isogenies only" % (field, ea))
    max_a, max_b = ea // 2, eb
    strat_a, cost_a = optimal_strategy(max_a, weight(COST_XDBL, 2), weight(COST_EVAL4))
    strat_b, cost_b = optimal_strategy(max_b, weight(COST_XTPL), weight(COST_EVAL3))
    pre = "sidh_%s_" % field
    up = "SIDH_%s_" % field.upper()
    fp2_bytes = int(p["FP2_BYTES"])
    lines = [
        "/* SPDX-License-Identifier: MIT OR Apache-2.0 */",  # the licence (tests/spdx_check.py)
        "/*",
        " * Generated by %s -- DO NOT EDIT. Regenerate with:" % os.path.join("protocols/sidh", "gen_strategy.py"),
        " *     %s" % COMMAND,
        " * Source:   protocols/sidh/vectors/sidh_%s.txt (params block: eA, eB, the bases)" % field,
        " * Contents: SIDH%s public parameters and optimal isogeny strategies" % field,
        " * Weights:  fp2 mul %d, sqr %d, add %d; Alice step %d / eval %d, Bob step %d / eval %d"
        % (W_MUL, W_SQR, W_ADD, weight(COST_XDBL, 2), weight(COST_EVAL4), weight(COST_XTPL), weight(COST_EVAL3)),
        " * Cost:     Alice %d, Bob %d (weighted units, walk only)" % (cost_a, cost_b),
        " */",
        "#ifndef %sPARAMS_H" % up,
        "#define %sPARAMS_H" % up,
        "",
        "#include <stdint.h>",
        "",
        "#define %sEA %d       /* Alice's torsion 2^eA */" % (up, ea),
        "#define %sEB %d       /* Bob's torsion 3^eB */" % (up, eb),
        "#define %sSKB_BITS %d /* Bob's keys are below 2^SKB_BITS = 2^floor(log2 3^eB) */" % (up, skb_bits),
        "#define %sMAX_A %d    /* 4-isogenies in Alice's walk (eA / 2) */" % (up, max_a),
        "#define %sMAX_B %d    /* 3-isogenies in Bob's walk (eB) */" % (up, max_b),
        "#define %sPTS_A %d    /* points Alice's walk keeps at most */" % (up, stack_depth(max_a, strat_a)),
        "#define %sPTS_B %d    /* points Bob's walk keeps at most */" % (up, stack_depth(max_b, strat_b)),
        "",
        "/* Split lists (multiplication steps per push), MAX - 1 entries each. */",
        "static const uint16_t %sstrat_a[%d] = {" % (pre, max_a - 1),
        c_list(strat_a),
        "};",
        "static const uint16_t %sstrat_b[%d] = {" % (pre, max_b - 1),
        c_list(strat_b),
        "};",
        "",
        "/* The torsion bases on E0: y^2 = x^3 + 6x^2 + x, Fp2 encodings (a0 || a1,",
        " * little-endian): x(PA), x(QA), x(PA - QA) of E0[2^eA], then Bob's. */",
    ]
    for name in ("xPA", "xQA", "xRA", "xPB", "xQB", "xRB"):
        if len(bytes.fromhex(p[name])) != fp2_bytes:
            sys.exit("field %s: %s is not %d bytes" % (field, name, fp2_bytes))
        lines += ["static const uint8_t %s%s[%d] = {" % (pre, name, fp2_bytes), c_bytes(p[name]), "};"]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        sys.exit("usage: %s [--check]" % argv[0])
    stale = []
    for field in FIELDS:
        path = os.path.join(HERE, "sidh_params_%s.h" % field)
        text = render(field)
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(path)
        else:
            with open(path, "w") as f:
                f.write(text)
            print("wrote", path)
    if stale:
        print("stale (run %s): %s" % (COMMAND, ", ".join(stale)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
