"""mindspore.nn.probability.distribution.student_t."""
from mindseed.nn.probability.distribution._continuous import StudentT

__all__ = ["StudentT"]
