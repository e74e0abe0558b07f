"""`mindspore.train.amp`: where MindSpore's training code keeps mixed precision (`build_train_network`, the white
and black lists) and the private steps of building a training network, which subclasses of `Model` written
for MindSpore (MindArmour's DPModel and SuppressModel) call one by one: `_config_level` (each level's settings),
`_check_kwargs`, `_do_keep_batchnorm_fp32` and `_add_loss_network`. The implementation is `mindseed.amp`'s.
"""
from mindseed.amp import *  # noqa: F401,F403
from mindseed.amp import (_CONFIG_LEVEL, AMP_BLACK_LIST, AMP_WHITE_LIST, DynamicLossScaleManager,  # noqa: F401
                          _add_loss_network, _check_kwargs, _do_keep_batchnorm_fp32, _OutputTo16, _OutputTo32)
from mindseed.amp import __all__  # noqa: F401

# each level's settings; O2's loss-scale manager is one DynamicLossScaleManager made here, as in MindSpore
_config_level = {level: dict(config, loss_scale_manager=DynamicLossScaleManager())
                 if config["loss_scale_manager"] == "dynamic" else dict(config)
                 for level, config in _CONFIG_LEVEL.items()}
