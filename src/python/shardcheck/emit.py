"""Writing the merged runs as a spec: every size argument solved over
every run (solve.py), one line per step with its source line as a
comment. FORMS is the table of how each step kind is written."""
import copy

from .record import TraceError, source_text
from .solve import Bank, solve


def _group_arg(st):
    return f" group={st.group}" if st.group else ""


FORMS = {
    "reshape": lambda st, c, e: f"reshape [{', '.join(e)}]",
    "view": lambda st, c, e: f"view [{', '.join(e)}]",
    "flatten": lambda st, c, e: f"flatten {c[0]} {c[1]}",
    "unsqueeze": lambda st, c, e: f"unsqueeze {c[0]}",
    "squeeze": lambda st, c, e: f"squeeze {c[0]}",
    "movedim": lambda st, c, e: f"movedim {c[0]} {c[1]}",
    "transpose": lambda st, c, e: f"transpose {c[0]} {c[1]}",
    "permute": lambda st, c, e: "permute " + " ".join(str(x) for x in c),
    "contiguous": lambda st, c, e: "contiguous",
    "flip": lambda st, c, e: f"flip {c[0]}",
    "narrow": lambda st, c, e: f"narrow {c[0]} {e[0]} {e[1]}",
    "take": lambda st, c, e: f"take {c[0]} {e[0]} {e[1]}" + (" split" if c[1] == "split" else ""),
    "take_list": lambda st, c, e: f"take {c[0]} {e[0]} {e[1]}" + (" split" if c[1] == "split" else ""),
    "chunk_cat": lambda st, c, e: f"chunk_cat chunk={c[0]} cat={c[1]}" + _group_arg(st),
    "pad": lambda st, c, e: f"pad {c[0]} {e[0]} {e[1]}",
    "repeat_interleave": lambda st, c, e: f"repeat_interleave {e[0]} {c[0]}",
    "all_to_all_single": lambda st, c, e: "all_to_all_single" + "".join(f" {f}={x}" for f, x in zip(c, e))
    + _group_arg(st),
    "all_gather_into_tensor": lambda st, c, e: "all_gather_into_tensor" + _group_arg(st),
    "reduce_scatter_tensor": lambda st, c, e: f"reduce_scatter_tensor {c[0]}" + _group_arg(st),
    "all_reduce": lambda st, c, e: f"all_reduce {c[0]}" + _group_arg(st),
    "broadcast": lambda st, c, e: f"broadcast src={e[0]}" + _group_arg(st),
    "sendrecv": lambda st, c, e: f"sendrecv to={e[0]} from={e[1]}" + _group_arg(st),
    "all_gather": lambda st, c, e: f"all_gather dim={c[0]} sizes={e[0]}" + _group_arg(st),
    "reduce_scatter": lambda st, c, e: f"reduce_scatter dim={c[0]} op={c[1]}" + (f" sizes={e[0]}" if e else "")
    + _group_arg(st),
    "cat": lambda st, c, e: None,     # written with its operands' names (see write)
    "write": lambda st, c, e: f"write dim={c[0]} start={e[0]}",   # its operands' names added (see write)
    "zeros": lambda st, c, e: f"zeros [{', '.join(e)}]",
    "empty": lambda st, c, e: f"empty [{', '.join(e)}]",
}


class Solver:
    """Solves every size argument of one step over the runs that reached it."""

    def __init__(self, runs, i):
        self.runs = [r for r in runs if len(r.rec.steps) > i]
        self.i = i

    def _env(self, run, extra):
        st = run.rec.steps[self.i]
        env = dict(run.rec.env)
        for j, n in enumerate(st.in_shape):
            env[f"size({j})"] = n
        env.update(extra)
        return env

    def solve(self, j, pick=None, drop=(), field="sizes"):
        """Argument j (of field: the sizes, or the listed ranks of the
        step's group); pick(extra) selects which pairs of a list argument
        take part, drop names the extra names to leave out."""
        envs, vals = [], []
        for run in self.runs:
            for extra, v in getattr(run.rec.steps[self.i], field)[j]:
                if pick is not None and not pick(extra):
                    continue
                extra = {k: x for k, x in extra.items() if k not in drop}
                envs.append(self._env(run, extra))
                vals.append(v)
        keys = sorted(set(k for e in envs for k in e))
        extra_names = [k for k in keys if k not in self.runs[0].rec.env and not k.startswith("size(")]
        base = [k for k in self.runs[0].rec.env if k not in ("P", "rank")] + ["P"] + extra_names + ["rank"]
        late = [k for k in keys if k.startswith("size(")]
        names = [n for n in base if all(n in e for e in envs)]
        late = [n for n in late if all(n in e for e in envs)]
        bank = Bank(names, envs, late)
        text = solve(bank, vals)
        if text is None:
            st = self.runs[0].rec.steps[self.i]
            seen = ", ".join(f"{v} at {_env_text(e)}" for e, v in list(zip(envs, vals))[:8])
            what = f"size argument {j + 1}" if field == "sizes" else f"group's listed rank {j + 1}"
            raise TraceError("solve", st.where,
                             f"no expression gives every value of {st.kind}'s {what}: {seen}",
                             "the size must be a product or quotient of the dims, P, rank, the local sizes and "
                             "constants (or an affine sum of them); compute it that way in the code, or write "
                             "this step by hand")
        return text


def _env_text(e):
    return " ".join(f"{k}={v}" for k, v in e.items() if not k.startswith("size("))


def step_args(ref, runs, i):
    """The spec's text for step i of ref (without the tensor names)."""
    st = ref.rec.steps[i]
    sv = Solver(runs, i)
    if st.kind == "take_list":
        n = sv.solve(0)
        lengths = {len(r.rec.steps[i].sizes[1]) for r in sv.runs}
        if len(lengths) == 1:
            L = lengths.pop()
            ks = [sv.solve(1, pick=lambda x, j=j: x["k"] == j, drop=("k",)) for j in range(L)]
            return FORMS["take_list"](st, st.consts, [n, "[" + ", ".join(ks) + "]"])
        if all(len(r.rec.steps[i].sizes[1]) == r.rec.steps[i].sizes[0][0][1] for r in sv.runs):
            e = sv.solve(1)
            return FORMS["take_list"](st, st.consts, [n, f"[{e} for k]"])
        raise TraceError("solve", st.where, "torch.cat of chunks: the number of chunks taken is neither "
                         "fixed nor the number of chunks", "write this step by hand (`take i N [...]`)")
    exprs = [sv.solve(j) for j in range(len(st.sizes))]
    if st.group == "[listed]":   # group=[E, ...]: each listed rank solved over the member runs
        sv = Solver([r for r in runs if len(r.rec.steps) > i and r.rec.steps[i].listed], i)
        counts = {len(r.rec.steps[i].listed) for r in sv.runs}
        if len(counts) != 1:
            raise TraceError("solve", st.where, f"new_group lists {sorted(counts)} ranks at different worlds",
                             "a spec's group=[...] lists a fixed number of ranks (group=[0, P-1]): bound the worlds "
                             "with --require (e.g. --require 'P >= 3') so that the code lists one number of ranks")
        st = copy.copy(st)
        st.group = "[" + ", ".join(sv.solve(j, field="listed") for j in range(counts.pop())) + "]"
    return FORMS[st.kind](st, st.consts, exprs)


def idx_after(ref, failed_steps):
    """Indices of ref's steps after the ones that failed in some runs."""
    last = max(i for i, s in enumerate(ref.rec.steps)
               if any(s.where == f.where and s.kind == f.kind for f in failed_steps))
    return [i for i in range(last + 1, len(ref.rec.steps))]


def live_steps(ref, runs=()):
    """Indices of the steps the output depends on, in order, and of every
    step that fails in some run (its result unused or not, it fails the
    case)."""
    steps = ref.rec.steps
    need = {ref.out_node}
    failing = {(r.failed.kind, r.failed.where) for r in runs if r.failed is not None}
    live = []
    for i in range(len(steps) - 1, -1, -1):
        st = steps[i]
        if st.failed is not None or need & set(st.outs) or (st.kind, st.where) in failing:
            live.append(i)
            need |= set(st.ins)
    return sorted(live)


def write(header, ref, runs, name_of_input="x"):
    """Spec lines for the steps of ref, sized over runs."""
    steps = ref.rec.steps
    if ref.failed is not None:
        idx = list(range(steps.index(ref.failed) + 1))
    else:
        idx = live_steps(ref, runs)
    chain = True
    prev = 1
    for i in idx:
        st = steps[i]
        if st.kind in ("cat", "write", "zeros", "empty") or st.ins != (prev,) or len(st.outs) != 1:
            chain = False
        prev = st.outs[0] if st.outs else None
    if ref.failed is None and idx and steps[idx[-1]].outs != (ref.out_node,):
        chain = False
    body = []
    names = {1: name_of_input}
    if not chain:
        body.append((f"tensor {name_of_input} = input", ""))
    for i in idx:
        st = steps[i]
        text = step_args(ref, runs, i)
        if chain:
            line = text
        else:
            out = f"t{st.outs[0]}" if st.outs else "t_failed"
            if st.outs:
                names[st.outs[0]] = out
            if st.kind == "cat":
                line = f"{out} = cat {' '.join(names[n] for n in st.ins)} dim={st.consts[0]}"
            elif st.kind == "write":
                line = f"{out} = write {names[st.ins[0]]} {names[st.ins[1]]} {text.partition(' ')[2]}"
            else:
                kind, _, rest = text.partition(" ")
                line = f"{out} = {kind} {names[st.ins[0]]}" + (f" {rest}" if rest else "")
        src = source_text(st.path, st.line)
        note = f"{st.where}" + (f"  {src}" if src else "")
        stopped = [r.failed for r in runs if r.failed is not None and r.rec.steps.index(r.failed) < i]
        if stopped and i == min(idx_after(ref, stopped)):
            note += f"  (from here on seen only in the runs where {stopped[0].where} does not raise)"
        if st.failed and all(r.failed is not None for r in runs):
            note += f"  (raises in every run: {st.failed})"
        body.append((line, note))
    if ref.failed is None and not idx:
        raise TraceError("usage", "", "the function returns its input unchanged: there is nothing to check")
    width = max(len(b) for b, _ in body)
    return header + [(b.ljust(width) + "  # " + n) if n else b for b, n in body]
