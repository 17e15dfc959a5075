"""Test models of the elementwise operators (see ../ops_elementwise.py)."""

import numpy as np

from . import model
from .common import T, single_op, weights
