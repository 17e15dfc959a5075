"""Test models of group 'lstm' (issue 38: sequence models, persistent state, int16 activations)."""

import numpy as np

from . import model
from .common import T, single_op, weights
