"""Test models of the shape operators (see ../ops_shape.py)."""

import numpy as np

from . import model
from .common import T, single_op, weights
