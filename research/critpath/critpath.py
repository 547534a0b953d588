#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Dependency-only critical path of straight-line kernels in a generated .S.

    research/critpath/critpath.py FILE.S KERNEL... [--chain] [--lat zen4|intel]
    research/critpath/critpath.py FILE.S --all [--lat zen4|intel]
    research/critpath/critpath.py --selftest

KERNEL is a symbol (fg_p25519_sqr_adx_zen) or what follows fg_NAME_ in it
(sqr_adx_zen); --all takes every scalar kernel of the file (the AVX-512 ones
are left out: their latencies are not modelled).

Every input (the argument pointers, the limbs they point at, constants) is
ready at cycle 0; an instruction's results are ready at the latest of its
inputs plus its latency.  Tracked: the general registers, CF and OF apart
(ADCX and ADOX each carry one of them alone), and the stack slots: a load
from a slot the kernel stored to waits for the stored data plus the
store-to-load forwarding latency; a load from anywhere else for its address
registers plus the load latency.  Not tracked: issue width, ports, the
window.  The result is the kernel's latency floor from its dependencies
alone, the time from its first load to its last store; set it beside
fieldgen-bench's latency (which also holds the call, the return, the loop
and the previous call's output forwarded to this call's input) and its
throughput: a kernel measured near the floor is bound by its dependencies,
one measured far above it by its instruction count.  --chain prints the
instructions of the longest path with the cycle each result is ready.
"""
import re
import sys

LAT = {
    # Zen 4 (uops.info, AMD's optimization guide): MULX 3 cycles to the low
    # word and 4 to the high; integer loads 4; store-to-load forwarding about
    # 6 from the store's data; ALU 1, IMUL 3, LEA 1 (2 with base, index and
    # displacement); register MOVs eliminated at rename.
    "zen4": dict(mulx_lo=3, mulx_hi=4, load=4, fwd=6, alu=1, imul=3, lea3=2, mov=0),
    # Intel Golden Cove: MULX 4 / 5, loads 5, forwarding 5, LEA 1.
    "intel": dict(mulx_lo=4, mulx_hi=5, load=5, fwd=5, alu=1, imul=3, lea3=1, mov=0),
}

REG64 = {}
for _b in "abcd":
    for _n in ("r%sx" % _b, "e%sx" % _b, "%sx" % _b, "%sl" % _b):
        REG64[_n] = "r%sx" % _b
for _b in ("si", "di", "bp", "sp"):
    for _n in ("r" + _b, "e" + _b, _b, _b + "l"):
        REG64[_n] = "r" + _b
for _i in range(8, 16):
    for _s in ("", "d", "w", "b"):
        REG64["r%d%s" % (_i, _s)] = "r%d" % _i

FLAGS = ("CF", "OF")
SKIP = ("endbr64", "ret", "retq", "vzeroupper")


def split_ops(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


def parse_op(o):
    """('reg', name) | ('imm', text) | ('mem', address registers, slot key)"""
    if o.startswith("%"):
        return ("reg", REG64.get(o[1:], o[1:]))
    if o.startswith("$"):
        return ("imm", o[1:])
    m = re.match(r"^([^(]*)\(([^)]*)\)$", o)
    if m:
        regs = tuple(REG64.get(r.strip()[1:], r.strip()[1:]) for r in m.group(2).split(",")
                     if r.strip().startswith("%"))
        return ("mem", tuple(r for r in regs if r != "rip"), m.group(1) + "(" + ",".join(regs) + ")")
    return ("mem", (), o)


def kernels(path):
    """{symbol: [(mnemonic, operand texts, line)]} of the ELF-side functions."""
    out, cur = {}, None
    for line in open(path).read().splitlines():
        if re.match(r"^fg_[A-Za-z0-9_]+:$", line):
            cur = out.setdefault(line[:-1], [])
            continue
        if cur is None:
            continue
        if line.startswith((".cfi_endproc", ".size")):
            cur = None
            continue
        m = re.match(r"^\s*([a-z][a-z0-9]*)\s*(.*)$", line)
        if m and not line.lstrip().startswith((".", "#")):
            cur.append((m.group(1), split_ops(m.group(2)), line.strip()))
    return out


def analyse(body, lat):
    """(critical path in cycles, index of its last instruction, {index: the
    index of the input it waited for}, {index: cycle its results are ready})."""
    ready, slots = {}, {}           # value -> (cycle, producer); stack slot -> (cycle, store)
    prev, times = {}, {}
    end = (0, None)

    def latest(names):
        t, p = 0, None
        for r in names:
            c, i = ready.get(r, (0, None))
            if c > t:
                t, p = c, i
        return t, p

    def inputs(regs, mem):
        t, p = latest(regs)
        if mem is not None:
            if "rsp" in mem[1] and mem[2] in slots:
                c, i = slots[mem[2]]
                c += lat["fwd"]
            else:
                c, i = latest(mem[1])       # the address, then the load
                c += lat["load"]
            if c > t:
                t, p = c, i
        return t, p

    def step(idx, regs, mem, outs):
        t, p = inputs(regs, mem)
        prev[idx] = p
        times[idx] = t + max([l for _, l in outs] or [0])
        for name, l in outs:
            ready[name] = (t + l, idx)
        return t

    for idx, (mn, texts, _) in enumerate(body):
        if mn in SKIP or mn.startswith(("push", "pop")):
            continue
        ops = [parse_op(o) for o in texts]
        base = re.sub(r"^(mov|add|adc|sub|sbb|and|or|xor|shl|shr|sar|neg|not|inc|dec|lea|imul|mul|"
                      r"adcx|adox|bt|btr|bts|btc|mulx|cmp|test)[bwlq]$", r"\1", mn)
        regs = [o[1] for o in ops if o[0] == "reg"]
        mems = [o for o in ops if o[0] == "mem"]
        mem = mems[0] if mems else None
        alu = lat["alu"]
        if mn in ("stc", "clc"):
            step(idx, [], None, [("CF", 0)])
        elif base == "mulx":                                    # src, lo, hi (rdx implicit)
            step(idx, regs[:-2] + ["rdx"], mem,
                 [(ops[-2][1], lat["mulx_lo"]), (ops[-1][1], lat["mulx_hi"])])
        elif base == "mul":                                     # rdx:rax = rax * src
            step(idx, regs + ["rax"], mem, [("rax", lat["mulx_lo"]), ("rdx", lat["mulx_hi"]),
                                           ("CF", lat["mulx_hi"]), ("OF", lat["mulx_hi"])])
        elif base == "mov" and ops[-1][0] == "mem":             # store
            t = step(idx, regs, None, [])
            if "rsp" in ops[-1][1]:
                slots[ops[-1][2]] = (t, idx)
            if t >= end[0]:
                end = (t, idx)
        elif base == "mov":
            step(idx, [o[1] for o in ops[:-1] if o[0] == "reg"], mem,
                 [(ops[-1][1], 0 if mem is not None else lat["mov"])])
        elif base == "lea":
            three = len(mem[1]) == 2 and re.match(r"^-?\d", mem[2])
            step(idx, list(mem[1]), None, [(ops[-1][1], lat["lea3"] if three else alu)])
        elif len(ops) == 1:                                     # neg, not, inc, dec, setcc
            if base.startswith("set"):
                step(idx, list(FLAGS), None, [(ops[0][1], alu)] if ops[0][0] == "reg" else [])
            else:
                outs = [(ops[0][1], alu)] if ops[0][0] == "reg" else []
                if base != "not":
                    outs += [(f, alu) for f in FLAGS]
                step(idx, regs, mem, outs)
        else:
            # AT&T: op src, dst; dst is read too, but for the zeroing idioms,
            # three-operand IMUL and SBB r, r (reads CF only)
            dst = ops[-1]
            reads, writes, l = [], list(FLAGS), alu
            if base in ("adc", "sbb"):
                reads = ["CF"]
            elif base == "adcx":
                reads, writes = ["CF"], ["CF"]
            elif base == "adox":
                reads, writes = ["OF"], ["OF"]
            elif base.startswith("cmov"):
                reads, writes = (["OF"] if base[4:] in ("o", "no") else ["CF"]), []
            elif base in ("bt", "btr", "bts", "btc"):
                writes = ["CF"]
            elif base == "imul":
                l = lat["imul"]
            same = len(ops) == 2 and ops[0] == ops[1] and dst[0] == "reg"
            if same and base in ("xor", "sub"):
                step(idx, [], None, [(dst[1], 0)] + [(f, 0) for f in writes])
                continue
            srcs = [o[1] for o in ops[:-1] if o[0] == "reg"]
            if same and base == "sbb":
                srcs = []
            elif dst[0] == "reg" and not (base == "imul" and len(ops) == 3):
                srcs.append(dst[1])
            outs = [(f, l) for f in writes]
            if dst[0] == "reg" and base != "bt":
                outs.append((dst[1], l))
            step(idx, srcs + reads, mem, outs)
    return end[0], end[1], prev, times


SELFTEST = [
    # (what, code, Zen 4 cycles worked out by hand)
    ("load 4, MULX high 4, ADOX 1, store, forwarding 6, ADC 1",
     """fg_t_a:
\tmulxq 0(%rsi), %rax, %rbx
\tadcxq %rax, %r8
\tadoxq %rbx, %r9
\tmovq %r9, 8(%rsp)
\tmovq 8(%rsp), %r10
\tadcq $0, %r10
\tmovq %r10, 0(%rdi)
.cfi_endproc""", 16),
    ("ADCX and ADOX chains side by side: load 4, MULX high 4, four ADOX",
     """fg_t_b:
\tmovq 0(%rsi), %rdx
\tmulxq 8(%rsi), %rax, %rbx
\txorq %rcx, %rcx
\tadcxq %rax, %r8
\tadoxq %rbx, %r9
\tadcxq %rax, %r10
\tadoxq %rbx, %r11
\tadcxq %rax, %r12
\tadoxq %rbx, %r13
\tadcxq %rax, %r14
\tadoxq %rbx, %r15
\tmovq %r15, 0(%rdi)
.cfi_endproc""", 12),
    ("a load into a register does not wait for the register's old value",
     """fg_t_c:
\tmulxq 0(%rsi), %rax, %rbx
\timulq $3, %rbx, %rbx
\tmovq 8(%rsi), %rbx
\tmovq %rbx, 0(%rdi)
.cfi_endproc""", 4),
]


def selftest():
    import os
    import tempfile
    bad = 0
    for what, code, want in SELFTEST:
        with tempfile.NamedTemporaryFile("w", suffix=".S", delete=False) as f:
            f.write(code + "\n")
        (name, body), = kernels(f.name).items()
        os.unlink(f.name)
        got = analyse(body, LAT["zen4"])[0]
        print("%-4s %-70s %d (want %d)" % ("ok" if got == want else "FAIL", what, got, want))
        bad += got != want
    return 1 if bad else 0


def main(argv):
    if "--selftest" in argv:
        sys.exit(selftest())
    lat = LAT["zen4"]
    if "--lat" in argv:
        i = argv.index("--lat")
        lat = LAT[argv[i + 1]]
        argv = argv[:i] + argv[i + 2:]
    args = [a for a in argv if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    ks = kernels(args[0])
    if "--all" in argv:
        names = [k for k, body in ks.items() if body and not any(b[0].startswith("v") for b in body)]
    else:
        names = []
        for want in args[1:]:
            hit = [k for k in ks if k == want or re.match(r"^fg_[a-z0-9]+_%s$" % re.escape(want), k)]
            if not hit:
                sys.exit("critpath: no kernel %s in %s" % (want, args[0]))
            names += hit
    for name in names:
        body = ks[name]
        t, last, prev, times = analyse(body, lat)
        n = sum(1 for b in body if not b[0].startswith(("push", "pop")) and b[0] not in SKIP)
        print("%-34s %5d instructions  critical path %4d cycles" % (name, n, t))
        if "--chain" in argv:
            chain, i = [], last
            while i is not None:
                chain.append(i)
                i = prev.get(i)
            for i in reversed(chain):
                print("  %5d  %4d  %s" % (i, times.get(i, 0), body[i][2]))


if __name__ == "__main__":
    main(sys.argv[1:])
