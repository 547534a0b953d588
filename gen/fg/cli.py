# SPDX-License-Identifier: MIT OR Apache-2.0
"""Command line: gen/fieldgen [--config FILE | --name N --modulus M --byte-order B ...] [--out DIR]
[--field NAME] [--force] [--check | --list | --costs] [--version]; docs/generator.md."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import signal
import sys

from . import analysis, dispatch, emit_c, output, spec, targets, vectors

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = output.MARKER


def _field_outputs(fs, command, config):
    """(name, the names of the targets with kernels for it (fields.cmake's
    FIELDGEN_TARGET_<t>_FIELDS), {relative path: text}) of one field, in one
    direction: the frozen model
    (analysis), each target's kernel set built from it, the one dispatch plan
    built from those, then the renderers: the C files, each target's files,
    the vectors."""
    out = {}
    fa = analysis.analyze(fs)
    sets = [(t, t.plan(fa)) for t in targets.TARGETS]
    plan = dispatch.build(sets)
    out.update(emit_c.emit(fa, sets, plan, command, config))

    def comment(what):      # a target file's generated-file header, as a C comment
        return "/*\n" + emit_c.header_comment(fa, what, command, config, " * ") + " */\n"
    for t, ks in sets:
        if ks:
            out.update(t.emit(fa, ks, comment))
    hdr = emit_c.header_comment(fa, "known-answer vectors (Python integers)", command, config, "# ")
    out.update(vectors.emit(fa, hdr))
    return fs.name, tuple(t.NAME for t, ks in sets if ks), out


def _quiet_worker():
    """Workers ignore SIGINT (a Ctrl-C reaches the whole process group): the
    parent takes it and terminates them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _per_field(fields, command, config):
    """_field_outputs of every field, in the config's order. The fields are
    independent, so with more than one CPU they are generated in forked worker
    processes (the extra test primes: 23 s -> 12 s on 2 cores); the result is
    the same text either way. FIELDGEN_JOBS=N caps the processes (1: none).
    An interrupt terminates the workers before anything is written."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    env = os.environ.get("FIELDGEN_JOBS", "")
    jobs = min(len(fields), int(env) if env.isdigit() and int(env) > 0 else cpus)
    args = [(fs, command, config) for fs in fields]
    if jobs >= 2 and "fork" in multiprocessing.get_all_start_methods():
        try:
            pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet_worker)
        except OSError:                 # no working semaphores (some containers): one process
            pool = None
        if pool is not None:
            # the widest fields first (they take longest), then back to the config's order
            order = sorted(range(len(args)), key=lambda i: -fields[i].p.bit_length())
            try:
                done = pool.starmap_async(_field_outputs, [args[i] for i in order], chunksize=1).get(24 * 3600)
                pool.close()
                result = [None] * len(args)
                for i, r in zip(order, done):
                    result[i] = r
                return result
            finally:
                pool.terminate()
                pool.join()
    return [_field_outputs(*a) for a in args]


def fields_cmake(names, targets_of, command, config):
    """fields.cmake: the fields, those with some target's assembly, and the
    target table (targets.cmake_table); targets_of: {field: target names}."""
    fields_of = {}
    for name in names:
        for t in targets_of[name]:
            fields_of.setdefault(t, []).append(name)
    return (f"# {MARKER} Regenerate with: {output.comment_text(command)}\n"
            f"# Source: {output.comment_text(config)}\n"
            f"# {output.SPDX}\n"
            f"set(FIELDGEN_FIELDS {' '.join(names)})\n"
            f"set(FIELDGEN_ASM_FIELDS {' '.join(n for n in names if targets_of[n])})\n"
            "# the assembly targets (gen/fg/targets): each one's processors (a regular\n"
            "# expression on CMAKE_SYSTEM_PROCESSOR), the cache option that turns it on,\n"
            "# its help text, its levels above c and the fields with its fg_NAME_<target>.S\n"
            + targets.cmake_table(fields_of))


def build_outputs(fields, command, config):
    """{relative path: text} of every file a full run renders (no manifest)."""
    out = {}
    names, targets_of = [], {}
    for name, have, files in _per_field(fields, command, config):
        out.update(files)
        names.append(name)
        targets_of[name] = have
    out["fields.cmake"] = fields_cmake(names, targets_of, command, config)
    return out


def plan_run(fields, selected, out_dir, command, config, force=False):
    """What a run writes: (texts, new manifest, old manifest, rendered field
    names). fields: the config's FieldSpecs in order; selected: the names to
    (re)generate (the others keep their manifest entries and files: --field).
    A selected field is rendered unless its key and its files on disk match
    the old manifest (and not force). Raises output.ManifestError."""
    old = output.read_manifest(out_dir)
    new = output.Manifest()
    names = [fs.name for fs in fields]
    if old is not None and set(selected) != set(names):   # --field: the rest stays as it is
        for name, entry in old.fields.items():
            if name not in selected:
                new.fields[name] = entry
                new.files.update({rel: old.files[rel] for rel in old.files_of(name)})
    todo = []
    for fs in fields:
        if fs.name not in selected:
            continue
        key = output.field_key(fs, command, config)
        if (not force and old is not None and old.fields.get(fs.name, (None,))[0] == key
                and output.intact(out_dir, old, fs.name)):
            new.fields[fs.name] = old.fields[fs.name]
            new.files.update({rel: old.files[rel] for rel in old.files_of(fs.name)})
        else:
            todo.append((fs, key))
    texts = {}
    for (fs, key), (name, have, files) in zip(todo, _per_field([fs for fs, _k in todo], command, config)):
        new.fields[name] = (key, have)
        for rel, text in files.items():
            new.files[rel] = (name, output.digest(text))
            texts[rel] = text
    listed = [n for n in names if n in new.fields] + sorted(set(new.fields) - set(names))
    cmake = fields_cmake(listed, {n: new.fields[n][1] for n in listed}, command, config)
    texts["fields.cmake"] = cmake
    new.files["fields.cmake"] = (output.GLOBAL, output.digest(cmake))
    texts[output.MANIFEST] = new.text(names)
    return texts, new, old, [fs.name for fs, _k in todo]

def inv_plan(sg):
    """The safegcd schedule in words, e.g. "safegcd, 750 divsteps (bound 741)
    in 13 batches of 60, the last of 30"."""
    last = "" if sg["last_halves"] == 2 else ", the last of 30"
    return (f"safegcd, {sg['iterations']} divsteps (bound {sg['bound']}) in {sg['batches']} "
            f"batches of 60{last}")


def wide_plan(fa):
    """How from_bytes_wide reduces its up to 2 BYTES bytes, e.g. "one redc and
    one mul, the high half first reduced by conditional subtractions of 2p, p"."""
    if fa.form != "montgomery":
        return "one redc"
    if fa.wide_steps == 0:
        return "one redc and one mul (every input is within redc's bound)"
    n = fa.wide_steps
    subs = ("a conditional subtraction of p" if n == 1 else
            "conditional subtractions of " + ("2p, p" if n == 2 else f"2^{n - 1} p, ..., 2p, p"))
    return f"one redc and one mul, the high half first reduced by {subs}"


def describe(fa):
    rows = [
        ("bits", fa.bits), ("limbs", fa.n), ("spare bits", fa.spare_bits),
        ("p mod 4", fa.p_mod4), ("p mod 8", fa.p_mod8),
        ("form", fa.form), ("special form", fa.special_form), ("reduction", fa.reduction),
        ("redc sums", fa.redc_sums),
        ("lazy", f"mul_lazy, sqr_lazy (4p <= 2^{64 * fa.n}); fixed exponents on them" if fa.lazy
         else f"mul_lazy, sqr_lazy, add_lazy, sub_lazy, mul_small_lazy, canon (any values below 2^{64 * fa.n})"
         if fa.lazy_pm
         else "none" + (f" (4p > 2^{64 * fa.n})" if fa.form == "montgomery" else " (not Montgomery form)")),
        ("sqrt", fa.sqrt_method + (f" (2-adicity {fa.ts_s}: {fa.tonelli['text']}, tables {fa.tonelli['bytes']} bytes)"
                                    if fa.sqrt_method == "tonelli_shanks" else "")),
        ("inv", inv_plan(fa.safegcd)),
        ("wide", wide_plan(fa)),
    ]
    if fa.sqrt_ratio_method:
        how = {"p3mod4": "one power (p-3)/4", "p5mod8": "one power (p-5)/8 and four candidates",
               "generic": "an inversion, a Legendre symbol and one sqrt"}[fa.sqrt_ratio_method]
        rows.append(("sqrt_ratio", f"Z = {fa.sqrt_ratio_z}: {fa.sqrt_ratio_method}, {how}"))
    if fa.fp2 is not None:
        ch = fa.chains.get("fp2_sqrt")
        rows.append(("fp2", f"u^2 = {fa.fp2.nr}; sqrt: " + (
            f"one root and t^((p-3)/4) ({ch.squarings} squarings, {ch.multiplications} multiplications)"
            if ch else "two roots, a Legendre symbol and an inversion")))
    lines = [f"{fa.name}: p = {fa.modulus_text}"]
    lines += [f"  {k:<13} {v}" for k, v in rows]
    return "\n".join(lines)


FLAG_OF_KEY = {None: "--name", "modulus": "--modulus", "byte_order": "--byte-order",
               "extension": "--extension", "extension.non_residue": "--extension",
               "extension.degree": "--extension", "sqrt_ratio_z": "--sqrt-ratio-z"}


def _toml_string(text):
    """text as a TOML basic string (every control character and quote escaped)."""
    return '"' + "".join(f"\\u{ord(c):04x}" if c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7f else c
                         for c in text) + '"'


def _toml_int_or_string(text):
    """An integer flag's value as a TOML integer, or as a string when it is none
    (the spec then rejects it with the config's message)."""
    try:
        return str(int(text, 0))
    except ValueError:
        return _toml_string(text)


def one_field_toml(args):
    """The config table the one-field flags stand for: it goes through the same
    validation as a [table] of a fields file."""
    lines = [f"[{_toml_string(args.name)}]", f"modulus = {_toml_string(args.modulus)}",
             f"byte_order = {_toml_string(args.byte_order)}"]
    if args.extension is not None:
        lines.append(f"extension = {{ degree = 2, non_residue = {_toml_int_or_string(args.extension)} }}")
    if args.sqrt_ratio_z is not None:
        lines.append(f"sqrt_ratio_z = {_toml_int_or_string(args.sqrt_ratio_z)}")
    return "\n".join(lines) + "\n"


def check_one_line(fields, path):
    """Modulus text reaches every file's header: one printable line only (the
    expression parser alone would take a newline as a space)."""
    for fs in fields:
        problem = output.one_line_problem(fs.modulus_text)
        if problem:
            raise spec.SpecError(path, fs.name, "modulus", problem)


def _parser():
    ap = argparse.ArgumentParser(prog="gen/fieldgen", description=(
        "Generate specialized C and x86-64 assembly for the prime fields in a fields.toml, or for one "
        "field given on the command line (--name, --modulus, --byte-order). Exit status: 0 done (or "
        "up to date), 1 --check found stale files, 2 bad config, flag or manifest, 3 no suitable Python."))
    ap.add_argument("--version", action="version", version=f"fieldgen {output.version()}")
    ap.add_argument("--config", help="fields file (default: fields.toml at the repository root)")
    ap.add_argument("--out", help="output directory (default: generated/ at the repository root)")
    ap.add_argument("--field", action="append", metavar="NAME",
                    help="(re)generate only this field of the config (repeatable); the other fields' "
                         "files stay as they are")
    ap.add_argument("--test-primes", action="store_true",
                    help="the config holds the project's extra test primes: name each field test_NAME "
                         "(a prefix no user field may take)")
    ap.add_argument("--force", action="store_true",
                    help="render every selected field even when its inputs and files are unchanged")
    one = ap.add_argument_group("one field without a config file (all of --name, --modulus, --byte-order)")
    one.add_argument("--name", help="the field's C name (fg_NAME_*)")
    one.add_argument("--modulus", help="the prime, an expression such as '2^255 - 19'")
    one.add_argument("--byte-order", help="big or little")
    one.add_argument("--extension", metavar="NON_RESIDUE",
                     help="also generate Fp2 = Fp[u]/(u^2 - NON_RESIDUE)")
    one.add_argument("--sqrt-ratio-z", metavar="Z", help="also generate sqrt_ratio with this non-residue Z")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 and name the stale files if the output differs")
    mode.add_argument("--list", action="store_true", help="print each field's analysis and exit")
    mode.add_argument("--costs", action="store_true",
                      help="print what each x86-64 kernel executes (64x64 multiplications, port-0/6 "
                           "instructions, ALU instructions), its port floor in cycles and the levels that "
                           "run it; write nothing")
    return ap


def main(argv=None):
    ap = _parser()
    args = ap.parse_args(argv)
    one_field = [f for f, v in (("--name", args.name), ("--modulus", args.modulus),
                                ("--byte-order", args.byte_order), ("--extension", args.extension),
                                ("--sqrt-ratio-z", args.sqrt_ratio_z)) if v is not None]
    if one_field:
        missing = [f for f, v in (("--name", args.name), ("--modulus", args.modulus),
                                  ("--byte-order", args.byte_order)) if v is None]
        if missing:
            ap.error(f"{one_field[0]} needs {', '.join(missing)} (one field: --name, --modulus and --byte-order)")
        for flag, v in (("--config", args.config), ("--field", args.field),
                        ("--test-primes", args.test_primes or None)):
            if v is not None:
                ap.error(f"{flag} is not allowed with --name (one field without a config file)")

    out_dir = args.out or os.path.join(REPO, "generated")
    q = shlex.quote
    if one_field:
        config = shown_config = "command line"
        command = f"gen/fieldgen --name {q(args.name)} --modulus {q(args.modulus)} --byte-order {q(args.byte_order)}"
        command += f" --extension {q(args.extension)}" if args.extension is not None else ""
        command += f" --sqrt-ratio-z {q(args.sqrt_ratio_z)}" if args.sqrt_ratio_z is not None else ""
    else:
        config = args.config or os.path.join(REPO, "fields.toml")
        shown_config = args.config or "fields.toml"
        command = "gen/fieldgen" + (f" --config {q(args.config)}" if args.config else "")
        command += " --test-primes" if args.test_primes else ""
    if args.out:
        command += f" --out {q(args.out)}"

    try:
        if one_field:
            fields = spec.loads(one_field_toml(args), config)
        else:
            fields = spec.load(config, test_primes=args.test_primes)
        check_one_line(fields, config)
    except spec.SpecError as e:
        if one_field:
            flag = FLAG_OF_KEY.get(e.key, "--" + str(e.key).replace("_", "-"))
            where = f"{e.path}: field '{e.field}'" + (f", key '{e.key}'" if e.key else "")
            print(f"fieldgen: error: {where} ({flag}): {e.detail}", file=sys.stderr)
        else:
            print(f"fieldgen: error: {e}", file=sys.stderr)
        return 2
    names = [fs.name for fs in fields]
    selected = list(names)
    if args.field:
        unknown = [n for n in args.field if n not in names]
        if unknown:
            print(f"fieldgen: error: {config}: field '{unknown[0]}' (--field): not in the config "
                  f"(its fields: {', '.join(names)})", file=sys.stderr)
            return 2
        selected = [n for n in names if n in args.field]
    chosen = [fs for fs in fields if fs.name in selected]
    if args.list:
        print("\n".join(describe(analysis.analyze(fs)) for fs in chosen))
        return 0
    if args.costs:
        print("floor = max(mults, p06 / 2) cycles: MULX/MUL one per cycle, ADC/SBB/ADCX/ADOX/CMOVcc/SETcc/"
              "shifts two per cycle (ports 0 and 6; research/ports/)")
        print("\n".join(targets.costs_report(analysis.analyze(fs)) for fs in chosen))
        return 0
    try:
        texts, new, old, _rendered = plan_run(fields, selected, out_dir, command, shown_config, args.force)
    except output.ManifestError as e:
        print(f"fieldgen: error: {e}", file=sys.stderr)
        return 2
    changes, removals = output.plan(out_dir, texts, old, new)
    shown = [rel for rel, _t in changes if rel != output.MANIFEST]
    if args.check:
        stale = [(rel, "missing" if not os.path.lexists(os.path.join(out_dir, rel)) else "differs")
                 for rel, _t in changes]
        stale += [(rel, "not generated from the config any more") for rel in removals]
        for rel, why in sorted(stale):
            print(f"fieldgen: stale: {os.path.join(out_dir, rel)} ({why})", file=sys.stderr)
        if stale:
            print(f"fieldgen: {len(stale)} stale file(s); regenerate with: {command}", file=sys.stderr)
            return 1
        print(f"fieldgen: {out_dir} is up to date ({len(new.files)} files)")
        return 0
    if old is None and os.path.isdir(out_dir):
        legacy = output.legacy_candidates(out_dir, new.files)
        for rel in legacy:
            print(f"fieldgen: note: not removed (no manifest yet, so not known to be fieldgen's): "
                  f"{os.path.join(out_dir, rel)}", file=sys.stderr)
    output.write_atomically(out_dir, changes, removals)
    for rel in shown + [rel for rel, _t in changes if rel == output.MANIFEST]:   # the manifest: named, not counted
        print(f"fieldgen: wrote {os.path.join(out_dir, rel)}")
    for rel in removals:
        print(f"fieldgen: removed {os.path.join(out_dir, rel)}")
    print(f"fieldgen: {len(new.files)} files, {len(shown)} changed, {len(removals)} removed")
    return 0
