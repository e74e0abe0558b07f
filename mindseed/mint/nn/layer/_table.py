"""mint.nn Cells that hold no parameters and call one mint.nn.functional function, one table line each.

A line is ``Name(init parameters) | construct parameters -> expression  # doc``:

    ELU(alpha=1.0, inplace=False) | input -> F.elu(input, self.alpha, self.inplace)  # ELU.

and becomes a Cell class whose `__init__` has that signature and stores each argument as an attribute, and whose
`construct` returns the expression (which reads the attributes through `self`).
"""
from mindseed.mint._compile import rows
from mindseed.nn.cell import Cell

__all__ = ["compile_cells"]


def compile_cells(table, scope, module):
    """{name: Cell subclass} for every non-blank line of `table`."""
    out = {}
    for line in rows(table):
        head, _, doc = line.partition("  # ")
        sig, bar, rest = head.partition(" | ")
        inputs, arrow, expr = rest.partition(" -> ")
        if not (bar and arrow):
            raise ValueError(f"mint.nn table line {line!r} is not 'Name(params) | inputs -> expression'.")
        name, params = sig.split("(", 1)
        params = params.rstrip()[:-1]
        names = [p.split("=")[0].strip() for p in params.split(",") if p.strip() and p.strip() != "*"]
        stores = "".join(f"        self.{p} = {p}\n" for p in names) or "        pass\n"
        source = (f"class {name}(_Cell):\n"
                  f"    def __init__(self{', ' if params else ''}{params}):\n"
                  f"        super().__init__()\n{stores}"
                  f"    def construct(self, {inputs.strip()}):\n"
                  f"        return {expr.strip()}\n")
        env = dict(scope, _Cell=Cell)
        exec(compile(source, f"<{module}.{name}>", "exec"), env)  # noqa: S102 -- the module's own table
        cls = env[name]
        cls.__module__, cls.__qualname__ = module, name
        cls.__doc__ = doc.strip() + f"\n\n    Computes ``{expr.strip()}``."
        out[name] = cls
    return out
