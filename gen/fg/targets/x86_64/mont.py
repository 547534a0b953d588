# SPDX-License-Identifier: MIT OR Apache-2.0
"""Montgomery-form x86-64 kernels for any prime of 1..16 limbs (PeachPy emitter).

Entry points:
  emit_montgomery(fa) -> str   GAS text of the 15 kernels (5 ops x 3 ISA levels),
                               and of the adx Fp2 sqr and mul for fields with them
  kernel_choice(fa)   -> dict  (op, level) -> level whose kernel the dispatcher uses

Design (one algorithm, rendered per ISA level):
  * Products are row-scanned ("operand scanning"): row i adds x * Y[j] for j in a
    set J into accumulator positions base+j (low words) and base+j+1 (high words);
    the top position of each row is fresh (it is the last high word), so a row
    never carries out of its window.
      - adx:    MULX + two carry chains (ADCX for low words, ADOX for high words);
                product and squaring-triangle rows after the first of the wide
                (unfused) products: two disjoint ADD/ADC passes instead.
      - bmi2:   MULX + one ADD/ADC chain, high word folded as the carry word.
      - x86_64: MUL (rdx:rax) + ADD/ADC, same single-chain scheme.
  * mul_wide: n rows x = a[i], Y = b.  sqr_wide: triangle rows a[i]*a[i+1..],
    then one pass doubling it and adding the squares a[i]^2.
  * Wide products of many limbs: one level of Karatsuba (x86_64_kara: three
    half-size products by the same rows, signs of |a0-a1|, |b1-b0| as masks),
    where measured faster (_kara: by op, level and limb count).
  * redc (separated operand scanning on the low half only): U = t_low; row i
    takes m = U[i]*m0inv and adds m*Q at position i, then
    r = U[n..2n-1] + t_high (< 2p), minus p when that does not borrow (CMOV).
      - Generic: Q = p, every row n products (zero limbs of p skipped).
      - p = -1 mod 2^64 (m0inv == 1): m = U[i] (no multiply) and Q = p + 1,
        since t + m*p = t + m*(p+1) - m and U[i] - m = 0 exactly: the low
        zero limbs of p+1 are skipped (p256: 2 products/row, p503: 5, p751: 7).
      - A limb 2^k of Q is two shifts; at bmi2/adx, after the first row, one
        MULX by the constant 2^k instead (ADC, SBB, CMOV and shifts share two
        ports on the Golden Cove class cores measured here; MULX uses the
        multiplier's). PEXT on port 1 measured 0.6 cycles faster in p256
        latency but is microcoded, and very slow, on AMD Zen 1/2, which
        report BMI2 and ADX too.
      - n <= 4: the tail forms Uh + t_high and Uh + (t_high - p) side by side
        and selects by the sign of the latter (_final_pair).
  * mul/sqr = the wide product kept in registers (spilled to the stack only
    when 15 registers do not suffice) followed by the redc rows (mul with a
    spare bit: product and reduction rows interleaved, unless Karatsuba).
  * Every value ("position") lives in a register or a stack slot; a small
    allocator spills the most recently used value of the lowest priority, so
    any n works and n <= 8 stays (mostly) in registers.  Up to 4 limbs the
    five Fp kernels use no stack slot at all (_build: without the register
    preloads if those would spill; an error if it still spills); every value
    but the pointers must be dead at the end (Kernel.finish).
  * Constant time: no branch, no data-dependent address; the final subtraction
    is a CMOV select.  Outputs are written only after every input was read
    (any aliasing).  Callee-saved registers are pushed/popped by PeachPy.
"""

from peachpy import Argument, ptr, uint64_t, const_uint64_t
from peachpy.x86_64 import (uarch, isa, qword, RETURN,
                            MOV, MUL, MULX, ADD, ADC, ADCX, ADOX, SUB, SBB, XOR,
                            IMUL, CMOVC, CMOVS, SHL, SHR, LEA, TEST, BT, BTR, STC)
from peachpy.x86_64.registers import (GeneralPurposeRegister64, rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp,
                                      r8, r9, r10, r11, r12, r13, r14, r15)
from peachpy.x86_64.operand import MemoryOperand, RIPRelativeOffset

from .gas import PhysicalFunction, Tables, gas_text
from . import tuning

LEVELS = ("x86_64", "bmi2", "adx")
OPS = ("mul_wide", "sqr_wide", "redc", "mul", "sqr")
# mul and sqr without the final subtraction, where 4p <= 2^(64n) (analysis:
# FieldAnalysis.lazy): operands and result in [0, 2p)
LAZY_OPS = ("mul_lazy", "sqr_lazy")
MASK64 = (1 << 64) - 1
POW2_MULX = True           # see _row_disjoint
# (level, op) whose reduction rows form a 2^64 - 2^k + 1 limb's product from
# the 2^k limb's words with a SUB and an SBB (_Shape.negq) instead of a MUL:
# the x86_64 mul, and its redc (Zen 3, TSC, old and new alternating: latency
# -10%, throughput -5%, five runs; Intel not measured).  Its sqr measured
# +0.3% latency, 0..-3% throughput there and kept the MUL until the Zen 4
# read it otherwise (2026-12-04, research/ab three runs: latency -4.9%,
# throughput -1.4..-2.2%; fieldgen-bench, old and new builds alternating
# twice: p256's x86_64 sqr 42.1 -> 38.5 cycles, 37.5 -> 37.1, against
# OpenSSL's masked nistz256 1.014 -> 0.927 / 1.025-1.030 -> 1.019): the
# sqr takes it too, with its four MULs the reduction's.  The adx Zen forms
# below 5 limbs take it too (ZEN_SHIFT_ROWS).
NEGQ_KERNELS = (("x86_64", "mul"), ("x86_64", "redc"), ("x86_64", "sqr"))
# levels with the one-function Fp2 mul and sqr (fp2_mul_kernel, fp2_sqr_kernel).
# Not x86_64: there they measured slower than the C path's calls (TSC, kernel
# and C path alternating in one process at a forced level, medians of 300
# rounds of 200 chained calls): mul p503 +5..13%, p751 +1..6%; sqr p503
# -8..+4%, p751 -5..+2%; at bmi2 they gain (with its Karatsuba products: mul
# p503 -2..7%, p751 -0..4%, sqr p503 -7..8%, p751 -5..7%; since its rows
# split and p503's products are schoolbook rows, against that C path: mul
# p503 -5..7%, p751 -1..3%, sqr p503 -8..9%, p751 -2..6%).
FP2_LEVELS = ("bmi2", "adx")

# the constant tables (x86_64.gas.Tables: RIP placeholders rewritten into labels)
_TABLE_NAMES = ("q", "p", "s", "x", "z")


def _tables(name):
    return Tables(name, "mont", _TABLE_NAMES, 0x7E000000, 0x10000)

# allocation order (deterministic); rsp never, rdx/rax reserved per level
_POOL = (rcx, r8, r9, r10, r11, rsi, rdi, rax, rbx, rbp, r12, r13, r14, r15, rdx)

# spill priorities (lower spills first)
PRIO_OUTPTR = 1
PRIO_DONE = 10      # final words waiting for the end
PRIO_ACC = 50       # accumulator positions in use
PRIO_PTR = 90       # input pointers
PRIO_ROW_PTR = 45   # a pointer read once a row (the fused mul's a, with zero_mem): spills before the accumulator


def _limbs(x, n):
    return [(x >> (64 * i)) & MASK64 for i in range(n)]


class Val:
    """A 64-bit value: in a register, a stack slot, an input memory word, or zero."""
    __slots__ = ("reg", "slot", "src", "prio", "stamp", "name", "nextuse", "ro")

    def __init__(self, prio, name=""):
        self.reg = None      # physical register
        self.slot = None     # stack offset (valid copy when reg is None)
        self.src = None      # (ptr Val, byte offset): read-only input word
        self.prio = prio
        self.stamp = 0
        self.name = name
        self.nextuse = 0     # estimated time of next use (row steps); spill the latest
        self.ro = False      # never written after it is bound (a pointer argument)


class Kernel:
    """Records instructions for one PeachPy function and manages registers."""

    def __init__(self, level, tables, lazy_zero=False, preload=True, tune="generic", zero_mem=False):
        self.level = level
        # the Zen form of an adx kernel writes every product row with the two
        # ADCX/ADOX chains (_row_adx), never as split ADD/ADC passes (see
        # ZEN_DUAL_ROWS)
        self.dual_rows = level == "adx" and tune == "zen"
        self.tables = tables            # x86_64.gas.Tables of the field
        self.code = []
        self.free = []
        reserved = {rsp}
        if level == "x86_64":
            reserved |= {rax, rdx}
        else:
            reserved |= {rdx}
        self.free = [r for r in _POOL if r not in reserved]
        self.live = []                  # Vals currently in registers
        self.locked = set()
        self.clock = 0
        self.steps = 0          # products emitted so far (time base for nextuse)
        self.slots_free = []
        self.nslots = 0
        self.slot_base = 0              # the frame's offset from rsp (x86_64.hybrid: above the vector frame)
        self.vals = []                  # every Val made (finish: none may stay alive)
        self._zero = None
        self.negq = {}
        self.shift_rows = False         # 2^k limbs by shifts in every row (ZEN_SHIFT_ROWS)
        self.c_last_mulq = True
        # _final's serial add-subtract-select even where _final_select picks
        # the two parallel chains of _final_pair (_build_kernel: the x86_64 mul)
        self.serial_final = False
        # small n (_build): keep input words in registers where measured
        # faster (_mul_rows, _sqr_rows), unless that spills
        self.preload = preload
        # zero_mem (adx): ADCX/ADOX add their zero words from a constant in
        # memory and the flags are cleared by a free register's XOR, so no
        # register holds zero: one more for values (_build: p751's fused mul,
        # which then also lets a's pointer spill before accumulator words)
        self.zero_mem = zero_mem and level == "adx"
        self.zero_reads = 0             # zero_mem: ADCX/ADOX that read the constant
        # a lazy kernel (LAZY_OPS): the tails store the [0, 2p) value
        # (_final_pair, _final, _final_sub) instead of subtracting p
        self.lazy = False
        # _minus_p: park the lowest originals as they are copied (the squarings)
        self.early_park = False
        if level == "adx" and not lazy_zero and not self.zero_mem:
            self._zero = self.take_reg()

    def retire_zero(self):
        """No ADCX/ADOX follows: the zero register joins the pool (a later
        use of zero is an error)."""
        if self._zero not in (None, False):
            self.free.append(self._zero)
        self._zero = False

    @property
    def zero(self):
        """adx: the register holding zero for ADCX/ADOX, taken at the first
        use when the kernel was made with lazy_zero (a kernel that never adds
        a zero word, p256's redc, keeps the register for its values)."""
        if self.zero_mem:
            self.zero_reads += 1
            return self.const("z", 0)
        assert self._zero is not False, "zero register used after retire_zero"
        if self._zero is None:
            assert self.level == "adx"
            self._zero = self.take_reg()
        return self._zero

    def clear_flags(self):
        """CF = OF = 0 before ADCX/ADOX chains: the zero register's XOR, or under
        zero_mem a free register's (the zeroing idiom, no execution port on
        the cores measured), or TEST when every register holds a value."""
        if not self.zero_mem:
            self.emit(XOR, self.zero, self.zero)
        elif self.free:
            self.emit(XOR, self.free[0], self.free[0])
        else:
            self.emit(TEST, rsp, rsp)

    def stack_moves(self):
        """MOVs to and from the stack frame recorded so far (spills, reloads, parks)."""
        return sum(1 for ins, ops in self.code if ins is MOV and any(
            isinstance(o, MemoryOperand) and getattr(o.address, "base", None) is rsp for o in ops))

    # -- instruction recording -------------------------------------------
    def emit(self, ins, *ops):
        assert all(o is not None for o in ops), (ins, ops)
        self.code.append((ins, ops))

    # -- registers -------------------------------------------------------
    def take_reg(self):
        if not self.free:
            self.spill_one()
        return self.free.pop(0)
    def spill_one(self):
        """Store the live value to be needed last (lowest prio first) to the stack.

        Some spilled values are dead already, their stores never read: a
        reduction row's cancelled word u (u + lo(m*q0) = 0, only the carry
        matters) of generic-m0inv primes, a Karatsuba row multiplier at adx,
        |nr|*T1's sources in the Fp2 squaring (extras only: 35 of the 419
        kernels of tests/extra_fields.toml, none shipped).  Releasing each at
        its last use removed all of them and measured slower (TSC, old and
        new kernels alternating, both offsets): r1024 redc adx +7%, mul adx
        +2%, r832 mul adx +2%, sidh996 mul_wide adx +2%, p224 fp2_sqr +0.5%
        (every later spill choice moves with the freed register; fewer stack
        accesses, 280 -> 260 in r1024's redc, did not make it faster).  So
        they stay (research/spills: the patch and the figures)."""
        victim = self.victim()
        assert victim is not None, "register allocation failed"
        self.to_memory(victim)

    def victim(self):
        """The value spill_one would store: the live, unlocked value needed
        last (None when every live value is locked)."""
        cands = [v for v in self.live if v not in self.locked]
        return min(cands, key=lambda v: (v.prio, -v.nextuse, -v.stamp)) if cands else None

    def to_memory(self, v):
        if v.src is None and v.slot is None:
            v.slot = self.new_slot()
            self.emit(MOV, self.slot_op(v.slot), v.reg)
        self.free.append(v.reg)
        self.live.remove(v)
        v.reg = None

    def park(self, v):
        """A stack slot holding v's word, now the caller's (freed by nobody);
        v is dead.  A spilled v hands over its slot: no copy."""
        if v.slot is None:
            v.slot = self.new_slot()
            self.emit(MOV, self.slot_op(v.slot), self.r(v))
            self.unlock()
        off, v.slot = v.slot, None
        self.kill(v)
        return off

    def new_slot(self):
        if self.slots_free:
            return self.slots_free.pop()
        self.nslots += 1
        return 8 * (self.nslots - 1)

    def slot_op(self, off):
        return qword[rsp + self.slot_base + off]

    def touch(self, v):
        self.clock += 1
        v.stamp = self.clock

    def new(self, prio=PRIO_ACC, name=""):
        """Fresh value in a register (contents to be written by the caller)."""
        v = Val(prio, name)
        self.vals.append(v)
        v.reg = self.take_reg()
        self.live.append(v)
        self.locked.add(v)
        self.touch(v)
        return v

    def bind(self, reg, prio, name=""):
        """Value already held in a physical register (function arguments)."""
        v = Val(prio, name)
        self.vals.append(v)
        self.free.remove(reg)
        v.reg = reg
        v.ro = True
        self.live.append(v)
        return v

    def steal(self, v, prio=PRIO_ACC):
        """A fresh value in v's register, which the caller has just overwritten
        in place: v, dead from here on, no longer holds a copy there."""
        w = Val(prio)
        self.vals.append(w)
        w.reg, v.reg = v.reg, None
        self.live.remove(v)
        self.live.append(w)
        self.locked.discard(v)
        self.locked.add(w)
        self.touch(w)
        return w

    def fork(self, v, prio=PRIO_ACC):
        """A fresh value holding a copy of v's word, for the caller to
        overwrite; v stays live.  When the register it needs would come from
        spilling v itself, the copy takes v's register as it is: v's store
        without the reload of the same word into the same register (19 such
        loads in the shipped kernels' final subtractions, p503 and p751; no
        change measurable in paired TSC runs).  Taking v's register whenever
        none is free was tried too: p503's redc +5% in a quiet run, its
        last stores landing just before the CMOVs that read them back."""
        if not self.free and v.reg is not None and self.victim() is v:
            self.to_memory(v)               # v's register is then the one free
            return self.new(prio)
        w = self.new(prio)
        self.emit(MOV, w.reg, self.opnd(v))
        return w

    def input_word(self, pv, off, prio=PRIO_ACC):
        v = Val(prio)
        self.vals.append(v)
        v.src = (pv, off)
        return v

    def r(self, v):
        """Register holding v (loaded if needed); locked until unlock()."""
        if v.reg is None:
            src = self.opnd(v)
            reg = self.take_reg()
            self.emit(MOV, reg, src)
            v.reg = reg
            self.live.append(v)
            v.src = None                    # the register is now the only copy
            if v.slot is not None and not v.ro:      # a read-only value keeps its slot:
                # spilled again, it needs no store (p751's fused mul: a's pointer,
                # reloaded once a row, 11 stores fewer)
                self.slots_free.append(v.slot)
                v.slot = None
        self.locked.add(v)
        self.touch(v)
        return v.reg

    def opnd(self, v):
        """Register or memory operand for reading v."""
        if v.reg is not None:
            self.locked.add(v)
            self.touch(v)
            return v.reg
        if v.slot is not None:
            return self.slot_op(v.slot)
        pv, off = v.src
        return qword[self.r(pv) + off]

    def mem(self, pv, off):
        return qword[self.r(pv) + off]

    def unlock(self):
        self.locked.clear()

    def kill(self, v):
        """v is dead: release its register and slot."""
        if v.reg is not None:
            self.free.append(v.reg)
            self.live.remove(v)
            v.reg = None
        if v.slot is not None:
            self.slots_free.append(v.slot)
            v.slot = None
        self.locked.discard(v)

    def const(self, table, j):
        return MemoryOperand(RIPRelativeOffset(self.tables.offset(table, 8 * j)), 8)

    # -- accumulator rows ------------------------------------------------
    def row(self, acc, x, Y, J, base, pow2=None, hi_pos=None, split=False, x_dies=False):
        """acc[base+j] += x*Y(j) for j in J (ascending); acc[base+max(J)+1] must be fresh.

        x: Val or memory-operand thunk; Y(j): operand thunk.  acc: dict pos -> Val.
        pow2: {j: k} for constant limbs Y[j] = 2^k, multiplied by two shifts
        at the single-chain levels (flags are not live across products there).
        The top position may already hold a word (fused multiply-reduce); the
        carries out of it then ripple up to hi_pos, the highest position the
        caller's bound allows the sum to reach (no carry out of hi_pos).
        x_dies: x (a Val) is dead after the row, so a MULQ row may shift it in place.
        """
        top = base + J[-1] + 1
        if hi_pos is None:
            hi_pos = top
        if all(b - a >= 2 for a, b in zip(J, J[1:])):
            self._row_disjoint(acc, x, Y, J, base, pow2 or {}, hi_pos, x_dies)
        elif self.level in ("adx", "bmi2") and split and not self.dual_rows:   # _row_split: MULX + ADD/ADC only
            self._row_split(acc, x, Y, J, base, hi_pos)
        elif self.level == "x86_64" and split:
            # two disjoint passes (j of J[-1]'s parity, then the others), each
            # its products first (MUL clobbers the flags), then one ADD/ADC chain
            for par in (0, 1):
                P = [j for j in J if (J[-1] - j) % 2 == par]
                if P:
                    self._row_disjoint(acc, x, Y, P, base, {}, max(hi_pos, top))
        elif self.level == "adx":
            self._row_adx(acc, x, Y, J, base, hi_pos)
        elif self.level == "bmi2":
            self._row_bmi2(acc, x, Y, J, base, pow2 or {}, hi_pos)
        else:
            self._row_mulq(acc, x, Y, J, base, pow2 or {}, hi_pos)

    def _row_disjoint(self, acc, x, Y, J, base, pow2, hi_pos, x_dies=False):
        """Row whose products do not overlap (no two adjacent j in J).

        All products are formed first, then one ADD/ADC chain adds their words
        (lo at base+j, hi at base+j+1) in ascending order: 2 flag ops per
        product instead of 4 (single chain) or a reset and carry fix-ups (adx).
        p256's Q = p+1 (limbs 2^32 and 2^64-2^32+1) is such a row (OpenSSL's
        arrangement).  MULQ: every product but the last leaves rax/rdx.
        """
        top = base + J[-1] + 1
        mulq = self.level == "x86_64"
        if mulq:
            xr = (lambda: self.opnd(x)) if isinstance(x, Val) else x
        else:
            self._load_rdx(x)
            xr = lambda: rdx
        t_next = self._plan(acc, base, top, J)
        words = []                               # (pos, operand value, fixed?)
        muls = [j for j in J if j not in pow2]
        negq = self.negq if pow2 else {}
        shifted = {}
        muls = [j for j in muls if j not in negq]
        # MULQ, a multiplier dead after the row and one 2^k limb: the MUL reads
        # x first, then the shift pair takes x's register for its high word
        # (one MOV of x fewer a row: p256's reduction rows 11 -> 10 instructions)
        dying = mulq and x_dies and isinstance(x, Val) and x.reg is not None
        in_place = dying and not negq and len([j for j in J if j in pow2]) == 1
        order = [j for j in J if j not in pow2] + [j for j in J if j in pow2] if in_place else J
        for j in order:
            self.steps += 1
            if j in pow2 and in_place:
                lo, hi = self._pair_into(x, SHL, lambda: pow2[j], SHR, lambda: 64 - pow2[j])
                words += [(base + j, lo, False), (base + j + 1, hi, False)]
                continue
            if j in pow2:
                # the first reduction row keeps the shifts: its m is ready while
                # the product's multiplies still occupy ports 1 and 5; rows
                # after it: one MULX by 2^k (the flag ports are the limit there).
                # p256 fieldgen-bench, MULX vs PEXT for the high word (PEXT:
                # p1 only, but microcoded on AMD Zen 1/2): adx mul 43.4 vs
                # 42.8, bmi2 mul 39.4 vs 44.4, sqr 37.0 vs 36.4; vs shifts in
                # every row (PEXT at the time): adx mul 44.5 -> 43.7
                if not mulq and POW2_MULX and base > 0 and not self.shift_rows:
                    lo, hi = self._mulx(self.const("s", j))
                else:
                    lo, hi, _ = self._shift_prod(xr, pow2[j])
                shifted[j] = (lo, hi)
                words += [(base + j, lo, False), (base + j + 1, hi, False)]
                continue
            if j in negq:
                sl, sh_ = shifted[negq[j]]
                if dying and j == J[-1] and not muls:
                    # x's last read: its register becomes the high word (one
                    # MOV fewer a row: p256's x86_64 mul rows 12 -> 11)
                    lo, hi = self._pair_into(x, SUB, lambda: self.r(sl), SBB, lambda: self.r(sh_))
                    words += [(base + j, lo, False), (base + j + 1, hi, False)]
                    continue
                lo = self.new()
                hi = self.new()
                self.emit(MOV, lo.reg, xr())
                self.emit(MOV, hi.reg, lo.reg)
                self.emit(SUB, lo.reg, self.r(sl))
                self.emit(SBB, hi.reg, self.r(sh_))
                self.unlock()
                words += [(base + j, lo, False), (base + j + 1, hi, False)]
                continue
            if not mulq:
                lo, hi = self._mulx(Y(j))
                words += [(base + j, lo, False), (base + j + 1, hi, False)]
                continue
            self.emit(MOV, rax, Y(j))
            self.emit(MUL, xr())
            self.unlock()
            if j == muls[-1]:
                words += [(base + j, rax, True), (base + j + 1, rdx, True)]
            else:
                lo = self.new()
                hi = self.new()
                self.emit(MOV, lo.reg, rax)
                self.emit(MOV, hi.reg, rdx)
                self.unlock()
                words += [(base + j, lo, False), (base + j + 1, hi, False)]
        words.sort(key=lambda w: w[0])
        had_top = top in acc
        started = False
        cur = None
        for pos, w, fixed in words:
            if started:
                for q in range(cur + 1, pos):      # carry through the gaps
                    self._prop_single(acc, q)
            wop = w if fixed else self.r(w)
            if pos in acc:
                self.emit(ADC if started else ADD, self.r(acc[pos]), wop)
                started = True
                if not fixed:
                    self.kill(w)
                self._done_in_row(acc[pos], t_next, pos, base)
            else:
                if started:
                    self.emit(ADC, wop, 0)
                if fixed:
                    v = self.new()
                    self.emit(MOV, v.reg, wop)      # MOV keeps flags
                    w = v
                w.prio = PRIO_ACC
                acc[pos] = w
            cur = pos
            self.unlock()
        if started and had_top:
            for q in range(top + 1, hi_pos + 1):
                fresh = q not in acc
                self._prop_single(acc, q)
                if fresh:
                    break

    def _pair_into(self, x, lo_ins, lo_src, x_ins, x_src):
        """(lo, hi): lo = x copied, then lo_ins lo, lo_src(); hi = x_ins on x's
        own register with x_src(), x's last read (it dies with the row)."""
        xreg = self.r(x)
        lo = self.new()
        self.emit(MOV, lo.reg, xreg)
        self.emit(lo_ins, lo.reg, lo_src())
        self.emit(x_ins, xreg, x_src())
        hi = self.steal(x)
        self.unlock()
        return lo, hi

    def _prop_single(self, acc, q):
        if q not in acc:
            v = self.new()
            self.emit(MOV, v.reg, 0)               # MOV keeps flags
            acc[q] = v
        self.emit(ADC, self.r(acc[q]), 0)
        self.unlock()

    def _shift_prod(self, x, k):
        """(lo, hi) = x * 2^k as x << k, x >> (64-k)."""
        lo = self.new()
        hi = self.new()
        src = x()
        self.emit(MOV, lo.reg, src)
        # a register source is copied twice (two independent MOVs, no chain)
        self.emit(MOV, hi.reg, src if isinstance(src, GeneralPurposeRegister64) else lo.reg)
        self.emit(SHL, lo.reg, k)
        self.emit(SHR, hi.reg, 64 - k)
        self.unlock()
        return lo, hi, False

    def _plan(self, acc, base, top, J=None):
        """Next-use estimates for a row over positions base..top.

        Positions below base+J[0] are not touched by this row (reduction rows
        with zero low limbs of Q): the next use of position q is about q-base
        rows later (its own reduction row), so they spill first.
        """
        t0 = self.steps
        skip = base + J[0] if J else base
        for q, v in acc.items():
            if skip <= q <= top:
                v.nextuse = t0 + (q - base)
            elif base < q < skip:
                v.nextuse = t0 + (q - base) * len(J)
        return t0 + (top - base) + 1

    def _done_in_row(self, v, t_next, q, base):
        v.nextuse = t_next + (q - base - 1)

    def _load_rdx(self, x):
        if x is _RdxLoaded:
            return
        if isinstance(x, Val):
            self.emit(MOV, rdx, self.opnd(x))
        else:
            self.emit(MOV, rdx, x())
        self.unlock()

    def _row_adx(self, acc, x, Y, J, base, hi_pos):
        top = base + J[-1] + 1
        self._load_rdx(x)
        self.clear_flags()        # CF = OF = 0
        chain = {"cf": [None, False], "of": [None, False]}   # last pos, pending

        def add(ch, pos, t):
            ins = ADCX if ch == "cf" else ADOX
            last, pending = chain[ch]
            if pending:
                for q in range(last + 1, pos):      # carry through skipped positions
                    self._prop(acc, q, ins)
            if pos not in acc:
                if pending:
                    self.emit(ins, self.r(t), self.zero)
                acc[pos] = t
                t.prio = PRIO_ACC
            else:
                self.emit(ins, self.r(acc[pos]), self.r(t))
                self.kill(t)
                pending = True
            self.unlock()
            chain[ch] = [pos, pending]

        t_next = self._plan(acc, base, top, J)
        for j in J:
            lo = self.new()
            hi = self.new()
            self.emit(MULX, hi.reg, lo.reg, Y(j))
            self.steps += 1
            self.unlock()
            add("cf", base + j, lo)
            self._done_in_row(acc[base + j], t_next, base + j, base)
            add("of", base + j + 1, hi)
        # close the CF chain into the top (the OF chain ended there)
        last, pending = chain["cf"]
        if pending:
            for q in range(last + 1, top + 1):
                self._prop(acc, q, ADCX)
        self.unlock()
        # both carries out of an existing top ripple up to hi_pos
        for q in range(top + 1, hi_pos + 1):
            fresh = q not in acc
            if fresh:
                v = self.new()
                self.emit(MOV, v.reg, 0)
                acc[q] = v
            self.emit(ADCX, self.r(acc[q]), self.zero)
            self.emit(ADOX, self.r(acc[q]), self.zero)
            self.unlock()
            if fresh:
                break

    def _row_split(self, acc, x, Y, J, base, hi_pos):
        """Row as two disjoint passes (j of J[-1]'s parity, then the others).

        Each pass adds its products' words with one ADD/ADC chain (MULX keeps
        the flags, so products are formed as the chain reaches them): the same
        count of flag operations as the two ADCX/ADOX chains, no XOR (the ADD
        starting each pass breaks the flag dependency), two product words live.
        The pass with J[-1] creates the top; the other pass ends one position
        below and ripples into it (and, like every row, up to hi_pos).
        Measured here (old and new kernels alternating in one process): the
        squaring triangle rows after the first gain (adx sqr p503 -5.6%, p751
        -3.5%), as do the mul_wide rows after the first (fieldgen-bench:
        p503 mul_wide -1.5%, fp2_mul -1.7%; p751 fp2_mul -1.1%; p256 mul
        neutral, so n <= 4 keeps the dual-chain rows); the first triangle row
        (empty accumulator: p503 +12%) and the reduction rows (p503 redc +14%,
        p751 +24%) lose, so only _sqr_rows, _mul_rows and, from n = 5, the
        product rows of _mul_fused ask for it (re-measured there: p751 mul
        -6%, spare-bit primes of 5..12 limbs -4..6%, p503 and z12 neutral;
        an earlier measurement found +7% at p751).  (Dropping the XOR
        of consecutive _row_adx rows whose flags are provably clear costs
        +30%: the XOR is what lets the next row's chains start early.)
        """
        self._load_rdx(x)
        top = base + J[-1] + 1
        t_next = self._plan(acc, base, top, J)
        for par in (0, 1):
            P = [j for j in J if (J[-1] - j) % 2 == par]
            if not P:
                continue
            ptop = base + P[-1] + 1
            had_top = ptop in acc
            started = False
            cur = None
            for j in P:
                lo, hi = self._mulx(Y(j))
                self.steps += 1
                for pos, w in ((base + j, lo), (base + j + 1, hi)):
                    if started:
                        for q in range(cur + 1, pos):   # carry through gaps
                            self._prop_single(acc, q)
                    if pos in acc:
                        self.emit(ADC if started else ADD, self.r(acc[pos]), self.r(w))
                        started = True
                        self.kill(w)
                        self._done_in_row(acc[pos], t_next, pos, base)
                    else:
                        if started:
                            self.emit(ADC, self.r(w), 0)
                        w.prio = PRIO_ACC
                        acc[pos] = w
                    cur = pos
                    self.unlock()
            if started and had_top:
                for q in range(ptop + 1, max(hi_pos, top) + 1):
                    fresh = q not in acc
                    self._prop_single(acc, q)
                    if fresh:
                        break

    def _prop(self, acc, q, ins):
        if q not in acc:
            v = self.new()
            self.emit(MOV, v.reg, 0)
            acc[q] = v
        self.emit(ins, self.r(acc[q]), self.zero)
        self.unlock()

    def _row_bmi2(self, acc, x, Y, J, base, pow2, hi_pos):
        self._load_rdx(x)
        top = base + J[-1] + 1
        if (not pow2 and len(J) > 1 and J == list(range(J[0], J[-1] + 1))
                and all(base + j not in acc for j in J + [J[-1] + 1])):
            # fresh words only: one ADD/ADC chain (MULX keeps the flags)
            c = None
            for j in J:
                self.steps += 1
                lo, hi = self._mulx(Y(j))
                if c is not None:
                    self.emit(ADD if j == J[1] else ADC, self.r(lo), self.r(c))
                    self.kill(c)
                    self.unlock()
                acc[base + j] = lo
                c = hi
            self.emit(ADC, self.r(c), 0)
            self.unlock()
            acc[top] = c
            c.prio = PRIO_ACC
            return
        if (not pow2 and 1 < len(J) <= 3 and J == list(range(J[0], J[-1] + 1))
                and all(q in acc for q in range(base + J[0], top))):
            # short row into existing words: the row as its own chain (independent
            # of the accumulator), then one ADD/ADC pass into it
            T = {}
            c = None
            for j in J:
                self.steps += 1
                lo, hi = self._mulx(Y(j))
                if c is not None:
                    self.emit(ADD if j == J[1] else ADC, self.r(lo), self.r(c))
                    self.unlock()
                    self.kill(c)
                T[base + j] = lo
                c = hi
            self.emit(ADC, self.r(c), 0)
            self.unlock()
            T[top] = c
            for q in range(base + J[0], top + 1):
                if q in acc:
                    self.emit(ADD if q == base + J[0] else ADC, self.r(acc[q]), self.r(T[q]))
                    self.unlock()
                    self.kill(T[q])
                else:                               # q == top, fresh
                    self.emit(ADC, self.r(T[q]), 0)
                    self.unlock()
                    acc[q] = T[q]
                    T[q].prio = PRIO_ACC
                    return
            self._ripple_carry(acc, top, hi_pos)
            return

        def prod(j):
            if j in pow2:
                return self._shift_prod(lambda: rdx, pow2[j])
            return self._mulx(Y(j)) + (False,)
        self._row_single(acc, J, base, prod, hi_pos)

    def _mulx(self, y):
        lo = self.new()
        hi = self.new()
        self.emit(MULX, hi.reg, lo.reg, y)
        self.unlock()
        return lo, hi

    def _row_mulq(self, acc, x, Y, J, base, pow2, hi_pos):
        if isinstance(x, Val):
            xr = lambda: self.opnd(x)
        else:
            xr = x

        def prod(j):
            if j in pow2:
                return self._shift_prod(xr, pow2[j])
            self.emit(MOV, rax, Y(j))
            self.emit(MUL, xr())
            self.unlock()
            return rax, rdx, True
        self._row_single(acc, J, base, prod, hi_pos)

    def _row_single(self, acc, J, base, prod, hi_pos):
        """One carry chain per product: (hi:lo) + acc + carry word fits 128 bits."""
        c = None                 # carry word for position `cpos`
        cpos = None
        t_next = self._plan(acc, base, base + J[-1] + 1, J)
        for j in J:
            self.steps += 1
            pos = base + j
            if c is not None and cpos < pos:
                # flush the carry word through positions without a product
                c = self._flush_carry(acc, c, cpos, pos)
            lo, hi, fixed = prod(j)
            lo_op = lo if fixed else self.r(lo)
            hi_op = hi if fixed else self.r(hi)
            if pos in acc and (self.c_last_mulq or not fixed):
                # the product first, the carry word last: only ADD c, ADC
                # wait for the previous product's carry (2 ops on the chain, not 3).
                # fieldgen-bench: bmi2 p503 mul 198.9 -> 185.4, p751 455.6 -> 395.1,
                # p256 56.9 -> 55.4 (ab); x86_64 p503 mul 213 -> 200, p751
                # 465 -> 401, but p256 61.3 -> 61.9, so MULQ at n <= 4 keeps
                # the carry first
                self.emit(ADD, self.r(acc[pos]), lo_op)
                self.emit(ADC, hi_op, 0)
                if not fixed:
                    self.kill(lo)
                if c is not None:
                    self.emit(ADD, self.r(acc[pos]), self.r(c))
                    self.emit(ADC, hi_op, 0)
                    self.kill(c)
                self._done_in_row(acc[pos], t_next, pos, base)
            elif pos in acc:
                if c is not None:
                    self.emit(ADD, lo_op, self.r(c))
                    self.emit(ADC, hi_op, 0)
                    self.kill(c)
                self.emit(ADD, self.r(acc[pos]), lo_op)
                self.emit(ADC, hi_op, 0)
                if not fixed:
                    self.kill(lo)
                self._done_in_row(acc[pos], t_next, pos, base)
            elif fixed and c is not None:
                # a new position after a product: the carry word's register takes
                # the low half and becomes the position's word (no copy of rax;
                # with the last-square ADC of _sqr_rows, fieldgen-bench on the Zen 3
                # EPYC, the x86_64 kernel over OpenSSL's MULQ routine, nine
                # processes per binary, alternating: p256 sqr 1.026 -> 0.966, mul
                # 0.915 -> 0.901, p503 and p751 unchanged within noise)
                self.emit(ADD, self.r(c), lo_op)
                self.emit(ADC, hi_op, 0)
                acc[pos] = c
            else:
                if c is not None:
                    self.emit(ADD, lo_op, self.r(c))
                    self.emit(ADC, hi_op, 0)
                    self.kill(c)
                if fixed:
                    v = self.new()
                    self.emit(MOV, v.reg, lo_op)
                    acc[pos] = v
                else:
                    acc[pos] = lo
            self.unlock()
            top = base + J[-1] + 1
            if fixed and j == J[-1] and top in acc:
                # last product, existing top: add rdx straight in
                self.emit(ADD, self.r(acc[top]), hi_op)
                self.unlock()
                c = None
                break
            if fixed:
                c = self.new()
                self.emit(MOV, c.reg, hi_op)
            else:
                c = hi
            cpos = pos + 1
            self.unlock()
        top = base + J[-1] + 1
        if c is not None:
            if top not in acc:
                acc[top] = c
                c.prio = PRIO_ACC
                return
            self.emit(ADD, self.r(acc[top]), self.r(c))
            self.kill(c)
            self.unlock()
        self._ripple_carry(acc, top, hi_pos)

    def _ripple_carry(self, acc, top, hi_pos):
        """Add CF into the words above top, up to hi_pos; the first word not
        yet in acc receives the carry as a fresh 0/1 word and ends the chain."""
        for q in range(top + 1, hi_pos + 1):
            if q not in acc:
                v = self.new()
                self.emit(MOV, v.reg, 0)          # MOV keeps flags
                self.emit(ADC, v.reg, 0)
                acc[q] = v
                self.unlock()
                break
            self.emit(ADC, self.r(acc[q]), 0)
            self.unlock()

    def _flush_carry(self, acc, c, cpos, pos):
        """Add carry word c at cpos, ripple (as a 0/1 word) up to pos; returns it."""
        for q in range(cpos, pos):
            if q not in acc:
                acc[q] = c
                c.prio = PRIO_ACC
                return None
            self.emit(ADD, self.r(acc[q]), self.r(c))
            self.emit(MOV, c.reg, 0)            # MOV keeps flags
            self.emit(ADC, c.reg, 0)            # c = carry into q+1
            self.unlock()
        return c

    # -- epilogue helpers -------------------------------------------------
    def finish(self, fname, args, target):
        # every value but the pointers was killed after its last use: a value
        # left alive held a register (or a spill slot) to the end for nothing
        leaked = [v for v in self.vals if v.prio not in (PRIO_OUTPTR, PRIO_PTR)
                  and (v.reg is not None or v.slot is not None)]
        assert not leaked, "%s: %d values never killed" % (fname, len(leaked))
        fn = PhysicalFunction(fname, args, target=target)
        frame = 8 * self.nslots
        with fn:
            if frame:
                SUB(rsp, frame)
            for ins, ops in self.code:
                ins(*ops)
            if frame:
                ADD(rsp, frame)
            RETURN()
        return gas_text(fn)


# ---------------------------------------------------------------------------
# field shape (derived from p only; the analysis object supplies the rest)

class _Shape:
    def __init__(self, fa):
        n = fa.n
        self.n = n
        self.name = fa.name
        self.p = fa.p
        assert 1 <= n <= 16 and fa.p % 2 == 1 and fa.p.bit_length() > 64 * (n - 1)
        self.p_limbs = _limbs(fa.p, n)
        assert list(fa.p_limbs) == self.p_limbs
        self.zero_const = False     # a kernel reads the "z" table (Kernel.zero_mem)
        self.m0inv = (-pow(fa.p, -1, 1 << 64)) & MASK64
        assert fa.m0inv == self.m0inv
        # the high word of -p^-1 mod 2^128 (_row_m2's two multipliers at once)
        self.m0inv_hi = ((-pow(fa.p, -1, 1 << 128)) % (1 << 128)) >> 64
        self.spare = 64 * n - fa.p.bit_length()
        # m0inv == 1: reduce with Q = p+1 (m = U[i], U[i] - m = 0 exactly)
        self.m1 = self.m0inv == 1
        q = fa.p + 1 if self.m1 else fa.p
        self.q_limbs = _limbs(q, n + 1)
        assert self.q_limbs[n] == 0          # p+1 < 2^(64n) since p+1 is even
        self.q_limbs = self.q_limbs[:n]
        self.J = [j for j in range(n) if self.q_limbs[j] != 0]
        # limbs 2^k (0 < k < 64) of Q: two shifts instead of a multiply
        self.pow2 = {j: q.bit_length() - 1 for j, q in enumerate(self.q_limbs)
                     if q > 1 and q & (q - 1) == 0}
        assert self.J[-1] == n - 1
        # limbs 2^64 - 2^k + 1 after a limb 2^k: m * limb = (m << 64) - (m << k) + m
        # from the 2^k limb's two words (a SUB and an SBB instead of a multiply)
        self.negq = {}
        for j, q in enumerate(self.q_limbs):
            for jp, k in self.pow2.items():
                if jp < j and q == (1 << 64) - (1 << k) + 1:
                    self.negq[j] = jp
        # the pow2 limbs themselves, as MULX memory operands
        self.s_limbs = [(1 << k) if j in self.pow2 else 0
                        for j, k in ((j, self.pow2.get(j, 0)) for j in range(n))]


# ---------------------------------------------------------------------------
# kernels

def _args(kind):
    if kind == "wide2":
        return (Argument(ptr(uint64_t), name="t"), Argument(ptr(const_uint64_t), name="a"),
                Argument(ptr(const_uint64_t), name="b"))
    if kind == "wide1":
        return (Argument(ptr(uint64_t), name="t"), Argument(ptr(const_uint64_t), name="a"))
    if kind == "redc":
        return (Argument(ptr(uint64_t), name="r"), Argument(ptr(const_uint64_t), name="t"))
    if kind == "mul":
        return (Argument(ptr(uint64_t), name="r"), Argument(ptr(const_uint64_t), name="a"),
                Argument(ptr(const_uint64_t), name="b"))
    return (Argument(ptr(uint64_t), name="r"), Argument(ptr(const_uint64_t), name="a"))


def _target(level):
    if level == "adx":
        return uarch.default + isa.bmi2 + isa.adx
    if level == "bmi2":
        return uarch.default + isa.bmi2
    return uarch.default


def _b_pointer(k):
    """Third argument arrives in rdx, which the multipliers need: move it."""
    bp = k.new(PRIO_PTR, "b")
    k.emit(MOV, bp.reg, rdx)
    bp.ro = True
    return bp


def _mul_rows(k, acc, ap, bp, n):
    """acc[0..2n-1] = a*b (row i: a[i]*b at position i).

    Rows after the first as two disjoint passes (split).  p256 (fieldgen-bench,
    public entry; ab = old/new alternating in one process): bmi2 mul 55.5 ->
    44.1 (ab 55.0 -> 48.4), MULQ 61.3 -> 59.2; adx 42.8 -> 41.4 (ab 44.0 ->
    42.8; called directly 42.2 -> 43.8) with PEXT reduction rows, but with
    the MULX-by-2^k rows that replaced them 43.3 -> 45.5..48.6, so adx keeps
    its dual chains at n <= 4 and splits from n = 5.  MULQ splits up to
    n = 7, where its rows are used (mul_wide against Karatsuba, TSC, old and
    new alternating: n=5 -22%, n=6 -8%, n=7 -11%; at n=8 +12%, n=12 +48%:
    see _kara); bmi2 splits at every n (mul_wide: n=5 -17%, n=7 -28%,
    n=8 -20%, n=9 -16%, against single-chain rows or Karatsuba).
    The squaring triangle splits at adx, and at bmi2 from 5 limbs (TSC, old
    and new alternating, sqr_wide: n=5 -8..10%, n=6 -11%, n=7 -21%, n=9
    -12%, n=10 -6%, p751's 6-limb Karatsuba halves -12..21%; sqr n=9 -9%,
    n=10 -11%, n=12 -4..11%, n=5..8 within 1%); MULQ row 1 split measured
    40.9 -> 43.2 through the public entry (42.7 -> 40.4 called directly:
    this core has two timing modes there); bmi2 p256 sqr neutral.
    """
    Y = lambda j: k.mem(bp, 8 * j)
    B = None
    if n <= 4 and k.level == "adx" and k.preload:
        # b loaded once into registers: p256 adx mul 43.7 -> 42.8
        # (fieldgen-bench), ab 44.6 -> 44.1, with accumulator words spilled
        # instead; bmi2 (55.2 -> 55.9) and MULQ (59.2 -> 61.4) lose, as do
        # subsets of b at adx.  Only where it costs no spill (_build): p256's
        # mul_adx without it and without spills measured 44.8 -> 44.4 against
        # that spilling form (TSC, alternating, start offsets 0 and 32)
        B = {j: k.input_word(bp, 8 * j, PRIO_PTR) for j in range(n)}
        for b in B.values():
            k.r(b)
            k.unlock()
        k.kill(bp)                          # read through no more (callers kill it after)
        Y = lambda j: k.opnd(B[j])
    _rows(k, acc, lambda i: k.mem(ap, 8 * i), Y, n)
    for b in (B or {}).values():
        k.kill(b)


def _rows(k, acc, X, Y, n):
    """acc[0..2n-1] = X*Y over operand thunks (X(i): row i's multiplier, Y(j):
    MULX's memory operand), the rows of _mul_rows; every word done at the end."""
    split = {"adx": n > 4, "bmi2": True, "x86_64": n <= 7}[k.level]
    for i in range(n):
        k.row(acc, lambda i=i: X(i), Y, list(range(n)), i, split=i > 0 and split)
        acc[i].prio = PRIO_DONE
    for q in range(n, 2 * n):
        acc[q].prio = PRIO_DONE


def _sqr_rows(k, acc, ap, n, split=False, word=None):
    """acc[0..2n-1] = a^2: off-diagonal triangle, then double it and add a[i]^2.

    split (adx, even n): only positions < n are doubled and completed; the
    triangle keeps its words n..2n-2 and the carry word into position n
    (0..2) is returned; _final_sqr_split finishes the high half.
    word(i): operand of limb i (default: memory at ap).
    """
    own_input = word is None
    if word is None:
        word = lambda i: k.mem(ap, 8 * i)
    X = {}
    for i in range(n - 1):
        # adx, and bmi2 from 5 limbs: rows after the first as two ADD/ADC
        # passes (Kernel._row_split)
        x = lambda i=i: word(i)
        Y = word
        if own_input and k.level != "x86_64" and n <= 4 and not split and k.preload:
            # MULX, small n: the input words are loaded once, kept in registers
            # (p256 fieldgen-bench: dispatched sqr 39.0 -> 36.3, bmi2 39.5 ->
            # 36.3; ab harness: adx 40.7 -> 38.4, bmi2 39.9 -> 38.1)
            if i == 0:
                for q in range(n):
                    X[q] = k.input_word(ap, 8 * q, PRIO_PTR)
                    k.r(X[q])
                    k.unlock()
                k.kill(ap)                  # read through no more (callers kill it after)
            x = X[i]
            Y = lambda j: k.opnd(X[j])
        elif own_input and k.level == "x86_64" and n <= 4:
            # MULQ, small n: the row's multiplier a[i] is loaded once and kept
            # in a register for its square (a memory operand at every MUL and
            # a reload for the square measured 42.7 -> 39.4 called directly,
            # ab harness 44.5 -> 41.1, public entry 40.9 -> 41.1)
            x = X[i] = k.input_word(ap, 8 * i, PRIO_PTR)
            k.r(x)
            k.unlock()
        k.row(acc, x, Y, list(range(i + 1, n)), i,
              split=i > 0 and (k.level == "adx" or (k.level == "bmi2" and n >= 5)))
        for q in (2 * i + 1, 2 * i + 2):
            if q in acc and i < n - 2:
                acc[q].prio = PRIO_DONE
    if k.level == "adx":
        # CF chain doubles, OF chain adds the squares
        k.clear_flags()
        for i in range(n):
            if split and 2 * i >= n:
                c = k.new(PRIO_ACC)
                k.emit(MOV, c.reg, 0)               # MOV keeps flags
                k.emit(ADCX, c.reg, k.zero)
                k.emit(ADOX, c.reg, k.zero)
                k.unlock()
                return c
            k.emit(MOV, rdx, k.opnd(X[i]) if i in X else word(i))
            k.unlock()
            if i in X:
                k.kill(X.pop(i))
            dl, dh = k._mulx(rdx)
            for q, d in ((2 * i, dl), (2 * i + 1, dh)):
                if q in acc:
                    w = k.r(acc[q])
                    k.emit(ADCX, w, w)
                    k.emit(ADOX, w, k.r(d))
                    k.kill(d)
                elif q == 0:
                    acc[q] = d
                else:
                    k.emit(ADCX, k.r(d), k.zero)
                    k.emit(ADOX, k.r(d), k.zero)
                    acc[q] = d
                # the low half is needed first (reduction), the high half last;
                # keeping the low half in registers pays only while it fits
                # (n=8: -2%; n=12: +0.5%, where recency spills better)
                acc[q].prio = PRIO_ACC if q < n and n <= 8 else PRIO_DONE
                k.unlock()
        return
    # single chain: double first (carry bit becomes the fresh top word) ...
    if n >= 2:
        for q in range(1, 2 * n - 1):
            w = k.r(acc[q])
            k.emit(ADD if q == 1 else ADC, w, w)
            k.unlock()
        top = k.new(PRIO_DONE)
        k.emit(MOV, top.reg, 0)
        k.emit(ADC, top.reg, 0)
        acc[2 * n - 1] = top
    if k.level == "bmi2":
        # ... then one ADC chain adding the squares (MULX keeps flags)
        started = False
        for i in range(n):
            k.emit(MOV, rdx, k.opnd(X[i]) if i in X else word(i))
            k.unlock()
            if i in X:
                k.kill(X.pop(i))
            dl, dh = k._mulx(rdx)
            for q, d in ((2 * i, dl), (2 * i + 1, dh)):
                if q not in acc:
                    if started:
                        k.emit(ADC, k.r(d), 0)
                    acc[q] = d
                else:
                    k.emit(ADC if started else ADD, k.r(acc[q]), k.r(d))
                    k.kill(d)
                    started = True
                acc[q].prio = PRIO_DONE
                k.unlock()
        return
    # x86_64: MUL clobbers flags, so the carry out of position 2i goes into the
    # high word of a[i]^2 (at most 2^64 - 2, so it cannot overflow), which is
    # added at 2i+1 by the next square's ADD: ADD, ADC, ADC per square (the
    # former mask carry took NEG, ADC, ADC, SBB: one more op on the chain)
    # The last square's high word takes the carry straight into the top word
    # (ADC, not ADC 0, a copy and an ADD): a^2 < 2^(128n), so nothing carries
    # out of it.
    t = None
    for i in range(n):
        k.emit(MOV, rax, k.opnd(X[i]) if i in X else word(i))
        k.emit(MUL, rax)
        k.unlock()
        if i in X:
            k.kill(X.pop(i))
        if i == 0:
            v = k.new(PRIO_DONE)
            k.emit(MOV, v.reg, rax)
            acc[0] = v
            k.unlock()
        else:
            k.emit(ADD, k.r(acc[2 * i - 1]), k.r(t))
            k.emit(ADC, k.r(acc[2 * i]), rax)
            if i == n - 1:
                k.emit(ADC, k.r(acc[2 * n - 1]), rdx)
                k.unlock()
                k.kill(t)
                return
            k.emit(ADC, rdx, 0)
            k.unlock()
        if t is None:
            t = k.new(PRIO_ACC)
        k.emit(MOV, t.reg if t.reg is not None else k.r(t), rdx)
        k.unlock()
    acc[1] = t                                  # n == 1
    t.prio = PRIO_DONE


class _RdxLoaded:
    """Marker: the row multiplier is already in rdx."""


# _redc_rows takes its multipliers two at a time (_row_m2) up to this many limbs
TWO_DIGIT_MAX_LIMBS = 4


def _two_digits(k, sh):
    """Whether _redc_rows takes its multipliers two at a time (_row_m2): generic
    m0inv (m1 rows need no multiplier), MULX levels, 2 to 4 limbs.

    Measured (old and new builds alternating, two rounds of fieldgen-bench
    --op mul,sqr,redc --level adx,bmi2 --runs 3, Zen 4, latency / throughput,
    2026-12-04): adx redc 2 limbs -19% / +8%, 3 limbs (r130, r188) -15% /
    -2..0%, 4 limbs (BN254, secp256k1) -12% / -6..+4%; adx sqr -15%, -10%,
    -5..-6%; secp256k1's mul (wide product + redc, no spare bit) -9% / -3%;
    bmi2 alike. At 6 limbs (BLS12-381 p) redc -4% in latency but +8% in
    throughput, at 11 (r702) +6..7% in both: the step's MULX, two IMULs and
    two ADDs cost more there than the shorter chain saves."""
    return not sh.m1 and k.level in ("bmi2", "adx") and sh.n <= TWO_DIGIT_MAX_LIMBS


def _redc_rows(k, sh, U):
    """U[0..n-1] = low half; afterwards U[n..2n-1] = (U_low + M*p) / R <= p."""
    n = sh.n
    Q = lambda j: k.const("q", j)
    split = k.level == "bmi2" and _split_redc_rows(k, sh)
    i = 0
    while i < n:
        if i + 1 < n and _two_digits(k, sh):
            m_lo, m_hi = _row_m2(k, sh, U[i], U[i + 1])
            for x in (m_lo, m_hi):
                k.row(U, x, Q, sh.J, i, sh.pow2, split=split, x_dies=True)
                k.kill(x)
                k.kill(U.pop(i))                     # position i is 0 now
                i += 1
            continue
        u = U[i]
        x = u if sh.m1 else _row_m(k, sh, u)         # m0inv == 1: m = U[i]
        k.row(U, x, Q, sh.J, i, sh.pow2, split=split, x_dies=x is u)
        if isinstance(x, Val) and x is not u:
            k.kill(x)
        k.kill(U.pop(i))                             # position i is 0 now
        i += 1


def _row_m2(k, sh, u0, u1):
    """The multipliers of two reduction rows at once, from the two words
    u0, u1 at their positions before either row: m = (u0 + u1 2^64) n mod
    2^128 with n = -p^-1 mod 2^128, i.e. m_lo = u0 n0 mod 2^64 and m_hi =
    hi(u0 n0) + u0 n1 + u1 n0 mod 2^64. Row m_lo at i then row m_hi at i+1
    add exactly what the word-by-word rows add (m mod 2^128 is unique), but
    m_hi no longer waits for row m_lo's product and sums at position i+1: one
    MULX and two IMULs beside the first row instead of an IMUL after it."""
    m_lo = k.new(PRIO_ACC)
    m_hi = k.new(PRIO_ACC)
    k.emit(MOV, rdx, sh.m0inv)
    k.emit(MULX, m_hi.reg, m_lo.reg, k.opnd(u0))
    k.unlock()
    t = k.new(PRIO_ACC)
    k.emit(MOV, t.reg, sh.m0inv_hi)
    k.emit(IMUL, t.reg, k.opnd(u0))
    k.emit(IMUL, rdx, k.opnd(u1))
    k.emit(ADD, m_hi.reg, t.reg)
    k.emit(ADD, m_hi.reg, rdx)
    k.kill(t)
    k.unlock()
    return m_lo, m_hi


def _row_m(k, sh, u):
    """A reduction row's multiplier m = u * m0inv mod 2^64: a fresh register at
    x86_64 (MUL's operand), rdx at bmi2/adx (MULX's implicit source)."""
    if k.level == "x86_64":
        x = k.new(PRIO_ACC)
        k.emit(MOV, x.reg, sh.m0inv)
        k.emit(IMUL, x.reg, k.opnd(u))
    else:
        k.emit(MOV, rdx, sh.m0inv)
        k.emit(IMUL, rdx, k.opnd(u))
        x = _RdxLoaded
    k.unlock()
    return x


def _redc_row(k, sh, acc, i, hi_pos, half=False):
    """One reduction row at position i of a fused product (acc[i] final, then 0).

    half (the last row of a mul by R/2, _half_r): the multiplier is acc[i]
    mod 2^63, so position i keeps its top bit b instead of 0; acc[i] stays
    live and is returned for _mul_fused_ops to add b."""
    u = acc[i]
    Q = lambda j: k.const("q", j)
    x = u
    assert not half or (sh.m1 and k.level != "x86_64")
    if sh.m1:
        if k.level != "x86_64":
            # m = U[i] goes to rdx; position i is not touched by the row (Q[0] = 0)
            k.emit(MOV, rdx, k.opnd(u))
            if half:
                k.emit(BTR, rdx, 63)
            k.unlock()
            acc.pop(i)
            if not half:
                k.kill(u)
            x = _RdxLoaded
    else:
        x = _row_m(k, sh, u)
    k.row(acc, x, Q, sh.J, i, sh.pow2, hi_pos, split=_split_redc_rows(k, sh), x_dies=x is u)
    if half:
        return u
    if isinstance(x, Val) and x is not u:
        k.kill(x)
    if i in acc:
        k.kill(acc.pop(i))


def _split_redc_rows(k, sh):
    """Whether the reduction rows use _row_split: the fused mul's at adx, the
    fused mul's and _redc_rows' (redc, and mul's reduction after a wide
    product) at bmi2.

    Measured (old and new kernels alternating in one process, chained):
    adx, generic m0inv (m = U[i]*m0inv, full rows) gains from 5 to 11 limbs
    (s5 -5%, s6 -13%, s7 -9%, s8 -3%, s9 -7%, s10 -6%, s11 -7%; s12 +1%);
    m0inv == 1 rows with zero low limbs of p+1 lose (p503 +1%, p751 +4%).
    bmi2 (single-chain rows before) gains at every size from 5 limbs, both
    kinds (two runs, TSC medians: mul -4..18%, redc -6..18%; n=5, 6, 7, 8,
    10, 12 including p434, p503, p610, p751).  Not measured below 5 limbs.
    """
    if k.level == "bmi2":
        return sh.n >= 5
    return k.level == "adx" and 5 <= sh.n <= 11 and not sh.m1


def _fused_mul(sh, level):
    """Whether mul interleaves product and reduction rows (else wide product + redc).

    Measured here (RDTSC, old and new kernels alternating in one process): with
    a spare bit the fused form wins at every level and size (n=3: -12% adx,
    n=8: -5%, n=12: -8%).  Without one every reduction row needs a 0/1 carry
    word and the dual-chain adx rows lose (n=4 +1%, n=6 +6%), as does bmi2 at
    n=4 (+6%); MULQ still wins (n=4 -5%, n=6 -8%).
    Squaring stays separate: a fused squaring (rows a[i] * (a[i] + 2a[i+1..])
    at 2i, two reduction rows after each) measured no faster at n=3..8 and
    slower at n=12, whose wide form has the same count of products.
    """
    if sh.spare >= 1:
        return True
    if level == "x86_64" and _final_select(sh):
        return False        # p256: 65.0 -> 61.8 (its tail is _final_pair's)
    return level == "x86_64" or (level == "bmi2" and sh.n > 4)


def _mul_fused(k, sh, ap, bp, rp):
    """r = a*b/R mod p, each product row followed by its reduction row.

    The accumulator is a window of about n+1 words.  An exact upper bound of the
    running sum (a, b < p, m < 2^64; a, b < 2p in a lazy kernel) decides how
    far each row's carries can reach, so no row carries further than the value
    can (spare bits: never past the row's top; no spare bit: one 0/1 word more).
    """
    _mul_fused_ops(k, sh, lambda i: k.mem(ap, 8 * i), lambda j: k.mem(bp, 8 * j), rp,
                   amax_all=2 * sh.p - 1 if k.lazy else None)


def _mul_fused_ops(k, sh, X, Y, rp, amax_all=None, half=False, last=True, second=None):
    """_mul_fused on operand thunks: X(i) the i-th word of a (the row
    multiplier), Y(j) the j-th word of b (MULX's memory operand).  amax_all:
    the bound of both operands when it is above p - 1 (sums below 2p).
    half: r = 2ab/R mod p, a Montgomery product by R/2 (_half_r).
    last: no rows follow in the kernel (_final_sub's tail form).
    second: (X2, Y2, bound of Y2) of a second product c*d (c < p) added
    row by row: r = (ab + cd)/R mod p, which needs ab + cd + (R - 1)p < 2pR."""
    n, p = sh.n, sh.p
    bmax = p - 1 if amax_all is None else amax_all
    qv = p + 1 if sh.m1 else p
    acc = {}
    red = 0
    if second is not None:
        assert not half and amax_all is None
        X2, Y2, b2max = second
        assert (p - 1) * (bmax + b2max) + ((1 << (64 * n)) - 1) * p < 2 * p << (64 * n)

    def hi_pos(bound, r):
        bound = (bound >> (64 * r)) << (64 * r)     # the low r words are 0
        return (bound.bit_length() - 1) // 64

    cd = 0                                      # the bound of c*d's rows so far
    for i in range(n):
        amax = min(bmax, (1 << (64 * (i + 1))) - 1)
        h = hi_pos(amax * bmax + cd + red, i)
        k.row(acc, lambda i=i: X(i), Y, list(range(n)), i, None, max(h, i + n), split=i > 0 and n >= 5)
        if second is not None:
            cd = min(p - 1, (1 << (64 * (i + 1))) - 1) * b2max
            h = hi_pos(amax * bmax + cd + red, i)
            k.row(acc, lambda i=i: X2(i), Y2, list(range(n)), i, None, max(h, i + n), split=n >= 5)
        red += MASK64 * qv << (64 * i)
        h = hi_pos(amax * bmax + cd + red, i + 1)
        b = _redc_row(k, sh, acc, i, max(h, i + n), half=half and i == n - 1)
    assert sorted(acc) in (list(range(n, 2 * n)), list(range(n, 2 * n + 1)))
    R = [acc[q] for q in range(n, 2 * n)]
    if half:
        # the sum is H 2^64n + b 2^(64n-1): r = 2H + b, H + H with CF = b
        assert 2 * n not in acc
        k.emit(BT, k.opnd(b), 63)
        k.unlock()
        k.kill(b)
        for r in R:
            k.emit(ADC, k.r(r), k.r(r))
            k.unlock()
    _final_sub(k, sh, R, acc.get(2 * n), rp, last)


def _final_select(sh):
    """Whether _final forms Uh + Th and Uh + (Th - p) side by side (see _final_pair)."""
    return sh.n <= 4


def _final_pair(k, sh, Uh, Th, rp, last=True):
    """r = Uh + Th - p if that is >= 0, else Uh + Th, with a short tail after Uh.

    Th (the high half of the product) is final long before Uh (the reduction's
    last row), so V = Th - p (n words and a 0/-1 borrow word bv) is formed while
    the reduction runs.  After Uh only two independent chains remain,
    S = Uh + Th and D = Uh + V; the top word of D is bv + carry, 0 or -1
    (D = S - p lies in [-p, p)), and its sign selects S (CMOVS).  The serial
    add-then-subtract chain of _final (2n+2 flag operations after Uh) becomes
    n+1.  When D < 0, S < p fits n words, so the carry out of S is not needed.
    """
    n = sh.n
    if last:
        # no multiplies follow: the multiplier's fixed registers join the pool
        k.free += [r for r in ((rax, rdx) if k.level == "x86_64" else (rdx,)) if r not in k.free]
        k.retire_zero()                         # and ADCX/ADOX's zero
    if k.lazy:
        _store_sum(k, Uh, Th, rp)
        return
    V = _minus_p(k, sh, Th)
    bv = k.new(PRIO_ACC)
    k.emit(SBB, bv.reg, bv.reg)                 # 0 or -1: borrow of Th - p
    k.unlock()
    for j in range(n):                          # S = Uh + Th, in Th
        k.emit(ADD if j == 0 else ADC, k.r(Th[j]), k.opnd(Uh[j]))
        k.unlock()
    for j in range(n):                          # D = Uh + V, in V
        k.emit(ADD if j == 0 else ADC, k.r(V[j]), k.opnd(Uh[j]))
        k.unlock()
    k.emit(ADC, k.r(bv), 0)                     # top word of D: SF = D < 0
    k.unlock()
    for u in Uh:
        k.kill(u)
    k.kill(bv)
    _select_store(k, rp, V, Th, CMOVS)


def _final(k, sh, Uh, Th, rp, last=True):
    """r = Uh + Th - p if that does not borrow, else Uh + Th (both < 2p).
    last: no multiplication follows in the kernel (_final_pair may then take
    the multiplier's registers)."""
    n = sh.n
    if _final_select(sh) and not k.serial_final:
        return _final_pair(k, sh, Uh, Th, rp, last)
    if k.lazy:
        _store_sum(k, Uh, Th, rp)
        return
    wide = sh.spare == 0
    cw = None
    if wide:
        cw = k.new(PRIO_ACC)
        k.emit(MOV, cw.reg, 0)
        k.unlock()
    for j in range(n):
        k.emit(ADD if j == 0 else ADC, k.r(Uh[j]), k.opnd(Th[j]))
        k.unlock()
    for t in Th:
        k.kill(t)
    if wide:
        k.emit(ADC, k.r(cw), 0)
        k.unlock()
    _final_sub(k, sh, Uh, cw, rp)


def _final_sqr_split(k, sh, Uh, tri, c, ap, rp):
    """r = Uh + high half of a^2 = Uh + 2*tri + a[i]^2 (i >= n/2) + c at position n.

    The high half of the square is never formed: its words would be spilled,
    reloaded, doubled and stored again (p751: 24 of 131 stack accesses).
    Every partial sum is at most the total (< 2p), so with a spare bit no chain
    carries out of the top; without one the carry word cw collects them.
    """
    n = sh.n
    cw = None
    if sh.spare == 0:
        cw = k.new(PRIO_ACC)
        k.emit(MOV, cw.reg, 0)
        k.unlock()
    k.clear_flags()
    for q in range(n, 2 * n - 1):               # CF and OF chains: + 2*tri
        w = k.r(Uh[q - n])
        k.emit(ADCX, w, k.opnd(tri[q]))
        k.emit(ADOX, w, k.opnd(tri[q]))
        k.unlock()
        k.kill(tri[q])
    w = k.r(Uh[n - 1])
    k.emit(ADCX, w, k.zero)
    k.emit(ADOX, w, k.zero)
    k.unlock()
    if cw is not None:
        k.emit(ADCX, k.r(cw), k.zero)
        k.emit(ADOX, k.r(cw), k.zero)
        k.unlock()
    for i in range(n // 2, n):                  # one ADC chain: + squares (+ c)
        k.emit(MOV, rdx, k.mem(ap, 8 * i))
        k.unlock()
        lo, hi = k._mulx(rdx)
        if i == n // 2:
            k.emit(ADD, k.r(lo), k.r(c))        # a^2 + 2 < 2^128
            k.emit(ADC, k.r(hi), 0)
            k.unlock()
            k.kill(c)
        for q, d in ((2 * i, lo), (2 * i + 1, hi)):
            k.emit(ADD if q == n else ADC, k.r(Uh[q - n]), k.r(d))
            k.unlock()
            k.kill(d)
    k.kill(ap)
    if cw is not None:
        k.emit(ADC, k.r(cw), 0)
        k.unlock()
    _final_sub(k, sh, Uh, cw, rp)


def _imm_or_const(k, x, j, table="p"):
    """Limb j of x as a sign-extended imm32 when it is one (0, 2^64-1, ...),
    else word j of the table holding x's limbs."""
    w = (x >> (64 * j)) & MASK64
    s = w - (1 << 64) if w >> 63 else w
    if -(1 << 31) <= s < (1 << 31):
        return s
    return k.const(table, j)


def _minus_p(k, sh, X):
    """Fresh words X - p (n limbs, SUB then SBB; CF = the borrow), X kept.

    With k.early_park, where the copies would not all find a register, the
    originals of the lowest words go to the stack as soon as they are
    copied, as many as would otherwise be spilled later: each is read back
    by its CMOVC after the whole SUB/SBB chain, long after its store.
    Otherwise the allocator spills as the chain runs short, the last
    originals, whose stores the CMOVC then read soon after (a store-to-load
    forwarding on the kernel's exit path), plus a reload or two onto the
    chain.  Zen 4, fieldgen-bench --field p503,p751 --level dispatch, old
    and new builds alternating, three rounds, latency / throughput: p503
    sqr 132.6 -> 130.6 / 128.1 -> 126.2, p751 sqr 261.5 -> 258.6 / 257.4
    -> 257.0; but p503 mul 156.4 -> 159.4 / 153.9 -> 155.0 and redc 72.2
    -> 73.2 / 72.3 -> 75.2, so only the squarings ask for it.  The test
    primes' squarings in the paired harness (research/ab): within 1% but
    m521's (Zen form -4.4% / -2.0%, generic adx +2.7% / +1.4%)."""
    D = []
    early = len(X) - len(k.free) if k.early_park else 0
    for j, x in enumerate(X):
        d = k.fork(x)
        if j < early and x.reg is not None:
            k.to_memory(x)              # read back by its CMOVC, n steps later
        k.emit(SUB if j == 0 else SBB, d.reg, _imm_or_const(k, sh.p, j))
        k.unlock()
        D.append(d)
    return D


def _store_sum(k, Uh, Th, rp):
    """r = Uh + Th, stored as it is: the lazy kernels' tail (the sum is below
    2p < 2^(64n), so no carry leaves the top word)."""
    for j, (u, t) in enumerate(zip(Uh, Th)):
        k.emit(ADD if j == 0 else ADC, k.r(u), k.opnd(t))
        k.unlock()
    for t in Th:
        k.kill(t)
    _store_words(k, Uh, rp)


def _store_words(k, V, rp):
    for j, v in enumerate(V):
        k.emit(MOV, k.mem(rp, 8 * j), k.r(v))
        k.unlock()
        k.kill(v)


def _final_sub(k, sh, Uh, cw, rp, last=True):
    """r = (cw:Uh) - p if that does not borrow, else Uh (value < 2p; cw: carry word or None);
    a lazy kernel stores Uh as it is (cw is then None: 4p <= 2^(64n) leaves no carry).

    The output pointer, lowest in spill priority until here (it is read only
    by the stores), ranks with the input pointers from here on: a tail short
    of registers spills one of its words instead.  Spilled in the tail, the
    pointer came back from the stack just before the stores, so every store
    address waited on that reload, and the next call's loads on the stores.
    Zen 4, fieldgen-bench --field p503 --level dispatch, old and new builds
    alternating, three rounds, latency / throughput: mul 158.3 -> 156.4 /
    154.5 -> 153.6, Fp2 square 328.7 -> 324.7 / 329.5 -> 325.5, redc 72.2
    = / 71.5 -> 72.3; a paired TSC harness (old and new kernels in one
    process) read the mul's latency 3.4% lower.  The test primes' changed
    kernels (5 to 11 limbs) moved within 1% but for a few of 1.5-2.7% either
    way (p434's bmi2 Fp2 square +2.5%, its bmi2 Fp2 mul -1.9%).
    After the tail the pointer ranks as before: where rows follow a tail
    (the Fp2 mul's T2 after c0's reduction) it may spill there again.  The
    paired harness (research/ab, three runs): p503's Fp2 mul bmi2 -4.0% in
    latency (-0.3% throughput), adx -0.3%, adx_zen and p751's within 0.3%;
    p434's bmi2 +2.8% (the one that gained from the raised rank), its adx
    -0.9%, the other test primes within 0.5%.

    last=False (rows follow: the Fp2 square's r1) and too few free registers
    for the copies: the tail stores Uh first, subtracts p in place, takes the
    stored words back by CMOVC from the output and stores again, with no
    copies and no spills (p503's Fp2 square had 5 spills, 2 reloads and 5
    CMOVC from the stack there).  The store-to-load forwarding this puts
    before the CMOVC costs a last tail its latency (the whole tail stored
    first: p503's mul 156.4 -> 152.3 / 153.5 -> 157.7, latency for
    throughput, 2026-12-04), but here the next product's rows run beside it.
    Zen 4, fieldgen-bench --field p503 --level dispatch,adx, old and new
    builds alternating, three rounds: Fp2 square 324.7 -> 321.8 (latency),
    326.2 -> 323.5 (throughput).  Paired harness on the test primes: the
    Zen-form Fp2 squares -0.6 to -1.1% in latency (p434's throughput +2.9%
    in one run); where the copies fit (1 and 4 limbs) it cost 2-5%, hence
    the register test.  The Fp2 mul's c0 tail keeps the copies: there the
    same form measured p503 unchanged, p434 +1.4-1.9% and m521 +0.8-1.5%."""
    if k.lazy:
        assert cw is None
        _store_words(k, Uh, rp)
        return
    prio, rp.prio = rp.prio, PRIO_PTR
    # (a carry word, no spare bit, never meets the stored-first form: the Fp2
    # square's operand bound 2p needs one; such a tail keeps the copies)
    if not last and cw is None and len(k.free) < len(Uh):
        _sub_stored_first(k, sh, Uh, rp)
    else:
        D = _minus_p(k, sh, Uh)
        if cw is not None:
            k.emit(SBB, k.r(cw), 0)
            k.unlock()
            k.kill(cw)
        _select_store(k, rp, D, Uh, CMOVC)
    rp.prio = prio


def _sub_stored_first(k, sh, Uh, rp):
    """r = Uh - p if that does not borrow, else Uh, with no copies: Uh
    stored to r, p subtracted in place, the stored words taken back by CMOVC
    (see _final_sub, last=False)."""
    for j, u in enumerate(Uh):
        k.emit(MOV, k.mem(rp, 8 * j), k.r(u))
        k.unlock()
    for j, u in enumerate(Uh):
        k.emit(SUB if j == 0 else SBB, k.r(u), _imm_or_const(k, sh.p, j))
        k.unlock()
    for j, u in enumerate(Uh):
        k.emit(CMOVC, k.r(u), k.mem(rp, 8 * j))
        k.unlock()
    _store_words(k, Uh, rp)


def _select_store(k, rp, V, alt, cmov):
    """r[j] = alt[j] where cmov's condition holds, else V[j]; stores r at rp
    (every input was read before: the outputs may alias them)."""
    for v, a in zip(V, alt):
        k.emit(cmov, k.r(v), k.opnd(a))
        k.unlock()
    for a in alt:
        k.kill(a)
    _store_words(k, V, rp)


def _store_wide(k, acc, tp, n):
    for q in sorted(acc):
        k.emit(MOV, k.mem(tp, 8 * q), k.r(acc[q]))
        k.unlock()
        k.kill(acc[q])


def _sqr_split(sh):
    """Whether the adx squaring finishes its high half after the reduction."""
    return sh.n > 8


def _kara(sh, op, level):
    """Whether op's product is one Karatsuba level (x86_64_kara) at this level.

    Decided by limb count and level, as measured here: RDTSC, old and new
    kernels alternating in one process, primes of 3..16 limbs, latency chained
    as fieldgen-bench does (mul, sqr: the result feeds the next call;
    mul_wide, sqr_wide: the low half does), and fieldgen-bench for p503/p751.
      - mul_wide: x86_64 from n = 8: against single-chain rows it won from
        n = 5 (n=4: +2%, n=5: -4%, n=6: -18%, n=8: -15%, n=12: -22%), but
        against the split rows it loses up to n = 7 (n=5 +29%, n=6 +8%,
        n=7 +13%) and wins from n = 8 (n=8 -11%, n=9 -14%, n=10 -19%,
        n=12 -33%); bmi2 from n = 11: against single-chain rows it won
        from n = 6 (-14% at 6, -19% at 8, -20% at 12), but against the split
        rows (_rows) it loses up to n = 9 (n=5..9: +19..60% over three runs,
        TSC medians, alternating), ties at n = 10 (-3..+0%) and wins at
        n = 12 (-16%).  (The host here has a slow state in which every
        kernel runs 10-50% longer; it moves these ratios by up to 10
        points, never across 1 for the choices made.)  adx:
        the dual-chain schoolbook rows are cheap enough that it wins only from
        n = 13 (n=8 +1%, n=10 +0%, n=12 +2% here and +8% in fieldgen-bench,
        n=13 -7%, n=14 -14%, n=16 -20%): the combination's carry chain
        delays the low half.
      - mul (Karatsuba product + redc instead of the fused multiply-reduce):
        x86_64 from n = 6 for even n (n=6: -2%, n=8: -10%, n=12: -5%;
        again against the fused split rows: n=6 +0%, n=8 -2%, n=10 -24%,
        n=12 -24%) and n = 11 for odd n (n=5: +7%, n=7: -0%, n=9: +8%; n=11
        not measured, no prime of that size among the extras); bmi2 from
        n = 11 (against the fused split rows: n=5..9 +0..33% over two runs,
        n=10 -0..+4%, n=12 -9%);
        adx from n = 13 (n=12 +4%, n=13 -3%, n=16 -7%).
      - sqr_wide (squares of a0, a1 and a0 - a1): bmi2 from n = 8, odd n
        from 13 (n=8 -12..15%, n=9 -3%, n=11 +7%, n=12 -4..13%, n=13 -6%);
        x86_64 at n = 8 and 10 only (n=8 -6..10%, n=9 +7%, n=10 -4%,
        n=11 +7%; n=12: -10% in the A/B harness but +8% in fieldgen-bench).
        sqr: x86_64 from n = 6, bmi2 from n = 8 (n=8 -7%/-6%, n=12
        -7%/-3%).  adx never (its squaring rows win even at n = 16).
    """
    n = sh.n
    if op == "mul_wide":
        return n >= {"x86_64": 8, "bmi2": 11, "adx": 13}[level]
    if op == "mul":
        if level != "x86_64":
            return n >= {"bmi2": 11, "adx": 13}[level]
        return n >= (6 if n % 2 == 0 else 11)
    if level == "adx":
        return False
    if op == "sqr_wide":
        if level == "x86_64":
            return n in (8, 10)
        return n >= 8 and (n % 2 == 0 or n >= 13)
    return n >= (6 if level == "x86_64" else 8)


def _redc_acc(k, sh, acc, rp, last=True):
    """r = redc(acc) (acc: 2n Vals), the redc kernel's rows and tail; last:
    as for _final."""
    n = sh.n
    U = {q: acc[q] for q in range(n)}
    Th = [acc[q] for q in range(n, 2 * n)]
    for v in U.values():
        v.prio = PRIO_ACC
    for v in Th:
        v.prio = PRIO_DONE
    _redc_rows(k, sh, U)
    _final(k, sh, [U[q] for q in range(n, 2 * n)], Th, rp, last)


def _build(sh, op, level, tune="generic"):
    """The GAS text of fg_NAME_OP_LEVEL.  Up to 4 limbs the kernel uses no
    stack slot (every value in a register): if the preferred form spills
    (input words preloaded into registers, measured faster where they fit),
    it is built again without the preloads, and a spill then is an error."""
    if sh.n > 4:
        k, text = _build_kernel(sh, op, level, tune=tune)
        if tune == "zen" and op in ("mul", "mul_lazy") and level == "adx":
            # the Zen form of the fused mul without a zero register, kept where it
            # saves more stack moves than it reads zeros from memory. Each
            # such ADCX/ADOX costs a little beside MULX, a spill and its reload
            # more (research/ports: +0.04..0.12, +0.16..0.23 and +0.13..0.18
            # MULX slots); measured on Zen 3, old and new alternating in one
            # process: p751 (144 -> 93 moves, 35 zero reads) -0.0..-5.5%,
            # the larger gains in the host's slow phases, and with a's pointer
            # spilling first (PRIO_ROW_PTR) and kept slots (Val.ro) 66 moves,
            # -0.5..-1.5% more; p503 (9 -> 8 moves, 23 reads) +0..1%; p751's
            # mul_wide (100 -> 74, 23 reads) and sqr (81 -> 62, 47 reads)
            # -1.3..+1.9%, so only the mul asks
            km, tm = _build_kernel(sh, op, level, tune=tune, zero_mem=True)
            if k.stack_moves() - km.stack_moves() > km.zero_reads:
                sh.zero_const = True
                return tm
        return text
    for preload in (True, False):
        k, text = _build_kernel(sh, op, level, lazy_zero=True, preload=preload, tune=tune)
        if not k.nslots:
            return text
    raise AssertionError("%s: %d stack slots at %d limbs" % (_fname(sh, op, level, tune), k.nslots, sh.n))


def _fname(sh, op, level, tune="generic"):
    """The kernel's symbol: fg_NAME_OP_LEVEL, fg_NAME_OP_adx_zen for the Zen form."""
    return "fg_%s_%s_%s" % (sh.name, op, zen_kernel(level) if tune == "zen" else level)


def zen_kernel(level):
    """The kernel name of a level's Zen form (ZEN_DUAL_ROWS)."""
    return level + "_zen"


def _build_kernel(sh, op, level, lazy_zero=False, preload=True, tune="generic", zero_mem=False):
    """(the Kernel, its GAS text): _build's kernel in one form.  A lazy op
    (LAZY_OPS) is its base op's kernel with operands below 2p and the tail
    storing the [0, 2p) result."""
    n = sh.n
    k = Kernel(level, _tables(sh.name), lazy_zero, preload, tune, zero_mem)
    name = op
    if op in LAZY_OPS:
        assert 4 * sh.p <= 1 << (64 * n), "lazy kernels need 4p <= 2^(64n)"
        op = op[:-len("_lazy")]
        k.lazy = True
    if (level, op) in NEGQ_KERNELS:
        k.negq = sh.negq
    if tune == "zen" and level == "adx" and _zen_shift_rows(sh, op):
        k.shift_rows = True
        k.negq = sh.negq
    if n < ZEN_DUAL_ROWS:
        k.dual_rows = False                 # a small Zen form differs by its shifts alone
    k.c_last_mulq = n > 4
    # (it only changes the MULQ mul of up to 4 limbs without a spare bit,
    # the unfused one: p256's.)  p256's MULQ mul is issue-bound on Golden
    # Cove class cores: the serial
    # tail's 12 flag operations beat _final_pair's 15 there (fieldgen-bench,
    # paired against OpenSSL's masked nistz256, four nine-process runs
    # alternating: 1.008 -> 1.001 in latency, throughput 0.892 -> 0.892);
    # the MULX levels keep the pair.  The squaring kept it too (1.045 latency
    # in an A/B harness on that Xeon) until its reduction lost its MULs (NEGQ_KERNELS):
    # since then the serial tail trades latency for throughput, which on the
    # Zen 4 meets both targets (research/ab, three runs: p256 sqr x86_64
    # +2.5% latency, -1.7..-3.1% throughput; fieldgen-bench, old and new
    # builds alternating, paired against the masked nistz256: 0.928 / 1.018
    # -> 0.948 / 0.988).  The test primes of 2 to 4 limbs, research/ab:
    # bls12_381_r, p224, r130, r254 -2..-3% / -1..-3%, r250 0 / -2%, s256
    # +8..10% / -3%; at one limb the readings scattered: gold64 and p64m59
    # +5..8% in latency, -29..+40% in throughput, p33 -4..-7% / -23..+9%; one
    # limb keeps the pair.
    k.serial_final = level == "x86_64" and (op == "mul" or (op == "sqr" and n >= 2))
    k.early_park = op == "sqr"
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    acc = {}
    if op == "mul" and _fused_mul(sh, level) and not _kara(sh, op, level):
        if zero_mem:
            ap.prio = PRIO_ROW_PTR
        bp = _b_pointer(k)
        _mul_fused(k, sh, ap, bp, rp)
        k.kill(bp)
        k.kill(ap)
        fname = _fname(sh, name, level, tune)
        return k, k.finish(fname, _args("mul"), _target(level))
    if op == "sqr" and level == "adx" and n % 2 == 0 and _sqr_split(sh) and not _kara(sh, op, level):
        c = _sqr_rows(k, acc, ap, n, split=True)
        assert sorted(acc) == list(range(2 * n - 1))
        U = {q: acc[q] for q in range(n)}
        for v in U.values():
            v.prio = PRIO_ACC
        for q in range(n, 2 * n - 1):
            acc[q].prio = PRIO_DONE
        _redc_rows(k, sh, U)
        _final_sqr_split(k, sh, [U[q] for q in range(n, 2 * n)], acc, c, ap, rp)
        fname = _fname(sh, name, level, tune)
        return k, k.finish(fname, _args("sqr"), _target(level))
    if op in ("mul_wide", "mul"):
        bp = _b_pointer(k)
        if _kara(sh, op, level):
            from . import kara as x86_64_kara
            x86_64_kara.kara_mul_rows(k, acc, ap, bp, n, rp if op == "mul_wide" else None)
        else:
            _mul_rows(k, acc, ap, bp, n)
            k.kill(bp)
    elif op in ("sqr_wide", "sqr") and _kara(sh, op, level):
        from . import kara as x86_64_kara
        x86_64_kara.kara_sqr_rows(k, acc, ap, n,
                                  lambda k, acc, word, m: _sqr_rows(k, acc, None, m, word=word),
                                  rp if op == "sqr_wide" else None)
    elif op in ("sqr_wide", "sqr"):
        _sqr_rows(k, acc, ap, n)
    if op in ("mul_wide", "sqr_wide"):
        k.kill(ap)
        _store_wide(k, acc, rp, n)
        kind = "wide2" if op == "mul_wide" else "wide1"
    else:
        if op == "redc":
            for q in range(2 * n):
                acc[q] = k.input_word(ap, 8 * q, PRIO_ACC if q < n else PRIO_DONE)
        else:
            k.kill(ap)
        _redc_acc(k, sh, acc, rp)
        kind = {"redc": "redc", "mul": "mul", "sqr": "sqr"}[op]
    fname = _fname(sh, name, level, tune)
    return k, k.finish(fname, _args(kind), _target(level))


def _wide_ops(k, sh, acc, X, Y, op="mul_wide"):
    """acc[0..2n-1] = X*Y over operand thunks, as the level's op (mul_wide, or
    mul's product) forms it: one Karatsuba level where _kara picks it, else
    schoolbook rows."""
    if _kara(sh, op, k.level):
        from . import kara as x86_64_kara
        x86_64_kara.kara_mul_ops(k, acc, X, Y, sh.n)
    else:
        _rows(k, acc, X, Y, sh.n)


def _mul_ops(k, sh, X, Y, rp, bound, last=True):
    """r = redc(X*Y) for operands below bound (< 2p: the product within redc's
    bound), as the level's mul forms it: the fused rows, or a wide product
    and the reduction; last: as for _final."""
    if _fused_mul(sh, k.level) and not _kara(sh, "mul", k.level):
        _mul_fused_ops(k, sh, X, Y, rp, amax_all=bound, last=last)
        return
    acc = {}
    _wide_ops(k, sh, acc, X, Y, "mul")
    _redc_acc(k, sh, acc, rp, last)


def fp2_sqr_kernel(fa, level="adx"):
    """Whether fg_NAME_fp2_sqr_LEVEL is generated, at the levels of
    FP2_LEVELS: the complex squaring of a field whose lazy squaring runs two
    Montgomery muls of unreduced operands (the C template's lazy_sqr path,
    _build_fp2_sqr), or else, with the lazy Karatsuba mul, redc(a0^2 +
    nr*a1^2) and 2*a0*a1 (the template's lazy_mul squaring, _build_fp2_sqr_nr)."""
    if fa.fp2 is None or not (fa.fp2.lazy_sqr or fa.fp2.lazy_mul) or fa.form != "montgomery":
        return False
    return level in FP2_LEVELS


def _sqr_wide_ptr(k, sh, acc, pv):
    """acc[0..2n-1] = a^2 for the n words at pointer pv, as the level's
    sqr_wide forms it (one Karatsuba level where _kara picks it, else the
    squaring rows); pv is killed."""
    if _kara(sh, "sqr_wide", k.level):
        from . import kara as x86_64_kara
        x86_64_kara.kara_sqr_rows(k, acc, pv, sh.n,
                                  lambda k, acc, word, m: _sqr_rows(k, acc, None, m, word=word))
    else:
        _sqr_rows(k, acc, pv, sh.n)
        k.kill(pv)


def _chain(k, dst, first, second, n):
    """dst(j) = first(j) + second(j) (first(j) doubled when second is None)
    for j < n over one carry chain, through a register; operand thunks."""
    for j in range(n):
        v = k.new(PRIO_ACC)
        k.emit(MOV, v.reg, first(j))
        k.emit(ADD if j == 0 else ADC, v.reg, second(j) if second is not None else v.reg)
        k.emit(MOV, dst(j), v.reg)
        k.unlock()
        k.kill(v)


def _times_small(k, T, c, w, bound):
    """Fresh words c*T over w words (T kept): MULX by c with rdx = c, the high
    halves added one word up on one carry chain.  bound: an upper bound of
    the value of T times c, below 2^64w, so nothing carries out of the top."""
    assert bound < 1 << (64 * w) and 1 < c < 1 << 32
    k.emit(MOV, rdx, c)
    out, hi = [], None
    for q in range(w):
        lo, h = k._mulx(k.opnd(T[q]))
        if hi is not None:
            k.emit(ADD if q == 1 else ADC, k.r(lo), k.opnd(hi))
            k.unlock()
            k.kill(hi)
        out.append(lo)
        hi = h
    k.kill(hi)                              # 0: the bound
    return out


def _plus_nr_times(k, sh, fp2, T0, T1, keep):
    """D = T0 + nr*T1 over 2n words modulo 2^128n, fresh Vals (the Fp2
    kernels' c0 before the correction _add_corr): T0(q) an operand thunk, T1
    the words of a product below p^2 (kept when keep, else killed); |nr| > 1
    scales T1 first (_times_small)."""
    n = sh.n
    T1k = T1 if fp2.k == 1 else _times_small(k, T1, fp2.k, 2 * n, fp2.k * (sh.p - 1) ** 2)
    D = {}
    for q in range(2 * n):
        v = k.new(PRIO_DONE if q >= n else PRIO_ACC)
        k.emit(MOV, v.reg, T0(q))
        if fp2.nr < 0:
            k.emit(SUB if q == 0 else SBB, v.reg, k.opnd(T1k[q]))
        else:
            k.emit(ADD if q == 0 else ADC, v.reg, k.opnd(T1k[q]))
        k.unlock()
        D[q] = v
        if T1k is not T1:
            k.kill(T1k[q])
        if not keep:
            k.kill(T1[q])
    return D


def _add_corr(k, sh, fp2, D):
    """D += X = p*2^s from limb s/64 when nr < 0 (analysis.Fp2Analysis: the
    exact D is then non-negative and below redc's bound)."""
    if fp2.nr < 0:
        s0, x = _corr(sh.p, fp2)
        for q in range(s0, 2 * sh.n):
            k.emit(ADD if q == s0 else ADC, k.r(D[q]), _imm_or_const(k, x, q - s0, "x"))
            k.unlock()


def _corr(p, fp2):
    """(s // 64, X >> 64(s // 64)): the limbs of c0's offset X = p * 2^s from limb s // 64 on."""
    s0 = fp2.corr_shift // 64
    return s0, (p << fp2.corr_shift) >> (64 * s0)


def _build_fp2_sqr(sh, level, tune="generic"):
    """void fg_NAME_fp2_sqr_LEVEL(uint64_t r[2n], const uint64_t a[2n]), u^2 = -1:
    r1 = mul(2 a0, a1), then r0 = mul(a0 + a1, a0 - a1 + p), the two muls of
    this level (fused rows, or a wide product and redc: _mul_ops) one after
    the other in one function, the operands formed on the stack first.
    Versus the C path (the same sums, two calls of
    the dispatched mul) it saves a call, a prologue and an epilogue, and the
    product whose operands are ready first (2 a0 is one carry chain, a1 an
    input) starts while the two chains of a0 - a1 + p still run.  fieldgen-bench,
    latency: p503 306 -> 297 cycles (2.06x -> 2.00x of its Fp mul; 303.7 with
    r0 first), p751 584 -> 584.  Interleaving the two products row by row
    instead (one kernel, 17 spill slots) was 10% slower than two calls.
    The sums are below 2p (2p < 2^64n: the template's lazy_sqr bound), so the
    products are below 4p^2 and the carry plan uses that operand bound.  r may
    alias a: every read of a comes before the first store, which is r1's: r0
    is computed from the stack copies alone.
    Where _half_r allows, r1 is a0 * a1 / (R/2) instead, and 2 a0 is not
    formed at all.
    d = (a0 - a1 - 1) + (p + 1) with STC (z fewer ADC, z = p + 1's zero low
    limbs) is the Zen forms' only: on the Zen 4 (paired TSC harness, old and
    new kernels side by side, three quiet runs) p503's adx_zen square -0.7 to
    -2.1% and its bmi2 one -1.8%, its generic adx one +0.1%, p751's adx and
    bmi2 +0.0 to +0.3%; on the Intel machine before, p751 at adx +4%.
    Tried on p751 at adx (TSC, old and new alternating, each at start offsets
    0 and 32 of a 64-byte line): d = (a0 - a1 - 1) + (p + 1), the borrow-in
    set by STC in place of p's five all-ones low limbs (5 fewer ADC), +4%;
    2 a0 by SHLD $1 (port 1, beside MULX) instead of the ADC chain, +0.5%;
    both, +1%."""
    n, p = sh.n, sh.p
    k = Kernel(level, _tables(sh.name), tune=tune)
    k.c_last_mulq = n > 4
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    bound = 2 * p - 1
    assert bound < 1 << (64 * n)
    half = _half_r(sh, level, bound)
    base = {name: [k.new_slot() for _ in range(n)] for name in ("s", "d") + (() if half else ("t",))}
    S = lambda name: (lambda j: k.slot_op(base[name][j]))

    a0 = lambda j: k.mem(ap, 8 * j)
    a1 = lambda j: k.mem(ap, 8 * (n + j))
    if not half:
        _chain(k, S("t"), a0, None, n)
    _sum_diff(k, sh, a0, a1, S("s"), S("d"), tune)
    # r1 = 2 a0 * a1 first: its operands are ready first (a1 is an input), so
    # it starts while the chains of d still run; every read of a is above
    r1 = k.new(PRIO_OUTPTR, "out1")
    k.emit(LEA, r1.reg, k.mem(rp, 8 * n))
    k.unlock()
    if half:
        _mul_fused_ops(k, sh, a0, a1, r1, amax_all=bound, half=True, last=False)
    else:
        _mul_ops(k, sh, S("t"), a1, r1, bound, last=False)
    k.kill(r1)
    k.kill(ap)
    _mul_ops(k, sh, S("s"), S("d"), rp, bound)
    return k.finish(_fname(sh, "fp2_sqr", level, tune), _args("sqr"), _target(level))


def _sum_diff(k, sh, a0, a1, s, d, tune):
    """s(j) = a0 + a1 and d(j) = a0 - a1 + p (both below 2p), stack slots, over
    operand thunks: the complex squaring's operands. d's two passes run in
    registers, then are stored; in the Zen forms of p = -1 mod 2^64,
    d = (a0 - a1 - 1) + (p + 1): the borrow-in set by STC, and p + 1's z zero
    low limbs need no addition."""
    n, p = sh.n, sh.p
    _chain(k, s, a0, a1, n)
    D = []
    z = sh.J[0] if (sh.m1 and tune == "zen") else 0
    if z:
        k.emit(STC)
    for j in range(n):
        v = k.new(PRIO_ACC)
        k.emit(MOV, v.reg, a0(j))
        k.emit(SUB if j == 0 and not z else SBB, v.reg, a1(j))
        k.unlock()
        D.append(v)
    for j, v in enumerate(D):
        if j >= z:
            k.emit(ADD if j == z else ADC, k.r(v), _imm_or_const(k, p + 1 if z else p, j, "q" if z else "p"))
        k.emit(MOV, d(j), k.r(v))
        k.unlock()
        k.kill(v)


def _half_r(sh, level, bound):
    """Whether _build_fp2_sqr forms r1 = 2 a0 a1 / R as a0 a1 / (R/2): the
    fused rows of a0 * a1 (no 2 a0 on the stack: 3n instructions fewer), the
    last reduction row's multiplier taken mod 2^63 (BTR), so that the sum
    T = a0 a1 + M p is 0 mod 2^(64n-1) only; position n-1 keeps T's bit
    64n-1 (b), and r = T / 2^(64n-1) = 2H + b, the high half doubled with b
    carried in (BT, then n ADC).  M < 2^(64n-1) makes r <= (bound^2 +
    (2^(64n-1) - 1) p) / 2^(64n-1), which must stay below 2p for the one
    conditional subtraction.  For p = 2^e 3^f - 1 (m0inv = 1: the multiplier
    is the word itself, and p + 1's zero limbs leave position n-1 to b) at
    the levels whose mul is the fused rows.  fieldgen-bench --field p503 --op
    mul,fp2_sqr --level dispatch --runs 5 (Zen 4, adx_zen, old and new
    alternating, three rounds, latency): Fp2ElementSquare 2.11-2.15x -> 2.08-
    2.09x of the Fp mul (fast phase 342 -> 327-330 cycles).  p751's kernels
    take it at adx under the generic tuning (its bmi2 mul is Karatsuba).
    Tried for a generic m0inv too (BTR on the IMUL'd multiplier; position
    n-1 then ends at b 2^63, p0 being odd) with the bound p - 1 (a0, a1 are
    canonical): paired TSC, old and new kernels in one process, r254 bmi2
    +1%, adx 0, r702 adx -0.5%: not kept."""
    if not (sh.m1 and not sh.pow2 and level in ("bmi2", "adx")):
        return False
    if not _fused_mul(sh, level) or _kara(sh, "mul", level):
        return False
    return _half_r_fits(sh.p, sh.n, bound)


def _half_r_fits(p, n, bound):
    """Whether a0 a1 / 2^(64n-1) mod p stays below 2p after the rows, for
    operands up to bound (the multipliers sum to M < 2^(64n-1))."""
    h = 64 * n - 1
    return (bound * bound + ((1 << h) - 1) * p) >> h < 2 * p


def _build_fp2_sqr_nr(sh, fp2, level, tune="generic"):
    """void fg_NAME_fp2_sqr_LEVEL(uint64_t r[2n], const uint64_t a[2n]) for
    u^2 = nr without the complex squaring (nr != -1, or 4p^2 above redc's
    bound): the C template's lazy_mul squaring in one function,
      2a0 and a1 to the stack; S0 = a0^2 (the level's sqr_wide), its words
      parked; S1 = a1^2 in the accumulator; D = S0 + nr*S1 (+ X for nr < 0)
      exactly as _build_fp2_mul's D, with the same bounds (S0, S1 <= (p-1)^2
      like T0, T1); c0 = redc(D), stored; c1 = mul(2a0, a1) (operands < 2p,
      _mul_ops), stored.
    Against the C path (two sqr_wide, a mul and a redc; TSC medians, public
    fg_NAME_fp2_sqr of the old and new generated code alternating, two
    runs): nr = -7 (r130) bmi2 -22..24%, adx -23%; nr = -11 (p224) -17..19%,
    -18..19%; nr = 2 (r250) -19%, -16..19%.
    r may alias a: every read of a comes before c0's store."""
    n = sh.n
    k = Kernel(level, _tables(sh.name), tune=tune)
    k.c_last_mulq = n > 4
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    base = {name: [k.new_slot() for _ in range(n)] for name in ("t", "c")}
    S = lambda name: (lambda j: k.slot_op(base[name][j]))
    a0 = lambda j: k.mem(ap, 8 * j)
    a1 = lambda j: k.mem(ap, 8 * (n + j))
    _chain(k, S("t"), a0, None, n)
    for j in range(n):
        v = k.new(PRIO_ACC)
        k.emit(MOV, v.reg, a1(j))
        k.emit(MOV, S("c")(j), v.reg)
        k.unlock()
        k.kill(v)
    a1p = k.new(PRIO_PTR, "a1")
    k.emit(LEA, a1p.reg, k.mem(ap, 8 * n))
    k.unlock()
    acc = {}
    _sqr_wide_ptr(k, sh, acc, ap)
    s0 = [k.park(acc[q]) for q in range(2 * n)]
    acc1 = {}
    _sqr_wide_ptr(k, sh, acc1, a1p)
    D = _plus_nr_times(k, sh, fp2, lambda q: k.slot_op(s0[q]), acc1, keep=False)
    _add_corr(k, sh, fp2, D)
    _redc_acc(k, sh, D, rp, last=False)
    r1 = k.new(PRIO_OUTPTR, "out1")
    k.emit(LEA, r1.reg, k.mem(rp, 8 * n))
    k.unlock()
    k.kill(rp)
    _mul_ops(k, sh, S("t"), S("c"), r1, 2 * sh.p - 1)
    k.kill(r1)
    return k.finish(_fname(sh, "fp2_sqr", level, tune), _args("sqr"), _target(level))


def fp2_mul_kernel(fa, level="adx"):
    """Whether fg_NAME_fp2_mul_LEVEL is generated: the C template's lazy
    Karatsuba Fp2 mul (any non-residue it takes) in one function, at the
    levels of FP2_LEVELS (see _build_fp2_mul)."""
    if fa.fp2 is None or not fa.fp2.lazy_mul or fa.form != "montgomery":
        return False
    return level in FP2_LEVELS


def _build_fp2_mul(sh, fp2, level, tune="generic"):
    """void fg_NAME_fp2_mul_LEVEL(uint64_t r[2n], const uint64_t a[2n], const uint64_t b[2n]),
    u^2 = nr: the C template's lazy Karatsuba (the same products, sums and
    bounds; analysis.Fp2Analysis) in one function:
      T0 = a0*b0, its 2n words to the stack;
      T1 = a1*b1, kept in the accumulator; the sums a0+a1, b0+b1 (< 2p) to
        the stack (every read of a and b is above this line);
      D = T0 + nr*T1 (one chain; for |nr| > 1 first |nr|*T1 into fresh
        words, _times_small) and E = T0 + T1 (a second chain, into T0's
        slots); for nr < 0, D += X = p*2^s from limb s/64 (non-negative,
        below redc's bound); c0 = redc(D), stored;
      T2 = (a0+a1)(b0+b1) in the accumulator, c1 = redc(T2 - E).
    The products are the level's mul_wide (schoolbook rows, or one Karatsuba
    level where _kara picks it for mul_wide: bmi2 from 11 limbs, adx from 13)
    and the reductions the level's redc rows and tail, emitted inline: no
    calls, no wide buffers passed through memory between kernels, and c0's
    reduction overlaps T2's products.
    fieldgen-bench, latency at adx: p503 409-412 -> 391.5-394 cycles (2.75x
    -> 2.63-2.64x of its Fp mul), p751 843 -> 820-823 (3.01x -> 2.92x).
    bmi2 (the Karatsuba products, TSC, alternating with the C path in one
    process, medians of 300 rounds): p503 414-421 -> 386-400, p751 798 -> 775.
    Orders measured (p503): c1's product and reduction before c0, with T0
    and T1 both stored, 425.8; c0 first 399.7; D from T1's accumulator and E
    in place (this one) 391.5-394; D and E in one pass on two chains
    (NOT + ADCX, ADOX) 394.6-395.6; the sums first 398-403 (throughput 388);
    the sums between T0 and T1 396; in an alternating A/B harness (TSC, 10th
    percentile), c0's reduction after T2's rows 301 -> 331, T1 before T0
    worse, the products' rows dual-chain instead of split 347 -> 352-359.
    The kernel is throughput-bound (latency = throughput): its 626 port-0/6
    instructions (p503) set a floor of 313.
    Other non-residues against the C path (TSC, alternating, two runs):
    nr = -7 (r130) adx -12..14%, bmi2 -14..28%; nr = -11 (p224) -17..19%,
    -13..17%; nr = 2 (r250) -11%, -12%.
    r may alias a or b: c0 is the first store."""
    n = sh.n
    k = Kernel(level, _tables(sh.name), tune=tune)
    k.c_last_mulq = n > 4
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    bp = _b_pointer(k)
    slots = {name: [k.new_slot() for _ in range(w)] for name, w in (("sa", n), ("sb", n))}
    S = lambda name: (lambda j: k.slot_op(slots[name][j]))
    half = lambda pv, h: (lambda j: k.mem(pv, 8 * (h * n + j)))
    product = lambda acc, X, Y: _wide_ops(k, sh, acc, X, Y)
    acc = {}
    product(acc, half(ap, 0), half(bp, 0))
    # T0's words stay where they are: the spilled ones in their slots
    slots["t0"] = [k.park(acc[q]) for q in range(2 * n)]
    acc1 = {}
    product(acc1, half(ap, 1), half(bp, 1))
    for name, pv in (("sa", ap), ("sb", bp)):
        _chain(k, S(name), half(pv, 0), half(pv, 1), n)
    k.kill(ap)
    k.kill(bp)
    # D = T0 + nr*T1 (c0's), then E = T0 + T1 (c1's) in T0's slots
    D = _plus_nr_times(k, sh, fp2, S("t0"), acc1, keep=True)
    for q in range(2 * n):
        k.emit(ADD if q == 0 else ADC, k.r(acc1[q]), S("t0")(q))
        k.emit(MOV, S("t0")(q), k.r(acc1[q]))
        k.unlock()
        k.kill(acc1[q])
    _add_corr(k, sh, fp2, D)
    _redc_acc(k, sh, D, rp, last=False)      # T2's rows follow
    acc = {}
    product(acc, S("sa"), S("sb"))
    for q in range(2 * n):
        k.emit(SUB if q == 0 else SBB, k.r(acc[q]), S("t0")(q))
        k.unlock()
    r1 = k.new(PRIO_OUTPTR, "out1")
    k.emit(LEA, r1.reg, k.mem(rp, 8 * n))
    k.unlock()
    k.kill(rp)                               # c0 is stored: no dead spill of rp
    _redc_acc(k, sh, acc, r1)
    k.kill(r1)
    return k.finish(_fname(sh, "fp2_mul", level, tune), _args("mul"), _target(level))


def _hybrid_kernel(fa, slot_base):
    """A Kernel for a hybrid's scalar half (adx, Zen form): rbp left alone
    (the hybrid's frame register), stack slots from rsp + slot_base."""
    k = Kernel("adx", _tables(fa.name), tune="zen")
    k.free.remove(rbp)
    k.c_last_mulq = fa.n > 4
    k.slot_base = slot_base
    return k


def fp2_c0_sqr_kernel(fa, slot_base):
    """As fp2_c0_kernel for the squaring: c0 = (a0 + a1)(a0 - a1 + p)/R
    mod p (u^2 = -1), the first product of _build_fp2_sqr's complex
    squaring, with r, a in rdi, rsi."""
    sh = _Shape(fa)
    n = sh.n
    k = _hybrid_kernel(fa, slot_base)
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    slot = {name: [k.new_slot() for _ in range(n)] for name in ("s", "d")}
    S = lambda name: (lambda j: k.slot_op(slot[name][j]))
    _sum_diff(k, sh, lambda j: k.mem(ap, 8 * j), lambda j: k.mem(ap, 8 * (n + j)), S("s"), S("d"), "zen")
    k.kill(ap)
    _mul_ops(k, sh, S("s"), S("d"), rp, 2 * sh.p - 1)
    k.kill(rp)
    return k


def fp2_c0_kernel(fa, slot_base):
    """The Kernel (adx, Zen form) whose code writes c0 = (a0*b0 + a1*(p - b1))/R
    mod p (u^2 = -1) to r[0..n-1]: p - b1 to the stack, then the fused
    Montgomery rows of both products (_mul_fused_ops' second), with r, a, b
    in rdi, rsi, rdx, its stack slots from rsp + slot_base and rbp left
    alone: the scalar half of x86_64_hybrid's Fp2 mul, which
    emits the code (k.code, frame 8 * k.nslots) beside the vector half's."""
    sh = _Shape(fa)
    n = sh.n
    k = _hybrid_kernel(fa, slot_base)
    rp = k.bind(rdi, PRIO_OUTPTR, "out")
    ap = k.bind(rsi, PRIO_PTR, "a")
    bp = _b_pointer(k)
    half = lambda pv, h: (lambda j: k.mem(pv, 8 * (h * n + j)))
    # d = p - b1 (in [1, p]) to the stack, then the fused rows of a0*b0 + a1*d
    d = [k.new_slot() for _ in range(n)]
    for j in range(n):
        v = k.new(PRIO_ACC)
        k.emit(MOV, v.reg, k.const("p", j))
        k.emit(SUB if j == 0 else SBB, v.reg, half(bp, 1)(j))
        k.emit(MOV, k.slot_op(d[j]), v.reg)
        k.unlock()
        k.kill(v)
    _mul_fused_ops(k, sh, half(ap, 0), half(bp, 0), rp,
                   second=(half(ap, 1), lambda j: k.slot_op(d[j]), sh.p))
    k.kill(ap)
    k.kill(bp)
    k.kill(rp)
    return k


def emit_montgomery(fa):
    """The field's kernels (GAS text); records in fa.fp2_{mul,sqr}_{adx,bmi2}
    whether those Fp2 kernels are among them, for the C templates."""
    sh = _Shape(fa)
    fa.fp2_sqr_adx = fp2_sqr_kernel(fa, "adx")
    fa.fp2_mul_adx = fp2_mul_kernel(fa, "adx")
    fa.fp2_mul_bmi2 = fp2_mul_kernel(fa, "bmi2")
    fa.fp2_sqr_bmi2 = fp2_sqr_kernel(fa, "bmi2")
    tables = _tables(sh.name)
    contents = {"q": sh.q_limbs, "p": sh.p_limbs}
    if sh.pow2:
        contents["s"] = sh.s_limbs
    if (fa.fp2_mul_adx or fa.fp2_mul_bmi2 or fa.fp2_sqr_adx or fa.fp2_sqr_bmi2) and fa.fp2.nr < 0 \
            and fa.fp2.lazy_mul:
        s0, x = _corr(fa.p, fa.fp2)
        contents["x"] = _limbs(x, 2 * sh.n - s0)
    out = [None]                    # the tables, once the kernels say whether "z" is read
    fa.zen_forms = []
    generic_at = {}                 # op -> index in out of the level's generic kernel
    zen = sh.n >= ZEN_DUAL_ROWS or _zen_shift_rows(sh)
    for level in LEVELS:
        for tune in ("generic", "zen") if level == "adx" and zen else ("generic",):
            for op, build in _kernel_builders(fa, sh, level, tune):
                if tune == "zen" and op.startswith("fp2_") and sh.n > ZEN_FP2_KERNELS:
                    continue                # Zen runs the C path's calls there
                if tune == "zen" and sh.n < ZEN_DUAL_ROWS and not _zen_shift_rows(sh, op):
                    continue                # below 5 limbs only the shift-row forms exist
                text = build()
                if tune == "zen":
                    generic = out[generic_at[op]]
                    if text == generic.replace(_fname(sh, op, level), _fname(sh, op, level, tune)):
                        continue
                    fa.zen_forms.append(op)
                else:
                    generic_at[op] = len(out)
                out.append(text)
    fa.fp2_mul_adx_zen = "fp2_mul" in fa.zen_forms
    fa.fp2_sqr_adx_zen = "fp2_sqr" in fa.zen_forms
    if sh.zero_const:
        contents["z"] = [0]
    out[0] = tables.rodata(contents)
    return tables.resolve("\n".join(out))


def _kernel_builders(fa, sh, level, tune):
    """[(op, thunk building the GAS text of fg_NAME_OP_LEVEL in the tune's form)]."""
    out = [(op, lambda op=op: _build(sh, op, level, tune)) for op in OPS + (LAZY_OPS if fa.lazy else ())]
    if fp2_sqr_kernel(fa, level):
        out.append(("fp2_sqr", lambda: _build_fp2_sqr(sh, level, tune) if fa.fp2.lazy_sqr
                    else _build_fp2_sqr_nr(sh, fa.fp2, level, tune)))
    if fp2_mul_kernel(fa, level):
        out.append(("fp2_mul", lambda: _build_fp2_mul(sh, fa.fp2, level, tune)))
    return out


def _pow2_mulx_rows(sh):
    """Whether the reduction rows at bmi2/adx multiply by a 2^k limb with MULX."""
    return POW2_MULX and bool(sh.pow2)


def kernel_choice(fa):
    """(op, level) -> level of the kernel the dispatcher should call under the
    generic tuning: each level's own, but where tuning.py's GENERIC_* entries
    say the adx level runs the bmi2 kernel (research/tuning.md)."""
    choice = {(op, level): level for op in OPS for level in LEVELS}
    if fa.n <= tuning.GENERIC_SQR_BMI2_MAX_LIMBS and not _pow2_mulx_rows(_Shape(fa)):
        choice[("sqr", "adx")] = "bmi2"
    if fa.n <= tuning.GENERIC_POW2_MUL_BMI2_MAX_LIMBS and _pow2_mulx_rows(_Shape(fa)):
        choice[("mul", "adx")] = "bmi2"
    if fa.lazy:
        # a lazy kernel is its base op's without the tail: the same choice
        for op in LAZY_OPS:
            for level in LEVELS:
                choice[(op, level)] = choice[(op[:-len("_lazy")], level)]
    return choice


# The Zen forms from ZEN_DUAL_ROWS limbs (every row on the two ADCX/ADOX
# chains), the shift-row forms up to ZEN_SHIFT_ROWS, the one-function Fp2
# kernels up to ZEN_FP2_KERNELS: tuning.py, research/tuning.md.
ZEN_DUAL_ROWS = tuning.ZEN_DUAL_ROWS

ZEN_SHIFT_ROWS = tuning.ZEN_SHIFT_ROWS


def _zen_shift_rows(sh, op=None):
    """Whether the field (op None) or its op has a shift-row Zen form
    (ZEN_SHIFT_ROWS): mul and sqr, up to that many limbs, of a prime whose
    reduction rows multiply by a 2^k limb."""
    return sh.n <= ZEN_SHIFT_ROWS and bool(sh.pow2) and op in (None, "mul", "sqr", "mul_lazy", "sqr_lazy")

ZEN_FP2_KERNELS = tuning.ZEN_FP2_KERNELS


def kernel_choice_zen(fa):
    """Where AMD Zen cores run another kernel than kernel_choice's:
    ({(op, level): kernel}, {"mul"/"sqr": Fp2 kernel at adx, None: the C path}).
    At adx the Zen form wherever there is one; the adx sqr at
    ZEN_ADX_SQR_LIMBS; with MULX-by-2^k reduction rows up to
    ZEN_POW2_MUL_ADX_MAX_LIMBS the adx mul (or its shift-row Zen form); the
    Fp2 ops' Zen forms up to ZEN_FP2_KERNELS limbs, the C path above
    (tuning.py; the measurements: research/tuning.md)."""
    generic = kernel_choice(fa)
    zen = {}
    ops = OPS + (LAZY_OPS if fa.lazy else ())
    for op in ops:
        if op in fa.zen_forms and generic[(op, "adx")] == "adx":
            zen[(op, "adx")] = zen_kernel("adx")
    if fa.n in tuning.ZEN_ADX_SQR_LIMBS:
        for op in ("sqr", "sqr_lazy") if fa.lazy else ("sqr",):
            zen.setdefault((op, "adx"), "adx")
    if fa.n <= tuning.ZEN_POW2_MUL_ADX_MAX_LIMBS and _pow2_mulx_rows(_Shape(fa)):
        for op in ("mul", "mul_lazy") if fa.lazy else ("mul",):
            zen[(op, "adx")] = zen_kernel("adx") if op in fa.zen_forms else "adx"
    fp2 = {op: zen_kernel("adx") for op in ("mul", "sqr") if "fp2_" + op in fa.zen_forms}
    for op in ("mul", "sqr"):
        if fa.n > ZEN_FP2_KERNELS and getattr(fa, f"fp2_{op}_adx"):
            fp2[op] = None                  # the C path (ZEN_FP2_KERNELS)
    return {key: k for key, k in zen.items() if k != generic[key]}, fp2
