"""Write an assembly file with p503's adx mul kernel twice: as generated
(cost_canonical) and with its final conditional subtraction replaced by plain
stores (cost_lazy: output in [0, 2p), the contract PQCrypto-SIDH's rdc503 has).

    python3 strip_tail.py ../../generated/p503/fg_p503_x86_64.S canonical_cost.S

The generated tail starts with the copy of the lowest word and `subq $-1`;
the eight words entering the subtraction are found by following the tail's
moves (copies and spills) from there, and the lazy variant stores them where
the tail would have stored the selected words. A measurement aid only."""
import re
import sys

src = open(sys.argv[1]).read()


def kernel(name):
    i = src.index("\n%s:\n" % name)
    j = src.index("\tret", i)
    return src[i + 1:j + 4].replace("#endif /* !__APPLE */\n", "")


lines = kernel("fg_p503_mul_adx").split("\n")
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
lazy = lines[:cut] + ["\tmovq 0(%rsp), %rcx"]            # the output pointer, saved at entry
assert "%rcx" not in words
lazy += ["\tmovq %s, %d(%%rcx)" % (w, 8 * k) for k, w in enumerate(words)]
lazy += lines[frame:]
i = src.index("#ifdef __APPLE__")
j = src.index("#ifdef __APPLE__", i + 10)
with open(sys.argv[2], "w") as f:
    f.write(src[i:j] + ".text\n")
    for name, text in (("cost_canonical", "\n".join(lines)), ("cost_lazy", "\n".join(lazy))):
        f.write(".p2align 6\n.globl %s\n%s\n" % (name, text.replace("fg_p503_mul_adx", name)))
    f.write('.section .note.GNU-stack,"",@progbits\n')
print("limbs entering the subtraction:", " ".join(words))
