"""mindspore.common.api: the graph-compilation entry points `jit` and `jit_class`.

They live in `mindseed.compiler` (a higher layer than common); `mindseed._registration` places the same objects
here when mindseed is imported, so `from mindspore.common.api import jit` is `mindspore.jit`.
"""
