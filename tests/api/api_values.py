"""Helpers of the API tests: results as plain Python values."""
from __future__ import annotations

import numpy as np

from nessie import Segmented


def plain(v):
    """Results as plain Python lists (numpy arrays and Segmented unfolded)."""
    if isinstance(v, Segmented):
        return [plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v
