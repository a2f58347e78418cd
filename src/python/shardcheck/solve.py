"""Sizes as expressions.

A size argument of a traced operation is seen once per trace (a world
size, a shape and a rank). solve() finds the simplest expression of the
spec language that gives every value seen: a constant, then expressions
of one, two and three names joined by + - * / // % cdiv, then affine
combinations (2*P-1-rank) seen at three points at least (two points fit
any a*t + c: that is no evidence), then torch.chunk's piece lengths. Names are tried in the order given (the dims,
then P, then rank, then the local sizes), so the first expression found
is the most readable one. Expressions are compared by their values on
every trace, so two that agree everywhere are one candidate.
"""

INVALID = None


def _div_exact(a, b):
    if b == 0 or a % b:
        return INVALID
    return a // b


def _floordiv(a, b):
    return INVALID if b == 0 else a // b


def _mod(a, b):
    return INVALID if b == 0 else a % b


def _cdiv(a, b):
    return INVALID if b == 0 else -(-a // b)


# (text, precedence of the result, function, commutative); precedence as
# Python's: 1 for + -, 2 for * / // %, 3 for a name or a call
_OPS = (
    ("*", 2, lambda a, b: a * b, True),
    ("/", 2, _div_exact, False),
    ("+", 1, lambda a, b: a + b, True),
    ("-", 1, lambda a, b: a - b, False),
    ("//", 2, _floordiv, False),
    ("%", 2, _mod, False),
    ("cdiv", 3, _cdiv, False),
)


def _join(op, prec, a, b):
    """Text of a OP b; a and b are (text, precedence, top operator)."""
    if (op == "*" and b[0].isdigit() and not a[0].isdigit()) or \
            (op == "+" and a[0].isdigit() and not b[0].isdigit()):
        a, b = b, a                 # 2*P and rank+1
    (ta, pa, _), (tb, pb, ob) = a, b
    if op == "cdiv":
        return f"cdiv({ta},{tb})"
    if pa < prec:
        ta = f"({ta})"
    if pb < prec or (pb == prec and not (op == ob and op in "+*") and not (op == "+" and ob == "-")):
        tb = f"({tb})"
    return f"{ta}{op}{tb}"


def _apply(fn, va, vb):
    out = []
    for a, b in zip(va, vb):
        v = fn(a, b)
        if v is INVALID:
            return None
        out.append(v)
    return tuple(out)


class Bank:
    """Expressions over one set of traces, built by size on demand and
    kept one per distinct tuple of values."""

    def __init__(self, names, envs, late=()):
        """names: tried first, in order; late: names tried after every
        expression of two names (a rank's local sizes)."""
        self.envs = envs
        self.seen = {}
        self.levels = [[]]
        self.late = list(late)
        first = []
        for n in names:
            vec = tuple(e[n] for e in envs)
            if vec not in self.seen:
                self.seen[vec] = (n, 3, "")
                first.append(vec)
        for c in (1, 2, 3, 4):
            vec = tuple(c for _ in envs)
            if vec not in self.seen:
                self.seen[vec] = (str(c), 3, "")
                first.append(vec)
        self.levels.append(first)

    def level(self, n):
        while len(self.levels) <= n:
            self._grow()
        return self.levels[n]

    def _grow(self):
        n = len(self.levels)
        new = []
        for op, prec, fn, comm in _OPS:     # every product before any sum: 2*P, not P+P
            for i in range(1, n):
                if comm and i > n - i:
                    continue
                for va in self.levels[i]:
                    for vb in self.levels[n - i]:
                        vec = _apply(fn, va, vb)
                        if vec is None or vec in self.seen:
                            continue
                        self.seen[vec] = (_join(op, prec, self.seen[va], self.seen[vb]), prec, op)
                        new.append(vec)
        if n == 2 and self.late:
            for name in self.late:     # late names join the first level once the second is built
                vec = tuple(e[name] for e in self.envs)
                if vec not in self.seen:
                    self.seen[vec] = (name, 3, "")
                    self.levels[1].append(vec)
                    new.append(vec)
            self.late = []
        self.levels.append(new)


def _affine(bank, target, terms, coeffs, two):
    """target == a*t + c, or a*t1 + b*t2 + c with t1, t2 names."""
    def text(parts, c):
        parts = sorted(parts, key=lambda p: p[0] < 0)     # cdiv(s,P)-size(0), not -size(0)+cdiv(s,P)
        s = ""
        for a, t in parts:
            tt, prec, top = bank.seen[t]
            # a*(s//P), -(s//P): a coefficient binds tighter than // / %
            if prec < 2 or (prec == 2 and top != "*" and a != 1):
                tt = f"({tt})"
            mag = "" if abs(a) == 1 else f"{abs(a)}*"
            s += ("-" if a < 0 else ("+" if s else "")) + mag + tt
        if c:
            s += f"{c:+d}"
        return s

    # a*t + c: any two points fit one, so three at least; a*t1 + b*t2 + c
    # with its small coefficients: three as well
    for t in terms:
        if len(set(zip(target, t))) < 3:
            continue
        for a in coeffs:
            rest = {v - a * x for v, x in zip(target, t)}
            if len(rest) == 1:
                return text([(a, t)], rest.pop())
    if not two:
        return None
    for i, t1 in enumerate(terms):
        for t2 in (two if two is not True else terms[i + 1:]):
            if len(set(zip(target, t1, t2))) < 3:
                continue
            for a in coeffs:
                for b in coeffs:
                    rest = {v - a * x - b * y for v, x, y in zip(target, t1, t2)}
                    if len(rest) == 1:
                        return text([(a, t1), (b, t2)], rest.pop())
    return None


class _Int(int):
    """An int under the spec language's rules: `/` is exact division."""

    def _w(f):
        def g(a, b):
            v = f(int(a), int(b))
            return None if v is None else _Int(v)
        return g
    __add__ = __radd__ = _w(lambda a, b: a + b)
    __sub__ = _w(lambda a, b: a - b)
    __rsub__ = _w(lambda a, b: b - a)
    __mul__ = __rmul__ = _w(lambda a, b: a * b)
    __truediv__ = _w(lambda a, b: _div_exact(a, b))
    __rtruediv__ = _w(lambda a, b: _div_exact(b, a))
    __floordiv__ = _w(lambda a, b: a // b)
    __rfloordiv__ = _w(lambda a, b: b // a)
    __mod__ = _w(lambda a, b: a % b)
    __rmod__ = _w(lambda a, b: b % a)

    def __neg__(self):
        return _Int(-int(self))


def evaluate(text, env):
    """The value of an expression the solver wrote, on one trace (its own
    check that the text means what was solved)."""
    names = {k: _Int(v) for k, v in env.items() if not k.startswith("size(")}
    sizes = {int(k[5:-1]): v for k, v in env.items() if k.startswith("size(")}
    names["size"] = lambda i: _Int(sizes[i])
    names["cdiv"] = lambda a, b: _Int(_cdiv(int(a), int(b)))
    names["min"] = lambda a, b: _Int(min(int(a), int(b)))
    names["max"] = lambda a, b: _Int(max(int(a), int(b)))
    return int(eval(text, {"__builtins__": {}}, names))


def solve(bank, values):
    """The expression whose value on trace i is values[i], or None."""
    text = _solve(bank, values)
    if text is not None:
        for env, v in zip(bank.envs, values):
            got = evaluate(text, env)
            if got != v:
                raise AssertionError(f"solver wrote {text!r}: {got} where {v} was seen ({env})")
    return text


def _chunk_len(bank, target):
    """torch.chunk's piece length, min(cdiv(d,G),max(0,d-i*cdiv(d,G))):
    piece i of d rows in G chunks (the last ones short or empty), for
    names d, G and i (a dim, P or a mesh size, rank or a mesh coordinate)."""
    names = [t for t in bank.levels[1] if bank.seen[t][0].isidentifier()]
    for d in names:
        for g in names:
            for i in names:
                vec = []
                for vd, vg, vi in zip(d, g, i):
                    if vg <= 0:
                        break
                    c = -(-vd // vg)
                    vec.append(min(c, max(0, vd - vi * c)))
                if tuple(vec) == target:
                    td, tg, ti = (bank.seen[t][0] for t in (d, g, i))
                    return f"min(cdiv({td},{tg}),max(0,{td}-{ti}*cdiv({td},{tg})))"
    return None


def _solve(bank, values):
    target = tuple(values)
    if len(set(target)) == 1:
        return str(target[0])
    for n in (1, 2):
        bank.level(n)
        if target in bank.seen:
            return bank.seen[target][0]
    coeffs = (1, -1, 2, -2, 3, -3, 4, -4)
    # an affine fit through two values says nothing (4*s-15 fits any two
    # points of slope 4): only where three or more values were seen
    thin = len(set(target)) < 3
    found = None if thin else _affine(bank, target, bank.level(1), coeffs, True)
    if found is None and not thin:
        found = _affine(bank, target, bank.level(1) + bank.level(2), coeffs, False)
    if found is None and not thin:   # a name and an expression of two: 2*R-rank//U-1
        found = _affine(bank, target, bank.level(1), coeffs, bank.level(2))
    if found is not None:
        return found
    found = None if thin else _chunk_len(bank, target)
    if found is not None:
        return found
    bank.level(3)
    if target in bank.seen:
        return bank.seen[target][0]
    return None
