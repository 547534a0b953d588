# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 4: the dispatch plan of one field, built once from the targets'
kernel sets (gen/fg/targets): for every op, which selector bits of the
runtime's selector word run which kernel, in the order the generated
dispatcher tests them. It reads the kernel sets and writes nothing back; the
C templates render it.

The selector word (runtime/fg_cpu.h) has one bit per (level, tuning) pair,
bit level + WIDTH * tuning, where level 0 is the portable C and a target's
levels follow in its LEVELS order, its tunings in its TUNES order. A kernel
set gives `runs`: op -> {(level, tune): kernel, or "c" for the C path} over
the selectors it decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# FG_ISA_LEVELS in runtime/fg_cpu.h: the selector bits per tuning (the most
# levels any architecture names, c included); tests/gen/test_dispatch.py
# checks the two agree
WIDTH = 5


def sel_bit(target, level, tune):
    """The selector bit of (level, tune) of a target: FG_SEL in runtime/fg_cpu.h."""
    return 1 << ((("c",) + target.LEVELS).index(level) + WIDTH * target.TUNES.index(tune))


def masks(target, kernel_at):
    """kernel_at: {(level, tune): kernel (a level, or a level's variant such as
    adx_zen) or "c"/None (the C code)} over the target's selectors. ->
    ((kernel, mask, comment, hot), ...): one test per kernel, the kernel of
    the first tuning's top level first, then by level, highest first (a
    variant just above its level); hot: the kernel runs at some tuning's top
    level (the template marks its test likely, so the compiler lays that
    call on the straight path)."""
    levels, tunes = ("c",) + target.LEVELS, target.TUNES
    found, users = {}, {}
    for tune in tunes:
        for level in levels:
            k = kernel_at.get((level, tune))
            if k is None or k == "c":
                continue
            found[k] = found.get(k, 0) | sel_bit(target, level, tune)
            users.setdefault(k, {}).setdefault(tune, []).append(level)
    top = kernel_at.get((levels[-1], tunes[0]))
    rank = lambda k: levels.index(target.kernel_level(k)) + (0.5 if k != target.kernel_level(k) else 0)
    order = sorted(found, key=lambda k: (k != top, -rank(k)))
    out = []
    for k in order:
        # tunings with the same levels share one entry: "x86_64; zen, zen4: adx, ifma"
        groups = {}
        for tune in tunes:
            if tune in users[k]:
                groups.setdefault(tuple(users[k][tune]), []).append(tune)
        parts = [("" if group == [tunes[0]] else ", ".join(group) + ": ") + ", ".join(lv)
                 for lv, group in groups.items()]
        hot = any(levels[-1] in users[k].get(tune, ()) for tune in tunes)
        out.append((k, found[k], "; ".join(parts), hot))
    return tuple(out)


@dataclass(frozen=True)
class Plan:
    """select: (target name, op) -> masks(); tuned: under some target some op
    runs another kernel at some level under another tuning than the first."""
    select: dict = field(default_factory=dict)
    tuned: bool = False

    def sel(self, target_name, op):
        """The branches of op's dispatcher for one target, () for none."""
        return self.select.get((target_name, op), ())


def build(kernel_sets):
    """The plan from [(target module, its kernel set)] (empty sets included:
    they have no `runs`)."""
    select, tuned = {}, False
    for target, ks in kernel_sets:
        for op, kernel_at in (getattr(ks, "runs", None) or {}).items():
            select[(target.NAME, op)] = masks(target, kernel_at)
            first = target.TUNES[0]
            tuned = tuned or any((kernel_at.get((lv, t)) or "c") != (kernel_at.get((lv, first)) or "c")
                                 for lv, t in kernel_at)
    return Plan(select=select, tuned=tuned)
