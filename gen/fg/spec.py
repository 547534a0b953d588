"""Stage 1: parse and validate fields.toml into immutable FieldSpec objects.

Nothing here knows number theory beyond "is it prime"; every derived constant
lives in analysis.py. Every error names the file, the field table and the key.
"""

from __future__ import annotations

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
    tokens = _tokenize(text)
    pos = 0

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
        if peek()[0] == "-":
            take("-")
            return -unary()
        if peek()[0] == "+":
            take("+")
            return unary()
        return power()

    def power():
        base = atom()
        if peek()[0] == "^":
            col = take("^")[2]
            exponent = unary()
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
            take("(")
            value = expr()
            take(")")
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
    if not isinstance(table, dict):
        raise SpecError(path, name, None, "must be a table ([name] followed by key = value lines)")
    for key in table:
        if key not in KEYS:
            known = ", ".join(sorted(KEYS))
            raise SpecError(path, name, key, f"unknown key (known keys: {known})")
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


def load(path):
    """Read and validate a fields file; returns a list of FieldSpec in file order."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SpecError(path, None, None, f"cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecError(path, None, None, f"not UTF-8 ({e.reason} at byte {e.start})") from None
    return loads(text, path)


def loads(text, path="<string>"):
    _check_duplicates(path, text)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(path, None, None, f"not valid TOML: {e}") from None
    except ValueError as e:  # e.g. an integer literal beyond Python's digit limit
        raise SpecError(path, None, None, f"not valid TOML: {e}") from None
    seen = {}
    for name in doc:  # inline and dotted tables escape the header scan above
        if name.lower() in seen:
            raise SpecError(path, name, None, f"duplicate field (first defined as '{seen[name.lower()]}')")
        seen[name.lower()] = name
    if not doc:
        raise SpecError(path, None, None, "defines no field (add a [name] table with modulus and byte_order)")
    fields = []
    for name, table in doc.items():
        fields.append(parse_field(path, name, table))
    return fields
