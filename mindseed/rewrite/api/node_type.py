"""mindspore.rewrite.NodeType: what statement a rewrite `Node` stands for."""
from enum import Enum


class NodeType(Enum):
    """The kind of a `Node`.

    - CallCell: calls a Cell of the network (``x = self.conv1(x)``).
    - CallPrimitive: calls a Primitive held by the network.
    - CallModule: calls a function of a module (kept for MindSpore's numbering).
    - CallFunction: calls a function (``x = ops.relu(x)``).
    - CallMethod: calls a method of a value or of the network that is not parsed further (``x = x.view(2, -1)``).
    - Python: a statement rewrite keeps as it is (unsupported syntax or nothing to parse).
    - Input: an argument of the forward method.
    - Output: the return statement.
    - Tree: calls a user-defined network, parsed into its own SymbolTree.
    - CellContainer: calls a :class:`mindspore.nn.SequentialCell`, whose cells are nodes of their own.
    - MathOps: an arithmetic or comparison expression (``z = x + y``).
    - ControlFlow: an ``if`` statement, kept whole (see `SymbolTree.flatten_static_if_control_flow`).
    """
    Unknown = 0
    CallCell = 1
    CallPrimitive = 2
    CallModule = 3
    CallFunction = 4
    CallMethod = 5
    Python = 6
    Input = 7
    Output = 8
    Tree = 9
    CellContainer = 10
    MathOps = 11
    ControlFlow = 12
