"""mindspore.common._grad_function: `_Function`, the custom autograd function of PyNative mode.

It lives in `mindseed.autograd` (a higher layer than common); `mindseed._registration` places it here when
mindseed is imported.
"""
