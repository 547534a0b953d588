# SPDX-License-Identifier: MIT OR Apache-2.0
"""What every generated function gets (gen/fg/x86_64_peachpy.finish_function):
its ELF symbol binding, the CET landing pad and call-frame information, on hand-written function texts
in PeachPy's layout, and the refusals that stop generation. The directives'
effect is checked by running them: test_abi's unwinding check (fieldgen.abi.*)
and tests/cet_test.sh (fieldgen.cet.*).

Run: cd tests && PYTHONPATH=../gen /usr/bin/python3 -B -m unittest -v gen.test_x86_64_peachpy
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "gen"))
from fg.targets.x86_64.gas import finish_function  # noqa: E402

HEAD = ("#ifdef __APPLE__\n.globl _f\n_f:\n#else /* !__APPLE__ */\n.text\n.globl f\n"
        ".type f, @function\nf:\n#endif /* !__APPLE */\n")
TAIL = "#ifndef __APPLE__\n.size f, .-f\n#endif /* !__APPLE__ */\n"


def finish(*body):
    return finish_function(HEAD + "".join(line + "\n" for line in body) + TAIL)


def after_label(text):
    """The lines after the function's label block."""
    return text.split("#endif /* !__APPLE */\n", 1)[1].split("\n")


class FinishFunction(unittest.TestCase):
    def test_pushes_frame_and_pops(self):
        lines = after_label(finish("pushq %r15", "pushq %rbx", "\tsubq $48, %rsp", "\tmovq %rax, 8(%rsp)",
                                   "\taddq $48, %rsp", "popq %rbx", "popq %r15", "\tret"))
        self.assertEqual(lines[:4], [".cfi_startproc", "#ifdef __CET__", "\tendbr64", "#endif"])
        self.assertEqual(lines[4:], [
            "pushq %r15", ".cfi_adjust_cfa_offset 8", ".cfi_rel_offset %r15, 0",
            "pushq %rbx", ".cfi_adjust_cfa_offset 8", ".cfi_rel_offset %rbx, 0",
            "\tsubq $48, %rsp", ".cfi_adjust_cfa_offset 48",
            "\tmovq %rax, 8(%rsp)",
            "\taddq $48, %rsp", ".cfi_adjust_cfa_offset -48",
            "popq %rbx", ".cfi_adjust_cfa_offset -8", ".cfi_restore %rbx",
            "popq %r15", ".cfi_adjust_cfa_offset -8", ".cfi_restore %r15",
            "\tret", ".cfi_endproc",
            "#ifndef __APPLE__", ".size f, .-f", "#endif /* !__APPLE__ */", ""])

    def test_aligned_frame_through_a_register(self):
        lines = after_label(finish("\tmovq %rsp, %r11", "\tsubq $1472, %rsp", "\tandq $-64, %rsp",
                                   "\tvmovdqa64 %zmm0, 64(%rsp)", "\tmovq %r11, %rsp", "\tvzeroupper", "\tret"))
        self.assertEqual(lines[4:11], ["\tmovq %rsp, %r11", ".cfi_def_cfa_register %r11", "\tsubq $1472, %rsp",
                                       "\tandq $-64, %rsp", "\tvmovdqa64 %zmm0, 64(%rsp)", "\tmovq %r11, %rsp",
                                       ".cfi_def_cfa_register %rsp"])

    def test_elf_binding(self):
        # the symbol header gets FG_VISIBILITY, protected by default, in the ELF branch only
        text = finish("\tret")
        elf = text.split("#else /* !__APPLE__ */\n", 1)[1].split("#endif /* !__APPLE */\n", 1)[0]
        self.assertEqual(elf.split("\n"), [
            ".text", ".globl f", ".type f, @function", "#ifndef FG_VISIBILITY",
            "#define FG_VISIBILITY protected", "#endif", ".FG_VISIBILITY f", "f:", ""])
        self.assertNotIn("FG_VISIBILITY", text.split("#else /* !__APPLE__ */", 1)[0])

    @unittest.skipUnless(shutil.which("cc") and shutil.which("readelf") and sys.platform.startswith("linux"),
                         "needs cc and readelf on Linux")
    def test_elf_binding_assembles(self):
        # what the assembler makes of it alone (no other .S text): STV_PROTECTED, or
        # STV_HIDDEN with -DFG_VISIBILITY=hidden
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "f.S")
            with open(src, "w") as out:
                out.write(finish("\tret"))
            for flags, want in (([], "PROTECTED"), (["-DFG_VISIBILITY=hidden"], "HIDDEN")):
                with self.subTest(flags=flags):
                    obj = os.path.join(tmp, "f.o")
                    subprocess.run(["cc", "-c", *flags, "-o", obj, src], check=True)
                    syms = subprocess.run(["readelf", "-sW", obj], check=True, capture_output=True,
                                          text=True).stdout
                    row = [line.split() for line in syms.splitlines() if line.endswith(" f")]
                    self.assertEqual([r[4:6] for r in row], [["GLOBAL", want]])

    def test_reads_of_rsp_pass(self):
        finish("\ttestq %rsp, %rsp", "\tcmpq $0, %rsp", "\tret")

    def test_refusals(self):
        for body, why in (
                (("\tleaq -8(%rsp), %rsp", "\tret"), "rsp write"),
                (("\tmovq %rax, %rsp", "\tret"), "does not hold the CFA"),
                (("\tandq $-64, %rsp", "\tret"), "aligned while it holds the CFA"),
                (("\tmovq %rsp, %r11", "\tandq $-64, %rsp", "\tmovq $1, %r11", "\tmovq %r11, %rsp", "\tret"),
                 "CFA is used"),
                (("\tmovq %rsp, %r11", "\tandq $-64, %rsp", "\tkmovd %k1, %r11d", "\tmovq %r11, %rsp", "\tret"),
                 "CFA is used"),                                              # a 32-bit write counts
                (("\tmovq %rsp, %r11", "\tandq $-64, %rsp", "\tret"), "ret while"),
                (("\tmovq %rsp, %r11", "pushq %rbx", "\tret"), "push or pop while"),
                (("pushq %rbx",), "no ret")):
            with self.subTest(body=body):
                with self.assertRaises(AssertionError) as cm:
                    finish(*body)
                self.assertIn(why, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
