# SPDX-License-Identifier: MIT OR Apache-2.0
"""An interpreter of the A64 subset kernels.py emits, for the generator's
tests (tests/gen/test_aarch64.py): it runs a kernel's text on Python
integers, so every limb count is checked against big-integer arithmetic
without a cross compiler or qemu. It also checks what the ABI test checks on
hardware: x19-x28 and sp restored, x18/x29/x30 never written, every memory
access inside the arguments, the frame or the modulus table, and no branch
but the final ret."""

from __future__ import annotations

MASK = (1 << 64) - 1


class SimError(AssertionError):
    pass


def _imm(tok):
    tok = tok.strip()
    assert tok.startswith("#"), tok
    return int(tok[1:], 0)


def _split(ops):
    """Operands, keeping [base, #off] together."""
    out, cur, depth = [], "", 0
    for ch in ops:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def run(lines, regs, memory, regions, table_label, table_addr):
    """Run the kernel's lines. regs: {"x0": .., "x1": .., "x2": ..} initial
    values (others are filled with canaries here); memory: {address: word}
    (8-byte aligned words), updated in place; regions: [(start, end)] byte
    ranges the kernel may access besides its frame and the table. Returns the
    number of instructions executed."""
    r = {f"x{i}": (0x5a5a000000000000 + i) & MASK for i in range(31)}
    r.update(regs)
    canary = dict(r)
    sp0 = 0x7fff0000
    r["sp"] = sp0
    carry = 0
    executed = 0
    table_end = table_addr + 8 * 64

    def val(tok):
        if tok == "xzr":
            return 0
        if tok.startswith("#"):
            return _imm(tok)
        return r[tok]

    def setr(tok, v):
        if tok == "xzr":
            return
        if tok in ("x18", "x29", "x30"):
            raise SimError(f"writes {tok}")
        r[tok] = v & MASK

    def addr(tok):
        inner = tok.strip()[1:-1].split(",")
        base = inner[0].strip()
        off = _imm(inner[1]) if len(inner) > 1 else 0
        a = r[base] + off
        if a % 8:
            raise SimError(f"unaligned access {tok}")
        ok = (r["sp"] <= a < sp0) or (table_addr <= a < table_end) or any(s <= a < e for s, e in regions)
        if not ok:
            raise SimError(f"access outside the arguments, frame and table: {tok} = {a:#x}")
        return a

    for line in lines:
        text = line.split("//")[0].strip()
        if not text or text.startswith("."):
            continue
        parts = text.split(None, 1)
        m = parts[0]
        ops = _split(parts[1]) if len(parts) > 1 else []
        executed += 1
        if m == "hint":
            continue
        if m == "ret":
            break
        if m in ("b", "bl", "br", "blr", "cbz", "cbnz", "tbz", "tbnz") or m.startswith("b."):
            raise SimError(f"branch {text}")
        if m == "mov":
            setr(ops[0], val(ops[1]))
        elif m == "movz":
            sh = int(ops[2].split("#")[1]) if len(ops) > 2 else 0
            setr(ops[0], _imm(ops[1]) << sh)
        elif m == "movn":
            sh = int(ops[2].split("#")[1]) if len(ops) > 2 else 0
            setr(ops[0], ~(_imm(ops[1]) << sh))
        elif m == "movk":
            sh = int(ops[2].split("#")[1]) if len(ops) > 2 else 0
            setr(ops[0], (r[ops[0]] & ~(0xffff << sh)) | (_imm(ops[1]) << sh))
        elif m == "adr":
            if ops[1] != table_label:
                raise SimError(f"adr of {ops[1]}")
            setr(ops[0], table_addr)
        elif m == "mul":
            setr(ops[0], val(ops[1]) * val(ops[2]))
        elif m == "umulh":
            setr(ops[0], (val(ops[1]) * val(ops[2])) >> 64)
        elif m in ("adds", "adcs", "adc", "add"):
            if ops[0] == "sp":
                r["sp"] += val(ops[2])
                continue
            s = val(ops[1]) + val(ops[2]) + (carry if m in ("adcs", "adc") else 0)
            setr(ops[0], s)
            if m in ("adds", "adcs"):
                carry = s >> 64
        elif m == "sbc":
            setr(ops[0], val(ops[1]) - val(ops[2]) - (1 - carry))
        elif m in ("subs", "sbcs", "sub"):
            if ops[0] == "sp":
                r["sp"] -= val(ops[2])
                continue
            d = val(ops[1]) - val(ops[2]) - (1 - carry if m == "sbcs" else 0)
            setr(ops[0], d)
            if m in ("subs", "sbcs"):
                carry = 1 if d >= 0 else 0
        elif m == "csel":
            if ops[3] != "cs":
                raise SimError(f"condition {ops[3]}")
            setr(ops[0], val(ops[1]) if carry else val(ops[2]))
        elif m == "extr":
            lsb = _imm(ops[3])
            setr(ops[0], ((val(ops[1]) << 64 | val(ops[2])) >> lsb))
        elif m == "lsl":
            sh = _imm(ops[2])
            if not 0 <= sh < 64:
                raise SimError(f"shift {text}")
            setr(ops[0], val(ops[1]) << sh)
        elif m == "lsr":
            sh = _imm(ops[2])
            if not 0 <= sh < 64:
                raise SimError(f"shift {text}")
            setr(ops[0], val(ops[1]) >> sh)
        elif m == "and":
            setr(ops[0], val(ops[1]) & val(ops[2]))
        elif m == "ldr":
            setr(ops[0], memory.get(addr(ops[1]), 0x1234))
        elif m == "ldp":
            a = addr(ops[2])
            addr(ops[2].replace("#%d]" % (a - r[ops[2][1:].split(",")[0]]), "#%d]" % (a + 8 - r[ops[2][1:].split(",")[0]])))
            setr(ops[0], memory.get(a, 0x1234))
            setr(ops[1], memory.get(a + 8, 0x1234))
        elif m == "str":
            memory[addr(ops[1])] = val(ops[0])
        elif m == "stp":
            a = addr(ops[2])
            memory[a] = val(ops[0])
            memory[a + 8] = val(ops[1])
        else:
            raise SimError(f"unknown instruction {text}")
    else:
        raise SimError("no ret")
    if r["sp"] != sp0:
        raise SimError("sp not restored")
    for i in list(range(19, 29)) + [18, 29, 30]:
        if r[f"x{i}"] != canary[f"x{i}"]:
            raise SimError(f"x{i} not preserved")
    return executed
