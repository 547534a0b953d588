# SPDX-License-Identifier: MIT OR Apache-2.0
"""The parts of the static constant-time checkers that do not depend on the
instruction set: a small C preprocessor (#if/#ifdef/#ifndef/#elif/#else/
#endif, object-like #define and #undef; anything else raises CppError),
GAS integer literals and operand splitting. Used by tests/ct_static.py
(x86-64) and tests/ct_static_aarch64.py. Standard library only.
"""

import re


class CppError(Exception):
    pass


def cpp_eval(expr, defines):
    """Value of a #if expression: defined, !, &&, ||, comparisons, integers."""
    toks = re.findall(r"defined|\d+[uUlL]*|0[xX][0-9a-fA-F]+|[A-Za-z_]\w*|&&|\|\||==|!=|<=|>=|[!()<>]|\S",
                      expr)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take(expected=None):
        tok = peek()
        if tok is None or (expected is not None and tok != expected):
            raise CppError("cannot evaluate #if %s" % expr.strip())
        pos[0] += 1
        return tok

    def primary():
        tok = take()
        if tok == "!":
            return int(not primary())
        if tok == "(":
            value = disjunction()
            take(")")
            return value
        if tok == "defined":
            if peek() == "(":
                take("(")
                name = take()
                take(")")
            else:
                name = take()
            return int(name in defines)
        if re.match(r"^\d", tok):
            return int(tok.rstrip("uUlL"), 0)
        if re.match(r"^[A-Za-z_]", tok):
            value = defines.get(tok, "0").strip() or "0"
            if not re.match(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$", value):
                raise CppError("cannot evaluate #if %s (macro %s)" % (expr.strip(), tok))
            return int(value.rstrip("uUlL"), 0)
        raise CppError("cannot evaluate #if %s" % expr.strip())

    def comparison():
        value = primary()
        while peek() in ("==", "!=", "<", ">", "<=", ">="):
            op = take()
            rhs = primary()
            value = int({"==": value == rhs, "!=": value != rhs, "<": value < rhs,
                         ">": value > rhs, "<=": value <= rhs, ">=": value >= rhs}[op])
        return value

    def conjunction():
        value = comparison()
        while peek() == "&&":
            take()
            rhs = comparison()
            value = int(bool(value) and bool(rhs))
        return value

    def disjunction():
        value = conjunction()
        while peek() == "||":
            take()
            rhs = conjunction()
            value = int(bool(value) or bool(rhs))
        return value

    value = disjunction()
    if peek() is not None:
        raise CppError("cannot evaluate #if %s" % expr.strip())
    return value


def preprocess(text, defines, cpp_tokens=False):
    """Yield (line number, text) of the active lines, comments removed and
    object-like macros expanded; raise CppError for what is not modelled.

    A macro name is replaced where it stands alone; by default a `.` next to
    it joins it to a longer name (`.FG_X` and `FG_X.y` stay as written, what
    tests/ct_static.py has always read). cpp_tokens=True splits names at `.`
    as cpp itself does, so `.FG_VISIBILITY` becomes `.protected`."""
    defines = dict(defines)
    # Remove /* */ and // comments, keeping line numbers.
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    stack = []          # per open #if: [this branch active, a branch was taken, parent active]
    active = True
    macro_re = None
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if "//" in line and '"' not in line:
            line = line[:line.index("//")]
        stripped = line.strip()
        if stripped.startswith("#"):
            mo = re.match(r"#\s*(\w*)\s*(.*)$", stripped)
            word, rest = mo.group(1), mo.group(2).strip()
            if word in ("if", "ifdef", "ifndef"):
                if word == "if":
                    cond = bool(cpp_eval(rest, defines)) if active else False
                elif word == "ifdef":
                    cond = rest.split()[0] in defines
                else:
                    cond = rest.split()[0] not in defines
                stack.append([active and cond, active and cond, active])
                active = active and cond
            elif word == "elif":
                if not stack:
                    raise CppError("line %d: #elif without #if" % number)
                top = stack[-1]
                cond = (not top[1]) and top[2] and bool(cpp_eval(rest, defines))
                top[0] = cond
                top[1] = top[1] or cond
                active = cond
            elif word == "else":
                if not stack:
                    raise CppError("line %d: #else without #if" % number)
                top = stack[-1]
                top[0] = top[2] and not top[1]
                top[1] = True
                active = top[0]
            elif word == "endif":
                if not stack:
                    raise CppError("line %d: #endif without #if" % number)
                stack.pop()
                active = stack[-1][0] if stack else True
            elif not active:
                pass
            elif word == "define":
                mo = re.match(r"([A-Za-z_]\w*)(\(?)\s*(.*)$", rest)
                if not mo or mo.group(2):
                    raise CppError("line %d: only object-like #define is modelled: %s" % (number, stripped))
                defines[mo.group(1)] = mo.group(3)
                macro_re = None
            elif word == "undef":
                defines.pop(rest.split()[0], None)
                macro_re = None
            elif word == "error":
                raise CppError("line %d: #error %s" % (number, rest))
            elif word in ("", "pragma", "line") or word.isdigit():
                pass
            else:
                raise CppError("line %d: preprocessor directive not modelled: %s" % (number, stripped))
            continue
        if not active or not stripped:
            continue
        if macro_re is None:
            names = [n for n in defines if defines[n] != n]
            edge = r"\w$" if cpp_tokens else r"\w.$"
            macro_re = re.compile(r"(?<![%s])(%s)(?![%s])" % (edge, "|".join(map(re.escape, names)), edge)) \
                if names else False
        if macro_re:
            for _ in range(16):
                expanded = macro_re.sub(lambda m: defines[m.group(1)], stripped)
                if expanded == stripped:
                    break
                stripped = expanded
        out.append((number, stripped))
    if stack:
        raise CppError("unterminated #if")
    return out


NUM = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)$")


def number(tok):
    tok = tok.strip()
    neg = tok.startswith("-")
    tok = tok.lstrip("+-")
    value = int(tok, 0) if not (len(tok) > 1 and tok[0] == "0" and tok[1].isdigit()) else int(tok, 8)
    return -value if neg else value


def split_operands(text, opening="({", closing=")}"):
    """The comma-separated operands of text, commas inside brackets kept."""
    ops, depth, cur = [], 0, []
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0:
            ops.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur or ops:
        ops.append("".join(cur).strip())
    return ops


def statement(number, part):
    """(number, kind, text) of one statement's labels ("label") and what
    follows them ("directive" or "insn"), comments already removed."""
    part = part.strip()
    while True:
        mo = re.match(r"^([A-Za-z_.$][\w.$]*|\d+)\s*:(?!:)\s*(.*)$", part)
        if not mo:
            break
        yield number, "label", mo.group(1)
        part = mo.group(2)
    if part:
        yield number, ("directive" if part.startswith(".") else "insn"), part


def report(prog, files, check, target, bases, quiet):
    """The checkers' main loop: check(path, stats) -> (functions,
    instructions, [(line, function, message, text)]) for each file; prints
    one line per violation and, unless quiet, the summary naming the proven
    memory operands per base (bases: [(stats key, label)]); returns the exit
    status (1 if anything was reported)."""
    total_funcs = total_insns = violations = 0
    stats = {}
    for path in files:
        nfunc, ninsn, found = check(path, stats)
        total_funcs += nfunc
        total_insns += ninsn
        for line, func, msg, text in sorted(found, key=lambda f: f[0]):
            violations += 1
            print("%s:%d: %s: %s%s" % (path, line, func, msg, (": " + text) if text else ""))
    if not quiet:
        print("%s: %d files, %d functions, %d instructions (%s), memory operands proven: %s: %s"
              % (prog, len(files), total_funcs, total_insns, target,
                 ", ".join("%d via %s" % (stats.get(key, 0), label) for key, label in bases),
                 "%d violations" % violations if violations else "no violations"))
    return 1 if violations else 0
