# SPDX-License-Identifier: MIT OR Apache-2.0
"""The x86-64 target's tuning: every threshold by which its backends choose
which kernel a level runs, or whether a kernel form is generated at all, as
data. A value here never changes a result (every kernel of every level
computes the same values), only which kernel computes it; each entry names
what it decides and the measurements behind it, in research/tuning.md under
the entry's name (dated, with the CPU each figure came from).

The backends read the values through the module names below; a change of
one is a change of generated code, so it ships with new measurements in
research/tuning.md (docs/design.md, "Measured choices").
"""

from __future__ import annotations

from dataclasses import dataclass

EVIDENCE = "research/tuning.md"


@dataclass(frozen=True)
class Threshold:
    value: object
    decides: str

    @staticmethod
    def evidence(name):
        return f"{EVIDENCE}#{name.lower()}"


TABLE = {
    # --- Montgomery backend (mont.py), generic tuning: kernel_choice
    "GENERIC_SQR_BMI2_MAX_LIMBS": Threshold(
        4, "up to this many limbs the adx level runs the bmi2 sqr (but with MULX-by-2^k reduction rows)"),
    "GENERIC_POW2_MUL_BMI2_MAX_LIMBS": Threshold(
        4, "up to this many limbs, with MULX-by-2^k reduction rows (p256), the adx level runs the bmi2 mul"),
    # --- Montgomery backend, zen tuning: the Zen forms and kernel_choice_zen
    "ZEN_DUAL_ROWS": Threshold(
        5, "from this many limbs each adx kernel has a Zen form: every row on the two ADCX/ADOX chains"),
    "ZEN_SHIFT_ROWS": Threshold(
        4, "up to this many limbs the mul and sqr of a prime with 2^k reduction-row limbs have a Zen form with shifts"),
    "ZEN_FP2_KERNELS": Threshold(
        10, "up to this many limbs the zen tuning runs the one-function Fp2 kernels, above it the C path's calls"),
    "ZEN_ADX_SQR_LIMBS": Threshold(
        (3, 4), "at these limb counts the zen tuning's adx level runs the adx sqr (not the bmi2 one)"),
    "ZEN_POW2_MUL_ADX_MAX_LIMBS": Threshold(
        4, "up to this many limbs, with MULX-by-2^k reduction rows, the zen tuning's adx level runs the adx mul"),
    # --- pseudo-Mersenne backend (pm.py)
    "PM_ZEN_FORMS": Threshold(
        ("sqr", "sqr_lazy"), "the pseudo-Mersenne ops with a Zen form at adx (the squaring's product order)"),
    # --- AVX-512 IFMA kernels (ifma.py) and the hybrid Fp2 kernels (hybrid.py)
    "IFMA_FP2_RATIO": Threshold(
        1.30, "the ifma level runs the IFMA Fp2 op when its vector instructions < this x the scalar op's port-0/6 ones"),
    "IFMA_FMUL_RATIO": Threshold(
        2.5, "zen tuning: the ifma level runs the IFMA Fp mul when its vector instructions < this x the scalar mul's multiplies"),
    "IFMA_FSQR_RATIO": Threshold(
        2.7, "zen tuning: ... the IFMA Fp sqr when its vector instructions < this x the scalar sqr's multiplies"),
    "HYB_SPREAD": Threshold(
        0.8, "the hybrid Fp2 kernels spread their vector half over this fraction of the scalar code"),
    "HYB_SQR_RATIO": Threshold(
        3.5, "zen4 tuning: the hybrid Fp2 sqr where the IFMA Fp mul's vector instructions < this x the scalar mul's multiplies"),
    "HYB_SQR_LIMBS": Threshold(
        12, "zen4 tuning: the hybrid Fp2 sqr up to this many limbs"),
}

GENERIC_SQR_BMI2_MAX_LIMBS = TABLE["GENERIC_SQR_BMI2_MAX_LIMBS"].value
GENERIC_POW2_MUL_BMI2_MAX_LIMBS = TABLE["GENERIC_POW2_MUL_BMI2_MAX_LIMBS"].value
ZEN_DUAL_ROWS = TABLE["ZEN_DUAL_ROWS"].value
ZEN_SHIFT_ROWS = TABLE["ZEN_SHIFT_ROWS"].value
ZEN_FP2_KERNELS = TABLE["ZEN_FP2_KERNELS"].value
ZEN_ADX_SQR_LIMBS = TABLE["ZEN_ADX_SQR_LIMBS"].value
ZEN_POW2_MUL_ADX_MAX_LIMBS = TABLE["ZEN_POW2_MUL_ADX_MAX_LIMBS"].value
PM_ZEN_FORMS = TABLE["PM_ZEN_FORMS"].value
IFMA_FP2_RATIO = TABLE["IFMA_FP2_RATIO"].value
IFMA_FMUL_RATIO = TABLE["IFMA_FMUL_RATIO"].value
IFMA_FSQR_RATIO = TABLE["IFMA_FSQR_RATIO"].value
HYB_SPREAD = TABLE["HYB_SPREAD"].value
HYB_SQR_RATIO = TABLE["HYB_SQR_RATIO"].value
HYB_SQR_LIMBS = TABLE["HYB_SQR_LIMBS"].value
