# SPDX-License-Identifier: MIT OR Apache-2.0
"""Unit tests of model.py's parsing: python3 -m unittest research/aarch64/test_model.py

The canned llvm-mca reports are real outputs (LLVM 14.0.6 and 19.1.7, on a
five-instruction block), so a change of llvm-mca's format shows here as a
parser failure rather than as a wrong table. The last tests run the tools
themselves and are skipped when they are missing.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model  # noqa: E402

MCA14_N1 = """\
Iterations:        100
Instructions:      500
Total Cycles:      209
Total uOps:        500

Dispatch Width:    3
uOps Per Cycle:    2.39
IPC:               2.39
Block RThroughput: 2.0


Instruction Info:
[1]: #uOps
[2]: Latency
[3]: RThroughput
[4]: MayLoad
[5]: MayStore
[6]: HasSideEffects (U)

[1]    [2]    [3]    [4]    [5]    [6]    Instructions:
 1      5     1.00                        mul	x1, x2, x3
 1      6     1.00                        umulh	x4, x2, x3
 1      1     0.50                        adds	x5, x1, x4
 1      4     1.00    *                   ldr	x7, [x0]
 1      1     1.00                  U     ret


Resources:
[0]   - A57UnitB
[1.0] - A57UnitI
[1.1] - A57UnitI
[2]   - A57UnitL
[3]   - A57UnitM
[4]   - A57UnitS
[5]   - A57UnitW
[6]   - A57UnitX


Resource pressure per iteration:
[0]    [1.0]  [1.1]  [2]    [3]    [4]    [5]    [6]    
1.00   0.50   0.50   1.00   2.00    -      -      -     
"""

MCA19_N1_NOVIEWS = """\
Iterations:        100
Instructions:      500
Total Cycles:      606
Total uOps:        500

Dispatch Width:    8
uOps Per Cycle:    0.83
IPC:               0.83
Block RThroughput: 6.0
"""

MCA19_V1_RESOURCES = """\
Iterations:        1
Instructions:      5
Total Cycles:      7
Total uOps:        5

Dispatch Width:    15
uOps Per Cycle:    0.71
IPC:               0.71
Block RThroughput: 1.0


Resources:
[0.0] - V1UnitB
[0.1] - V1UnitB
[1.0] - V1UnitD
[1.1] - V1UnitD
[2]   - V1UnitL2
[3.0] - V1UnitL01
[3.1] - V1UnitL01
[4]   - V1UnitM0
[5]   - V1UnitM1
[6.0] - V1UnitS
[6.1] - V1UnitS
[7]   - V1UnitV0
[8]   - V1UnitV1
[9]   - V1UnitV2
[10]  - V1UnitV3


Resource pressure per iteration:
"""

STDERR = """\
warning: found a return instruction in the input assembly sequence.
note: program counter updates are ignored.
warning: found a return instruction in the input assembly sequence.
"""

OBJDUMP = """\

h:	file format elf64-littleaarch64

Disassembly of section .text:

0000000000400780 <ecp_nistz256_mul_mont>:
  400780:      	hint	#25
  400784:      	stp	x29, x30, [sp, #-32]!
  400788:      	ldr	x12, 0x400608 <$d+0x8>
  40078c:      	bl	0x400980 <__ecp_nistz256_mul_mont>
  400790:      	mov	x8, #-4294967296        // =0xffffffff00000000
  400794:      	adrp	x17, 0x41f000 <OPENSSL_armv8_rsa_neonized>
  400798:      	b.ne	0x4007a0 <ecp_nistz256_mul_mont+0x20>
  40079c:      	tbnz	w3, #3, 0x400780 <ecp_nistz256_mul_mont>
  4007a0:      	cbz	x21, 0x4007cc <bn_mul_mont+0xcc>
  4007a4:      	ret
"""


class ParseMca(unittest.TestCase):
    def test_llvm14_report_with_views(self):
        r = model.parse_mca(MCA14_N1)
        self.assertEqual(r["iterations"], 100)
        self.assertEqual(r["instructions"], 500)
        self.assertEqual(r["total_cycles"], 209)
        self.assertEqual(r["total_uops"], 500)
        self.assertEqual(r["dispatch_width"], 3)
        self.assertAlmostEqual(r["ipc"], 2.39)
        self.assertAlmostEqual(r["block_rthroughput"], 2.0)
        self.assertAlmostEqual(r["cycles_per_iteration"], 2.09)
        self.assertEqual(r["resources"][0], "A57UnitB")
        self.assertEqual(len(r["resources"]), 8)

    def test_llvm19_report_without_views(self):
        r = model.parse_mca(MCA19_N1_NOVIEWS)
        self.assertEqual(r["total_cycles"], 606)
        self.assertAlmostEqual(r["block_rthroughput"], 6.0)
        self.assertEqual(r["resources"], [])

    def test_model_names(self):
        self.assertEqual(model.model_of(model.parse_mca(MCA14_N1)["resources"]),
                         "Cortex-A57")
        v1 = model.parse_mca(MCA19_V1_RESOURCES)
        self.assertEqual(len(v1["resources"]), 15)
        self.assertEqual(model.model_of(v1["resources"]), "Neoverse V1")
        self.assertTrue(model.model_of(["FooUnitX"]).startswith("unknown"))
        self.assertTrue(model.model_of([]).startswith("unknown"))

    def test_truncated_report_fails(self):
        cut = MCA14_N1.split("Block RThroughput")[0]
        with self.assertRaisesRegex(ValueError, "block_rthroughput"):
            model.parse_mca(cut)

    def test_not_a_report_fails(self):
        with self.assertRaisesRegex(ValueError, "one llvm-mca report"):
            model.parse_mca("error: invalid instruction\n")

    def test_two_regions_fail(self):
        with self.assertRaisesRegex(ValueError, "one llvm-mca report"):
            model.parse_mca(MCA14_N1 + MCA19_N1_NOVIEWS)

    def test_inconsistent_counts_fail(self):
        with self.assertRaisesRegex(ValueError, "multiple"):
            model.parse_mca(MCA19_N1_NOVIEWS.replace("Instructions:      500",
                                                     "Instructions:      501"))

    def test_notes_deduplicated(self):
        self.assertEqual(model.mca_notes(STDERR), [
            "warning: found a return instruction in the input assembly sequence.",
            "note: program counter updates are ignored."])


class Disassembly(unittest.TestCase):
    def setUp(self):
        self.dis = model.parse_objdump(OBJDUMP)

    def test_addresses_and_comments(self):
        self.assertEqual(len(self.dis), 10)
        self.assertEqual(self.dis[0x400790], ("mov", "x8, #-4294967296"))
        self.assertEqual(self.dis[0x4007a4], ("ret", ""))

    def test_mca_lines(self):
        line = lambda a: model.to_mca_line(*self.dis[a])
        self.assertEqual(line(0x400780), "hint\t#25")
        self.assertEqual(line(0x400788), "ldr\tx12, .Lt")
        self.assertEqual(line(0x40078c), "b\t.Lt")          # a call becomes a branch
        self.assertEqual(line(0x400794), "adrp\tx17, .Lt")
        self.assertEqual(line(0x400798), "b.ne\t.Lt")
        self.assertEqual(line(0x40079c), "tbnz\tw3, #3, .Lt")
        self.assertEqual(line(0x4007a0), "cbz\tx21, .Lt")
        self.assertEqual(line(0x400784), "stp\tx29, x30, [sp, #-32]!")
        self.assertEqual(model.to_mca_line("b", "0x1234"), "b\t.Lt")
        self.assertEqual(model.to_mca_line("blr", "x3"), "br\tx3")

    def test_data_is_refused(self):
        with self.assertRaises(model.ToolError):
            model.to_mca_line(".word", "0x12345678")

    def test_shape(self):
        instrs = [self.dis[a] for a in sorted(self.dis)]
        s = model.shape_of(instrs, [1, 2, 3])
        self.assertEqual((s["calls"], s["cond_branches"], s["word"]), (1, 3, "branches"))
        self.assertEqual(model.shape_of(instrs, [1, 2, 1])["word"], "loop")
        self.assertEqual(model.shape_of([("mul", "x1, x2, x3"), ("ret", "")])["word"],
                         "straight")


class Trace(unittest.TestCase):
    LOG = "".join("Trace 0: 0x7f00 [00000000/%016x/00000001/00000201] f\n" % pc for pc in (
        0x100, 0x104,                  # main
        0x200, 0x204, 0x208,           # first call
        0x108,                         # main
        0x200, 0x300, 0x304, 0x20c,    # second call, through a callee
        0x10c, 0x110))

    def test_pcs(self):
        self.assertEqual(model.trace_pcs(self.LOG)[:3], [0x100, 0x104, 0x200])

    def test_cut(self):
        calls = model.cut_calls(model.trace_pcs(self.LOG), [0x200, 0x200], (0x100, 0x120))
        self.assertEqual(calls, [[0x200, 0x204, 0x208], [0x200, 0x300, 0x304, 0x20c]])

    def test_missing_call_fails(self):
        with self.assertRaises(model.ToolError):
            model.cut_calls(model.trace_pcs(self.LOG), [0x200] * 3, (0x100, 0x120))


class Blocks(unittest.TestCase):
    # main's block ends in a call; the callee runs a 2-instruction loop body
    # twice (its block at 0x204 is executed twice) and returns into main.
    LOG = """\
----------------
IN: main
0x00000100:  a9bf7bfd  stp      x29, x30, [sp, #-0x10]!
0x00000104:  94000000  bl       #0x200

Trace 0: 0x7f00 [00000000/0000000000000100/00000001/00000200] main
----------------
IN: f
0x00000200:  d2800049  movz     x9, #0x2

Trace 0: 0x7f40 [00000000/0000000000000200/00000001/00000200] f
----------------
IN: f
0x00000204:  f1000529  subs     x9, x9, #1
0x00000208:  54ffffe1  b.ne     #0x204

Trace 0: 0x7f80 [00000000/0000000000000204/00000001/00000200] f
Trace 0: 0x7f80 [00000000/0000000000000204/00000001/00000200] f
----------------
IN: f
0x0000020c:  d65f03c0  ret

Trace 0: 0x7fc0 [00000000/000000000000020c/00000001/00000200] f
----------------
IN: main
0x00000108:  52800000  movz     w0, #0

Trace 0: 0x7fe0 [00000000/0000000000000108/00000001/00000200] main
"""

    def test_sum_of_blocks(self):
        self.assertEqual(model.block_counts(self.LOG, [0x200], (0x100, 0x120)), [1 + 2 + 2 + 1])

    def test_unlisted_block_fails(self):
        with self.assertRaisesRegex(model.ToolError, "never listed"):
            model.block_counts(self.LOG.replace("IN: main\n0x00000108", "IN: main\n0x00000110"),
                               [0x200], (0x100, 0x120))


class Fields(unittest.TestCase):
    def test_modulus(self):
        self.assertEqual(model.eval_modulus("2^256 - 2^224 + 2^192 + 2^96 - 1"),
                         2**256 - 2**224 + 2**192 + 2**96 - 1)
        self.assertEqual(model.eval_modulus("2^250 * 3^159 - 1"), 2**250 * 3**159 - 1)
        self.assertEqual(model.eval_modulus("0xff"), 255)
        with self.assertRaises(model.ToolError):
            model.eval_modulus("__import__('os')")

    def test_lazy_kinds_call_like_mul_and_sqr(self):
        fields = {"p25519": {"p": 2**255 - 19, "n": 4}}
        rows = [model.Row("m", "x.o", "fg_p25519_mul_lazy_c", "mul_lazy", "p25519"),
                model.Row("s", "x.o", "fg_p25519_sqr_lazy_c", "sqr_lazy", "p25519")]
        src = model.harness_source(rows, fields)
        self.assertIn("void fg_p25519_mul_lazy_c(uint64_t *, const uint64_t *, "
                      "const uint64_t *);", src)
        self.assertIn("void fg_p25519_sqr_lazy_c(uint64_t *, const uint64_t *);", src)
        self.assertIn("fg_p25519_mul_lazy_c(out, a_0_0, b_0_0);", src)
        self.assertIn("fg_p25519_sqr_lazy_c(out, a_1_1);", src)


def have(*tools):
    return all(shutil.which(t) for t in tools)


class Tools(unittest.TestCase):
    @unittest.skipUnless(have(model.CROSS_CC, model.QEMU, model.OBJDUMP),
                         "needs aarch64-linux-gnu-gcc, qemu-aarch64, llvm-objdump")
    def test_qemu_counts_known_functions(self):
        work = tempfile.mkdtemp()
        try:
            model.selftest({"p256": {"p": 2**255 - 19, "n": 4}}, work, lambda m: None)
        finally:
            shutil.rmtree(work)

    @unittest.skipUnless(have("llvm-mca"), "needs llvm-mca")
    def test_mca_accepts_converted_text(self):
        dis = model.parse_objdump(OBJDUMP)
        text = model.mca_text([dis[a] for a in sorted(dis)])
        res, notes = model.run_mca("llvm-mca", "neoverse-n1", text, 10)
        self.assertEqual(res["instructions"], 10 * len(dis))


if __name__ == "__main__":
    unittest.main()
