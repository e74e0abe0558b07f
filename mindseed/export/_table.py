"""The table an exporter keeps of how each primitive of the compiler's IR is written in its format."""


class EmitTable(dict):
    """{IR primitive name: emit(writer, node)}, filled with the `emits` decorator."""

    def __init__(self, fmt):
        super().__init__()
        self.fmt = fmt

    def emits(self, *names):
        def register(fn):
            for n in names:
                self[n] = fn
            return fn
        return register

    def write(self, writer, graph):
        """Emit every node of `graph`; a primitive with no entry is an error naming it and the user's line."""
        for node in graph.nodes:
            emit = self.get(node.prim.name)
            if emit is None:
                loc = f" (at {node.loc})" if node.loc else ""
                raise ValueError(f"For 'export', the operator '{node.prim.name}'{loc} has no {self.fmt} form in "
                                 f"mindseed's exporter.")
            emit(writer, node)
