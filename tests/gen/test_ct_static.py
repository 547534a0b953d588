# SPDX-License-Identifier: MIT OR Apache-2.0
"""The static constant-time and ABI checker (tests/ct_static.py) reports each
violation class on small hand-written kernels, and passes the real ones.

Run: cd tests && /usr/bin/python3 -B -m unittest -v gen.test_ct_static
"""

import os
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)
import ct_static  # noqa: E402

SHIPPED = [os.path.join(REPO, "generated", name, "fg_%s_x86_64.S" % name)
           for name in sorted(os.listdir(os.path.join(REPO, "generated")))
           if os.path.isfile(os.path.join(REPO, "generated", name, "fg_%s_x86_64.S" % name))]

# The layout PeachPy and the emitter produce: a constant table behind a cpp
# macro, then each function under an ELF / Mach-O header pair.
HEAD = """\
#if defined(__x86_64__) && (defined(__ELF__) || defined(__APPLE__)) && !defined(FG_NO_ASM)

#ifdef __APPLE__
#define FG_T_MONT_P Lfg_t_mont_p
.section __TEXT,__const
#else
#define FG_T_MONT_P .Lfg_t_mont_p
.section .rodata
#endif
.p2align 6
FG_T_MONT_P:
\t.quad 0xffffffffffffffff
\t.quad 0x00000000ffffffff
"""
FUNC = """
#ifdef __APPLE__
.section __TEXT,__text,regular,pure_instructions
.globl _{name}
.p2align 4, 0x90
_{name}:
#else /* !__APPLE__ */
.text
.p2align 4,,15
.globl {name}
.type {name}, @function
{name}:
#endif /* !__APPLE */
{body}
#ifndef __APPLE__
.size {name}, .-{name}
#endif /* !__APPLE__ */
"""
TAIL = """
#ifdef __ELF__
.section .note.GNU-stack,"",%progbits
#endif
#endif
"""

# A correct kernel exercising what the checker must accept: pushes and pops,
# a frame, a pointer argument spilled and reloaded, LEA of a pointer, the
# constant table, MUL clobbering rdx after its pointer was copied, CMOV.
GOOD = """\
pushq %rbx
pushq %r12
\tsubq $16, %rsp
\tmovq %rdx, %rcx
\tmovq %rdi, 8(%rsp)
\tmovq 0(%rsi), %rax
\tmulq 0(%rcx)
\tmovq %rax, %rbx
\tmovq %rdx, %r12
\tleaq 8(%rsi), %r8
\taddq 0(%r8), %rbx
\tadcq $0, %r12
\tmovq %rbx, %r9
\tsubq FG_T_MONT_P(%rip), %r9
\tmovq %r12, %r10
\tsbbq FG_T_MONT_P+8(%rip), %r10
\tcmovc %rbx, %r9
\tcmovc %r12, %r10
\tmovq %r9, 0(%rsp)
\tmovq 8(%rsp), %rdi
\tmovq 0(%rsp), %r11
\tmovq %r11, 0(%rdi)
\tmovq %r10, 8(%rdi)
\taddq $16, %rsp
popq %r12
popq %rbx
\tret"""

NAME = "fg_t_mul_adx"      # a three-pointer-argument kernel by its operation


def source(body, name=NAME, extra=()):
    text = HEAD + FUNC.format(name=name, body=body)
    for other_name, other_body in extra:
        text += FUNC.format(name=other_name, body=other_body)
    return text + TAIL


class Checker(unittest.TestCase):
    def run_checker(self, text, target="elf", nargs=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.S")
            with open(path, "w") as f:
                f.write(text)
            nfunc, ninsn, found = ct_static.check_file(path, target, nargs)
        return nfunc, found

    def line_of(self, text, needle):
        """1-based line of the first line of text containing needle."""
        return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)

    def assert_reports(self, body, message, at, name=NAME, nargs=None):
        """body's kernel gets a violation containing message, at the line
        holding the text `at`, in the function name."""
        text = source(body, name)
        nfunc, found = self.run_checker(text, nargs=nargs)
        self.assertEqual(nfunc, 1)
        line = self.line_of(text, at)
        hits = [f for f in found if message in f[2] and f[0] == line and f[1] == name]
        self.assertTrue(hits, "expected %r at line %d (%s), got %r" % (message, line, at, found))
        return found

    def edit(self, old, new):
        self.assertIn(old, GOOD)
        return GOOD.replace(old, new, 1)


class Accepts(Checker):
    def test_good_kernel_passes_both_targets(self):
        for target in ("elf", "macho"):
            nfunc, found = self.run_checker(source(GOOD), target)
            self.assertEqual((nfunc, found), (1, []), target)

    def test_shipped_kernels_pass(self):
        self.assertTrue(any(p.endswith("fg_p256_x86_64.S") for p in SHIPPED))
        stats = {}
        for path in SHIPPED:
            for target in ("elf", "macho"):
                nfunc, ninsn, found = ct_static.check_file(path, target, None, stats)
                self.assertEqual(found, [], "%s (%s)" % (path, target))
                with open(path) as f:   # every ELF function symbol was found and checked
                    self.assertEqual(nfunc, sum(line.startswith(".globl fg_") for line in f), path)
        # the addresses were examined, not skipped
        for base in ("pointer", "rip", "rsp"):
            self.assertGreater(stats.get(base, 0), 0, base)

    def test_command_line(self):
        ok = subprocess.run([sys.executable, os.path.join(TESTS, "ct_static.py"), SHIPPED[0]],
                            capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertIn("no violations", ok.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.S")
            with open(path, "w") as f:
                f.write(source(GOOD.replace("\tmulq 0(%rcx)", "\tdivq %rcx")))
            bad = subprocess.run([sys.executable, os.path.join(TESTS, "ct_static.py"), "-q", path],
                                 capture_output=True, text=True)
        self.assertEqual(bad.returncode, 1)
        lines = bad.stdout.strip().split("\n")
        self.assertEqual(len(lines), 1, bad.stdout)
        self.assertRegex(lines[0], r"^%s:\d+: %s: divq: integer division.*: divq %%rcx$"
                         % (path.replace(".", r"\."), NAME))

    def test_pointer_plus_constant_and_xchg_keep_pointers(self):
        body = self.edit("\tleaq 8(%rsi), %r8", "\tmovq %rsi, %r8\n\taddq $8, %r8\n\txchgq %r8, %rax\n"
                         "\txchgq %r8, %rax")
        self.assertEqual(self.run_checker(source(body))[1], [])

    def test_callee_saved_kept_in_another_register(self):
        body = "\tmovq %rbx, %rax\n\tmovq 0(%rsi), %rbx\n\tmovq %rbx, 0(%rdi)\n\tmovq %rax, %rbx\n\tret"
        self.assertEqual(self.run_checker(source(body))[1], [])


# AVX-512 in the AT&T syntax GAS accepts (PeachPy 0.2.0 cannot print zmm
# operands in GAS format yet): what a future IFMA kernel would contain.
AVX512 = """\
\tvmovdqu64 0(%rsi), %zmm0
\tvpaddq 8(%rsi){1to8}, %zmm0, %zmm1
\tvpmadd52luq %zmm1, %zmm0, %zmm2
\tvpmadd52huq %zmm1, %zmm0, %zmm3{%k2}{z}
\tvpcmpuq $1, %zmm1, %zmm0, %k3{%k1}
\tkmovq %k3, %rax
\tvpbroadcastq %rax, %zmm4
\tvpandq FG_T_MONT_P(%rip){1to8}, %zmm4, %zmm4
\tvpandq FG_T_MONT_P(%rip), %xmm4, %xmm5
\tvpternlogq $0x96, %zmm1, %zmm2, %zmm3
\tvpextrq $1, %xmm3, %rcx
\tvmovdqu64 %zmm3, 0(%rdi)
\tvzeroupper
\tret"""


class Avx512(Checker):
    def test_straight_kernel_passes(self):
        self.assertEqual(self.run_checker(source(AVX512, name="fg_t_sqr_avx512"))[1], [])

    def test_violations(self):
        name = "fg_t_sqr_avx512"
        self.assert_reports(AVX512.replace("%zmm3, 0(%rdi)", "%zmm3, 0(%rdi){%k1}"),
                            "masked memory access", "0(%rdi){%k1}", name=name)
        self.assert_reports(AVX512.replace("vmovdqu64 0(%rsi), %zmm0", "vpgatherqq 0(%rsi,%zmm2,8), %zmm0"),
                            "indexed address", "vpgatherqq", name=name)
        self.assert_reports(AVX512.replace("\tvzeroupper", "\tvmovdqu64 0(%rax), %zmm0"),
                            "address base %rax is not derived", "0(%rax), %zmm0", name=name)
        self.assert_reports(AVX512.replace("FG_T_MONT_P(%rip), %xmm4", "FG_T_MONT_P(%rip), %ymm4")
                            .replace("%xmm5", "%ymm5"), "outside the 16 bytes", "%ymm4, %ymm5", name=name)
        self.assert_reports(AVX512.replace("vpternlogq $0x96,", "vdivpd"), "division", "vdivpd", name=name)

    def test_aligned_frame(self):
        """A frame aligned by AND of -2^k: accesses are checked for every
        alignment the AND may make, and rsp must come back from its copy."""
        name = "fg_t_sqr_avx512"
        frame = AVX512.replace("\tvmovdqu64 0(%rsi), %zmm0\n",
                               "\tmovq %rsp, %r11\n\tsubq $128, %rsp\n\tandq $-64, %rsp\n"
                               "\tvmovdqu64 0(%rsi), %zmm0\n\tvmovdqa64 %zmm0, 64(%rsp)\n"
                               "\tvmovdqa64 0(%rsp), %zmm6\n") \
            .replace("\tvzeroupper\n", "\tmovq %r11, %rsp\n\tvzeroupper\n")
        self.assertEqual(self.run_checker(source(frame, name=name))[1], [])
        self.assert_reports(frame.replace("andq $-64", "andq $-48"), "AND other than with -2^k",
                            "andq $-48", name=name)
        self.assert_reports(frame.replace("%zmm0, 64(%rsp)", "%zmm0, 72(%rsp)"),
                            "at or above the return address", "72(%rsp)", name=name)
        self.assert_reports(frame.replace("\tmovq %r11, %rsp\n", ""), "stack unbalanced", "ret", name=name)
        self.assert_reports(frame.replace("\tmovq %r11, %rsp\n", "\tmovq %r10, %rsp\n"),
                            "move back from a copy of rsp", "movq %r10, %rsp", name=name)
        self.assert_reports(frame.replace("\tmovq %r11, %rsp\n", "\taddq $128, %rsp\n"),
                            "stack unbalanced", "ret", name=name)
        self.assert_reports(frame.replace("vmovdqu64 0(%rsi), %zmm0", "vmovdqu64 0(%r11), %zmm0"),
                            "address base %r11 is not derived", "0(%r11)", name=name)
        # in the aligned frame a pointer's slot survives a write just below it
        # (the alignment moves both alike) and not one over it
        spill = frame.replace("\tvmovdqu64 0(%rsi), %zmm0\n",
                              "\tmovq %rsi, 72(%rsp)\n\tmovq %rax, 64(%rsp)\n\tmovq 72(%rsp), %rsi\n"
                              "\tvmovdqu64 0(%rsi), %zmm0\n")
        self.assertEqual(self.run_checker(source(spill.replace("%zmm0, 64(%rsp)", "%zmm0, 0(%rsp)"),
                                                 name=name))[1], [])
        self.assert_reports(spill.replace("movq %rax, 64(%rsp)", "movq %rax, 68(%rsp)")
                            .replace("%zmm0, 64(%rsp)", "%zmm0, 0(%rsp)"),
                            "address base %rsi is not derived", "0(%rsi)", name=name)

    def test_constant_masks(self):
        """A mask fixed by the code (an immediate or a constant table, through
        KMOV) may select the bytes of a memory access; one derived from data,
        or one the function did not set, may not."""
        name = "fg_t_sqr_avx512"
        masked = "%zmm3, 0(%rdi){%k1}"
        for setup in ("\tmovl $0x0f, %eax\n\tkmovb %eax, %k1\n",
                      "\tmovq $0x0f, %rax\n\tmovq %rax, %rcx\n\tkmovw %ecx, %k2\n\tkmovw %k2, %k1\n",
                      "\tkmovb FG_T_MONT_P(%rip), %k1\n"):
            text = AVX512.replace("\tvmovdqu64 %zmm3", setup + "\tvmovdqu64 %zmm3").replace("%zmm3, 0(%rdi)", masked)
            self.assertEqual(self.run_checker(source(text, name=name))[1], [], setup)
        self.assert_reports(AVX512.replace("\tvmovdqu64 %zmm3", "\tmovq 0(%rsi), %rax\n\tkmovb %eax, %k1\n"
                                           "\tvmovdqu64 %zmm3").replace("%zmm3, 0(%rdi)", masked),
                            "mask %k1 is not proven constant", masked, name=name)
        self.assert_reports(AVX512.replace("\tvmovdqu64 %zmm3", "\tmovl $0x0f, %eax\n\tkmovb %eax, %k1\n"
                                           "\tvpcmpuq $1, %zmm3, %zmm0, %k1\n\tvmovdqu64 %zmm3")
                            .replace("%zmm3, 0(%rdi)", masked),
                            "mask %k1 is not proven constant", masked, name=name)


class Reports(Checker):
    # 1. straight line and the timing denylist
    def test_conditional_branch(self):
        self.assert_reports(self.edit("\tcmovc %rbx, %r9", "\tjc 1f\n1:\n\tmovq %rbx, %r9"),
                            "control flow: jc", "jc 1f")

    def test_label_inside_body(self):
        self.assert_reports(self.edit("\tcmovc %rbx, %r9", "\tjc 1f\n1:\n\tmovq %rbx, %r9"),
                            "label inside the function", "1:")

    def test_call(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tcall helper"), "control flow: call", "call helper")

    def test_second_ret(self):
        self.assert_reports(self.edit("\tcmovc %rbx, %r9", "\tret\n\tcmovc %rbx, %r9"),
                            "ret before the end", "\tret")

    def test_div(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tdivq 0(%rcx)"), "integer division", "divq")

    def test_bit_scan_and_pext(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tbsfq %rax, %rdx"), "bit scan", "bsfq")
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\ttzcntq %rax, %rdx"), "BSF/BSR", "tzcntq")
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tpextq %rax, %rbx, %rdx"), "Zen", "pextq")

    def test_string_op_and_lock(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\trep movsq"), "string instruction", "rep movsq")
        self.assert_reports(self.edit("\tadcq $0, %r12", "\tlock adcq $0, 0(%rdi)"), "lock prefix", "lock adcq")

    def test_data_directive_inside_body(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\t.byte 0x0f, 0x0b"), "directive inside", ".byte")

    def test_unmodelled_instruction(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tzorkq %rax"), "not modelled", "zorkq")

    # 2. addresses
    def test_indexed_address(self):
        self.assert_reports(self.edit("\tmovq 0(%rsi), %rax", "\tmovq (%rsi,%rax,8), %rax"),
                            "indexed address", "(%rsi,%rax,8)")

    def test_base_loaded_from_data(self):
        body = self.edit("\tmovq 0(%rsi), %rax", "\tmovq (%rsi), %rax\n\tmovq (%rax), %r11")
        found = self.assert_reports(body, "address base %rax is not derived from a pointer argument",
                                    "(%rax), %r11")
        self.assertIn("last written at line %d" % self.line_of(source(body), "(%rsi), %rax"),
                      "".join(f[2] for f in found))

    def test_spilled_pointer_slot_overwritten(self):
        body = self.edit("\tmovq %r9, 0(%rsp)", "\tmovq %r9, 8(%rsp)")
        self.assert_reports(body, "address base %rdi is not derived", "movq %r11, 0(%rdi)")

    def test_spilled_slot_partly_overwritten(self):
        body = self.edit("\tmovq %r9, 0(%rsp)", "\tmovl %r9d, 12(%rsp)")
        self.assert_reports(body, "address base %rdi is not derived", "movq %r11, 0(%rdi)")

    def test_pointer_arithmetic_with_carry_is_data(self):
        self.assert_reports(self.edit("\tleaq 8(%rsi), %r8", "\tmovq %rsi, %r8\n\tadcq $8, %r8"),
                            "address base %r8 is not derived", "addq 0(%r8), %rbx")

    def test_pointer_selected_by_cmov_is_data(self):
        self.assert_reports(self.edit("\tleaq 8(%rsi), %r8", "\tmovq %rsi, %r8\n\tcmovc %rdi, %r8"),
                            "address base %r8 is not derived", "addq 0(%r8), %rbx")

    def test_third_argument_of_a_two_argument_kernel(self):
        self.assert_reports(GOOD, "address base %rcx is not derived", "mulq 0(%rcx)", name="fg_t_sqr_adx")

    def test_rdx_after_mul(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tmulq 0(%rcx)\n\tmovq 0(%rdx), %r11"),
                            "address base %rdx is not derived", "movq 0(%rdx), %r11")

    def test_unknown_rip_symbol_and_table_bounds(self):
        self.assert_reports(self.edit("FG_T_MONT_P+8(%rip)", "fg_elsewhere(%rip)"),
                            "not a constant table", "fg_elsewhere(%rip)")
        self.assert_reports(self.edit("FG_T_MONT_P+8(%rip)", "FG_T_MONT_P+16(%rip)"),
                            "outside the 16 bytes", "+16(%rip)")

    def test_masked_vector_access(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tvmovdqu64 0(%rsi), %zmm1{%k1}{z}\n\tmulq 0(%rcx)"),
                            "masked memory access", "vmovdqu64")

    def test_vector_gather_index(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tvpgatherqq 0(%rsi,%zmm2,8), %zmm1{%k1}\n\tmulq 0(%rcx)"),
                            "indexed address", "vpgatherqq")

    # 3. stack and ABI
    def test_unbalanced_push(self):
        self.assert_reports(self.edit("popq %r12\n", ""), "stack unbalanced at ret", "\tret")

    def test_callee_saved_written_without_push(self):
        body = self.edit("pushq %r12\n", "").replace("\tsubq $16, %rsp", "\tsubq $24, %rsp") \
            .replace("\taddq $16, %rsp\npopq %r12", "\taddq $24, %rsp\nmovq 0(%rsi), %r12")
        found = self.assert_reports(body, "callee-saved %r12 written before it is saved", "movq %rdx, %r12")
        self.assertFalse(any("pushed" in f[2] for f in found))

    def test_pops_swapped(self):
        body = self.edit("popq %r12\npopq %rbx", "popq %rbx\npopq %r12")
        self.assert_reports(body, "callee-saved %rbx does not hold its entry value at ret", "\tret")

    def test_access_below_rsp(self):
        self.assert_reports(self.edit("\tmovq %r9, 0(%rsp)", "\tmovq %r9, -8(%rsp)"),
                            "below rsp", "-8(%rsp)")

    def test_access_into_save_area_and_above(self):
        self.assert_reports(self.edit("\tmovq 0(%rsp), %r11", "\tmovq 16(%rsp), %r11"),
                            "register save area", "16(%rsp), %r11")
        self.assert_reports(self.edit("\tmovq 0(%rsp), %r11", "\tmovq 32(%rsp), %r11"),
                            "return address", "32(%rsp), %r11")

    def test_rsp_changed_otherwise(self):
        self.assert_reports(self.edit("\tsubq $16, %rsp", "\tsubq $16, %rsp\n\tandq %rax, %rsp"),
                            "rsp changed by AND", "andq %rax, %rsp")
        self.assert_reports(self.edit("\tsubq $16, %rsp", "\tsubq $16, %rsp\n\torq $15, %rsp"),
                            "rsp changed", "orq $15, %rsp")
        # an alignment with no way back leaves the stack unbalanced
        self.assert_reports(self.edit("\tsubq $16, %rsp", "\tsubq $16, %rsp\n\tandq $-16, %rsp"),
                            "stack unbalanced", "ret")

    def test_direction_flag(self):
        self.assert_reports(self.edit("\tmulq 0(%rcx)", "\tstd\n\tmulq 0(%rcx)"), "DF", "\tstd")

    # files
    def test_file_without_functions(self):
        nfunc, found = self.run_checker(HEAD + TAIL)
        self.assertEqual(nfunc, 0)
        self.assertTrue(any("no function found" in f[2] for f in found))

    def test_instruction_outside_a_function(self):
        text = source(GOOD).replace(".p2align 4,,15\n", ".p2align 4,,15\n\tnop\n", 1)
        found = self.run_checker(text)[1]
        self.assertTrue(any("outside any function" in f[2] for f in found), found)

    def test_assembler_macros_and_conditionals_refused(self):
        for directive in (".include \"other.s\"", ".macro hidden", ".if 0", ".rept 2", ".set X, 8"):
            text = source(GOOD).replace(".section .rodata\n", ".section .rodata\n%s\n" % directive, 1)
            found = self.run_checker(text)[1]
            self.assertTrue(any("directive not modelled" in f[2] for f in found), (directive, found))

    def test_function_like_macro_refused(self):
        text = "#define F(x) x\n" + source(GOOD)
        found = self.run_checker(text)[1]
        self.assertTrue(any("object-like" in f[2] for f in found), found)

    def test_only_the_active_branch_is_checked(self):
        # a violation on the Mach-O side only is seen by --target macho only
        text = source(GOOD).replace("_%s:\n" % NAME, "_%s:\n\tdivq %%rcx\n" % NAME, 1)
        self.assertEqual(self.run_checker(text, "elf")[1], [])
        self.assertTrue(any("integer division" in f[2] for f in self.run_checker(text, "macho")[1]))


if __name__ == "__main__":
    unittest.main()
