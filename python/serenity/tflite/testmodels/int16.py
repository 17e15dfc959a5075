"""Test models of group 'int16' (issue 38: sequence models, persistent state, int16 activations)."""

import numpy as np

from . import model
from .common import T, single_op, weights
