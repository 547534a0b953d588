# SPDX-License-Identifier: MIT OR Apache-2.0
"""The static constant-time and ABI checker of the AArch64 kernels
(tests/ct_static_aarch64.py) reports each violation class on small
hand-written kernels and on mutated generated ones, and passes the real ones.

Run: cd tests && /usr/bin/python3 -B -m unittest -v gen.test_ct_static_aarch64
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)
import ct_static_aarch64 as ct  # noqa: E402

SHIPPED = [os.path.join(REPO, "generated", name, "fg_%s_aarch64.S" % name)
           for name in sorted(os.listdir(os.path.join(REPO, "generated")))
           if os.path.isfile(os.path.join(REPO, "generated", name, "fg_%s_aarch64.S" % name))]

# The layout gen/fg/targets/aarch64 emits: a table macro and the visibility
# default, each function under an ELF / Mach-O header pair, the table after
# the last function (in .text), the property note and .note.GNU-stack.
HEAD = """\
#if defined(__aarch64__) && (defined(__ELF__) || defined(__APPLE__)) && !defined(FG_NO_ASM)

#ifdef __APPLE__
#define FG_T_P Lfg_t_p
.section __TEXT,__text,regular,pure_instructions
#else
#define FG_T_P .Lfg_t_p
.text
#ifndef FG_VISIBILITY
#define FG_VISIBILITY protected
#endif
#endif
"""
FUNC = """
#ifdef __APPLE__
.globl _{name}
.p2align 4
_{name}:
#else
.globl {name}
.type {name}, %function
.FG_VISIBILITY {name}
.p2align 4
{name}:
#endif
\t.cfi_startproc
{body}
\t.cfi_endproc
#ifndef __APPLE__
.size {name}, .-{name}
#endif
"""
TABLE = """
.p2align 3
FG_T_P:
\t.quad 0xffffffffffffffed
\t.quad 0xffffffffffffffff
\t.quad 0xffffffffffffffff
\t.quad 0x7fffffffffffffff
"""
NOTE = """
#if defined(__ELF__)
.section .note.gnu.property,"a"
.p2align 3
.long 4, 16, 5          /* name size, descriptor size, NT_GNU_PROPERTY_TYPE_0 */
.asciz "GNU"
.long 0xc0000000, 4, 3  /* GNU_PROPERTY_AARCH64_FEATURE_1_AND, 4 bytes, BTI|PAC */
.p2align 3
#endif
#endif

#ifdef __ELF__
.section .note.GNU-stack,"",%progbits
#endif
"""

# A correct kernel exercising what the checker must accept: a pre-indexed
# frame with x19-x21, x29 and d8 saved, x29 as a copy of sp and sp restored
# from it, a pointer argument spilled and reloaded, post-index on a pointer,
# a negative offset, adr, adrp with add :lo12: and a :lo12: offset (Mach-O:
# @PAGE, @PAGEOFF), a d register used as scratch, CSEL, pointer + constant.
GOOD = """\
\thint\t#34\t// bti c: an indirect call may land here
\tstp\tx19, x20, [sp, #-48]!
\tstp\tx29, x21, [sp, #16]
\tstr\td8, [sp, #32]
\tmov\tx29, sp
\tstr\tx2, [sp, #40]
\tldp\tx3, x4, [x1, #0]
\tldr\tx2, [sp, #40]
\tldp\tx5, x6, [x2], #16
\tldr\tx7, [x2, #-16]
\tmul\tx19, x3, x5
\tumulh\tx20, x3, x5
\tfmov\td8, x19
\tmul\tx21, x4, x6
\tadds\tx20, x20, x21
\tadc\tx21, xzr, xzr
\tadr\tx9, FG_T_P
\tldr\tx10, [x9, #8]
#ifdef __APPLE__
\tadrp\tx11, FG_T_P@PAGE
\tadd\tx11, x11, FG_T_P@PAGEOFF
\tldr\tx12, [x11, #0x10]
\tadrp\tx13, FG_T_P@PAGE
\tldr\tx13, [x13, FG_T_P@PAGEOFF]
#else
\tadrp\tx11, FG_T_P
\tadd\tx11, x11, :lo12:FG_T_P
\tldr\tx12, [x11, #16]
\tadrp\tx13, FG_T_P
\tldr\tx13, [x13, :lo12:FG_T_P+24]
#endif
\tsubs\tx14, x19, x10
\tsbcs\tx15, x20, x12
\tcsel\tx14, x14, x19, cs
\tcsel\tx15, x15, x20, cs
\tfmov\tx16, d8
\teor\tx16, x16, x7
\tmov\tx17, x0
\tadd\tx17, x17, #8
\tstp\tx14, x15, [x0, #0]
\tstr\tx16, [x17, #8]
\tldr\td8, [sp, #32]
\tmov\tsp, x29
\tldp\tx29, x21, [sp, #16]
\tldp\tx19, x20, [sp], #48
\tret"""

NAME = "fg_t_mul_aarch64"          # a three-pointer-argument kernel by its operation


def source(body, name=NAME, note=NOTE):
    return HEAD + FUNC.format(name=name, body=body) + TABLE + note


class Checker(unittest.TestCase):
    def run_checker(self, text, target="elf", nargs=None, stats=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.S")
            with open(path, "w") as f:
                f.write(text)
            nfunc, ninsn, found = ct.check_file(path, target, nargs, stats)
        return nfunc, found

    def line_of(self, text, needle):
        """1-based line of the first line of text containing needle."""
        return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)

    def assert_reports(self, body, message, at, name=NAME, target="elf", note=NOTE):
        """body's kernel gets a violation containing message, at the line
        holding the text `at` (None: a file-level one), in the function name."""
        text = source(body, name, note)
        nfunc, found = self.run_checker(text, target)
        self.assertEqual(nfunc, 1)
        if at is None:
            hits = [f for f in found if message in f[2]]
        else:
            line = self.line_of(text, at)
            hits = [f for f in found if message in f[2] and f[0] == line and f[1] == name]
        self.assertTrue(hits, "expected %r at %r, got %r" % (message, at, found))
        return found

    def edit(self, old, new):
        self.assertIn(old, GOOD)
        return GOOD.replace(old, new, 1)


class Accepts(Checker):
    def test_good_kernel_passes_both_targets(self):
        for target in ("elf", "macho"):
            stats = {}
            nfunc, found = self.run_checker(source(GOOD), target, stats=stats)
            self.assertEqual((nfunc, found), (1, []), target)
            self.assertEqual(stats, {"sp": 8, "pointer": 5, "table": 3}, target)

    def test_shipped_kernels_pass(self):
        self.assertTrue(any(p.endswith("fg_p256_aarch64.S") for p in SHIPPED))
        stats = {}
        for path in SHIPPED:
            for target in ("elf", "macho"):
                nfunc, ninsn, found = ct.check_file(path, target, None, stats)
                self.assertEqual(found, [], "%s (%s)" % (path, target))
                with open(path) as f:   # every function symbol was found and checked
                    self.assertEqual(nfunc, sum(line.startswith(".globl fg_") for line in f), path)
        for base in ("pointer", "table", "sp"):     # the addresses were examined, not skipped
            self.assertGreater(stats.get(base, 0), 0, base)

    def test_command_line(self):
        ok = subprocess.run([sys.executable, os.path.join(TESTS, "ct_static_aarch64.py"), SHIPPED[0]],
                            capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertIn("no violations", ok.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.S")
            with open(path, "w") as f:
                f.write(source(GOOD.replace("\tmul\tx21, x4, x6", "\tudiv\tx21, x4, x6")))
            bad = subprocess.run([sys.executable, os.path.join(TESTS, "ct_static_aarch64.py"), "-q", path],
                                 capture_output=True, text=True)
        self.assertEqual(bad.returncode, 1)
        lines = bad.stdout.strip().split("\n")
        self.assertEqual(len(lines), 1, bad.stdout)
        self.assertRegex(lines[0], r"^%s:\d+: %s: udiv: integer division.*: udiv\tx21, x4, x6$"
                         % (re.escape(path), NAME))

    def test_callee_saved_kept_in_another_register(self):
        body = "\thint\t#34\n\tmov\tx9, x19\n\tldr\tx19, [x1]\n\tstr\tx19, [x0]\n\tmov\tx19, x9\n\tret"
        self.assertEqual(self.run_checker(source(body))[1], [])

    def test_bti_only_note_and_frame_record(self):
        """A frame record (x29, x30) is fine when the note does not claim PAC."""
        body = ("\tbti\tc\n\tstp\tx29, x30, [sp, #-16]!\n\tmov\tx29, sp\n\tldr\tx3, [x1]\n"
                "\tstr\tx3, [x0]\n\tldp\tx29, x30, [sp], #16\n\tret")
        self.assertEqual(self.run_checker(source(body, note=NOTE.replace("4, 3  /*", "4, 1  /*")))[1], [])
        self.assert_reports(body, "stored to memory unsigned, while the property note claims PAC",
                            "stp\tx29, x30")


class Reports(Checker):
    # 1. straight line, the timing denylist, what is modelled
    def test_branches(self):
        for insn in ("b.eq\t1f", "bc.ne\t1f", "beq\t1f", "cbz\tx3, 1f", "cbnz\tw3, 1f", "tbz\tx3, #0, 1f",
                     "tbnz\tx3, #63, 1f", "b\t1f", "bl\tfg_other", "br\tx3", "blr\tx3", "braaz\tx3",
                     "svc\t#0", "brk\t#1"):
            body = self.edit("\tmul\tx21, x4, x6", "\t%s\n\tmul\tx21, x4, x6" % insn)
            self.assert_reports(body, "control flow: %s" % insn.split()[0], insn)

    def test_label_inside_body(self):
        body = self.edit("\tmul\tx21, x4, x6", "1:\n\tmul\tx21, x4, x6")
        self.assert_reports(body, "label inside the function", "1:")

    def test_division_and_floating_point(self):
        for insn, why in (("udiv\tx21, x4, x6", "integer division"), ("sdiv\tx21, x4, x6", "integer division"),
                          ("fdiv\td0, d1, d2", "floating point"), ("fmul\td0, d1, d2", "floating point"),
                          ("ucvtf\td0, x3", "conversion"), ("ldxr\tx3, [x1]", "atomic"),
                          ("ldadd\tx3, x4, [x1]", "atomic"), ("msr\tnzcv, x3", "system"),
                          ("prfm\tpldl1keep, [x1]", "prefetch"), ("paciasp", "pointer authentication")):
            body = self.edit("\tmul\tx21, x4, x6", "\t%s\n\tmul\tx21, x4, x6" % insn)
            self.assert_reports(body, why, insn)

    def test_missing_ret(self):
        self.assert_reports(self.edit("\tret", "\tmov\tx3, x4"), "does not end with ret", "mov\tx3, x4")

    def test_second_ret(self):
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\tret\n\tmul\tx21, x4, x6"),
                            "ret before the end", "\tret")

    def test_ret_through_another_register(self):
        self.assert_reports(self.edit("\tret", "\tret\tx1"), "ret through x1", "ret\tx1")

    def test_unmodelled_instruction(self):
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\tzork\tx21, x4, x6"), "not modelled", "zork")
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\ttbl\tv0.16b, {v1.16b}, v2.16b\n\tmul\tx21, x4, x6"),
                            "not modelled", "tbl")
        self.assert_reports(self.edit("\thint\t#34", "\thint\t#34\n\thint\t#25"), "hint not modelled", "#25")

    def test_data_directive_inside_body(self):
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\t.inst 0x9ac60891"), "directive inside", ".inst")

    def test_instruction_outside_a_function(self):
        text = source(GOOD).replace("FG_T_P:\n", "FG_T_P:\n\tldr\tx3, [x3]\n", 1)
        found = self.run_checker(text)[1]
        self.assertTrue(any("outside any function" in f[2] for f in found), found)

    def test_semicolon(self):
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\tmul\tx21, x4, x6; udiv x3, x3, x3"),
                            "';' not modelled", None)

    def test_assembler_macros_aliases_and_conditionals_refused(self):
        for directive in (".include \"other.s\"", ".macro hidden", ".if 0", ".rept 2", ".set X, 8",
                          "secret .req x3", ".req"):
            text = source(GOOD).replace(".text\n", ".text\n%s\n" % directive, 1)
            found = self.run_checker(text)[1]
            self.assertTrue(any("not modelled" in f[2] or "outside any function" in f[2] for f in found),
                            (directive, found))

    def test_file_without_functions(self):
        nfunc, found = self.run_checker(HEAD + TABLE + NOTE)
        self.assertEqual(nfunc, 0)
        self.assertTrue(any("no function found" in f[2] for f in found))

    def test_only_the_active_branch_is_checked(self):
        text = source(GOOD).replace("_%s:\n" % NAME, "_%s:\n\tudiv\tx3, x3, x3\n" % NAME, 1)
        self.assertEqual(self.run_checker(text, "elf")[1], [])
        self.assertTrue(any("integer division" in f[2] for f in self.run_checker(text, "macho")[1]))

    # 2. addresses
    def test_register_offset(self):
        for addr in ("[x1, x4]", "[x1, x4, lsl #3]", "[x1, w4, uxtw #3]", "[x1, w4, sxtw]"):
            body = self.edit("\tldr\tx7, [x2, #-16]", "\tldr\tx7, %s" % addr)
            self.assert_reports(body, "register offset address", addr)

    def test_base_loaded_from_data(self):
        body = self.edit("\tldr\tx7, [x2, #-16]", "\tldr\tx7, [x2, #-16]\n\tldr\tx8, [x7]")
        found = self.assert_reports(body, "address base x7 is not derived from a pointer argument", "[x7]")
        self.assertIn("last written at line %d" % self.line_of(source(body), "[x2, #-16]"),
                      "".join(f[2] for f in found))

    def test_base_not_an_argument_at_entry(self):
        self.assert_reports(self.edit("\tldr\tx7, [x2, #-16]", "\tldr\tx7, [x8, #8]"),
                            "at entry, not a pointer argument", "[x8, #8]")

    def test_third_argument_of_a_two_argument_kernel(self):
        for op in ("sqr", "sqr_wide", "sqr_lazy", "redc", "fp2_sqr"):
            self.assert_reports(GOOD, "address base x2 is not derived", "[x2], #16",
                                name="fg_t_%s_aarch64" % op)

    def test_spilled_pointer_slot_overwritten(self):
        for store in ("\tstr\tx3, [sp, #40]", "\tstr\tw3, [sp, #44]", "\tstp\tx3, x4, [sp, #32]"):
            body = self.edit("\tldp\tx3, x4, [x1, #0]", "\tldp\tx3, x4, [x1, #0]\n" + store)
            self.assert_reports(body, "address base x2 is not derived", "[x2], #16")

    def test_pointer_arithmetic_other_than_an_immediate(self):
        for insn in ("add\tx17, x17, x3", "adc\tx17, x17, xzr", "csel\tx17, x0, x1, cs", "mov\tw17, w0",
                     "add\tx17, x17, x3, lsl #3", "orr\tx17, x17, #8"):
            body = self.edit("\tadd\tx17, x17, #8", "\t" + insn)
            self.assert_reports(body, "address base x17 is not derived", "str\tx16, [x17, #8]")

    def test_writeback_into_the_transferred_register(self):
        self.assert_reports(self.edit("\tldp\tx3, x4, [x1, #0]", "\tldr\tx1, [x1], #8\n\tldp\tx3, x4, [x1, #0]"),
                            "UNPREDICTABLE", "ldr\tx1, [x1], #8")

    def test_literal_loads(self):
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tldr\tx10, =0x1234"), "literal", "=0x1234")
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tldr\tx10, FG_T_P"), "literal", "x10, FG_T_P")

    def test_table_bounds_writes_and_symbols(self):
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tldr\tx10, [x9, #32]"),
                            "outside the 32 bytes", "[x9, #32]")
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tldp\tx10, x8, [x9, #24]"),
                            "outside the 32 bytes", "[x9, #24]")
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tadd\tx9, x9, #32\n\tldr\tx10, [x9]"),
                            "outside the 32 bytes", "[x9]")
        self.assert_reports(self.edit("\tldr\tx10, [x9, #8]", "\tldr\tx10, [x9, #8]\n\tstr\tx3, [x9]"),
                            "write to a constant table", "str\tx3, [x9]")
        unsized = source(GOOD).replace("\t.quad 0x7fffffffffffffff", "\t.zero fg_n")
        found = self.run_checker(unsized)[1]
        self.assertTrue(any("size of .Lfg_t_p is not known" in f[2] and f[0] == self.line_of(unsized, "x9, #8]")
                            for f in found), found)
        self.assert_reports(self.edit("\tadr\tx9, FG_T_P", "\tadr\tx9, fg_elsewhere"),
                            "not a constant table of this file", "fg_elsewhere")
        self.assert_reports(self.edit("\tadd\tx11, x11, :lo12:FG_T_P", "\tadd\tx11, x9, :lo12:FG_T_P"),
                            "does not hold that page", "x9, :lo12:")
        self.assert_reports(self.edit("\tadd\tx11, x11, :lo12:FG_T_P\n", ""),
                            "page (adrp) without its :lo12: offset", "[x11, #16]")

    # 3. stack and ABI
    def test_callee_saved_written_before_it_is_saved(self):
        body = self.edit("\tstp\tx19, x20, [sp, #-48]!", "\tsub\tsp, sp, #48\n\tstr\tx20, [sp, #8]") \
            .replace("\tldp\tx19, x20, [sp], #48", "\tldr\tx20, [sp, #8]\n\tadd\tsp, sp, #48")
        self.assert_reports(body, "callee-saved x19 written before it is saved", "mul\tx19, x3, x5")

    def test_callee_saved_not_restored(self):
        self.assert_reports(self.edit("\tldp\tx19, x20, [sp], #48", "\tldp\tx20, x19, [sp], #48"),
                            "callee-saved x19 does not hold its entry value at ret", "\tret")
        # the save slot overwritten before the reload
        self.assert_reports(self.edit("\tldr\td8, [sp, #32]", "\tldr\td8, [sp, #32]\n\tstr\tx3, [sp, #0]"),
                            "callee-saved x19 does not hold its entry value", "\tret")

    def test_d8_clobbered(self):
        body = self.edit("\tstr\td8, [sp, #32]\n", "").replace("\tldr\td8, [sp, #32]\n", "")
        self.assert_reports(body, "callee-saved d8 (the low half of v8) written before it is saved",
                            "fmov\td8, x19")
        for insn in ("movi\tv9.2d, #0", "ldr\tq10, [x1]", "fmov\ts11, w3", "ins\tv12.d[0], x3"):
            self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\t%s\n\tmul\tx21, x4, x6" % insn),
                                "written before it is saved", insn)
        # the upper half of v8-v15 is the caller's to save
        self.assertEqual(self.run_checker(source(self.edit("\tmul\tx21, x4, x6",
                                                           "\tins\tv12.d[1], x3\n\tmul\tx21, x4, x6")))[1], [])

    def test_frame_and_link_registers(self):
        self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\tmov\tx30, x3\n\tmul\tx21, x4, x6"),
                            "callee-saved x30 (the link register) written before it is saved", "x30, x3")
        self.assert_reports(self.edit("\tldp\tx29, x21, [sp, #16]", "\tldr\tx21, [sp, #24]"),
                            "x29 (the frame pointer) does not hold its entry value at ret", "\tret")

    def test_platform_register(self):
        for insn in ("mov\tx18, x3", "add\tx3, x3, x18", "ldr\tx3, [x18]", "ldr\tx3, [x1, x18]", "mov\tw18, #1"):
            self.assert_reports(self.edit("\tmul\tx21, x4, x6", "\t%s\n\tmul\tx21, x4, x6" % insn),
                                "x18 (the platform register)", insn)

    def test_sp_unbalanced(self):
        self.assert_reports(self.edit("[sp], #48", "[sp], #32"), "stack unbalanced at ret", "\tret")
        self.assert_reports(self.edit("\tmov\tsp, x29\n", "\tsub\tsp, sp, #16\n"), "stack unbalanced", "\tret")

    def test_sp_alignment_and_range(self):
        self.assert_reports(self.edit("\tmov\tx29, sp", "\tsub\tsp, sp, #8\n\tadd\tsp, sp, #8\n\tmov\tx29, sp"),
                            "not of 16", "sub\tsp, sp, #8")
        self.assert_reports(self.edit("\thint\t#34", "\thint\t#34\n\tadd\tsp, sp, #16\n\tsub\tsp, sp, #16"),
                            "sp raised above its entry value", "add\tsp, sp, #16")
        for insn in ("and\tsp, x3, #-16", "add\tsp, sp, x3", "mov\tsp, x3"):
            self.assert_reports(self.edit("\tmov\tsp, x29", "\t" + insn), "sp changed other than", insn)

    def test_stack_accesses_outside_the_frame(self):
        self.assert_reports(self.edit("\tstr\tx2, [sp, #40]", "\tstr\tx2, [sp, #-8]"), "below sp", "[sp, #-8]")
        self.assert_reports(self.edit("\tstr\tx2, [sp, #40]", "\tstr\tx2, [sp, #48]"),
                            "at or above the entry sp", "[sp, #48]")
        self.assert_reports(self.edit("\tldr\tx2, [sp, #40]", "\tldp\tx2, x3, [sp, #40]"),
                            "at or above the entry sp", "ldp\tx2, x3")
        # after the frame is released, its slots are gone
        body = self.edit("\tldp\tx19, x20, [sp], #48", "\tldp\tx19, x20, [sp], #48\n\tldr\tx3, [sp, #0]")
        self.assert_reports(body, "at or above the entry sp", "ldr\tx3, [sp, #0]")

    def test_bti_landing_pad(self):
        body = self.edit("\thint\t#34\t// bti c: an indirect call may land here\n", "")
        self.assert_reports(body, "not a BTI landing pad", "stp\tx19, x20")
        self.assert_reports(self.edit("\thint\t#34", "\tbti\tj"), "not a BTI landing pad", "bti\tj")
        self.assertEqual(self.run_checker(source(body), "macho")[1], [])   # no BTI on Mach-O

    def test_property_note(self):
        self.assert_reports(GOOD, "no GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI", None,
                            note=NOTE.replace("4, 3  /*", "4, 2  /*"))
        self.assert_reports(GOOD, "no GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI", None,
                            note=NOTE.replace("0xc0000000", "0xc0000002"))
        self.assert_reports(GOOD, "do not parse", None, note=NOTE.replace(".long 4, 16, 5", ".long 4, 24, 5"))
        no_note = re.sub(r'\.section \.note\.gnu\.property.*?\.p2align 3\n\.p2align 3\n', "",
                         NOTE.replace("BTI|PAC */\n.p2align 3", "BTI|PAC */\n.p2align 3\n.p2align 3"),
                         flags=re.S)
        self.assertNotIn("gnu.property", no_note)
        self.assert_reports(GOOD, "no GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI", None, note=no_note)
        self.assertEqual(self.run_checker(source(GOOD, note=no_note), "macho")[1], [])
        self.assert_reports(GOOD, "no .note.GNU-stack", None,
                            note=NOTE.replace('.section .note.GNU-stack,"",%progbits\n', ""))

    def test_return_address_stored_under_pac(self):
        self.assert_reports(self.edit("\tstr\tx2, [sp, #40]", "\tstr\tx30, [sp, #40]"),
                            "return address (x30) stored to memory unsigned", "x30, [sp, #40]")
        self.assert_reports(self.edit("\tmov\tx17, x0", "\tmov\tx9, x30\n\tstr\tx9, [x0, #16]\n\tmov\tx17, x0"),
                            "return address (x30) stored to memory unsigned", "x9, [x0, #16]")


class Mutated(Checker):
    """Real generated kernels with one instruction changed are reported."""

    def mutate(self, pattern, repl, message):
        path = next(p for p in SHIPPED if p.endswith("fg_p256_aarch64.S"))
        with open(path) as f:
            text = f.read()
        bad, n = re.subn(pattern, repl, text, count=1)
        self.assertEqual(n, 1, pattern)
        found = self.run_checker(bad)[1]
        self.assertTrue(any(message in f[2] for f in found), (pattern, found))

    def test_mutations(self):
        self.mutate(r"\tldr\t(x\d+), \[(x\d+), #8\]", r"\tldr\t\1, [\2, \1]", "register offset")
        self.mutate(r"\tadds\t", "\tudiv\t", "integer division")
        self.mutate(r"\tldp\tx19, x20, \[sp, #0\]\n", "", "callee-saved x19 does not hold")
        self.mutate(r"\tadd\tsp, sp, #(\d+)\n", "", "stack unbalanced")
        self.mutate(r"\thint\t#34[^\n]*\n", "", "not a BTI landing pad")
        self.mutate(r"\tcsel\t(x\d+), (x\d+), (x\d+), cs\n", r"\tcsel\t\1, \2, \3, cs\n\tb.cs\t1f\n1:\n",
                    "control flow")
        self.mutate(r"\tldp\t(x\d+), (x\d+), \[x1, #0\]", r"\tldp\t\1, \2, [x1, #0]\n\tldr\tx1, [\1]",
                    "not derived from a pointer argument")


if __name__ == "__main__":
    unittest.main()
