"""mindspore.rewrite PatternEngine: find chains or trees of node types in a SymbolTree and replace them."""
import abc
from collections import OrderedDict

from mindseed import _checkparam as Validator
from mindseed.nn import Cell
from mindseed.ops.primitive import Primitive
from .node import Node
from .node_type import NodeType
from .symbol_tree import SymbolTree
from .tree_node_helper import TreeNodeHelper

_MATCHABLE = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Input)


class PatternNode:
    """A node of a pattern: matches a node whose instance is of `match_type` and whose inputs match `inputs`.

    Args:
        pattern_node_name (str): the name the match result is keyed by.
        match_type (type): the type of the instance a matching node calls. Default: ``None``.
        inputs (list[PatternNode]): the patterns of the inputs. Default: ``None``.
    """

    def __init__(self, pattern_node_name, match_type=None, inputs=None):
        Validator.check_value_type("pattern_node_name", pattern_node_name, [str], "PatternNode")
        if inputs is not None:
            Validator.check_element_type_of_iterable("inputs", inputs, [PatternNode], "PatternNode")
        self._name = pattern_node_name
        self._type = match_type
        self._inputs = list(inputs) if inputs is not None else []

    @staticmethod
    def from_node(node):
        """A PatternNode named by `node`'s first target, matching its instance type when it calls a Cell."""
        Validator.check_value_type("node", node, [Node], "PatternNode")
        pattern = PatternNode(str(node.get_targets()[0]))
        if node.get_node_type() is NodeType.CallCell:
            pattern._type = node.get_instance_type()
        return pattern

    @staticmethod
    def create_pattern_from_node(node):
        """The pattern of `node` and, recursively, of its inputs."""
        Validator.check_value_type("node", node, [Node], "PatternNode")
        pattern = PatternNode.from_node(node)
        pattern._inputs = [PatternNode.create_pattern_from_node(n) for n in node.get_inputs()]
        return pattern

    @staticmethod
    def create_pattern_from_list(type_list):
        """A chain pattern: each type's node feeds the next; returns the last (the root)."""
        Validator.check_value_type("type_list", type_list, [list], "PatternNode")
        last = None
        for i, cell_type in enumerate(type_list):
            last = PatternNode(f"{i}-{cell_type}", cell_type, [last] if last is not None else [])
        return last

    def add_input(self, node):
        Validator.check_value_type("node", node, [PatternNode], "PatternNode")
        self._inputs.append(node)

    def set_inputs(self, inputs):
        Validator.check_element_type_of_iterable("inputs", inputs, [PatternNode], "PatternNode")
        self._inputs = list(inputs)

    def match(self, node):
        """`node` calls an instance of this pattern's type."""
        Validator.check_value_type("node", node, [Node], "PatternNode")
        return self._type == node.get_instance_type()

    def get_inputs(self):
        return self._inputs

    def name(self):
        return self._name

    def type(self):
        return self._type


class VarNode(PatternNode):
    """A PatternNode matching any node."""

    def __init__(self):
        super().__init__("placeholder", Cell, [])

    def match(self, node):
        return node is not None and node.get_handler() is not None


class Replacement(abc.ABC):
    """Builds the nodes replacing a match: subclass and define `build(pattern, is_chain_pattern, matched)`,
    returning a list of Nodes (see `SymbolTree.replace`); `matched` maps pattern names to the matched nodes."""

    @abc.abstractmethod
    def build(self, pattern, is_chain_pattern, matched):
        """The nodes replacing the match."""

    def __call__(self, pattern, is_chain_pattern, matched):
        return self.build(pattern, is_chain_pattern, matched)


class PatternEngine:
    """Transforms a SymbolTree by a pattern: every match is replaced by what `replacement` builds.

    Args:
        pattern (Union[PatternNode, list]): the root PatternNode, or a list of Cell/Primitive types (a chain).
        replacement (Replacement): builds the new nodes of a match. Default: ``None`` (match only).
    """

    def __init__(self, pattern, replacement=None):
        if replacement is not None:
            Validator.check_value_type("replacement", replacement, [Replacement], "PatternEngine")
        if isinstance(pattern, list):
            for p in pattern:
                if not (isinstance(p, type) and issubclass(p, (Cell, Primitive))):
                    raise TypeError(f"For 'PatternEngine', the types of 'pattern' must be Cell or Primitive classes, "
                                    f"but got '{p}' with type '{type(p).__name__}'.")
            self._is_chain = True
            self._pattern = PatternNode.create_pattern_from_list(pattern)
        else:
            Validator.check_value_type("pattern", pattern, [PatternNode], "PatternEngine")
            self._is_chain = False
            self._pattern = pattern
        self._replacement = replacement

    def pattern(self):
        return self._pattern

    def apply(self, stree):
        """Replace every match in `stree` (and its sub-trees); True when something was replaced."""
        Validator.check_value_type("stree", stree, [SymbolTree], "PatternEngine")
        changed = False
        queue = stree.get_inputs()
        visited = []
        while queue:
            node = queue.pop(0)
            if node is None or node in visited or node.get_symbol_tree() is None:
                continue
            visited.append(node)
            if node.get_node_type() == NodeType.Tree:
                changed = self.apply(TreeNodeHelper.get_sub_tree(node)) or changed
                queue.extend(node.get_users())
                continue
            if node.get_node_type() == NodeType.CellContainer:
                changed = self._apply_in_container(stree, node) or changed
                queue.extend(node.get_users())
                continue
            matched, matched_dict = self._match(self._pattern, node)
            new_nodes = []
            if matched and PatternEngine._check_match(self._pattern, matched_dict) and self._replacement is not None:
                new_nodes = self._replacement(self._pattern, self._is_chain, matched_dict)
            if not new_nodes:
                queue.extend(node.get_users())
                continue
            changed = True
            queue.append(PatternEngine._replace_match(stree, node, matched_dict, new_nodes))
        return changed

    @staticmethod
    def _replace_match(stree, root, matched_dict, new_nodes):
        """Replace the match rooted at `root` by `new_nodes`, then erase the other matched nodes, last matched first,
        as MindSpore does: the replacement takes the match's place whole (a node `x = f(x)` whose output the new
        nodes read hands them its own input)."""
        new_root = stree.replace(root, new_nodes)
        for node in reversed(list(matched_dict.values())):
            if node is not root and node.get_symbol_tree() is not None:
                stree.erase(node)
        return new_root

    def _apply_in_container(self, stree, container):
        changed = False
        for child in container.get_handler().nodes():
            child = Node(child)
            if child.get_node_type() == NodeType.Tree:
                changed = self.apply(child.get_sub_tree()) or changed
                continue
            if child.get_symbol_tree() is None:
                continue
            matched, matched_dict = self._match(self._pattern, child)
            new_nodes = self._replacement(self._pattern, self._is_chain, matched_dict) if (
                matched and self._replacement is not None) else []
            if new_nodes:
                changed = True
                PatternEngine._replace_match(stree, child, matched_dict, new_nodes)
        return changed

    def _match(self, pattern, node):
        """(matched, OrderedDict pattern name -> node) of `pattern` rooted at `node`, inputs first."""
        if node.get_node_type() not in _MATCHABLE or not pattern.match(node):
            return False, OrderedDict()
        if isinstance(pattern, VarNode):
            return True, OrderedDict()
        pattern_inputs = pattern.get_inputs()
        if not pattern_inputs:
            return True, OrderedDict({pattern.name(): node})
        inputs = node.get_inputs()
        if len(inputs) != len(pattern_inputs):
            return False, OrderedDict()
        result = OrderedDict()
        for sub_pattern, sub_node in zip(pattern_inputs, inputs):
            matched, sub_result = self._match(sub_pattern, sub_node)
            if not matched:
                return False, OrderedDict()
            result.update(sub_result)
        result[pattern.name()] = node
        return True, result

    @staticmethod
    def _check_match(pattern, match_dict):
        """No matched node but the root has a user outside the match (the match would leak an output)."""
        matched = list(match_dict.values())
        for key, node in match_dict.items():
            if key != pattern.name() and any(user not in matched for user in node.get_users()):
                return False
        return True
