"""The implementation behind `mindspore.rewrite.SymbolTree`: the nodes of one network's forward method.

Edits (insert, erase, replace, set_arg) change the node list; `get_code` writes the forward method back from the
nodes and `get_network` makes a new network: an instance of a generated subclass of the original class (named
`<Class>Opt`) whose `construct` is that code, sharing the original's state — its Parameters and cells — as
MindSpore's does. Cells of inserted nodes become fields of it; fields no node and no other method uses any more are
dropped. The generated source is registered with `linecache`, so graph mode and `inspect` read it like a file.
"""
import ast
import inspect
import itertools
import linecache
import os
import textwrap
from collections import OrderedDict

from mindseed.nn import Cell, SequentialCell
from ..api.node_type import NodeType
from ..api.scoped_value import ScopedValue, ValueType
from ..node.node import Node, names_of

_CLASS_COUNTER = itertools.count()


class Position:
    """Where `SymbolTree.insert` puts a node: before or after `node` of `symbol_tree`."""

    def __init__(self, symbol_tree, node, before_node):
        self.symbol_tree = symbol_tree
        self.node = node
        self.before_node = before_node


def _method_uses(cls, field):
    """A method of `cls` other than __init__/construct reads `self.<field>`."""
    for klass in cls.__mro__:
        if klass is Cell or klass is object:
            break
        for name, fn in vars(klass).items():
            if name in ("__init__", "construct") or not inspect.isfunction(fn):
                continue
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
            except (OSError, TypeError, SyntaxError):
                continue
            if any(isinstance(n, ast.Attribute) and n.attr == field for n in ast.walk(tree)):
                return True
    return False


class SymbolTree:
    """Nodes of a network's forward method (see the module docstring)."""

    def __init__(self, origin_network, arguments, module_globals):
        self._origin = origin_network
        self._arguments = arguments
        self.globals = module_globals
        self._nodes = []
        self._fields = OrderedDict()        # fields the generated network gets: name -> object
        self._dropped = set()               # fields of the original no node uses any more
        self._modified = False
        self._saved_file_name = f"network_define_{type(origin_network).__name__}.py"
        self.flattener = None

    # ------------------------------------------------------------ reading
    def get_origin_network(self):
        return self._origin

    def nodes(self):
        return list(self._nodes)

    def all_nodes(self, subtree_nodes=True):
        result = []
        for node in self._nodes:
            result.append(node)
            for child in node.children:
                result.append(child)
                if subtree_nodes and child.symbol_tree is not None:
                    result.extend(child.symbol_tree.all_nodes(subtree_nodes))
            if subtree_nodes and node.symbol_tree is not None:
                result.extend(node.symbol_tree.all_nodes(subtree_nodes))
        return result

    def _own_nodes(self):
        return [n for node in self._nodes for n in [node] + node.children]

    def get_node_from_name(self, name):
        return next((n for n in self._own_nodes() if n.get_name() == name), None)

    def get_input_nodes(self):
        return [n for n in self._nodes if n.get_node_type() == NodeType.Input]

    def get_return_node(self):
        return next((n for n in reversed(self._nodes) if n.get_node_type() == NodeType.Output), None)

    def is_modified(self):
        return self._modified or any(n.symbol_tree is not None and n.symbol_tree.is_modified()
                                     for n in self._own_nodes())

    def _node(self, node_or_name, api):
        node = self.get_node_from_name(node_or_name) if isinstance(node_or_name, str) else node_or_name
        if node is None or node.get_belong_symbol_tree() is not self:
            raise ValueError(f"For '{api}', node {node_or_name!r} is not a node of this SymbolTree.")
        return node

    @staticmethod
    def _owner_list(node, tree):
        return node.container.children if node.container is not None else tree._nodes

    # ------------------------------------------------------------ topology
    def _definer(self, name, index):
        for node in reversed(self._nodes[:index]):
            if name in node.written_names():
                return node
        return None

    def get_node_arg_providers(self, node):
        """{read position: (providing node, its output index)} (see Node.read_names)."""
        if node.container is not None:
            siblings = node.container.children
            i = siblings.index(node)
            if i > 0:
                return {0: (siblings[i - 1], 0)}
            if node._arg_providers:
                return dict(node._arg_providers)
            outer = self.get_node_arg_providers(node.container)
            return {0: outer[0]} if 0 in outer else {}
        index = self._nodes.index(node)
        providers = {}
        for pos, names in node.read_names():
            for k, name in enumerate(names):
                provider = self._definer(name, index)
                if provider is not None:
                    key = pos if pos >= 0 and len(names) == 1 else (pos if pos >= 0 else -1) * 1000 - k
                    providers[key] = (provider, provider.written_names().index(name))
        return providers

    def get_node_users(self, node):
        """[(user node, read position)] of the outputs of `node`."""
        if node.container is not None:
            siblings = node.container.children
            i = siblings.index(node)
            return [(siblings[i + 1], 0)] if i + 1 < len(siblings) else self.get_node_users(node.container)
        users = []
        for later in self._nodes[self._nodes.index(node) + 1:]:
            for pos, (provider, _) in sorted(self.get_node_arg_providers(later).items()):
                if provider is node:
                    users.append((later, pos))
        return users

    # ------------------------------------------------------------ naming
    def _taken_names(self):
        names = {n.get_name() for n in self._own_nodes()}
        names.update(b for n in self._own_nodes() for b in getattr(n, "reserved_names", ()))
        return names | set(self._fields)

    def unique_name(self, name="output"):
        """A variable name no statement of the tree uses, `name` or `name_<n>`."""
        used = set(self.flattener._used) if self.flattener is not None else set()
        for node in self._nodes:
            used.update(node.written_names())
            used.update(n for _, names in node.read_names() for n in names)
        candidate, i = name, 0
        while candidate in used:
            i += 1
            candidate = f"{name}_{i}"
        if self.flattener is not None:
            self.flattener._used.add(candidate)
        return candidate

    def _unique_node_name(self, base, field=False):
        taken = self._taken_names()
        candidate, i = base, 0
        while candidate in taken or (field and (hasattr(self._origin, candidate) or candidate in self._dropped
                                                or candidate in self._fields)):
            i += 1
            candidate = f"{base}_{i}"
        return candidate

    def append_origin_node(self, node):
        node.set_name(self._unique_node_name(node.get_name()))
        if getattr(node, "branch_names", None):
            # the names of the nodes inside an if's branches, taken after the if's own
            node.reserved_names = []
            self._nodes.append(node)
            for base in node.branch_names:
                node.reserved_names.append(self._unique_node_name(base))
            self._nodes.pop()
        for child in node.children:
            child.set_name(self._unique_node_name(child.get_name()))
            self._nodes.append(child)       # reserve its name while naming the next ones
            self._nodes.pop()
        node.set_belong_symbol_tree(self)
        self._nodes.append(node)
        return node

    # ------------------------------------------------------------ editing
    def before(self, node):
        return Position(self, self._node(node, "SymbolTree.before"), True)

    def after(self, node):
        return Position(self, self._node(node, "SymbolTree.after"), False)

    def _hold_custom_objects(self, node):
        def hold(value):
            if value.type == ValueType.CustomObjValue:
                field = self._unique_node_name(f"{node.get_name()}_obj", field=True)
                self._fields[field] = value.value
                return ScopedValue.create_naming_value(field, "self")
            if value.type in (ValueType.TupleValue, ValueType.ListValue):
                return ScopedValue(value.type, value.scope, type(value.value)(hold(v) for v in value.value))
            return value
        node._args = [hold(a) for a in node._args]
        node._kwargs = {k: hold(v) for k, v in node._kwargs.items()}

    def insert_node(self, new_node, base_node, before_node):
        """Insert `new_node` before/after `base_node` (a node of this tree, possibly inside a CellContainer)."""
        if not isinstance(new_node, Node):
            raise TypeError(f"For 'SymbolTree.insert', the node must be a Node, but got {type(new_node).__name__}.")
        if new_node.get_belong_symbol_tree() is not None:
            raise RuntimeError(f"For 'SymbolTree.insert', node '{new_node.get_name()}' already belongs to a "
                               f"SymbolTree; create a new node to insert.")
        base_node = self._node(base_node, "SymbolTree.insert")
        owner = self._owner_list(base_node, self)
        index = owner.index(base_node) + (0 if before_node else 1)
        if base_node.container is not None:
            if not isinstance(new_node.get_instance(), Cell):
                raise TypeError(f"For 'SymbolTree.insert', only a node calling a Cell can be inserted into the "
                                f"SequentialCell of '{base_node.container.get_name()}', but got "
                                f"{new_node.get_node_type()}.")
            new_node.set_name(self._unique_node_name(new_node.get_name()))
            new_node.container = base_node.container
            new_node.container_key = None
        else:
            is_call = new_node.get_node_type() in (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree,
                                                   NodeType.CallFunction)
            new_node.set_name(self._unique_node_name(new_node.get_name(), field=is_call))
            if is_call and new_node.get_func() is None:
                self._fields[new_node.get_name()] = new_node.get_instance()
                new_node._func = ScopedValue.create_naming_value(new_node.get_name(), "self")
            self._hold_custom_objects(new_node)
        new_node.set_belong_symbol_tree(self)
        owner.insert(index, new_node)
        self._mark(base_node)
        return new_node

    def _mark(self, node):
        self._modified = True
        if node.container is not None:
            node.container.container_modified = True

    def _field_of(self, node):
        func = node.get_func()
        return func.value if func is not None and func.scope == "self" else None

    def _release_field(self, field):
        if field is None or any(self._field_of(n) == field for n in self._nodes):
            return
        if field in self._fields:
            return      # a cell set on the network stays there, used or not, as MindSpore's rewrite keeps it
        if not any(field in names_of(n.get_ast(), ast.Load) or _mentions(n.get_ast(), field)
                     for n in self._nodes if n.get_node_type() in (NodeType.Python, NodeType.ControlFlow)):
            if not _method_uses(type(self._origin), field):
                self._dropped.add(field)

    def erase_node(self, node):
        """Remove `node`. A user of its output is given the node's one input instead, when it has exactly one."""
        node = self._node(node, "SymbolTree.erase")
        owner = self._owner_list(node, self)
        if node.container is None:
            users = self.get_node_users(node)
            sources = [a for a in node.get_args() if a.type == ValueType.NamingValue and not a.scope]
            if len(sources) == 1 and node.get_targets() == sources:
                users = []      # `x = f(x)`: once it is gone its users read the x it read
            for user, pos in users:
                if len(sources) != 1 or len(node.get_targets()) != 1 or pos < 0:
                    raise RuntimeError(f"For 'SymbolTree.erase', node '{node.get_name()}' cannot be erased: its output "
                                       f"is used by node '{user.get_name()}' and it has no single input to take its "
                                       f"place.")
                _set_read(user, pos, sources[0])
        owner.remove(node)
        node.set_belong_symbol_tree(None)
        self._mark(node)
        if node.container is None:
            self._release_field(self._field_of(node))
        return node

    def replace(self, old_node, new_nodes):
        """Insert `new_nodes` after `old_node`, give `old_node`'s users the last new node's outputs, erase it."""
        old_node = self._node(old_node, "SymbolTree.replace")
        if not new_nodes:
            raise ValueError(f"For 'SymbolTree.replace', 'new_nodes' must not be empty when replacing node "
                             f"'{old_node.get_name()}'.")
        base = old_node
        for new in new_nodes:
            base = self.insert_node(new, base, False)
        if old_node.container is None:
            root = new_nodes[-1]
            old_targets = [str(t) for t in old_node.get_targets()]
            for user, pos in self.get_node_users(old_node):
                if pos < 0 or user in new_nodes:
                    continue
                name = str(_read_value(user, pos))
                if name in old_targets and old_targets.index(name) < len(root.get_targets()):
                    _set_read(user, pos, root.get_targets()[old_targets.index(name)])
        self.erase_node(old_node)
        return new_nodes[-1]

    def set_node_arg(self, node, index, arg):
        node = self._node(node, "Node.set_arg")
        node.set_arg(arg, index)
        self._mark(node)

    def set_node_arg_by_node(self, dst_node, arg_idx, src_node, out_idx=None):
        dst_node = self._node(dst_node, "Node.set_arg_by_node")
        if src_node.get_belong_symbol_tree() is not self:
            raise RuntimeError(f"For 'Node.set_arg_by_node', node '{src_node.get_name()}' does not belong to the "
                               f"SymbolTree of node '{dst_node.get_name()}'.")
        dst_node.set_arg_by_node(arg_idx, src_node, out_idx)
        if dst_node.container is None and src_node.container is None:
            index = self._nodes.index(dst_node)
            if self._nodes.index(src_node) >= index:
                raise RuntimeError(f"For 'Node.set_arg_by_node', node '{src_node.get_name()}' comes after node "
                                   f"'{dst_node.get_name()}'; its output is not computed yet there.")
            target = dst_node.get_args()[arg_idx]
            if self._definer(target.value, index) is not src_node:     # the name is reassigned in between
                fresh = ScopedValue.create_naming_value(self.unique_name(target.value))
                for user, pos in self.get_node_users(src_node):
                    if str(_read_value(user, pos)) == target.value:
                        _set_read(user, pos, fresh)
                src_node._targets = [fresh if t == target else t for t in src_node._targets]
                dst_node._args[arg_idx] = fresh
        self._mark(dst_node)

    def set_output(self, return_value, index):
        output = self.get_return_node()
        if output is None:
            raise RuntimeError("For 'SymbolTree.set_output', the network has no return statement rewrite parsed.")
        self.set_node_arg(output, index, return_value)
        return output

    def flatten_static_if_control_flow(self):
        """Replace each `if` whose condition reads only the network's attributes by the branch it takes."""
        from .builder import SymbolTreeBuilder
        builder = SymbolTreeBuilder(self._origin)
        for node in list(self._nodes):
            if node.symbol_tree is not None:
                node.symbol_tree.flatten_static_if_control_flow()
            if node.get_node_type() != NodeType.ControlFlow or node.get_belong_symbol_tree() is not self:
                continue
            test = getattr(node.get_ast(), "origin_test", node.get_ast().test)
            if not set(names_of(test, ast.Load)) <= {"self"} or any(isinstance(s, ast.Call) for s in ast.walk(test)):
                continue
            try:
                taken = eval(compile(ast.fix_missing_locations(ast.Expression(test)), "<rewrite if>", "eval"),
                             {}, {"self": self._origin})
            except Exception:       # noqa: BLE001  the condition is not static after all: keep the if
                continue
            branch = node.get_ast().body if taken else node.get_ast().orelse
            new_nodes = [builder.node_of(flat, self) for stmt in branch for flat in self.flattener.stmt(stmt)]
            index = self._nodes.index(node)
            self._nodes.remove(node)
            node.set_belong_symbol_tree(None)
            for k, new in enumerate(new_nodes):
                self._nodes.insert(index + k, new)
                new.set_name(self._unique_node_name(new.get_name()))
                new.set_belong_symbol_tree(self)
            if any(n.get_node_type() == NodeType.Output for n in new_nodes):
                for dead in self._nodes[index + len(new_nodes):]:
                    dead.set_belong_symbol_tree(None)
                del self._nodes[index + len(new_nodes):]
            self._modified = True

    # ------------------------------------------------------------ code and network
    def class_name(self):
        return f"{type(self._origin).__name__}Opt"

    def get_code(self):
        """The source of the generated network class(es): modified sub-networks first, then this one."""
        parts = [n.symbol_tree.get_code() for n in self._own_nodes()
                 if n.symbol_tree is not None and n.symbol_tree.is_modified()]
        base = type(self._origin).__name__
        body = [n.get_source_code() for n in self._nodes if n.get_node_type() != NodeType.Input]
        body = "\n".join(line for line in body if line) or "pass"
        parts.append(f"class {self.class_name()}({base}):\n"
                     f"    def construct(self, {ast.unparse(self._arguments)[len('self'):].lstrip(', ')}):\n"
                     + textwrap.indent(body, " " * 8) + "\n")
        return "\n\n".join(parts)

    def _build_class(self):
        base = type(self._origin)
        body = [n.get_source_code() for n in self._nodes if n.get_node_type() != NodeType.Input]
        source = (f"class {self.class_name()}({base.__name__}):\n"
                  f"    def construct({ast.unparse(self._arguments)}):\n"
                  + textwrap.indent("\n".join(line for line in body if line) or "pass", " " * 8) + "\n")
        filename = f"<rewrite {base.__module__}.{self.class_name()} #{next(_CLASS_COUNTER)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = dict(self.globals)
        namespace[base.__name__] = base
        exec(compile(source, filename, "exec"), namespace)      # noqa: S102  the code generated from the nodes
        cls = namespace[self.class_name()]
        cls.__module__ = base.__module__
        return cls

    def get_network(self):
        """A new network running the nodes' code (see the module docstring)."""
        new_cells = set()
        net = self._build_network(new_cells)
        prefix = self._origin.param_prefix
        for path, cell in net.cells_and_names():
            if id(cell) in new_cells and path:
                cell.update_parameters_name(prefix + path + ".")
        return net

    def _build_network(self, new_cells):
        cls = self._build_class()
        net = cls.__new__(cls)
        net.__setstate__(self._origin.__getstate__())
        for node in self._nodes:
            field = self._field_of(node)
            if field is None:
                continue
            if node.symbol_tree is not None and node.symbol_tree.is_modified():
                net._cells[field] = node.symbol_tree._build_network(new_cells)
            elif node.children and (getattr(node, "container_modified", False) or any(
                    c.symbol_tree is not None and c.symbol_tree.is_modified() for c in node.children)):
                seq = SequentialCell(self._container_cells(node, new_cells))
                new_cells.add(id(seq))
                net._cells[field] = seq
        for field, obj in self._fields.items():
            if isinstance(obj, Cell):
                net._insert_child(field, obj)
                new_cells.add(id(obj))
            else:
                object.__setattr__(net, field, obj)
        return net

    @staticmethod
    def _container_cells(node, new_cells):
        cells = OrderedDict()
        for i, child in enumerate(node.children):
            cell = child.get_instance()
            if child.symbol_tree is not None and child.symbol_tree.is_modified():
                cell = child.symbol_tree._build_network(new_cells)
            key = getattr(child, "container_key", None)
            cells[key if key is not None and not key.isdigit() else str(i)] = cell
        return cells

    def set_saved_file_name(self, file_name):
        self._saved_file_name = file_name if file_name.endswith(".py") else file_name + ".py"

    def get_saved_file_name(self):
        return self._saved_file_name

    def save_network_to_file(self):
        """Write `get_code()` to `rewritten_network/<saved file name>` of the current directory."""
        os.makedirs("rewritten_network", exist_ok=True)
        with open(os.path.join("rewritten_network", self._saved_file_name), "w", encoding="utf-8") as f:
            f.write(self.get_code())

    # ------------------------------------------------------------ printing
    def get_node_tabulate(self, all_nodes=False):
        """A table of the nodes: type, name, code, arg providers, target users."""
        rows = [("node type", "name", "codes", "arg providers", "target users")]
        for node in (self.all_nodes() if all_nodes else self._nodes):
            tree = node.get_belong_symbol_tree()
            providers = {k: (p.get_name(), i) for k, (p, i) in node.get_arg_providers().items()} if tree else {}
            users = [(u.get_name(), k) for u, k in tree.get_node_users(node)] if tree else []
            code = node.get_source_code().splitlines()
            rows.append((node.get_node_type().name, node.get_name(), code[0] if code else "", str(providers),
                         str(users)))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)

    def dump(self):
        print(self.get_node_tabulate())


def _mentions(tree, field):
    return tree is not None and any(isinstance(n, ast.Attribute) and n.attr == field for n in ast.walk(tree))


def _read_value(node, pos):
    args = node.get_args()
    if pos < len(args):
        return args[pos]
    return list(node.get_kwargs().values())[pos - len(args)]


def _set_read(node, pos, value):
    """Read position `pos` of `node` (an argument, then the kwargs in order) becomes `value`."""
    if pos < len(node._args):
        node._args[pos] = value
    else:
        key = list(node._kwargs)[pos - len(node._args)]
        node._kwargs[key] = value
