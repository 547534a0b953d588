"""Monkeypatches for PeachPy 0.2.0 AVX-512 gaps found in this probe:
 1. Register._reconstruct: physical k-registers (mask 0x40) hit an assert in
    the liveness analysis of Function.finalize (only the virtual-register
    branch knows KRegister) -> any function that names k1..k7 fails.
 2. ZMMRegister and KRegister have no .format() -> GAS text of any zmm/k
    operand raises AttributeError.
 3. MaskedRegister (zmm1(k1), zmm1(k1.z)) has no .format().
 4. MemoryOperand.format drops the embedded broadcast: qword.to8[reg] prints
    as a plain 64-byte memory operand (silent miscompile in GAS text; the
    binary encoder sets EVEX.b correctly).
Machine-code encoding (Function.encode / Instruction.encode) of all probed
instructions is correct without patches."""
import peachpy.x86_64.registers as R
_orig = R.Register._reconstruct
def _reconstruct(internal_id, mask):
    extra = set()
    if internal_id >= 0 and mask & 0x40:
        mask &= ~0x40
        extra.add(R.KRegister(physical_id=internal_id))
    s = _orig(internal_id, mask) if mask else set()
    return s | extra
R.Register._reconstruct = staticmethod(_reconstruct)
def _fmt(self, assembly_format):
    return "%" + str(self) if assembly_format == "gas" else str(self)
R.ZMMRegister.format = _fmt
R.KRegister.format = _fmt
def _mfmt(self, assembly_format):
    s = self.register.format(assembly_format)
    if assembly_format == "gas":
        s += "{%" + str(self.mask.mask_register) + "}" + ("{z}" if self.mask.is_zeroing else "")
    return s
R.MaskedRegister.format = _mfmt
import peachpy.x86_64.operand as O
_omf = O.MemoryOperand.format
def _memfmt(self, assembly_format):
    s = _omf(self, assembly_format)
    if assembly_format == "gas" and self.broadcast is not None:
        s += "{1to%d}" % self.broadcast
    return s
O.MemoryOperand.format = _memfmt
