# SPDX-License-Identifier: MIT OR Apache-2.0
"""Test-only mutation: copy a generated .S with one carry instruction of one
kernel deleted, so the suites can show they catch a dropped carry (the shape
of OpenSSL's CVE-2016-7055 in a MULX/ADX Montgomery path).

usage: mutate_kernel.py IN.S OUT.S SYMBOL MNEMONIC[,MNEMONIC...] [HEADER]
Deletes the last instruction of the first listed mnemonic that SYMBOL's body
contains (e.g. adoxq,adcxq,adcq: an OF-chain carry if there is one, else a
CF-chain one) and says which line it was; fails if there is none, so a kernel
rewrite cannot silently turn the test into one that mutates nothing.
With HEADER (the field's fg_NAME.h), SYMBOL fg_NAME_OP_LEVEL names the kernels
the dispatcher runs for OP at LEVEL under each tuning (FG_NAME_OP_AT_LEVEL_USES
and _ZEN_USES), which may be other levels' or adx's Zen form (FG_KERNEL_ADX_ZEN:
fg_NAME_OP_adx_zen): each is mutated, so the mutant is
the code the suite reaches whichever tuning the CPU or the build selects.
"""

import re
import sys


def dispatched(symbol, header):
    """fg_NAME_OP_LEVEL -> the kernels the header says OP at LEVEL runs (the
    generic tuning's, then Zen's if another)."""
    text = open(header, encoding="utf-8").read()
    for level in ("x86_64", "bmi2", "adx"):
        if symbol.endswith("_" + level):
            stem = symbol[:-len(level) - 1]
            out = []
            for tune in ("", "_ZEN"):
                macro = (stem[3:] + "_AT_" + level).upper() + tune
                mo = re.search(r"#define FG_%s_USES FG_(ISA|KERNEL)_(\w+)" % macro, text)
                if not mo:
                    sys.exit(f"mutate_kernel: no FG_{macro}_USES in {header}")
                kernel = stem + "_" + mo.group(2).lower()       # FG_KERNEL_ADX_ZEN: fg_NAME_OP_adx_zen
                if kernel not in out:
                    out.append(kernel)
            return out
    sys.exit(f"mutate_kernel: {symbol} does not end in a level")


def main(src, dst, symbol, mnemonics, header=None):
    lines = open(src, encoding="utf-8").read().split("\n")
    for sym in dispatched(symbol, header) if header else [symbol]:
        mutate(lines, sym, mnemonics)
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def mutate(lines, symbol, mnemonics):
    start = lines.index(f"{symbol}:")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(f".size {symbol},"))
    hits = []
    for mnemonic in mnemonics.split(","):
        hits = [i for i in range(start, end) if lines[i].split() and lines[i].split()[0] == mnemonic]
        if hits:
            break
    if not hits:
        sys.exit(f"mutate_kernel: none of {mnemonics} in {symbol}")
    victim = hits[-1]
    print(f"mutate_kernel: {symbol}: deleted line {victim + 1}: {lines[victim].strip()}")
    lines[victim] = f"\t/* mutation: deleted {lines[victim].strip()} */"


if __name__ == "__main__":
    main(*sys.argv[1:])
