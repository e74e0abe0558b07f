"""mindspore-rl 0.7.0, unmodified, on mindseed: its DQN and PPO algorithms run as its examples run them.

`example/dqn/train.py`'s pattern — the algorithm's `config`, `DQNSession(...).run(class_type=DQNTrainer,
episode=...)` in GRAPH_MODE — on gym's CartPole-v0: the greedy policy of a short training balances the pole far
longer than the untrained one.

gym 0.24.1 is the release that runs on numpy 2 (0.25/0.26's environment checker uses `np.bool8`); mindspore-rl
does not seed gym releases before 0.26, so the tests seed the environments they create, as a user would.
"""
import os

import numpy as np
import pytest

from _eco import use


@pytest.fixture(scope="module")
def rl():
    return use("mindspore-rl", "mindspore_rl")


def _recorder(rl):
    """A callback keeping each episode's training reward and loss, and the greedy evaluation at the end."""
    from mindspore_rl.utils.callback import Callback

    class Recorder(Callback):
        def __init__(self):
            super().__init__()
            self.rewards, self.losses, self.final_eval = [], [], None

        def episode_end(self, params):
            self.rewards.append(float(np.mean(params.total_rewards.asnumpy())))
            self.losses.append(float(np.mean(params.loss.asnumpy())))

        def end(self, params):
            if "evaluate" in params:
                self.final_eval = float(params.evaluate().asnumpy())
    return Recorder()


def _seed_environments(msrl, seed):
    envs = []
    for wrapper in (msrl.collect_environment, msrl.eval_environment):
        inner = wrapper.environment
        envs.extend(inner if isinstance(inner, (list, tuple)) else [inner])
    for i, env in enumerate(envs):
        env._env.reset(seed=seed + i)           # the gym environment GymEnvironment holds (gym < 0.26: unseeded)
        env._env.action_space.seed(seed + i)


@pytest.fixture
def graph_mode(tmp_path):
    import mindspore as ms
    mode, cwd = ms.get_context("mode"), os.getcwd()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    os.chdir(tmp_path)                           # its checkpoints go to ./ckpt
    yield
    os.chdir(cwd)
    ms.set_context(mode=mode)


def test_dqn_learns_to_balance_cartpole(rl, graph_mode):
    from mindspore_rl.algorithm.dqn import config
    from mindspore_rl.algorithm.dqn.dqn_session import DQNSession
    from mindspore_rl.algorithm.dqn.dqn_trainer import DQNTrainer
    config.trainer_params.update(num_evaluate_episode=5, eval_per_episode=1000, save_per_episode=1000)
    session = DQNSession()
    _seed_environments(session.msrl, 7)
    recorder = _recorder(rl)
    session.callbacks.append(recorder)
    session.run(class_type=DQNTrainer, episode=70)
    assert all(np.isfinite(recorder.losses))
    untrained = np.mean(recorder.rewards[:10])
    assert untrained < 30, recorder.rewards
    # CartPole-v0 stops at 200 steps; a policy that has not learnt falls after about 10
    assert recorder.final_eval >= 50, (recorder.final_eval, recorder.rewards)     # 86.6 here, seeded


def test_ppo_trains_a_few_iterations(rl, graph_mode):
    import _rl_envs
    from mindspore_rl.algorithm.ppo import config
    from mindspore_rl.algorithm.ppo.ppo_session import PPOSession
    from mindspore_rl.algorithm.ppo.ppo_trainer import PPOTrainer
    for params in (config.collect_env_params, config.eval_env_params):
        params["GymEnvironment"]["name"] = _rl_envs.ENV_ID
    # two environments (its learner squeezes the environment axis away when there is one) in one worker process
    config.algorithm_config["collect_environment"].update(number=2, num_parallel=1)
    config.algorithm_config["replay_buffer"]["capacity"] = 40
    # num_eval_episode is both how often and over how many episodes its EvaluateCallback evaluates
    config.trainer_params.update(duration=40, num_eval_episode=3, num_save_episode=1000)
    config.learner_params["iter_times"] = 5
    session = PPOSession()
    learner = session.msrl.learner
    weights = learner.actor_net.trainable_params() + learner.critic_net.trainable_params()
    before = [p.asnumpy().copy() for p in weights]
    recorder = _recorder(rl)
    session.callbacks.append(recorder)
    session.run(class_type=PPOTrainer, episode=3, duration=40)
    assert len(recorder.losses) == 3 and all(np.isfinite(recorder.losses)), recorder.losses
    # 40 steps of a reward in (-24, 0] each (actions are clipped to [-1, 1], targets in [-0.5, 0.5])
    assert all(-40 * 24 < r < 0 for r in recorder.rewards), recorder.rewards
    assert recorder.final_eval is not None and np.isfinite(recorder.final_eval) and recorder.final_eval < 0
    unchanged = [p.name for p, value in zip(weights, before) if np.allclose(p.asnumpy(), value)]
    assert not unchanged, f"parameters the optimizer left unchanged: {unchanged}"
