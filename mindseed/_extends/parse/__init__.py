"""MindSpore's `mindspore._extends.parse`: here its `compile_config` module, the graph compiler's switches."""
