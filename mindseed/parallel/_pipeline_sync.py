"""`mindspore.sync_pipeline_shared_parameters`: the copies of a weight shared by two pipeline stages (a tied
embedding) made equal again, the owning stage sending its value to the other (MindSpore's Send/Receive)."""
from mindseed.common._parallel import auto_parallel_cell, get_auto_parallel_context
from mindseed.nn.cell import Cell
from mindseed.ops.operations.comm_ops import Receive, Send

__all__ = ["sync_pipeline_shared_parameters"]


def sync_pipeline_shared_parameters(net):
    """Send each pipeline-shared parameter of `net` from the stage that sends it to the stage that receives it.

    The parameters come from `net.parameter_layout_dict` (name -> MindSpore's layout list, whose entries 8 to 11 are
    pipeline_shared, is_send, peer_rank and sr_tag); nothing happens with fewer than 2 pipeline stages.

    Raises:
        TypeError: `net` is not a Cell.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'sync_pipeline_shared_parameters', the argument 'net' should be a Cell, but got "
                        f"{type(net)}.")
    parallel_net = auto_parallel_cell(net)   # an AutoParallel's own pipeline setting, else the context's
    stages = parallel_net.get_pipeline_stages() if parallel_net is not None else \
        get_auto_parallel_context("pipeline_stages")
    if stages < 2:
        return
    layouts = getattr(net, "parameter_layout_dict", None) or {}
    for name, param in net.parameters_and_names():
        layout = layouts.get(name)
        if layout is None or len(layout) < 12 or not layout[8]:
            continue
        is_send, peer, tag = layout[9], layout[10], layout[11]
        if is_send:
            Send(sr_tag=tag, dest_rank=peer)(param)
        else:
            param.set_data(Receive(sr_tag=tag, src_rank=peer, shape=param.shape, dtype=param.dtype)(param))
