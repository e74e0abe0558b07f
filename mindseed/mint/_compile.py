"""mint names that are a re-signature of an existing op, compiled from one table line each.

A line is ``signature -> expression  # doc``:

    all(input, dim=None, keepdim=False) -> _ops.all(input, dim, keepdim)  # True where every element is.

(a long row continues on the following indented lines) and becomes a plain Python function with exactly that
signature (torch-style names and defaults, as MindSpore's mint has them) whose body returns the expression. The
expression calls the op that already implements the computation (a functional op, a Tensor method, a primitive),
so the mint name has that op's kernels, gradient and graph-mode behaviour; nothing is computed here. Defaults and
expressions are evaluated in the `scope` the caller gives (its modules and helpers).
"""
__all__ = ["compile_table", "reexport", "rows"]


def compile_table(table, scope, module):
    """{name: function} for every non-blank line of `table` (see the module docstring)."""
    out = {}
    for line in rows(table):
        head, _, doc = line.partition("  # ")
        sig, arrow, expr = head.partition(" -> ")
        if not arrow:
            raise ValueError(f"mint table line {line!r} has no ' -> expression'.")
        name = sig.split("(", 1)[0].strip()
        code = compile(f"def {sig.strip()}:\n    return {expr.strip()}\n", f"<{module}.{name}>", "exec")
        env = dict(scope)
        exec(code, env)  # noqa: S102 -- the module's own table: a signature and an expression of its ops
        fn = env[name]
        fn.__module__, fn.__qualname__ = module, name
        fn.__doc__ = (doc.strip() or f"mint.{name}.") + f"\n\n    Computed as ``{expr.strip()}``."
        out[name] = fn
    return out


def rows(table):
    """The rows of a table: each non-blank line at column 0, joined with its indented continuation lines."""
    out = []
    for line in table.strip("\n").splitlines():
        if not line.strip():
            continue
        if line[0] in " \t" and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line.strip())
    return out


def reexport(source, names):
    """{name: getattr(source, name)} for the names (a whitespace-separated string) whose mint signature is the
    op's own."""
    return {name: getattr(source, name) for name in names.split()}
