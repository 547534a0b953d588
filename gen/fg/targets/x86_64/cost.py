# SPDX-License-Identifier: MIT OR Apache-2.0
"""What each generated scalar kernel costs (Fp and the scalar Fp2 kernels),
counted on its GAS text.

The kernels are straight-line code (no jump between label and ret: a kernel
runs every instruction once), so counting instructions in the text counts
what one call executes. Two classes bound the kernels on the Intel cores
measured (research/ports/ports.c on the Intel Xeon of research/RESULTS.md):

  MULTS  64x64 multiplications (MULX, one-operand MUL, IMUL): one per cycle
         (ports 1 and 5; IMUL port 1);
  P06    carry, borrow, select and shift instructions (ADC, SBB, ADCX, ADOX,
         CMOVcc, SETcc, shifts, rotates, bit tests): ports 0 and 6 only, two
         per cycle, while ADD/SUB/AND/XOR/MOV/LEA go to any of five ports.
         Not the double shifts SHLD/SHRD: one per cycle on port 1, MULX's
         (research/ports); no shipped kernel has one, the pseudo-Mersenne
         kernels of 1 and of more than 4 limbs one per call.

MULX does not occupy ports 0 and 6, so a kernel needs at least
max(MULTS, P06 / 2) cycles: its port floor. The header carries both counts per
kernel (FG_NAME_OP_LEVEL_MULTS, _P06; FG_NAME_FP2_MUL_ADX_MULTS, ...) and fieldgen-bench sets every kernel's
median against its floor. x86_64_ifma uses the same P06 count for its cost
model.

A third count serves cores where that model does not hold:

  ALU    every instruction an integer ALU executes: all but the
         multiplications, loads, stores and register-to-register moves (MOV
         without an immediate), pushes and pops, and zeroing XORs (xor r, r),
         so ADD/SUB/AND/LEA/MOV $imm as well as every P06 instruction.

On the Zen 3 measured (research/ports/rows.py) MULX and these share issue: a
product row of 8 MULX and 16 ADCX/ADOX takes 1.23-1.34x its MULX alone, and
the kernels run at 0.88-0.97 of that row's rate of MULTS + ALU operations.
The header carries the count as _ALU; fieldgen-bench prints it beside the
port floor and times the row at start-up to say whether the core it runs on
shares issue that way.
"""

from __future__ import annotations

import re

OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc", "mul_lazy", "sqr_lazy")
# the levels' kernels and the Zen form of adx's (fg_NAME_OP_adx_zen, where generated)
LEVELS = ("x86_64", "bmi2", "adx", "adx_zen")
# the scalar Fp2 kernels (x86_64.mont: fg_NAME_fp2_OP_LEVEL, where generated)
FP2_OPS = ("fp2_mul", "fp2_sqr")
FP2_KERNELS = tuple((op, level) for op in FP2_OPS for level in ("bmi2", "adx", "adx_zen"))
KERNELS = tuple((op, level) for op in OPS for level in LEVELS) + FP2_KERNELS

MULTS = re.compile(r"^\s+(mulx|mul|imul)[bwlq]?\s")
P06 = re.compile(r"^\s+(adc|adcx|adox|sbb|cmov[a-z]+|set[a-z]+|shl|shr|sar|shlx|shrx|sarx|"
                 r"rcl|rcr|rol|ror|rorx|bt|btr|bts|btc)[bwlq]?\s")
_JUMP = re.compile(r"^\s+(j[a-z]+|call[a-z]*|loop[a-z]*)\s")


def body(text, symbol):
    """The instruction lines of function `symbol` in a PeachPy GAS text (the
    lines from its ELF label to its ret). Raises ValueError if the function is
    absent or not straight-line (a jump, call or loop inside it)."""
    lines, inside = [], False
    for line in text.splitlines():
        if line == symbol + ":":
            inside = True
        elif inside:
            if line.strip() == "ret":
                return lines
            if _JUMP.match(line + " "):
                raise ValueError("%s is not straight-line code: %r" % (symbol, line.strip()))
            if line.startswith(("\t", " ")) and not line.strip().startswith(("#", ".")):
                lines.append(line)
            elif line and not line.startswith(("#", ".")) and not line.endswith(":"):
                lines.append(line)   # PeachPy writes push/pop flush left
    raise ValueError("function %s not found" % symbol)


_OPERANDS = re.compile(r",(?![^(]*\))")     # commas outside a memory operand's parentheses


def is_alu(mnemonic, operands):
    """True if the instruction (a GAS mnemonic or objdump's, AT&T operands)
    is in the ALU class."""
    m = mnemonic.lower()
    if MULTS.match("\t%s " % m) or m.startswith(("push", "pop", "ret", "endbr")):
        return False                        # (ENDBR64, CET's landing pad, is a NOP)
    ops = [o.strip() for o in _OPERANDS.split(operands)] if operands.strip() else []
    if m.startswith("mov") and not (ops and ops[0].startswith("$")):
        return False                        # a load, a store or a register move
    if m.startswith("xor") and len(ops) == 2 and ops[0] == ops[1]:
        return False                        # the zeroing idiom
    return True


def _alu(lines):
    n = 0
    for line in lines:
        mnemonic, _, operands = line.strip().partition(" ")
        n += is_alu(mnemonic, operands)
    return n


def _matching(lines, rx):
    return sum(bool(rx.match(line if line[:1].isspace() else "\t" + line)) for line in lines)


def count(text, symbol, rx):
    """Instructions of `symbol` that match rx."""
    return _matching(body(text, symbol), rx)


def count_alu(text, symbol):
    """ALU-class instructions of `symbol` (is_alu)."""
    return _alu(body(text, symbol))


def costs(fa, text):
    """{(op, level): (mults, p06, alu)} for every scalar kernel fg_NAME_OP_LEVEL
    in text (KERNELS: the Fp kernels and the Fp2 ones)."""
    labels = set(text.splitlines())
    out = {}
    for op, level in KERNELS:
        symbol = "fg_%s_%s_%s" % (fa.name, op, level)
        if symbol + ":" in labels:
            lines = body(text, symbol)
            out[(op, level)] = (_matching(lines, MULTS), _matching(lines, P06), _alu(lines))
    return out
