"""Test models of the reduce operators (see ../ops_reduce.py)."""

import numpy as np

from . import model
from .common import T, single_op, weights
