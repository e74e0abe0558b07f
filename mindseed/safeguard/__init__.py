"""mindspore.safeguard: checkpoint obfuscation (weights scaled or permuted by secret metadata)."""
from mindseed.safeguard._obfuscation import load_obf_params_into_net, obfuscate_ckpt

__all__ = ["obfuscate_ckpt", "load_obf_params_into_net"]
