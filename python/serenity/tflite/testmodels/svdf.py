"""Test models of group 'svdf' (issue 38: sequence models, persistent state, int16 activations)."""

import numpy as np

from . import model
from .common import T, single_op, weights
