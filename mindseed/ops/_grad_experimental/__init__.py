"""`mindspore.ops._grad_experimental`: MindSpore's package of bprop definitions; here only the module names tools
import from (the bprops of mindseed's primitives are declared with the primitives)."""
