# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 1: parse and validate fields.toml into immutable FieldSpec objects.

Nothing here knows number theory beyond "is it prime"; every derived constant
lives in analysis.py. Every error names the file, the field table and the key.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass

from . import numtheory

MIN_BITS_EXCLUSIVE = 32     # p must be >= 2^32
MAX_BITS = 1024             # at most 16 limbs of 64 bits
MAX_EXPONENT = 4096         # keeps '2^(2^...)' from eating the machine
KEYS = {
    "modulus": "the prime, as an expression string or an integer",
    "byte_order": '"big" or "little"',
    "extension": "an optional table { degree = 2, non_residue = <integer> }",
    "sqrt_ratio_z": "an optional integer Z, a quadratic non-residue mod p (RFC 9380's sqrt_ratio)",
}
OPTIONAL_KEYS = {"extension", "sqrt_ratio_z"}
MAX_NON_RESIDUE = 1 << 16   # |non_residue|: a small integer, so lazy sums stay small
MAX_SQRT_RATIO_Z = 1 << 63  # |Z|: the header emits Z as a C integer constant (int64_t)
MAX_NAME = 64               # characters in a field name
MAX_EXPR_CHARS = 4096       # characters in a modulus expression
MAX_EXPR_DEPTH = 100        # nesting of parentheses, signs and exponents in one
# Names a user's field cannot take, alone or as the first '_'-separated part:
# the runtime's symbols and macros (fg_cpu_*, fg_isa_*, fg_tune_*, FG_STATIC_*,
# FG_HAVE_*, ... in runtime/ and the templates), the generated tree's own
# entries (generated/vectors/, generated/fields.cmake), and 'test', the
# namespace of the extra test primes (gen/fieldgen --test-primes)
RESERVED_NAMES = frozenset("""bind cpu dispatch fields have isa kernel kernels library name no pragma
sel static sym test tune tunes vectors verify visibility zen""".split())
TEST_PREFIX = "test_"       # --test-primes: every name of the file gets it
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary""".split())


class SpecError(Exception):
    """A problem in the user's field description; str() is the full message."""

    def __init__(self, path, field, key, message):
        where = str(path)
        if field is not None:
            where += f": field '{field}'"
        if key is not None:
            where += f", key '{key}'"
        super().__init__(f"{where}: {message}")
        self.path, self.field, self.key, self.detail = path, field, key, message


@dataclass(frozen=True)
class FieldSpec:
    name: str
    modulus_text: str   # as written by the user (normalised for integers)
    p: int
    byte_order: str
    fp2_non_residue: int | None = None   # Fp2 = Fp[u]/(u^2 - non_residue), if configured
    sqrt_ratio_z: int | None = None      # fg_NAME_sqrt_ratio's non-residue Z, if configured


# --------------------------------------------------------------------------
# Modulus expressions: integers, + - * ^ and parentheses. A tiny recursive
# descent parser; never eval().

class ExprError(ValueError):
    def __init__(self, column, message):
        super().__init__(f"column {column}: {message}")
        self.column = column


_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")
MAX_DIGITS = 1000            # longer literals cannot be a modulus of <= 1024 bits anyway
MAX_INTERMEDIATE_BITS = 8 * MAX_BITS


def _tokenize(text):
    tokens = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        col = pos + 1
        m = _NUMBER.match(text, pos)
        if m:
            digits = m.group(0)
            if len(digits) > MAX_DIGITS:
                raise ExprError(col, f"number with {len(digits)} digits is too long")
            is_hex = digits[:2] in ("0x", "0X")
            tokens.append(("int", int(digits[2:], 16) if is_hex else int(digits, 10), col))
            pos = m.end()
        elif text[pos] in "+-*^()":
            tokens.append((text[pos], None, col))
            pos += 1
        else:
            raise ExprError(col, f"unexpected character {text[pos]!r}")
    tokens.append(("end", None, len(text) + 1))
    return tokens


def _bounded(value, col):
    if value.bit_length() > MAX_INTERMEDIATE_BITS:
        raise ExprError(col, f"value exceeds {MAX_INTERMEDIATE_BITS} bits")
    return value


def parse_expression(text):
    """Value of an arithmetic expression over integers with + - * ^ ( ).

    '^' is exponentiation, right-associative, binding tighter than unary minus
    on its left operand (-2^2 == -4). Raises ExprError with a 1-based column.
    """
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(MAX_EXPR_CHARS + 1, f"expression of {len(text)} characters is longer than {MAX_EXPR_CHARS}")
    tokens = _tokenize(text)
    pos = 0
    depth = 0

    def nest(col):
        nonlocal depth
        depth += 1
        if depth > MAX_EXPR_DEPTH:
            raise ExprError(col, f"nested more than {MAX_EXPR_DEPTH} deep (parentheses, signs, exponents)")

    def peek():
        return tokens[pos]

    def take(kind):
        nonlocal pos
        tok = tokens[pos]
        if tok[0] != kind:
            want = "a number or '('" if kind == "atom" else repr(kind)
            got = "end of expression" if tok[0] == "end" else repr(tok[0] if tok[1] is None else str(tok[1]))
            raise ExprError(tok[2], f"expected {want}, found {got}")
        pos += 1
        return tok

    def expr():
        value = term()
        while peek()[0] in "+-":
            op, _, col = take(peek()[0])
            rhs = term()
            value = _bounded(value + rhs if op == "+" else value - rhs, col)
        return value

    def term():
        value = unary()
        while peek()[0] == "*":
            col = take("*")[2]
            rhs = unary()
            if value.bit_length() + rhs.bit_length() > MAX_INTERMEDIATE_BITS + 1:
                raise ExprError(col, f"product exceeds {MAX_INTERMEDIATE_BITS} bits")
            value = _bounded(value * rhs, col)
        return value

    def unary():
        nonlocal depth
        if peek()[0] in "+-":
            sign, _, col = take(peek()[0])
            nest(col)
            value = unary()
            depth -= 1
            return -value if sign == "-" else value
        return power()

    def power():
        base = atom()
        if peek()[0] == "^":
            nonlocal depth
            col = take("^")[2]
            nest(col)
            exponent = unary()
            depth -= 1
            if exponent < 0:
                raise ExprError(col, "negative exponent")
            if exponent > MAX_EXPONENT:
                shown = str(exponent) if exponent.bit_length() < 64 else f"of {exponent.bit_length()} bits"
                raise ExprError(col, f"exponent {shown} is larger than {MAX_EXPONENT}")
            if abs(base) > 1 and (abs(base).bit_length() - 1) * exponent > MAX_INTERMEDIATE_BITS:
                raise ExprError(col, f"power exceeds {MAX_INTERMEDIATE_BITS} bits")
            return _bounded(base ** exponent, col)
        return base

    def atom():
        tok = peek()
        if tok[0] == "int":
            take("int")
            return tok[1]
        if tok[0] == "(":
            nonlocal depth
            take("(")
            nest(tok[2])
            value = expr()
            take(")")
            depth -= 1
            return value
        take("atom")  # raises with a message naming what was found

    if peek()[0] == "end":
        raise ExprError(1, "empty expression")
    value = expr()
    tok = peek()
    if tok[0] != "end":
        raise ExprError(tok[2], f"unexpected {tok[0] if tok[1] is None else tok[1]!r} after a complete expression")
    return value


# --------------------------------------------------------------------------

_TABLE_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")


def _check_duplicates(path, text):
    """tomllib rejects duplicate tables with a generic message; name them here.

    Names that differ only in case are duplicates too: FG_<NAME>_ macros collide.
    """
    seen = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _TABLE_HEADER.match(line)
        if not m:
            continue
        name = m.group(1).strip().strip('"\'')
        key = name.lower()
        if key in seen:
            first_name, first_line = seen[key]
            raise SpecError(path, name, None,
                            f"duplicate field (line {lineno}; first defined as '{first_name}' on line {first_line})")
        seen[key] = (name, lineno)


def parse_field(path, name, table):
    if not _IDENT.match(name) or name in _C_KEYWORDS:
        raise SpecError(path, name, None,
                        "field name must be a C identifier (letters, digits, '_', not starting with a digit, not a C keyword)")
    if len(name) > MAX_NAME:
        raise SpecError(path, name[:MAX_NAME] + "...", None,
                        f"field name has {len(name)} characters, above the limit of {MAX_NAME}")
    if not isinstance(table, dict):
        raise SpecError(path, name, None, "must be a table ([name] followed by key = value lines)")
    for key in table:
        if key not in KEYS:
            known = ", ".join(sorted(KEYS))
            close = difflib.get_close_matches(str(key), KEYS, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise SpecError(path, name, key, f"unknown key ({hint}known keys: {known})")
    for key in KEYS:
        if key not in table and key not in OPTIONAL_KEYS:
            raise SpecError(path, name, key, f"missing; expected {KEYS[key]}")

    raw = table["modulus"]
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise SpecError(path, name, "modulus", "must be a string expression or an integer")
    if isinstance(raw, int):
        p, text = raw, str(raw)
    else:
        text = raw
        try:
            p = parse_expression(raw)
        except ExprError as e:
            raise SpecError(path, name, "modulus", f"malformed expression {raw!r}: {e}") from None
    if p < 2 ** MIN_BITS_EXCLUSIVE:
        raise SpecError(path, name, "modulus", f"{text} is below 2^{MIN_BITS_EXCLUSIVE}")
    if p.bit_length() > MAX_BITS:
        raise SpecError(path, name, "modulus",
                        f"{text} has {p.bit_length()} bits, above the {MAX_BITS}-bit limit (16 limbs)")
    if p % 2 == 0:
        raise SpecError(path, name, "modulus", f"{text} is even")
    if not numtheory.is_probable_prime(p):
        raise SpecError(path, name, "modulus", f"{text} is not prime")

    order = table["byte_order"]
    if order not in ("big", "little"):
        raise SpecError(path, name, "byte_order", f'must be "big" or "little", not {order!r}')
    nr = _parse_extension(path, name, table.get("extension"), p) if "extension" in table else None
    z = _parse_sqrt_ratio_z(path, name, table["sqrt_ratio_z"], p) if "sqrt_ratio_z" in table else None
    return FieldSpec(name=name, modulus_text=text, p=p, byte_order=order, fp2_non_residue=nr,
                     sqrt_ratio_z=z)


def _parse_sqrt_ratio_z(path, name, z, p):
    """RFC 9380's Z: sqrt_ratio(u, v) returns sqrt(Z u / v) when u / v is not a
    square, so Z must be a non-square (a curve's hash-to-curve suite names it)."""
    if isinstance(z, bool) or not isinstance(z, int):
        raise SpecError(path, name, "sqrt_ratio_z", f"must be an integer, not {z!r}")
    if z == 0 or abs(z) >= p:
        raise SpecError(path, name, "sqrt_ratio_z", f"must be a nonzero integer with |Z| < p, not {z}")
    if abs(z) >= MAX_SQRT_RATIO_Z:
        raise SpecError(path, name, "sqrt_ratio_z",
                        f"|Z| must be below 2^63 (the header holds Z as a signed 64-bit constant), not {z}")
    if numtheory.jacobi(z % p, p) != -1:
        raise SpecError(path, name, "sqrt_ratio_z",
                        f"{z} is a quadratic residue mod p; sqrt_ratio needs a non-residue Z "
                        f"(the smallest positive one here is {numtheory.smallest_nonresidue(p)})")
    return z


def _parse_extension(path, name, ext, p):
    if not isinstance(ext, dict):
        raise SpecError(path, name, "extension", "must be a table { degree = 2, non_residue = <integer> }")
    for key in ext:
        if key not in ("degree", "non_residue"):
            raise SpecError(path, name, f"extension.{key}", "unknown key (known keys: degree, non_residue)")
    for key in ("degree", "non_residue"):
        if key not in ext:
            raise SpecError(path, name, f"extension.{key}", "missing")
    degree, nr = ext["degree"], ext["non_residue"]
    if isinstance(degree, bool) or degree != 2:
        raise SpecError(path, name, "extension.degree", f"only degree 2 is supported, not {degree!r}")
    if isinstance(nr, bool) or not isinstance(nr, int):
        raise SpecError(path, name, "extension.non_residue", f"must be an integer, not {nr!r}")
    if nr == 0 or abs(nr) > MAX_NON_RESIDUE:
        raise SpecError(path, name, "extension.non_residue",
                        f"must be a nonzero integer with |non_residue| <= {MAX_NON_RESIDUE}, not {nr}")
    symbol = numtheory.jacobi(nr % p, p)
    if symbol != -1:
        what = "is 0 mod p" if symbol == 0 else "is a quadratic residue mod p"
        raise SpecError(path, name, "extension.non_residue",
                        f"{nr} {what}, so u^2 = {nr} does not define a field; choose a quadratic non-residue")
    return nr


def load(path, test_primes=False):
    """Read and validate a fields file; returns a list of FieldSpec in file order.

    test_primes: the file holds the project's extra test primes, whose names
    are each given the reserved prefix 'test_' (so that no user field can
    take one); see loads().
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SpecError(path, None, None, f"cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecError(path, None, None, f"not UTF-8 ({e.reason} at byte {e.start})") from None
    return loads(text, path, test_primes=test_primes)


def _reserved(name):
    """The reserved name that NAME is or starts with ('cpu' for 'cpu_x'), or None."""
    low = name.lower()
    return next((r for r in sorted(RESERVED_NAMES) if low == r or low.startswith(r + "_")), None)


def _check_names(path, names, reserved=True):
    """Names whose generated files or symbols would collide with the runtime's
    or with another field's: every symbol of field NAME is fg_NAME_... and every
    macro FG_<NAME>_..., so no field may be named after a reserved prefix, and
    no field's name may begin with another's name and '_' ([x] with an
    extension makes fg_x_fp2_mul, which a field [x_fp2] would make too)."""
    for name in names if reserved else ():
        r = _reserved(name)
        if r is not None:
            what = (f"'{name}' is reserved" if name.lower() == r else
                    f"'{name}' starts with the reserved prefix '{r}_'")
            raise SpecError(path, name, None,
                            f"{what}: its symbols fg_{name}_* / FG_{name.upper()}_* or files would collide with "
                            f"the runtime's or the project's own (reserved: {', '.join(sorted(RESERVED_NAMES))}); "
                            "choose another name")
    lows = {n.lower(): n for n in names}
    for name in names:
        low = name.lower()
        # every 'x_' that begins NAME and is followed by more than another '_'
        # (the generated suffixes never start with '_': 'int_' cannot meet 'Int')
        for i, c in enumerate(low):
            other = lows.get(low[:i]) if c == "_" and low[i + 1:i + 2] not in ("", "_") else None
            if other is not None:
                raise SpecError(path, name, None,
                                f"begins with '{other}_', the prefix of field '{other}''s symbols "
                                f"(fg_{other}_*): the two fields' generated symbols could collide; "
                                "choose another name")


def loads(text, path="<string>", test_primes=False):
    _check_duplicates(path, text)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(path, None, None, f"not valid TOML: {e}") from None
    except RecursionError:
        raise SpecError(path, None, None, "not valid TOML: arrays or tables nested too deeply") from None
    except ValueError as e:  # e.g. an integer literal beyond Python's digit limit
        raise SpecError(path, None, None, f"not valid TOML: {e}") from None
    seen = {}
    for name in doc:  # inline and dotted tables escape the header scan above
        if name.lower() in seen:
            raise SpecError(path, name, None, f"duplicate field (first defined as '{seen[name.lower()]}')")
        seen[name.lower()] = name
    if not doc:
        raise SpecError(path, None, None, "defines no field (add a [name] table with modulus and byte_order)")
    names = [TEST_PREFIX + n for n in doc] if test_primes else list(doc)
    fields = []
    for name, table in zip(names, doc.values()):
        fields.append(parse_field(path, name, table))
    # the test primes' prefix keeps them apart from every user name, not from each other
    _check_names(path, names, reserved=not test_primes)
    return fields
