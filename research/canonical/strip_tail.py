# SPDX-License-Identifier: MIT OR Apache-2.0
"""Write an assembly file with one of p503's adx kernels (mul, or sqr with
`--op sqr`) twice: as generated (cost_canonical) and with its final
conditional subtraction replaced by plain stores (cost_lazy: output in
[0, 2p), the contract PQCrypto-SIDH's rdc503 has).

    python3 strip_tail.py ../../generated/p503/fg_p503_x86_64.S canonical_cost.S [--op sqr] [--zen]

--zen takes the Zen form of the kernel (fg_p503_OP_adx_zen) instead.

The generated tail starts with the copy of the lowest word and `subq $-1`;
the eight words entering the subtraction are found by following the tail's
moves (copies and spills) from there, and the lazy variant stores them where
the tail would have stored the selected words. A measurement aid only."""
import re
import sys

src = open(sys.argv[1]).read()
op = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--op" else "mul"
kname = "fg_p503_%s_adx%s" % (op, "_zen" if "--zen" in sys.argv[3:] else "")


def kernel(name):
    i = src.index("\n%s:\n" % name)
    j = src.index("\tret", i)
    text = src[i + 1:j + 4].replace("#endif /* !__APPLE */\n", "")
    # the unwind directives pair with the generated file's own .cfi_endproc
    return "\n".join(l for l in text.split("\n") if not l.strip().startswith(".cfi"))


lines = kernel(kname).split("\n")
sub = next(i for i, l in enumerate(lines) if l.strip().startswith("subq $-1"))
cut = sub - 1
assert re.match(r"\s*movq %\w+, %\w+$", lines[cut]), "tail layout changed: " + lines[cut]
loc = {}                       # location -> what it holds: a register name at the cut
words = []                     # registers (at the cut) holding limbs 0..7


def holds(x):
    return loc.get(x, x)


for l in lines[cut:]:
    ins = l.split(None, 1)
    if not ins or ins[0] not in ("movq", "subq", "sbbq"):
        if ins and ins[0] == "cmovc":
            break
        continue
    a, b = [s.strip() for s in ins[1].rsplit(",", 1)]
    if ins[0] == "movq":
        loc[b] = holds(a)
    else:
        words.append(holds(b))
        loc[b] = "changed"
assert len(words) == 8 and all(re.match(r"%\w+$", w) for w in words), words
frame = next(i for i in range(cut, len(lines)) if re.match(r"\s*addq \$\d+, %rsp$", lines[i]))
ptr = [l for l in lines[cut:] if re.match(r"\s*movq 0\(%rsp\), %\w+$", l)]
assert len(ptr) == 1, "the output pointer is reloaded once from 0(%rsp)"
if "\tmovq %rdi, 0(%rsp)" in lines[cut:]:
    scratch = "%rdi"            # saved by the tail itself (the Zen forms): still in rdi at the cut
    lazy = lines[:cut]
else:
    scratch = next(r for r in ("%rcx", "%rdx", "%rax") if r not in words)
    lazy = lines[:cut] + ["\tmovq 0(%%rsp), %s" % scratch]     # the output pointer, saved at entry
lazy += ["\tmovq %s, %d(%s)" % (w, 8 * k, scratch) for k, w in enumerate(words)]
lazy += lines[frame:]
i = src.index("#ifdef __APPLE__")
j = src.index("#ifdef __APPLE__", i + 10)
with open(sys.argv[2], "w") as f:
    f.write(src[i:j] + ".text\n")
    for name, text in (("cost_canonical", "\n".join(lines)), ("cost_lazy", "\n".join(lazy))):
        f.write(".p2align 6\n.globl %s\n%s\n" % (name, text.replace(kname, name)))
    f.write('.section .note.GNU-stack,"",@progbits\n')
print("limbs entering the subtraction:", " ".join(words))
