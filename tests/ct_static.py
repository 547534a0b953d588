# SPDX-License-Identifier: MIT OR Apache-2.0
"""Static constant-time and ABI check of generated x86-64 assembly kernels.

usage: ct_static.py [--target elf|macho] [--cet] [--args N] [-q] FILE.S...

Reads the GAS text of each FILE.S (AT&T syntax as PeachPy prints it, after a
small C preprocessor: #if/#ifdef/#ifndef/#elif/#else/#endif and object-like
#define, evaluated for the chosen target: ELF defines __x86_64__ and __ELF__,
Mach-O __x86_64__ and __APPLE__, --cet also __CET__) and checks every function (a `.globl` or
`.type @function` symbol's label in a text section, up to the next function
or section change) for properties that hold for every input:

1. Straight line: no jump, call, loop, jrcxz, trap or system instruction, no
   label inside the body (a branch target), no data directive inside it
   (hidden bytes), no instruction outside a function, no assembler macro,
   conditional, include or symbol assignment anywhere (they would change
   the code checked), and exactly one `ret`, the last instruction. No
   instruction of the variable-time denylist (TIMING below, with reasons),
   and no instruction the checker does not model (the tables below say
   which registers each writes).
2. Addresses: every memory operand (LEA and NOP compute no access) is a
   base register plus a constant displacement, with no index register and no
   segment override, and the base is
   - %rip with a label this file defines in a data section (the constant
     tables), the access inside the bytes that label's directives emit;
   - %rsp, the access inside the frame (3. below);
   - a register holding a pointer derived only from the pointer arguments:
     rdi, rsi and, for three-argument kernels, rdx at entry (the arity comes
     from the operation in the name: mul and mul_wide take 3, sqr, sqr_wide
     and redc 2, anything else 3 unless --args says), copied by a 64-bit MOV
     between registers, through an 8-byte stack slot (spilled and reloaded
     with nothing written over the slot in between), by LEA disp(ptr) or
     by ADD/SUB of an immediate. Any other write makes a register data, and
     a memory operand whose base is data is reported: that address could
     depend on a secret. The analysis is a forward pass over the straight
     line code, so it is exact, not an approximation over paths.
3. Stack and ABI: rsp changes only by PUSH, POP, ADD/SUB of an immediate,
   AND of -2^k (k <= 12: aligning the frame down by an unknown 0..2^k-1
   bytes, which every later rsp-relative access is checked under) and a MOV
   back from a register holding an earlier copy of rsp (the frame released
   down to that copy); it never rises above its entry value and is back at
   it at `ret`;
   every rsp-relative access lies in bytes the function allocated with SUB
   (not in the pushed register save area, not at or above the return
   address, and not below rsp: the red zone is not used); the values of
   rbx, rbp and r12-r15 are tracked, so each must hold its own entry value
   at `ret` (pushed and popped back, or kept in any other location), and a
   write to one whose entry value exists nowhere else is reported at that
   line ("written before it is saved"); STD, POPF and writes to MXCSR or
   the x87 control word are refused (the direction flag and the control
   bits must be as the caller left them).

Not proven: that an instruction's latency is independent of its operands
beyond the instruction classes allowed here (MUL, MULX, ADC, CMOV, shifts by
%cl, vector integer operations are taken to be constant time); anything
about the values computed. An AVX-512 opmask on a memory access (which
bytes it touches) must be a constant: the mask register written by KMOV from
a constant table of the file or from a general register that holds an
immediate (MOV $imm, copies of it, KMOV between such registers); any other
mask on a memory operand is reported, since it could be secret.

Exit status 0 when every function of every file passes; 1 when anything is
reported (each violation on one line: file:line: function: problem:
instruction), including a file with no function or a construct the checker
does not model; 2 for a usage error. Standard library only.
"""

import argparse
import re
import sys

# the preprocessor, GAS numbers and operand splitting, shared with ct_static_aarch64.py
from ct_cpp import NUM as _NUM, CppError, cpp_eval as _cpp_eval, number as _number, preprocess  # noqa: F401
from ct_cpp import report, split_operands as _split_operands, statement as _statement

# --- registers ---------------------------------------------------------------

GPR64 = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + ["r%d" % i for i in range(8, 16)]
CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")
ARG_REGS = ("rdi", "rsi", "rdx")

# register name -> (64-bit parent or vector name, size in bytes, class)
REGS = {}
for _r in GPR64:
    REGS[_r] = (_r, 8, "gpr")
for _r, _e, _w, _b, _h in (("rax", "eax", "ax", "al", "ah"), ("rbx", "ebx", "bx", "bl", "bh"),
                           ("rcx", "ecx", "cx", "cl", "ch"), ("rdx", "edx", "dx", "dl", "dh")):
    REGS[_e], REGS[_w], REGS[_b], REGS[_h] = (_r, 4, "gpr"), (_r, 2, "gpr"), (_r, 1, "gpr"), (_r, 1, "gpr")
for _r, _e, _w, _b in (("rsi", "esi", "si", "sil"), ("rdi", "edi", "di", "dil"),
                       ("rbp", "ebp", "bp", "bpl"), ("rsp", "esp", "sp", "spl")):
    REGS[_e], REGS[_w], REGS[_b] = (_r, 4, "gpr"), (_r, 2, "gpr"), (_r, 1, "gpr")
for _i in range(8, 16):
    _r = "r%d" % _i
    REGS[_r + "d"], REGS[_r + "w"], REGS[_r + "b"], REGS[_r + "l"] = \
        (_r, 4, "gpr"), (_r, 2, "gpr"), (_r, 1, "gpr"), (_r, 1, "gpr")
for _i in range(32):
    REGS["xmm%d" % _i] = ("xmm%d" % _i, 16, "vec")
    REGS["ymm%d" % _i] = ("xmm%d" % _i, 32, "vec")
    REGS["zmm%d" % _i] = ("xmm%d" % _i, 64, "vec")
for _i in range(8):
    REGS["k%d" % _i] = ("k%d" % _i, 8, "mask")
    REGS["mm%d" % _i] = ("mm%d" % _i, 8, "vec")
for _r in ("cs", "ds", "es", "fs", "gs", "ss"):
    REGS[_r] = (_r, 2, "seg")
REGS["rip"] = ("rip", 8, "rip")

# --- instruction classes -----------------------------------------------------

# Control flow: none may occur in a straight-line kernel (ret only as the
# last instruction, handled separately).
CONTROL = re.compile(r"^(j[a-z]*|call[a-z]*|lcall[a-z]*|ljmp[a-z]*|loop[a-z]*|lret[a-z]*|"
                     r"iret[a-z]*|int|int1|int3|into|ud0|ud1|ud2|hlt|sys(call|enter|exit|ret)[a-z]*|"
                     r"xbegin|xabort|xend|bound)$")

# Variable-time or otherwise refused instructions, with the reason printed.
# Allowed on purpose: MUL, IMUL, MULX (fixed latency on x86-64 cores), ADC,
# SBB, ADCX, ADOX, CMOVcc and SETcc (no branch), shifts and rotates, also by
# %cl (the count does not change their latency), POPCNT, vector integer
# arithmetic including VPMADD52.
TIMING = [
    (re.compile(r"^i?div[bwlq]?$"), "integer division: latency depends on the operands"),
    (re.compile(r"^(bsf|bsr)[wlq]?$"),
     "bit scan: fixed latency on current cores but operand-dependent on older ones (the "
     "i486's time followed the bit position), destination undefined for a zero input"),
    (re.compile(r"^(tzcnt|lzcnt)[wlq]?$"),
     "executes as BSF/BSR on CPUs without BMI1/ABM (the x86_64 level assumes neither)"),
    (re.compile(r"^(pdep|pext)[lq]?$"),
     "microcoded on AMD Zen 1/2 with latency growing with the mask's set bits"),
    (re.compile(r"^f[a-z0-9]*$"), "x87 floating point: operand-dependent latency and assists"),
    (re.compile(r"^v?(div|sqrt)(ps|pd|ss|sd|ph|sh)$"),
     "floating-point division or square root: latency depends on the operands"),
    (re.compile(r"^v?(add|sub|mul|min|max|rcp|rsqrt|rcp14|rsqrt14|rcp28|rsqrt28|round|dp|"
                r"hadd|hsub|addsub|getexp|getmant|scalef|rndscale|range|reduce|fixupimm)(ps|pd|ss|sd|ph|sh)$"),
     "floating point: subnormal operands or results take microcode assists"),
    (re.compile(r"^vf(n?m(add|sub)|maddsub|msubadd)(132|213|231)(ps|pd|ss|sd|ph|sh)$"),
     "floating point: subnormal operands or results take microcode assists"),
    (re.compile(r"^v?cvt[a-z0-9]*$"), "floating-point conversion: subnormal and rounding assists"),
    (re.compile(r"^(movs|stos|lods|scas|cmps|ins|outs)[bwlqd]?$"),
     "string instruction: addresses memory through rsi/rdi implicitly (unchecked), "
     "and with a rep prefix its time follows rcx"),
    (re.compile(r"^xlatb?$"), "XLAT: a table lookup indexed by al"),
    (re.compile(r"^(cmpxchg[a-z0-9]*|xadd[bwlq]?)$"),
     "atomic read-modify-write: its cost depends on other cores; never needed in a kernel"),
    (re.compile(r"^(v?maskmov[a-z]*|vpmaskmov[a-z]*)$"),
     "masked move: implicit %rdi address or mask-dependent assists"),
    (re.compile(r"^(cpuid|rdtscp?|rdrand[wlq]?|rdseed[wlq]?|rdpid|rdpmc|xgetbv|xsetbv|xsave[a-z0-9]*|"
                r"xrstor[a-z0-9]*|fxsave[a-z0-9]*|fxrstor[a-z0-9]*|in[bwl]?|out[bwl]?|cli|sti|"
                r"wrmsr|rdmsr|invlpg|clflush[a-z]*|clwb|wbinvd|invd)$"),
     "system or serializing instruction: not part of a straight-line kernel"),
    (re.compile(r"^(std|popf[wlq]?|v?ldmxcsr)$"),
     "changes flags or control state the caller owns (DF, MXCSR)"),
    (re.compile(r"^(enter|leave)[wlq]?$"), "changes rsp other than by push/pop/add/sub immediate"),
]

CONDS = "o|no|b|c|nae|ae|nb|nc|e|z|ne|nz|be|na|a|nbe|s|ns|p|pe|np|po|l|nge|ge|nl|le|ng|g|nle"
CMOV = re.compile(r"^cmov(%s)[wlq]?$" % CONDS)
SETCC = re.compile(r"^set(%s)b?$" % CONDS)

# General-purpose instructions the checker models, base mnemonic -> kind.
# The AT&T size suffix (b, w, l, q) may follow. Kinds:
#   alu      writes its last operand (the destination), reads the others
#   nowrite  writes no operand (flags only)
#   mul1     one operand: writes rax and rdx
#   mulx     writes its last two operands, reads rdx
#   imul     one operand like mul1, else like alu
#   xchg     writes both operands
#   implicit writes the registers in IMPLICIT
#   none     no register or memory write
GPR_KIND = {
    "mov": "mov", "movabs": "mov", "lea": "lea", "push": "push", "pop": "pop",
    "add": "alu", "sub": "alu", "adc": "alu", "sbb": "alu", "and": "alu", "or": "alu",
    "xor": "alu", "adcx": "alu", "adox": "alu", "shl": "alu", "shr": "alu", "sal": "alu",
    "sar": "alu", "rol": "alu", "ror": "alu", "rcl": "alu", "rcr": "alu", "shld": "alu",
    "shrd": "alu", "neg": "alu", "not": "alu", "inc": "alu", "dec": "alu", "bswap": "alu",
    "andn": "alu", "bzhi": "alu", "shlx": "alu", "shrx": "alu", "sarx": "alu", "rorx": "alu",
    "popcnt": "alu", "bextr": "alu", "blsi": "alu", "blsr": "alu", "blsmsk": "alu",
    "bts": "alu", "btr": "alu", "btc": "alu", "crc32": "alu", "movbe": "alu",
    "movzbw": "alu", "movzbl": "alu", "movzbq": "alu", "movzwl": "alu", "movzwq": "alu",
    "movzx": "alu", "movsbw": "alu", "movsbl": "alu", "movsbq": "alu", "movswl": "alu",
    "movswq": "alu", "movslq": "alu", "movsx": "alu", "movsxd": "alu",
    "cmp": "nowrite", "test": "nowrite", "bt": "nowrite",
    "mul": "mul1", "imul": "imul", "mulx": "mulx", "xchg": "xchg",
    "cqto": "implicit", "cqo": "implicit", "cltd": "implicit", "cdq": "implicit",
    "cwtd": "implicit", "cwd": "implicit", "cltq": "implicit", "cdqe": "implicit",
    "cwtl": "implicit", "cwde": "implicit", "cbtw": "implicit", "cbw": "implicit",
    "lahf": "implicit",
    "nop": "none", "endbr64": "none", "lfence": "none", "mfence": "none", "sfence": "none",
    "pause": "none", "clc": "none", "stc": "none", "cmc": "none", "cld": "none",
    "prefetcht0": "none", "prefetcht1": "none", "prefetcht2": "none", "prefetchnta": "none",
    "prefetchw": "none",
}
IMPLICIT = {
    "cqto": ("rdx",), "cqo": ("rdx",), "cltd": ("rdx",), "cdq": ("rdx",), "cwtd": ("rdx",),
    "cwd": ("rdx",), "cltq": ("rax",), "cdqe": ("rax",), "cwtl": ("rax",), "cwde": ("rax",),
    "cbtw": ("rax",), "cbw": ("rax",), "lahf": ("rax",),
    # vector instructions with a general-purpose output not among their operands
    "pcmpestri": ("rcx",), "pcmpistri": ("rcx",), "vpcmpestri": ("rcx",), "vpcmpistri": ("rcx",),
}
# Vector (SSE/AVX/AVX-512, opmask) instructions write their last operand and
# nothing else, except these, which write nothing.
VEC_NOWRITE = re.compile(r"^(v?ptest|v?u?comis[sd]|kortest[bwdq]|ktest[bwdq]|vzeroupper|vzeroall|emms|"
                         r"v?testp[sd])$")
PREFIXES = {"lock", "rep", "repe", "repz", "repne", "repnz", "notrack", "bnd", "data16", "data32",
            "addr32", "xacquire", "xrelease", "rex", "rex.w", "cs", "ds", "es", "fs", "gs", "ss",
            "{vex}", "{vex2}", "{vex3}", "{evex}", "{disp8}", "{disp32}", "{load}", "{store}"}
BAD_PREFIX = {
    "lock": "lock prefix: atomic read-modify-write is never needed in a kernel",
    "rep": "rep prefix: time follows rcx", "repe": "rep prefix: time follows rcx",
    "repz": "rep prefix: time follows rcx", "repne": "rep prefix: time follows rcx",
    "repnz": "rep prefix: time follows rcx",
    "xacquire": "lock elision prefix", "xrelease": "lock elision prefix",
    "addr32": "32-bit address computation truncates the pointer",
    "cs": "segment override", "ds": "segment override", "es": "segment override",
    "fs": "segment override", "gs": "segment override", "ss": "segment override",
}
SUFFIX_SIZE = {"b": 1, "w": 2, "l": 4, "q": 8}
VEC_MEM8 = re.compile(r"^v?(movq|movsd|pinsrq|pextrq|pbroadcastq|broadcastsd)$")
VEC_MEM4 = re.compile(r"^v?(movd|movss|pinsrd|pextrd|pbroadcastd|broadcastss)$")

# --- the preprocessor: tests/ct_cpp.py --------------------------------------

# --- statements and operands ---------------------------------------------------

class Operand:
    __slots__ = ("kind", "text", "reg", "size", "parent", "rclass", "seg", "sym", "disp",
                 "disp_ok", "base", "index", "scale", "decos")

    def __init__(self, kind, text):
        self.kind, self.text = kind, text
        self.reg = self.parent = self.rclass = self.seg = self.sym = self.base = self.index = None
        self.size, self.disp, self.disp_ok, self.scale, self.decos = 0, 0, True, 1, []


class Insn:
    __slots__ = ("line", "text", "prefixes", "mnemonic", "ops", "error")

    def __init__(self, line, text):
        self.line, self.text, self.prefixes, self.mnemonic, self.ops, self.error = line, text, [], "", [], None


def _displacement(text):
    """symbol (or None), constant, parsed?  for sym, N, sym+N, sym-N, N+sym, ..."""
    text = text.replace(" ", "")
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if not text:
        return None, 0, True
    sym, value = None, 0
    for sign, term in re.findall(r"([-+]?)([^-+]+)", text):
        if _NUM.match(term):
            try:
                number = _number(term)
            except ValueError:
                return None, 0, False
            value += -number if sign == "-" else number
        elif re.match(r"^[A-Za-z_.$][\w.$]*$", term) and sym is None and sign != "-":
            sym = term
        else:
            return None, 0, False
    if "".join(s + t for s, t in re.findall(r"([-+]?)([^-+]+)", text)) != text:
        return None, 0, False
    return sym, value, True


def _operand(text):
    decos = re.findall(r"\{([^}]*)\}", text)
    core = re.sub(r"\{[^}]*\}", "", text).strip()
    if core.startswith("*"):
        core = core[1:].strip()
    if not core and decos:
        op = Operand("deco", text)
        op.decos = decos
        return op
    if core.startswith("$"):
        op = Operand("imm", text)
        op.decos = decos
        sym, value, ok = _displacement(core[1:])
        op.disp, op.disp_ok, op.sym = value, ok, sym
        return op
    if core.startswith("%") and ":" not in core:
        op = Operand("reg", text)
        op.reg = core[1:].lower()
        op.decos = decos
        if op.reg in REGS:
            op.parent, op.size, op.rclass = REGS[op.reg]
        elif re.match(r"^st(\(\d\))?$", op.reg):
            op.parent, op.size, op.rclass = "st", 10, "x87"
        else:
            op.rclass = "unknown"
        return op
    op = Operand("mem", text)
    op.decos = decos
    mo = re.match(r"^%(\w+):(.*)$", core)
    if mo:
        op.seg, core = mo.group(1).lower(), mo.group(2).strip()
    if core.endswith(")"):
        start = core.rindex("(")
        inner = [p.strip() for p in core[start + 1:-1].split(",")]
        disp = core[:start]
        if not all(p == "" or p.startswith("%") or p.isdigit() for p in inner):
            # the parentheses belong to the displacement expression
            inner, disp = [], core
        if inner:
            op.base = inner[0][1:].lower() if inner[0] else None
            if len(inner) > 1 and inner[1]:
                op.index = inner[1][1:].lower()
            if len(inner) > 2 and inner[2]:
                op.scale = int(inner[2])
    else:
        disp = core
    op.sym, op.disp, op.disp_ok = _displacement(disp)
    return op


def parse_insn(line, text):
    insn = Insn(line, text)
    words = text.split(None, 1)
    while words and words[0].lower() in PREFIXES:
        insn.prefixes.append(words[0].lower())
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words:
        insn.error = "prefix without an instruction"
        return insn
    insn.mnemonic = words[0].lower()
    if len(words) > 1:
        insn.ops = [_operand(o) for o in _split_operands(words[1])]
    return insn


def _statements(lines):
    """(line, text) per statement: comments ('#' outside strings) removed,
    ';' separated statements split, 'label:' split off."""
    for number, text in lines:
        if '"' in text:
            parts, cur, quoted = [], [], False
            for ch in text:
                if ch == '"':
                    quoted = not quoted
                if not quoted and ch == "#":
                    break
                if not quoted and ch == ";":
                    parts.append("".join(cur))
                    cur = []
                else:
                    cur.append(ch)
            parts.append("".join(cur))
        else:
            if "#" in text:
                text = text[:text.index("#")]
            parts = text.split(";") if ";" in text else [text]
        for part in parts:
            yield from _statement(number, part)


# --- the file ------------------------------------------------------------------

DATA_SIZE = {".byte": 1, ".word": 2, ".short": 2, ".value": 2, ".hword": 2, ".long": 4, ".int": 4,
             ".4byte": 4, ".quad": 8, ".8byte": 8, ".octa": 16}
NEUTRAL_IN_FUNCTION = re.compile(r"^\.(p2align|balign|align|cfi_\w+|loc|file|size|type|globl|global|"
                                 r"hidden|private_extern|weak_definition)\b")

GAS_UNMODELLED = re.compile(r"^\.(include|incbin|macro|endm|purgem|exitm|rept|irpc?|endr|if\w*|else|elseif|"
                            r"endif|set|equ|equiv|eqv)$")


class Function:
    def __init__(self, name, line):
        self.name, self.line, self.body, self.problems = name, line, [], []


def _is_text_section(args):
    name = args.split(",")[0].strip().strip('"')
    return name.startswith(".text") or name == "__TEXT,__text" or args.replace(" ", "").startswith("__TEXT,__text")


def read_file(path, target, cet=False):
    """functions, data labels {name: size or None}, file-level problems."""
    defines = {"__x86_64__": "1", "__STDC__": "1", "__ASSEMBLER__": "1"}
    defines.update({"__ELF__": "1"} if target == "elf" else {"__APPLE__": "1"})
    if cet:
        defines["__CET__"] = "3"    # -fcf-protection=full: ENDBR64 and the property note
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = preprocess(text, defines)
    functions, problems = [], []
    labels = {}                     # data label -> emitted bytes (None: unknown)
    symbols = set()                 # .globl / .type @function names
    section_text = True             # GAS starts in .text
    section_stack = []
    func = None
    open_label = None               # data label still counting bytes
    for number, kind, text in _statements(lines):
        if kind == "label":
            if section_text and text in symbols:
                func = Function(text, number)
                functions.append(func)
                open_label = None
            elif section_text:
                if func is not None:
                    func.problems.append((number, "label inside the function (a branch target?)", text + ":"))
                open_label = None
            else:
                labels[text] = 0
                open_label = text
            continue
        if kind == "directive":
            mo = re.match(r"^(\.[\w.]+)\s*(.*)$", text)
            name, args = (mo.group(1), mo.group(2)) if mo else (text, "")
            if GAS_UNMODELLED.match(name):
                problems.append((number, "assembler directive not modelled (could change the code "
                                 "the checker sees)", text))
                continue
            if name in (".globl", ".global"):
                symbols.update(a.strip() for a in args.split(","))
            elif name == ".type" and "function" in args:
                symbols.add(args.split(",")[0].strip())
            if name in (".text", ".data", ".bss", ".rodata", ".section", ".pushsection", ".popsection",
                        ".previous", ".const", ".const_data"):
                if name == ".pushsection":
                    section_stack.append(section_text)
                if name == ".popsection":
                    section_text = section_stack.pop() if section_stack else True
                elif name == ".previous":
                    raise CppError("line %d: .previous is not modelled" % number)
                else:
                    section_text = name == ".text" or (name in (".section", ".pushsection")
                                                       and _is_text_section(args))
                func = None
                open_label = None
                continue
            if func is not None and section_text and not NEUTRAL_IN_FUNCTION.match(text):
                func.problems.append((number, "directive inside the function (emits bytes the "
                                      "checker cannot see as instructions)", text))
            if open_label is not None:
                if name in DATA_SIZE:
                    count = len(_split_operands(args)) if args.strip() else 0
                    labels[open_label] += DATA_SIZE[name] * count
                elif name in (".zero", ".skip", ".space"):
                    try:
                        labels[open_label] += _number(args.split(",")[0])
                    except ValueError:
                        labels[open_label] = None
                        open_label = None
                else:
                    open_label = None   # alignment or anything else ends the label's bytes
            continue
        # an instruction
        if not section_text:
            problems.append((number, "instruction outside a text section", text))
        elif func is None:
            problems.append((number, "instruction outside any function", text))
        else:
            func.body.append(parse_insn(number, text))
    return functions, labels, problems


# --- the analysis of one function --------------------------------------------

DATA = ("data",)
CONST = ("const",)     # a value fixed by the code (an immediate), not by the inputs
KMOV = re.compile(r"^kmov[bwdq]$")


def arity(name):
    ops = re.findall(r"_(mul_wide|sqr_wide|redc|mul|sqr)_", name + "_")
    if not ops:
        return 3
    return {"mul": 3, "mul_wide": 3, "sqr": 2, "sqr_wide": 2, "redc": 2}[ops[-1]]


def _base_kind(mnemonic):
    """(GPR kind or None, AT&T size suffix bytes or 0)."""
    if mnemonic in GPR_KIND:
        return GPR_KIND[mnemonic], 0
    if mnemonic[-1:] in SUFFIX_SIZE and mnemonic[:-1] in GPR_KIND:
        return GPR_KIND[mnemonic[:-1]], SUFFIX_SIZE[mnemonic[-1]]
    if CMOV.match(mnemonic) or SETCC.match(mnemonic):
        return "alu", 0
    return None, 0


def check_function(func, labels, nargs, stats=None):
    """List of (line, problem, instruction text); stats (a dict) counts the
    memory operands proven safe by their base: rsp, rip, pointer."""
    stats = {} if stats is None else stats
    out = list(func.problems)
    regs = {r: DATA for r in GPR64}
    regs.update({"k%d" % i: DATA for i in range(8)})
    for r in ARG_REGS[:nargs]:
        regs[r] = ("ptr", r)
    for r in CALLEE_SAVED:
        regs[r] = ("entry", r)
    regs["rsp"] = ("rsp",)
    written = {}                       # register -> line of its last write
    slots = {}                         # entry-relative offset -> value of the 8 bytes there
    regions = []                       # (lo, hi, "push" | "sub"), lowest last
    cur = 0                            # rsp - entry rsp (the lowest it can be after an AND)
    slack = 0                          # rsp may lie up to this many bytes above cur (AND alignment)
    unaligned_slots = []               # slots before each AND: their offsets do not compare with later ones
    lost = set()                       # callee-saved registers already reported
    rets = [i for i, insn in enumerate(func.body) if insn.mnemonic in ("ret", "retq")]
    if not func.body:
        out.append((func.line, "empty function", func.name))
        return out
    if not rets or rets[-1] != len(func.body) - 1:
        last = func.body[-1]
        out.append((last.line, "the function does not end with ret (it falls through)", last.text))

    def report(insn, msg):
        out.append((insn.line, msg, insn.text))

    def holds_elsewhere(token, skip_reg):
        return any(v == token for r, v in regs.items() if r != skip_reg) or token in slots.values() \
            or any(token in d.values() for d in unaligned_slots)

    def write_reg(insn, name, value):
        parent, size, rclass = REGS.get(name, (None, 0, None))
        if rclass == "mask":
            regs[parent] = value
            written[parent] = insn.line
            return
        if rclass != "gpr":
            return
        if parent == "rsp":
            report(insn, "rsp changed other than by push, pop or add/sub of an immediate")
            return
        if size != 8 and not (size == 4 and value == CONST):
            value = DATA        # a partial write leaves no pointer (a 32-bit one zero-extends)
        if parent in CALLEE_SAVED and regs[parent] == ("entry", parent) and value != regs[parent] \
                and parent not in lost and not holds_elsewhere(("entry", parent), parent):
            report(insn, "callee-saved %%%s written before it is saved" % parent)
            lost.add(parent)
        regs[parent] = value
        written[parent] = insn.line

    def release(new_cur):
        nonlocal regions
        for off in [o for o in slots if o < new_cur]:
            del slots[off]
        kept = []
        for lo, hi, kind in regions:
            if hi <= new_cur:
                continue
            kept.append((max(lo, new_cur), hi, kind))
        regions = kept

    def stack_access(insn, op, width, is_write):
        lo = cur + op.disp
        hi = lo + width + slack         # any of the alignments AND may have made
        if lo < cur:
            report(insn, "access below rsp (%d(%%rsp), the red zone is not used)" % op.disp)
        elif hi > 0:
            report(insn, "access at or above the return address (%d(%%rsp) with %d bytes "
                   "allocated)" % (op.disp, -cur))
        else:
            for rlo, rhi, kind in regions:
                if rlo < hi and lo < rhi and kind != "sub":
                    report(insn, "access into the pushed register save area (%d(%%rsp))" % op.disp)
                    break
        if is_write:
            # slots are keyed by cur + disp while rsp stays put (an AND clears
            # them), so a write overlaps a slot by its displacement alone: the
            # alignment slack shifts both alike
            for off in [o for o in slots if o < lo + width and lo < o + 8]:
                del slots[off]

    for index, insn in enumerate(func.body):
        mn = insn.mnemonic
        if insn.error:
            report(insn, insn.error)
            continue
        for p in insn.prefixes:
            if p in BAD_PREFIX and not (mn in ("ret", "retq") and p in ("rep", "repz")):
                report(insn, BAD_PREFIX[p])
        if mn in ("ret", "retq"):
            if insn.ops:
                report(insn, "ret with an immediate (pops stack arguments; not SysV)")
            if index != len(func.body) - 1:
                report(insn, "ret before the end of the function (only one ret, the last instruction)")
            if cur != 0:
                report(insn, "stack unbalanced at ret (rsp is %d bytes %s its entry value)"
                       % (abs(cur), "below" if cur < 0 else "above"))
            for r in CALLEE_SAVED:
                if regs[r] != ("entry", r) and r not in lost:
                    where = " (last written at line %d)" % written[r] if r in written else ""
                    report(insn, "callee-saved %%%s does not hold its entry value at ret%s" % (r, where))
            continue
        if CONTROL.match(mn):
            report(insn, "control flow: %s (kernels must be straight-line)" % mn)
            continue
        denied = next((why for rx, why in TIMING if rx.match(mn)), None)
        is_vec = mn[:1] in ("v", "k") or any(o.kind == "reg" and o.rclass in ("vec", "mask")
                                             for o in insn.ops)
        if denied and not (is_vec and mn in ("movsd", "cmpsd")):   # SSE movsd/cmpsd, not string ops
            report(insn, "%s: %s" % (mn, denied))
            continue
        kind, suffix = _base_kind(mn)
        if kind is None and not is_vec:
            report(insn, "instruction not modelled by the checker: %s" % mn)
            continue
        if is_vec:
            kind = "vec"

        # unknown registers
        for op in insn.ops:
            if op.kind == "reg" and op.rclass in ("unknown", "x87", "seg"):
                report(insn, "register %%%s not allowed in a kernel" % op.reg)
            if op.kind == "mem":
                for r in (op.base, op.index):
                    if r is not None and r not in REGS:
                        report(insn, "register %%%s not allowed in an address" % r)

        reg_ops = [o for o in insn.ops if o.kind == "reg"]
        mems = [o for o in insn.ops if o.kind == "mem"]
        if len(mems) > 1:
            report(insn, "more than one memory operand")
        # width of the memory access, in bytes (an over-estimate where unsure)
        if suffix:
            width = suffix
        elif mn.startswith(("movzb", "movsb")) and not is_vec:
            width = 1
        elif mn.startswith(("movzw", "movsw")) and not is_vec:
            width = 2
        elif mn.startswith("movsl") and not is_vec:
            width = 4
        elif is_vec and VEC_MEM8.match(mn):
            width = 8
        elif is_vec and VEC_MEM4.match(mn):
            width = 4
        elif is_vec and any(re.match(r"^1to\d+$", d) for o in insn.ops for d in o.decos):
            width = 8
        elif is_vec:
            width = max([o.size for o in reg_ops if o.rclass == "vec"] or [8])
        else:
            width = max([o.size for o in reg_ops if o.rclass == "gpr"] or [8])

        # memory operands
        is_lea = kind == "lea"
        nowrite = kind in ("nowrite", "mul1", "push", "none") or (kind == "imul" and len(insn.ops) == 1) \
            or (kind == "vec" and VEC_NOWRITE.match(mn))
        for op in mems:
            last = op is insn.ops[-1]
            is_write = (last and not nowrite) or kind == "xchg"
            if kind == "pop":
                is_write = True
            if is_lea or kind == "none" and mn.startswith("nop"):
                continue
            if op.seg:
                report(insn, "segment override %%%s" % op.seg)
            for d in (d for o in insn.ops for d in o.decos if re.match(r"^%k[1-7]$", d)):
                if regs[d[1:]] != CONST:
                    where = ("last written at line %d" % written[d[1:]]) if d[1:] in written else "at entry"
                    report(insn, "masked memory access whose mask %s is not proven constant (%s)" % (d, where))
            if op.index is not None:
                report(insn, "indexed address (%s): the index could be secret" % op.text)
            if not op.disp_ok:
                report(insn, "displacement is not a constant: %s" % op.text)
                continue
            nbefore = len(out)
            if op.base is None:
                report(insn, "absolute address %s (not rip-relative, not from a pointer)" % op.text)
            elif op.base == "rip":
                if op.sym is None or op.sym not in labels:
                    report(insn, "rip-relative address of %s, not a constant table of this file" % (op.sym,))
                else:
                    size = labels[op.sym]
                    if is_write:
                        report(insn, "write to a constant table")
                    if size is not None and (op.disp < 0 or op.disp + width > size):
                        report(insn, "outside the %d bytes of %s" % (size, op.sym))
            elif op.sym is not None:
                report(insn, "symbolic displacement on a register base: %s" % op.text)
            elif REGS.get(op.base, (None, 0))[1] != 8 or REGS[op.base][2] != "gpr":
                report(insn, "address base %%%s is not a 64-bit register" % op.base)
            elif op.base == "rsp":
                stack_access(insn, op, width, is_write)
            elif regs[op.base][0] != "ptr":
                where = ("last written at line %d" % written[op.base]) if op.base in written else \
                    "at entry, not a pointer argument"
                report(insn, "address base %%%s is not derived from a pointer argument (%s)"
                       % (op.base, where))
            if len(out) == nbefore and op.base is not None:
                key = op.base if op.base in ("rsp", "rip") else "pointer"
                stats[key] = stats.get(key, 0) + 1

        # dataflow
        ops = insn.ops
        if kind == "push":
            if len(ops) != 1:
                report(insn, "push needs one operand")
                continue
            value = DATA
            if ops[0].kind == "reg" and ops[0].rclass == "gpr" and ops[0].size == 8:
                value = regs[ops[0].parent]
            cur -= 8
            regions.append((cur, cur + 8, "push"))
            slots[cur] = value
        elif kind == "pop":
            if len(ops) != 1:
                report(insn, "pop needs one operand")
                continue
            if cur >= 0:
                report(insn, "pop above the entry rsp (pops the return address)")
            value = slots.get(cur, DATA)
            release(cur + 8)
            cur += 8
            if ops[0].kind == "reg":
                write_reg(insn, ops[0].reg, value)
        elif kind == "mov" and len(ops) == 2 and ops[1].kind == "reg" and ops[1].reg == "rsp":
            src = ops[0]     # rsp back from a copy: the frame below that copy is released
            saved = regs[src.parent] if src.kind == "reg" and src.rclass == "gpr" and src.size == 8 else DATA
            if saved[0] != "rspcopy":
                report(insn, "rsp changed other than by push, pop, add/sub of an immediate, AND "
                       "alignment or a move back from a copy of rsp")
                continue
            if saved[2] < slack:            # back above an AND: the slots before it apply again
                slots.clear()
                slots.update(unaligned_slots[0] if saved[2] == 0 else {})
                del unaligned_slots[:]
            release(saved[1])
            cur, slack = saved[1], saved[2]
        elif kind == "alu" and mn.rstrip("q") == "and" and len(ops) == 2 and ops[1].kind == "reg" \
                and ops[1].reg == "rsp":
            align = -ops[0].disp if ops[0].kind == "imm" and ops[0].disp_ok and ops[0].sym is None else 0
            if not (2 <= align <= 4096 and align & (align - 1) == 0):
                report(insn, "rsp changed by AND other than with -2^k (k = 1..12)")
                continue
            regions.append((cur - (align - 1), cur, "sub"))   # the bytes the alignment skips: the frame's
            unaligned_slots.append(dict(slots))
            slots.clear()
            cur -= align - 1
            slack += align - 1
        elif kind == "mov" and len(ops) == 2:
            src, dst = ops
            value = DATA
            if src.kind == "imm" and src.disp_ok and src.sym is None:
                value = CONST
            elif src.kind == "reg" and src.rclass == "gpr" and regs[src.parent] == CONST \
                    and src.size in (4, 8):
                value = CONST
            elif src.kind == "reg" and src.rclass == "gpr" and src.size == 8:
                value = regs[src.parent]
                if src.parent == "rsp":
                    value = ("rspcopy", cur, slack)   # not an allowed base; rsp may move back to it
            elif src.kind == "mem" and src.base == "rsp" and src.index is None and src.disp_ok \
                    and src.sym is None and width == 8:
                value = slots.get(cur + src.disp, DATA)
            if dst.kind == "reg":
                write_reg(insn, dst.reg, value)
            elif dst.kind == "mem" and dst.base == "rsp" and dst.index is None and dst.disp_ok \
                    and dst.sym is None:
                if width == 8 and src.kind == "reg":
                    slots[cur + dst.disp] = value
        elif kind == "lea" and len(ops) == 2:
            src, dst = ops
            value = DATA
            if src.kind == "mem" and src.index is None and src.seg is None and src.disp_ok \
                    and src.sym is None and src.base is not None and src.base not in ("rsp", "rip") \
                    and REGS.get(src.base, (None, 0, None))[1:] == (8, "gpr") and regs[src.base][0] == "ptr":
                value = regs[src.base]
            if dst.kind == "reg":
                write_reg(insn, dst.reg, value)
        elif kind == "alu" and mn.rstrip("q") in ("add", "sub") and len(ops) == 2 and ops[0].kind == "imm" \
                and ops[1].kind == "reg" and ops[1].reg in ("rsp", "esp", "sp", "spl"):
            if ops[1].reg != "rsp" or not ops[0].disp_ok or ops[0].sym is not None:
                report(insn, "rsp changed other than by push, pop or add/sub of an immediate")
                continue
            amount = ops[0].disp if mn.startswith("sub") else -ops[0].disp
            if amount > 0:
                cur -= amount
                regions.append((cur, cur + amount, "sub"))
            elif amount < 0:
                if cur - amount > 0:
                    report(insn, "rsp raised above its entry value")
                release(cur - amount)
                cur -= amount
        elif kind == "alu" and mn.rstrip("q") in ("add", "sub") and len(ops) == 2 and ops[0].kind == "imm" \
                and ops[0].disp_ok and ops[0].sym is None and ops[1].kind == "reg" \
                and ops[1].rclass == "gpr" and ops[1].size == 8 and regs[ops[1].parent][0] == "ptr":
            written[ops[1].parent] = insn.line     # pointer plus a constant stays a pointer
        elif KMOV.match(mn) and len(ops) == 2 and ops[1].kind == "reg":
            src, dst = ops
            value = DATA
            if src.kind == "reg" and REGS.get(src.reg, (None, 0, None))[2] in ("gpr", "mask") \
                    and regs[REGS[src.reg][0]] == CONST:
                value = CONST
            elif src.kind == "mem" and src.base == "rip" and src.sym in labels:
                value = CONST       # a constant table of this file
            write_reg(insn, dst.reg, value)
        elif kind == "xchg" and mems:
            report(insn, "xchg with memory: implicitly locked read-modify-write")
            for o in ops:
                if o.kind == "reg":
                    write_reg(insn, o.reg, DATA)
        elif kind == "xchg" and len(ops) == 2 and all(o.kind == "reg" and o.rclass == "gpr" and o.size == 8
                                                      for o in ops):
            a, b = ops[0].parent, ops[1].parent
            va, vb = regs[a], regs[b]
            write_reg(insn, a, vb)
            write_reg(insn, b, va)
        else:
            targets = []
            if kind in ("mul1",) or (kind == "imul" and len(ops) == 1):
                targets = ["rax", "rdx"]
            elif kind == "mulx":
                targets = [o.reg for o in ops[-2:] if o.kind == "reg"]
            elif kind == "xchg":
                targets = [o.reg for o in ops if o.kind == "reg"]
            elif kind == "implicit":
                targets = list(IMPLICIT.get(mn, ()))
            elif kind in ("alu", "imul", "mov", "lea") or (kind == "vec" and not VEC_NOWRITE.match(mn)):
                if ops and ops[-1].kind == "reg":
                    targets = [ops[-1].reg]
            if kind == "vec":
                targets += list(IMPLICIT.get(mn, ()))
            for t in targets:
                write_reg(insn, t, DATA)
    return out


def check_file(path, target="elf", nargs=None, stats=None, cet=False):
    """(number of functions, number of instructions, [(line, function, problem, text)])."""
    try:
        functions, labels, problems = read_file(path, target, cet)
    except (OSError, UnicodeDecodeError) as exc:
        return 0, 0, [(0, "-", "cannot read: %s" % exc, "")]
    except CppError as exc:
        return 0, 0, [(0, "-", str(exc), "")]
    found = [(line, "-", msg, text) for line, msg, text in problems]
    if not functions:
        found.append((0, "-", "no function found (nothing was checked)", ""))
    count = 0
    seen = set()
    for func in functions:
        if func.name in seen:
            found.append((func.line, func.name, "function defined twice", func.name + ":"))
        seen.add(func.name)
        count += len(func.body)
        for line, msg, text in check_function(func, labels, nargs or arity(func.name), stats):
            found.append((line, func.name, msg, text))
    return len(functions), count, found


def main(argv=None):
    ap = argparse.ArgumentParser(description="Static constant-time and ABI check of x86-64 kernels.")
    ap.add_argument("files", nargs="+", metavar="FILE.S")
    ap.add_argument("--target", choices=("elf", "macho"), default="elf",
                    help="which side of the #ifdef __APPLE__ headers to check (default elf)")
    ap.add_argument("--args", type=int, choices=(1, 2, 3), default=None,
                    help="pointer arguments of every function (default: from the operation name)")
    ap.add_argument("--cet", action="store_true",
                    help="check the text -fcf-protection builds (__CET__ defined: ENDBR64 first)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print violations only")
    args = ap.parse_args(argv)
    return report("ct_static", args.files, lambda path, stats: check_file(path, args.target, args.args, stats, args.cet),
                  args.target, [("rsp", "rsp"), ("rip", "rip"), ("pointer", "argument pointers")], args.quiet)


if __name__ == "__main__":
    sys.exit(main())
