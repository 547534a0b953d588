# SPDX-License-Identifier: MIT OR Apache-2.0
"""Static constant-time and ABI check of generated AArch64 assembly kernels.

usage: ct_static_aarch64.py [--target elf|macho] [--args N] [-q] FILE.S...

The AArch64 counterpart of tests/ct_static.py, with the same guarantees and
the same output. Reads the GAS text of each FILE.S (A64 as
gen/fg/targets/aarch64 emits it, after the small C preprocessor of
tests/ct_cpp.py, evaluated for the chosen target: ELF defines __aarch64__
and __ELF__, Mach-O __aarch64__ and __APPLE__; names split at `.` as cpp
does, so `.FG_VISIBILITY` is `.protected`) and checks every function (a
`.globl` or `.type %function` symbol's label in a text section, up to its
`.cfi_endproc` or `.size`, the next function or a section change) for
properties that hold for every input:

1. Straight line: no branch (B, BL, BR, BLR, B.cond, CBZ, CBNZ, TBZ, TBNZ,
   the authenticated forms), trap or exception return, no label inside the
   body, no data directive inside it (`.inst`, `.quad`: bytes the checker
   cannot see as instructions), no instruction outside a function, no
   assembler macro, conditional, include, symbol assignment or register
   alias (.req) anywhere, no `;` (a statement separator in GNU as, a
   comment in Apple's assembler), and exactly one `ret` (through x30), the
   last instruction. No instruction of the variable-time denylist (TIMING
   below, with reasons: UDIV and SDIV first) and none the checker does not
   model (the tables below: each writes its first operand, or nothing).
2. Addresses: every load and store (LDR, STR, LDP, STP, LDUR, STUR, the
   byte, halfword and sign-extending forms, LDNP, STNP; SIMD registers
   too) is a base register plus an immediate offset, with no register
   offset (`[x1, x3]`, `[x1, w3, uxtw #3]`) and no literal (`ldr x0, =c`),
   pre-index writeback (`[xn, #i]!`) and post-index (`[xn], #i`) modelled
   (the base moves by the immediate; writeback into a register the
   instruction also transfers is refused, it is UNPREDICTABLE), and the
   base is
   - sp, the access inside the frame (3. below);
   - a register holding the address of a label this file defines outside
     any function (a constant table: `adr`, `adrp` with `add :lo12:` or a
     `:lo12:` offset, `@PAGE`/`@PAGEOFF` on Mach-O), the access inside the
     bytes that label's directives emit, and never a write;
   - a register holding a pointer derived only from the pointer arguments:
     x0, x1 and, for three-argument kernels, x2 at entry (the arity comes
     from the operation in the name: mul, mul_wide and mul_lazy take 3;
     sqr, sqr_wide, sqr_lazy, redc and canon 2, the Fp2 fp2_mul and
     fp2_sqr as mul and sqr; anything else 3 unless --args says), copied by a 64-bit MOV, through an 8-byte stack slot
     (spilled and reloaded with nothing written over the slot in between),
     by ADD/SUB of an immediate or by writeback. Any other write makes a
     register data, and an access whose base is data is reported: that
     address could depend on a secret. A forward pass over the straight
     line code, so exact, not an approximation over paths.
3. ABI (AAPCS64): x18 (the platform register) is never named; sp changes
   only by ADD/SUB of an immediate, pre-/post-index writeback and a MOV
   (or ADD/SUB of an immediate) from a register holding an earlier copy of
   sp, always by multiples of 16 (sp stays 16-byte aligned), never above
   its entry value, and is back at it at `ret`; every sp-relative access
   lies in the bytes the function allocated (not below sp: no red zone; not
   at or above the entry sp: the caller's frame); the values of x19-x28,
   x29 (the frame pointer), x30 (the link register: the return address) and
   the low 64 bits of v8-v15 (d8-d15) are tracked, so each must hold its
   own entry value at `ret` (saved and reloaded from the same slot, or kept
   in another register), and a write to one whose entry value exists
   nowhere else is reported at that line ("written before it is saved").
   ELF only: every function starts with a BTI landing pad for calls
   (`bti c`, `bti jc`, `hint #34`, `hint #38`); the file has a
   .note.gnu.property whose GNU_PROPERTY_AARCH64_FEATURE_1_AND has the BTI
   bit (the note's bytes are assembled from its directives and parsed); if
   the note also claims PAC, no function stores the return address (x30's
   entry value) to memory unsigned; and the file has .note.GNU-stack.

Not proven: that an instruction's latency is independent of its operands
beyond the classes allowed here (MUL, UMULH, MADD, ADDS/ADCS/SBCS, CSEL,
shifts, bit-field moves, CLZ and the SIMD integer operations listed are
taken to be constant time; Armv8.4 DIT lists them as data-independent
when PSTATE.DIT is set, and the kernels do not set it); anything about the
values computed.

Exit status 0 when every function of every file passes; 1 when anything is
reported (each violation on one line: file:line: function: problem:
instruction), including a file with no function or a construct the checker
does not model; 2 for a usage error. Standard library only.
"""

import argparse
import re
import struct
import sys

from ct_cpp import CppError, number, preprocess, report, split_operands, statement

# --- registers ---------------------------------------------------------------

GPR = {}                                     # name -> (64-bit parent, bytes)
for _i in range(31):
    GPR["x%d" % _i] = ("x%d" % _i, 8)
    GPR["w%d" % _i] = ("x%d" % _i, 4)
GPR.update({"fp": ("x29", 8), "lr": ("x30", 8), "ip0": ("x16", 8), "ip1": ("x17", 8)})
ZR = {"xzr": 8, "wzr": 4}
SPR = {"sp": 8, "wsp": 4}
VSIZE = {"b": 1, "h": 2, "s": 4, "d": 8, "q": 16}
CALLEE = tuple("x%d" % i for i in range(19, 31)) + tuple("v%d" % i for i in range(8, 16))
ARG_REGS = ("x0", "x1", "x2")
PLATFORM = "x18"
CONDS = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt",
         "le", "al", "nv"}
SHIFTS = {"lsl", "lsr", "asr", "ror", "msl", "uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx"}


def reg_name(r):
    """How a message names a tracked register."""
    if r.startswith("v"):
        return "d%s (the low half of %s)" % (r[1:], r)
    return {"x29": "x29 (the frame pointer)", "x30": "x30 (the link register)"}.get(r, r)


# --- instruction classes -----------------------------------------------------

# Control flow and traps: none may occur in a straight-line kernel (ret only
# as the last instruction, handled separately).
CONTROL = re.compile(r"^(b|bl|br|blr|bc?\.[a-z]+|b(%s)|cbn?z|tbn?z|reta[ab]|bra[ab]z?|blra[ab]z?|"
                     r"eret(a[ab])?|drps|svc|hvc|smc|brk|hlt|udf|dcps[123])$" % "|".join(sorted(CONDS)))

# Variable-time or otherwise refused instructions, with the reason printed.
TIMING = [
    (re.compile(r"^[su]div$"),
     "integer division: its latency depends on the operands on many cores (not in Armv8.4 DIT's "
     "list of data-independent-timing instructions)"),
    (re.compile(r"^f(?!mov$)[a-z0-9]*$"),
     "floating point: FDIV and FSQRT take operand-dependent time, subnormals take slow paths"),
    (re.compile(r"^[su]cvtf$"), "integer to floating-point conversion: rounding and subnormal handling"),
    (re.compile(r"^(ldx|ldax|stx|stlx|ldar|stlr|ldapr|ldapur|stlur|ldlar|stllr|cas|swp|"
                r"ld(add|clr|eor|set|smax|smin|umax|umin)|st(add|clr|eor|set|smax|smin|umax|umin))[a-z]*$"),
     "exclusive, acquire/release or atomic access: its time depends on other cores; never needed "
     "in a kernel"),
    (re.compile(r"^(mrs|msr|sys|sysl|isb|dsb|dmb|ssbb|pssbb|sb|dc|ic|at|tlbi|wfe|wfi|sev|sevl|yield|clrex|"
                r"cfinv|rmif|setf8|setf16|axflag|xaflag)$"),
     "system, barrier or flag-state instruction: not part of a straight-line kernel (MSR could "
     "change DIT, NZCV or FPCR)"),
    (re.compile(r"^prfu?m$"), "prefetch: brings an address into the cache (none is needed; not modelled)"),
    (re.compile(r"^(pac|aut|xpac)[a-z0-9]*$"),
     "pointer authentication: changes x30 or a pointer in a way the checker does not model"),
]

# Data processing on general registers: writes its first operand (Rd),
# reads the others.
GPR_DP = set("""adc adcs sbc sbcs ngc ngcs neg negs and ands orr orn eor eon bic bics mvn movz movn movk
mul umulh smulh madd msub mneg umaddl umsubl smaddl smsubl umull smull umnegl smnegl lsl lsr asr ror
lslv lsrv asrv rorv extr ubfx sbfx ubfiz sbfiz ubfm sbfm bfm bfi bfxil bfc uxtb uxth sxtb sxth sxtw
rev rev16 rev32 rev64 rbit clz cls csel csinc csinv csneg cset csetm cinc cinv cneg""".split())
# Flags only.
NOWRITE = {"cmp", "cmn", "tst", "ccmp", "ccmn"}
# SIMD integer operations (on vector operands): write their first operand.
VEC_DP = set("""add sub and orr orn eor bic bif bit bsl not mvn mul mla mls movi mvni dup ins umov smov
umull umull2 umlal umlal2 umlsl umlsl2 smull smull2 ushr sshr shl usra ssra sli sri ushl sshl shrn
shrn2 xtn xtn2 uzp1 uzp2 zip1 zip2 trn1 trn2 ext rev64 cmeq cmhi cmhs cmge cmgt cmtst addp uaddlp
uaddw uaddw2 usubw usubw2 uaddl uaddl2 usubl usubl2""".split())
# Loads and stores: mnemonic -> bytes per register (None: the register's size).
LOADS = {"ldr": None, "ldur": None, "ldrb": 1, "ldurb": 1, "ldrh": 2, "ldurh": 2, "ldrsb": 1,
         "ldursb": 1, "ldrsh": 2, "ldursh": 2, "ldrsw": 4, "ldursw": 4, "ldp": None, "ldnp": None,
         "ldpsw": 4}
STORES = {"str": None, "stur": None, "strb": 1, "sturb": 1, "strh": 2, "sturh": 2, "stp": None,
          "stnp": None}
PAIRS = {"ldp", "ldnp", "ldpsw", "stp", "stnp"}
LANDING = {("bti", "c"), ("bti", "jc"), ("hint", "#34"), ("hint", "#38")}
HINTS_OK = {0, 34, 36, 38}          # nop, bti c, bti j, bti jc

# --- operands -----------------------------------------------------------------


class Operand:
    __slots__ = ("kind", "text", "parent", "size", "rclass", "lane", "value", "ok", "sym", "reloc",
                 "base", "index", "extend", "writeback", "name")

    def __init__(self, kind, text):
        self.kind, self.text = kind, text
        self.parent = self.rclass = self.lane = self.sym = self.reloc = self.base = self.index = None
        self.extend = self.name = None
        self.size, self.value, self.ok, self.writeback = 0, 0, True, False


def parse_reg(text):
    """(class, parent, bytes, lane) of a register name, or None. Classes:
    gpr, zr, sp, vec; lane (element bytes, index) for `v1.d[0]`."""
    t = text.strip().lower()
    if t in GPR:
        return ("gpr",) + GPR[t] + (None,)
    if t in ZR:
        return "zr", "zr", ZR[t], None
    if t in SPR:
        return "sp", "sp", SPR[t], None
    mo = re.match(r"^([bhsdq])(\d+)$", t)
    if mo and int(mo.group(2)) < 32:
        return "vec", "v" + mo.group(2), VSIZE[mo.group(1)], None
    mo = re.match(r"^v(\d+)(?:\.(\d*)([bhsdq]))?(?:\[(\d+)\])?$", t)
    if mo and int(mo.group(1)) < 32:
        parent = "v" + mo.group(1)
        if mo.group(4) is not None:
            if mo.group(3) is None:
                return None
            esize = VSIZE[mo.group(3)]
            return "vec", parent, esize, (esize, int(mo.group(4)))
        if mo.group(3) is None:
            return "vec", parent, 16, None
        count = int(mo.group(2)) if mo.group(2) else 1
        return "vec", parent, count * VSIZE[mo.group(3)], None
    return None


_SYM = re.compile(r"^([A-Za-z_.$][\w.$]*)((?:@PAGE(?:OFF)?)?)([-+](?:0[xX][0-9a-fA-F]+|\d+))?((?:@PAGE(?:OFF)?)?)$")


def parse_sym(text):
    """(symbol, addend, reloc 'page' | 'pageoff' | None) or None."""
    mo = _SYM.match(text.replace(" ", ""))
    if not mo or (mo.group(2) and mo.group(4)):
        return None
    reloc = (mo.group(2) or mo.group(4)).lower().lstrip("@") or None
    return mo.group(1), number(mo.group(3)) if mo.group(3) else 0, reloc


def _imm(text):
    """(value, parsed?) of an immediate's text after the '#'."""
    try:
        return number(text), True
    except ValueError:
        return 0, False


def parse_operand(text):
    t = text.strip()
    info = parse_reg(t)
    if info:
        op = Operand("reg", t)
        op.rclass, op.parent, op.size, op.lane = info
        return op
    if t.startswith("[") and (t.endswith("]") or t.endswith("]!")):
        op = Operand("mem", t)
        op.writeback = t.endswith("!")
        inner = split_operands(t[1:t.rindex("]")], "[({", "])}")
        binfo = parse_reg(inner[0]) if inner and inner[0] else None
        op.base = inner[0].strip().lower() if inner else ""
        if binfo:
            op.rclass, op.parent, op.size = binfo[0], binfo[1], binfo[2]
        else:
            op.ok = False
        if len(inner) > 1:
            second = inner[1].strip()
            if second.startswith("#"):
                second = second[1:].strip()
            if second.lower().startswith(":lo12:") or "@pageoff" in second.lower():
                parsed = parse_sym(second[6:] if second.lower().startswith(":lo12:") else second)
                if parsed and (parsed[2] in (None, "pageoff")):
                    op.sym, op.value, op.reloc = parsed[0], parsed[1], "lo12"
                else:
                    op.ok = False
            elif parse_reg(second):
                op.index = second.lower()
            else:
                op.value, ok = _imm(second)
                op.ok = op.ok and ok
        if len(inner) > 2:
            op.extend = ",".join(inner[2:]).strip().lower()
            if op.index is None:
                op.ok = False
        if len(inner) > 3:
            op.ok = False
        return op
    if t.startswith("#") or re.match(r"^[-+]?(0[xX][0-9a-fA-F]+|\d+)$", t):
        body = t[1:].strip() if t.startswith("#") else t
        if body.lower().startswith(":lo12:"):
            parsed = parse_sym(body[6:])
            op = Operand("lo12", t)
            if parsed and parsed[2] is None:
                op.sym, op.value = parsed[0], parsed[1]
            else:
                op.ok = False
            return op
        op = Operand("imm", t)
        op.value, op.ok = _imm(body)
        return op
    if t.lower().startswith(":lo12:"):
        parsed = parse_sym(t[6:])
        op = Operand("lo12", t)
        if parsed and parsed[2] is None:
            op.sym, op.value = parsed[0], parsed[1]
        else:
            op.ok = False
        return op
    words = t.split(None, 1)
    if words and words[0].lower() in SHIFTS:
        op = Operand("shift", t)
        op.name = words[0].lower()
        if len(words) > 1:
            op.value, op.ok = _imm(words[1].lstrip("#").strip())
        return op
    if t.lower() in CONDS:
        op = Operand("cond", t)
        op.name = t.lower()
        return op
    parsed = parse_sym(t)
    if parsed:
        op = Operand("sym", t)
        op.sym, op.value, op.reloc = parsed
        if parsed[2] == "pageoff":      # Mach-O's :lo12:
            op.kind, op.reloc = "lo12", None
        return op
    return Operand("other", t)


class Insn:
    __slots__ = ("line", "text", "mnemonic", "ops")

    def __init__(self, line, text):
        self.line, self.text = line, text
        words = text.split(None, 1)
        self.mnemonic = words[0].lower()
        self.ops = [parse_operand(o) for o in split_operands(words[1], "[({", "])}")] \
            if len(words) > 1 and words[1].strip() else []


# --- the file ------------------------------------------------------------------

DATA_SIZE = {".byte": 1, ".hword": 2, ".short": 2, ".2byte": 2, ".word": 4, ".long": 4, ".int": 4,
             ".4byte": 4, ".quad": 8, ".xword": 8, ".dword": 8, ".8byte": 8, ".octa": 16}
NEUTRAL_IN_FUNCTION = re.compile(r"^\.(p2align|balign|align|cfi_\w+|loc|file|size|type|globl|global|"
                                 r"hidden|protected|private_extern)\b")
GAS_UNMODELLED = re.compile(r"^\.(include|incbin|macro|endm|purgem|exitm|rept|irpc?|endr|if\w*|else|elseif|"
                            r"endif|set|equ|equiv|eqv|req|unreq|altmacro|previous)$")
SECTIONS = (".text", ".data", ".bss", ".rodata", ".section", ".pushsection", ".popsection", ".const",
            ".const_data")
NT_GNU_PROPERTY_TYPE_0 = 5
GNU_PROPERTY_AARCH64_FEATURE_1_AND = 0xc0000000
FEATURE_BTI, FEATURE_PAC = 1, 2


class Function:
    def __init__(self, name, line):
        self.name, self.line, self.body, self.problems = name, line, [], []


class Parsed:
    """What read_file found: functions, data labels {name: bytes or None},
    file-level problems, the GNU property note's directives, .note.GNU-stack."""

    def __init__(self):
        self.functions, self.labels, self.problems = [], {}, []
        self.note_items, self.note_line, self.gnu_stack = [], 0, False


def _section_name(args):
    return args.split(",")[0].strip().strip('"')


def _is_text_section(args):
    name = _section_name(args)
    return name.startswith(".text") or args.replace(" ", "").startswith("__TEXT,__text")


def _strings(args):
    """The byte strings of .ascii/.asciz operands (plain printable text only), or None."""
    out = []
    for part in split_operands(args):
        mo = re.match(r'^"([^"\\]*)"$', part.strip())
        if not mo:
            return None
        out.append(mo.group(1).encode("ascii"))
    return out


def _statements(lines, problems):
    """(line, kind, text): labels split off, `//` comments removed; a `;`
    outside a string is reported (GNU as separates statements at it, Apple's
    assembler starts a comment)."""
    for number_, text in lines:
        quoted, cut = False, len(text)
        for i, ch in enumerate(text):
            if ch == '"':
                quoted = not quoted
            elif not quoted and text.startswith("//", i):
                cut = i
                break
            elif not quoted and ch == ";":
                problems.append((number_, "';' not modelled (a statement separator for GNU as, a comment "
                                 "for Apple's assembler)", text))
                cut = -1
                break
        if cut < 0:
            continue
        yield from statement(number_, text[:cut])


def read_file(path, target):
    defines = {"__aarch64__": "1", "__STDC__": "1", "__ASSEMBLER__": "1"}
    defines.update({"__ELF__": "1"} if target == "elf" else {"__APPLE__": "1"})
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = preprocess(text, defines, cpp_tokens=True)
    res = Parsed()
    symbols = set()
    section, section_stack = ".text", []
    func = None
    open_label = None
    for number_, kind, text in _statements(lines, res.problems):
        section_text = section == ".text"
        if kind == "label":
            if section_text and text in symbols:
                func = Function(text, number_)
                res.functions.append(func)
                open_label = None
            elif func is not None:
                func.problems.append((number_, "label inside the function (a branch target?)", text + ":"))
                open_label = None
            else:
                res.labels[text] = 0
                open_label = text
            continue
        if kind == "directive":
            mo = re.match(r"^(\.[\w.]+)\s*(.*)$", text)
            name, args = (mo.group(1), mo.group(2)) if mo else (text, "")
            if GAS_UNMODELLED.match(name):
                res.problems.append((number_, "assembler directive not modelled (could change the code "
                                     "the checker sees)", text))
                continue
            if name in (".globl", ".global"):
                symbols.update(a.strip() for a in args.split(","))
            elif name == ".type" and "function" in args:
                symbols.add(args.split(",")[0].strip())
            if name in SECTIONS:
                if name == ".pushsection":
                    section_stack.append(section)
                if name == ".popsection":
                    section = section_stack.pop() if section_stack else ".text"
                elif name in (".section", ".pushsection"):
                    section = ".text" if _is_text_section(args) else _section_name(args)
                else:
                    section = name
                if section == ".note.gnu.property":
                    res.note_line = res.note_line or number_
                if section == ".note.GNU-stack":
                    res.gnu_stack = True
                func = None
                open_label = None
                continue
            if func is not None and (name == ".cfi_endproc" or name == ".size"):
                func = None             # the function ends here; what follows is outside it
                continue
            if func is not None and not NEUTRAL_IN_FUNCTION.match(text):
                func.problems.append((number_, "directive inside the function (emits bytes the "
                                      "checker cannot see as instructions)", text))
            if section == ".note.gnu.property":
                res.note_items.append((number_, name, args))
            if open_label is not None:
                size = None
                try:
                    if name in DATA_SIZE:
                        size = DATA_SIZE[name] * (len(split_operands(args)) if args.strip() else 0)
                    elif name in (".zero", ".skip", ".space"):
                        size = number(args.split(",")[0])
                    elif name in (".ascii", ".asciz", ".string"):
                        strings = _strings(args)
                        if strings is not None:
                            size = sum(len(s) + (name != ".ascii") for s in strings)
                except ValueError:
                    size = None
                if size is not None:
                    res.labels[open_label] += size
                elif name in DATA_SIZE or name in (".zero", ".skip", ".space", ".ascii", ".asciz", ".string"):
                    res.labels[open_label] = None
                    open_label = None
                else:
                    open_label = None   # alignment or anything else ends the label's bytes
            continue
        # an instruction
        if not section_text:
            res.problems.append((number_, "instruction outside a text section", text))
        elif func is None:
            res.problems.append((number_, "instruction outside any function", text))
        else:
            func.body.append(Insn(number_, text))
    return res


def note_features(items):
    """GNU_PROPERTY_AARCH64_FEATURE_1_AND of the note's bytes (assembled from
    its directives), 0 when the note has none, None when they do not parse."""
    buf = bytearray()
    for _, name, args in items:
        if name in DATA_SIZE:
            for part in split_operands(args):
                try:
                    value = number(part)
                except ValueError:
                    return None
                buf += (value & ((1 << (8 * DATA_SIZE[name])) - 1)).to_bytes(DATA_SIZE[name], "little")
        elif name in (".ascii", ".asciz", ".string"):
            strings = _strings(args)
            if strings is None:
                return None
            for s in strings:
                buf += s + (b"\0" if name != ".ascii" else b"")
        elif name in (".p2align", ".balign", ".align"):
            try:
                n = number(args.split(",")[0])
            except ValueError:
                return None
            align = n if name == ".balign" else 1 << n
            buf += b"\0" * (-len(buf) % align)
        elif name in (".zero", ".skip", ".space"):
            try:
                buf += b"\0" * number(args.split(",")[0])
            except ValueError:
                return None
        else:
            return None
    features, off = 0, 0
    while off < len(buf):
        if off + 12 > len(buf):
            return None
        namesz, descsz, ntype = struct.unpack_from("<III", buf, off)
        name_at = off + 12
        desc_at = name_at + namesz + (-namesz % 4)
        if desc_at + descsz > len(buf):
            return None
        if ntype == NT_GNU_PROPERTY_TYPE_0 and bytes(buf[name_at:name_at + namesz]) == b"GNU\0":
            p = desc_at
            while p < desc_at + descsz:
                if p + 8 > desc_at + descsz:
                    return None
                pr_type, pr_datasz = struct.unpack_from("<II", buf, p)
                if p + 8 + pr_datasz > desc_at + descsz:
                    return None
                if pr_type == GNU_PROPERTY_AARCH64_FEATURE_1_AND and pr_datasz == 4:
                    features |= struct.unpack_from("<I", buf, p + 8)[0]
                p += 8 + pr_datasz + (-pr_datasz % 8)
        off = desc_at + descsz + (-descsz % 8)
    return features


# --- the analysis of one function --------------------------------------------

DATA = ("data",)


def arity(name):
    ops = re.findall(r"_(mul_wide|sqr_wide|mul_lazy|sqr_lazy|mul|sqr|redc|canon)_", name + "_")
    if not ops:
        return 3
    return {"mul": 3, "mul_wide": 3, "mul_lazy": 3, "sqr": 2, "sqr_wide": 2, "sqr_lazy": 2,
            "redc": 2, "canon": 2}[ops[-1]]


def check_function(func, labels, nargs, stats=None, bti=False, pac=False):
    """List of (line, problem, instruction text); stats (a dict) counts the
    memory accesses proven safe by their base: sp, table, pointer."""
    stats = {} if stats is None else stats
    out = list(func.problems)
    regs = {"x%d" % i: DATA for i in range(31)}
    regs.update({"v%d" % i: DATA for i in range(32)})
    for r in ARG_REGS[:nargs]:
        regs[r] = ("ptr", r)
    for r in CALLEE:
        regs[r] = ("entry", r)
    written = {}                       # register -> line of its last write
    slots = {}                         # entry-sp-relative offset -> value of the 8 bytes there
    lost = set()                       # callee-saved registers already reported
    state = {"cur": 0}                 # sp - entry sp
    if not func.body:
        out.append((func.line, "empty function", func.name))
        return out
    rets = [i for i, insn in enumerate(func.body) if insn.mnemonic == "ret"]
    if not rets or rets[-1] != len(func.body) - 1:
        last = func.body[-1]
        out.append((last.line, "the function does not end with ret (it falls through)", last.text))
    first = func.body[0]
    if bti and (first.mnemonic, first.ops[0].text.lower() if len(first.ops) == 1 else "") not in LANDING:
        out.append((first.line, "the first instruction is not a BTI landing pad for calls (bti c, "
                    "hint #34)", first.text))

    def report(insn, msg):
        out.append((insn.line, msg, insn.text))

    def where(r):
        return ("last written at line %d" % written[r]) if r in written else "at entry"

    def holds_elsewhere(token, skip):
        return any(v == token for r, v in regs.items() if r != skip) or token in slots.values()

    def set_value(insn, parent, value):
        if parent in CALLEE and regs[parent] == ("entry", parent) and value != regs[parent] \
                and parent not in lost and not holds_elsewhere(("entry", parent), parent):
            report(insn, "callee-saved %s written before it is saved" % reg_name(parent))
            lost.add(parent)
        regs[parent] = value
        written[parent] = insn.line

    def write(insn, op, value=DATA):
        """op (a register operand) = value; partial writes leave data."""
        if op.kind != "reg" or op.rclass == "zr" or op.parent == PLATFORM:
            return
        if op.rclass == "sp":
            report(insn, "sp changed other than by add/sub of an immediate, writeback or a move "
                   "back from a copy of sp")
            return
        if op.rclass == "gpr":
            set_value(insn, op.parent, value if op.size == 8 else DATA)
            return
        if op.lane is not None:         # one element: the low 64 bits change only below byte 8
            if op.lane[0] * op.lane[1] >= 8:
                written[op.parent] = insn.line
                return
            value = value if op.lane == (8, 0) else DATA
        elif op.size < 8:
            value = DATA                # b/h/s writes zero the rest
        set_value(insn, op.parent, value)

    def read(op):
        """The tracked value an operand holds (64-bit registers only)."""
        if op.kind != "reg" or op.rclass in ("zr", "sp") or op.parent == PLATFORM:
            return DATA
        if op.rclass == "gpr":
            return regs[op.parent] if op.size == 8 else DATA
        if op.lane is not None:
            return regs[op.parent] if op.lane == (8, 0) else DATA
        return regs[op.parent] if op.size >= 8 else DATA

    def set_sp(insn, new):
        if new > 0:
            report(insn, "sp raised above its entry value")
        if new % 16:
            report(insn, "sp moved by a multiple of 8 bytes but not of 16 (AAPCS64 keeps it 16-byte aligned)"
                   if new % 8 == 0 else "sp not 16-byte aligned")
        for off in [o for o in slots if o < new]:
            del slots[off]              # released: below sp it may be overwritten at any time
        state["cur"] = new

    def stack_access(insn, lo, width, is_write):
        cur = state["cur"]
        if lo < cur:
            report(insn, "access below sp (%d bytes; there is no red zone)" % (cur - lo))
            return False
        if lo + width > 0:
            report(insn, "access at or above the entry sp (the caller's frame; %d bytes allocated)" % -cur)
            return False
        if is_write:
            for off in [o for o in slots if o < lo + width and lo < o + 8]:
                del slots[off]
        return True

    for index, insn in enumerate(func.body):
        mn, ops = insn.mnemonic, insn.ops
        cur = state["cur"]
        if any((o.kind == "reg" and o.parent == PLATFORM) or
               (o.kind == "mem" and PLATFORM in (GPR.get(o.base, (None,))[0], GPR.get(o.index or "", (None,))[0]))
               for o in ops):
            report(insn, "x18 (the platform register) is read or written")
        if mn == "ret":
            if ops and not (len(ops) == 1 and ops[0].kind == "reg" and ops[0].parent == "x30"
                            and ops[0].size == 8):
                report(insn, "ret through %s (not the link register)" % ops[0].text)
            if index != len(func.body) - 1:
                report(insn, "ret before the end of the function (only one ret, the last instruction)")
            if cur != 0:
                report(insn, "stack unbalanced at ret (sp is %d bytes %s its entry value)"
                       % (abs(cur), "below" if cur < 0 else "above"))
            for r in CALLEE:
                if regs[r] != ("entry", r) and r not in lost:
                    w = " (last written at line %d)" % written[r] if r in written else ""
                    report(insn, "callee-saved %s does not hold its entry value at ret%s" % (reg_name(r), w))
            continue
        if CONTROL.match(mn):
            report(insn, "control flow: %s (kernels must be straight-line)" % mn)
            continue
        denied = next((why for rx, why in TIMING if rx.match(mn)), None)
        if denied:
            report(insn, "%s: %s" % (mn, denied))
            continue
        if (mn in LOADS or mn in STORES) and any(o.text.startswith("=") for o in ops):
            report(insn, "literal pool load (ldr =) not modelled")
            continue
        bad = [o for o in ops if o.kind == "other" or not o.ok]
        if bad:
            report(insn, "operand not modelled: %s" % bad[0].text)
            continue
        is_vec = any(o.kind == "reg" and o.rclass == "vec" for o in ops)

        if mn in ("nop", "bti", "hint"):
            if mn == "hint" and not (len(ops) == 1 and ops[0].kind == "imm" and ops[0].value in HINTS_OK):
                report(insn, "hint not modelled (other hints are PAC or future instructions): %s" % insn.text)
            elif mn == "bti" and not (len(ops) <= 1 and all(o.text.lower() in ("c", "j", "jc") for o in ops)):
                report(insn, "bti operand not modelled")
            elif mn == "nop" and ops:
                report(insn, "nop with operands")
            continue

        if mn in LOADS or mn in STORES:
            is_load = mn in LOADS
            pair = mn in PAIRS
            nregs = 2 if pair else 1
            if len(ops) == nregs + 1 and ops[nregs].kind in ("sym", "lo12"):
                report(insn, "PC-relative literal load not modelled (use adr and an offset)")
                for o in ops[:nregs]:
                    write(insn, o)
                continue
            if len(ops) not in (nregs + 1, nregs + 2) or ops[nregs].kind != "mem" or \
                    not all(o.kind == "reg" and o.rclass in ("gpr", "zr", "vec") and o.lane is None
                            for o in ops[:nregs]):
                report(insn, "load/store form not modelled")
                for o in ops[:nregs]:
                    write(insn, o)
                continue
            xfer, mem = ops[:nregs], ops[nregs]
            post = ops[nregs + 1] if len(ops) == nregs + 2 else None
            if post is not None and (post.kind != "imm" or mem.writeback or mem.index or mem.value or mem.sym):
                report(insn, "post-index form not modelled: %s" % post.text)
                for o in xfer:
                    write(insn, o)
                continue
            esize = LOADS.get(mn) if is_load else STORES.get(mn)
            esize = esize or xfer[0].size
            width = esize * nregs
            if pair and is_load and xfer[0].parent == xfer[1].parent and xfer[0].rclass != "zr":
                report(insn, "load pair into the same register twice (UNPREDICTABLE)")
            wb = mem.writeback or post is not None
            if wb and mem.rclass == "gpr" and any(o.rclass == "gpr" and o.parent == mem.parent for o in xfer):
                report(insn, "writeback into a register the instruction also transfers (UNPREDICTABLE)")
            values = [read(o) for o in xfer] if not is_load else []
            if pac and not is_load and ("entry", "x30") in values:
                report(insn, "the return address (x30) stored to memory unsigned, while the property "
                       "note claims PAC")
            loaded = [DATA] * nregs
            ok = True
            if mem.base is None or mem.rclass not in ("gpr", "sp") or mem.size != 8:
                report(insn, "address base %s is not a 64-bit register" % mem.base)
                ok = False
            elif mem.index is not None:
                report(insn, "register offset address (%s): the index could be secret" % mem.text)
                ok = False
            elif mem.rclass == "sp":
                if mem.sym is not None:
                    report(insn, "symbolic offset on sp: %s" % mem.text)
                    ok = False
                else:
                    at = cur + mem.value if not post else cur
                    if mem.writeback:
                        set_sp(insn, at)
                    if stack_access(insn, at, width, not is_load):
                        stats["sp"] = stats.get("sp", 0) + 1
                        for k, o in enumerate(xfer):
                            a = at + k * esize
                            if is_load and esize >= 8:
                                loaded[k] = slots.get(a, DATA)
                            if not is_load and esize >= 8:
                                slots[a] = values[k] if o.rclass != "zr" else DATA
                    if post is not None:
                        set_sp(insn, cur + post.value)
            else:
                base = regs[mem.parent]
                if mem.sym is not None:         # :lo12: / @PAGEOFF of a page
                    if base[0] != "page" or base[1] != mem.sym:
                        report(insn, "the :lo12: offset of %s on %s, which does not hold that page (adrp)"
                               % (mem.sym, mem.base))
                        ok = False
                    elif wb:
                        report(insn, "writeback on a :lo12: address")
                        ok = False
                    else:
                        base = ("tab", mem.sym, base[2] + mem.value)
                        disp = 0
                else:
                    disp = mem.value
                if not ok:
                    pass
                elif base[0] == "ptr":
                    stats["pointer"] = stats.get("pointer", 0) + 1
                elif base[0] == "tab":
                    at = base[2] + (disp if not post else 0)
                    size = labels.get(base[1])
                    if not is_load:
                        report(insn, "write to a constant table (%s)" % base[1])
                    elif size is None:
                        report(insn, "the size of %s is not known (its directives do not parse)" % base[1])
                    elif at < 0 or at + width > size:
                        report(insn, "outside the %d bytes of %s (offset %d)" % (size, base[1], at))
                    else:
                        stats["table"] = stats.get("table", 0) + 1
                    if wb:
                        set_value(insn, mem.parent, ("tab", base[1], base[2] + (disp if not post else post.value)))
                elif base[0] == "page":
                    report(insn, "address %s is a page (adrp) without its :lo12: offset" % mem.text)
                else:
                    report(insn, "address base %s is not derived from a pointer argument (%s)"
                           % (mem.base, where(mem.parent) if mem.parent in written else
                              "at entry, not a pointer argument"))
            for k, o in enumerate(xfer):
                if is_load:
                    write(insn, o, loaded[k] if o.size >= 8 else DATA)
            continue

        if mn in ("adr", "adrp"):
            if len(ops) != 2 or ops[0].kind != "reg" or ops[1].kind != "sym":
                report(insn, "%s form not modelled" % mn)
                if ops:
                    write(insn, ops[0])
                continue
            sym = ops[1]
            want = None if mn == "adr" else "page"
            if sym.sym not in labels:
                report(insn, "%s of %s, not a constant table of this file" % (mn, sym.sym))
                write(insn, ops[0])
            elif sym.reloc not in (None, want):
                report(insn, "%s with @%s not modelled" % (mn, sym.reloc.upper()))
                write(insn, ops[0])
            else:
                write(insn, ops[0], ("tab" if mn == "adr" else "page", sym.sym, sym.value))
            continue

        if mn in ("mov", "fmov") and len(ops) == 2 and ops[0].kind == "reg":
            dst, src = ops
            if dst.rclass == "sp" or src.rclass == "sp":
                if dst.rclass == "sp" and src.kind == "reg" and src.rclass == "gpr" and src.size == 8 \
                        and regs[src.parent][0] == "spcopy" and dst.size == 8:
                    set_sp(insn, regs[src.parent][1])
                elif src.rclass == "sp" and dst.rclass == "gpr" and dst.size == 8 and src.size == 8:
                    write(insn, dst, ("spcopy", cur))
                else:
                    write(insn, dst)
                continue
            value = DATA
            if src.kind == "reg" and dst.rclass != "zr":
                full = (src.rclass == "gpr" and src.size == 8) or (src.rclass == "vec" and src.lane is None
                                                                   and src.size >= 8) \
                    or (src.rclass == "vec" and src.lane == (8, 0))
                dst_full = (dst.rclass == "gpr" and dst.size == 8) or (dst.rclass == "vec" and
                                                                       (dst.size >= 8 or dst.lane))
                if full and dst_full:
                    value = read(src)
            write(insn, dst, value)
            continue

        if mn in ("add", "sub", "adds", "subs") and not is_vec:
            if len(ops) not in (3, 4) or ops[0].kind != "reg" or ops[1].kind != "reg":
                report(insn, "%s form not modelled" % mn)
                if ops:
                    write(insn, ops[0])
                continue
            dst, src, amt = ops[0], ops[1], ops[2]
            shift = ops[3] if len(ops) == 4 else None
            value = DATA
            if amt.kind == "imm" and (shift is None or (shift.name == "lsl" and shift.value in (0, 12))):
                delta = amt.value << (shift.value if shift else 0)
                delta = -delta if mn.startswith("sub") else delta
                if src.rclass == "sp" and src.size == 8:
                    if dst.rclass == "sp" and not mn.endswith("s"):
                        set_sp(insn, cur + delta)
                        continue
                    value = ("spcopy", cur + delta)
                elif src.rclass == "gpr" and src.size == 8:
                    v = regs[src.parent]
                    if v[0] == "ptr":
                        value = v
                    elif v[0] == "tab":
                        value = ("tab", v[1], v[2] + delta)
                    elif v[0] == "spcopy":
                        if dst.rclass == "sp" and not mn.endswith("s"):
                            set_sp(insn, v[1] + delta)
                            continue
                        value = ("spcopy", v[1] + delta)
            elif amt.kind == "lo12" and mn == "add" and shift is None:
                v = regs[src.parent] if src.rclass == "gpr" and src.size == 8 else DATA
                if v[0] == "page" and v[1] == amt.sym:
                    value = ("tab", v[1], v[2] + amt.value)
                else:
                    report(insn, "the :lo12: offset of %s added to %s, which does not hold that page (adrp)"
                           % (amt.sym, src.text))
            elif amt.kind not in ("reg", "imm"):
                report(insn, "operand not modelled: %s" % amt.text)
            if dst.size != 8:
                value = DATA
            write(insn, dst, value)
            continue

        known = (mn in GPR_DP or mn in NOWRITE) if not is_vec else (mn in VEC_DP or mn == "fmov" or mn == "mov")
        if not known:
            report(insn, "instruction not modelled by the checker: %s" % mn)
            continue
        if any(o.kind in ("sym", "lo12", "mem") for o in ops):
            report(insn, "operand not modelled: %s" % next(o.text for o in ops if o.kind in ("sym", "lo12", "mem")))
        if mn in NOWRITE:
            continue
        if ops and ops[0].kind == "reg":
            write(insn, ops[0])
        else:
            report(insn, "%s without a register destination" % mn)
    return out


def check_file(path, target="elf", nargs=None, stats=None):
    """(number of functions, number of instructions, [(line, function, problem, text)])."""
    try:
        res = read_file(path, target)
    except (OSError, UnicodeDecodeError) as exc:
        return 0, 0, [(0, "-", "cannot read: %s" % exc, "")]
    except CppError as exc:
        return 0, 0, [(0, "-", str(exc), "")]
    found = [(line, "-", msg, text) for line, msg, text in res.problems]
    if not res.functions:
        found.append((0, "-", "no function found (nothing was checked)", ""))
    bti = pac = False
    if target == "elf":
        bti = True                      # every ELF kernel is a BTI landing pad ...
        features = note_features(res.note_items) if res.note_items else 0
        if features is None:
            found.append((res.note_line, "-", "the .note.gnu.property bytes do not parse as a GNU "
                          "property note", ""))
        elif not features & FEATURE_BTI:
            found.append((res.note_line, "-", "no GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI in "
                          ".note.gnu.property (linking this object turns BTI off for the program)", ""))
        pac = bool(features and features & FEATURE_PAC)
        if not res.gnu_stack:
            found.append((0, "-", "no .note.GNU-stack section (the linker may make the stack executable)", ""))
    count = 0
    seen = set()
    for func in res.functions:
        if func.name in seen:
            found.append((func.line, func.name, "function defined twice", func.name + ":"))
        seen.add(func.name)
        count += len(func.body)
        for line, msg, text in check_function(func, res.labels, nargs or arity(func.name), stats, bti, pac):
            found.append((line, func.name, msg, text))
    return len(res.functions), count, found


def main(argv=None):
    ap = argparse.ArgumentParser(description="Static constant-time and ABI check of AArch64 kernels.")
    ap.add_argument("files", nargs="+", metavar="FILE.S")
    ap.add_argument("--target", choices=("elf", "macho"), default="elf",
                    help="which side of the #ifdef __APPLE__ headers to check (default elf)")
    ap.add_argument("--args", type=int, choices=(1, 2, 3), default=None,
                    help="pointer arguments of every function (default: from the operation name)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print violations only")
    args = ap.parse_args(argv)
    return report("ct_static_aarch64", args.files, lambda path, stats: check_file(path, args.target, args.args, stats),
                  args.target, [("sp", "sp"), ("table", "tables"), ("pointer", "argument pointers")], args.quiet)


if __name__ == "__main__":
    sys.exit(main())
