"""Test-only mutation: copy a generated .S with one carry instruction of one
kernel deleted, so the suites can show they catch a dropped carry (the shape
of OpenSSL's CVE-2016-7055 in a MULX/ADX Montgomery path).

usage: mutate_kernel.py IN.S OUT.S SYMBOL MNEMONIC[,MNEMONIC...]
Deletes the last instruction of the first listed mnemonic that SYMBOL's body
contains (e.g. adoxq,adcxq,adcq: an OF-chain carry if there is one, else a
CF-chain one) and says which line it was; fails if there is none, so a kernel
rewrite cannot silently turn the test into one that mutates nothing.
"""

import sys


def main(src, dst, symbol, mnemonics):
    lines = open(src, encoding="utf-8").read().split("\n")
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
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
