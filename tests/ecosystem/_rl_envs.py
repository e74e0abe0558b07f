"""A small continuous gym task for mindspore-rl's PPO, whose networks are written for 6-dimensional actions (its
example trains MuJoCo's HalfCheetah): the reward is minus the squared distance between the action and a target the
observation shows, 20 steps an episode. A module of its own so that PPO's environment worker processes can pickle
the environment's class by reference."""
import gym
import numpy as np
from gym import spaces

ENV_ID = "Reach6-v0"


class Reach(gym.Env):
    def __init__(self):
        self.observation_space = spaces.Box(-1.0, 1.0, (6,), np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, (6,), np.float32)
        self.target, self.t = None, 0

    def reset(self, *, seed=None, return_info=False, options=None):
        super().reset(seed=seed)
        self.t = 0
        self.target = self.np_random.uniform(-0.5, 0.5, 6).astype(np.float32)
        return self.target.copy()

    def step(self, action):
        self.t += 1
        reward = -float(np.sum((np.asarray(action, np.float32) - self.target) ** 2))
        self.target = self.np_random.uniform(-0.5, 0.5, 6).astype(np.float32)
        return self.target.copy(), reward, self.t >= 20, {}


if ENV_ID not in gym.envs.registry:
    gym.register(id=ENV_ID, entry_point=f"{__name__}:Reach", max_episode_steps=20)
