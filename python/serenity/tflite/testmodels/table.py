"""Test models of the table operators (see ../ops_table.py)."""

import numpy as np

from . import model
from .common import T, single_op, weights
