"""Tables of run data: a pandas DataFrame when pandas is importable, otherwise a dict of NumPy arrays.

Every table of python/sinklab/runs.py and python/sinklab/sweeps.py is built here, so both forms hold the
same columns with the same dtypes. Set the environment variable SINKLAB_NO_PANDAS=1 to get the dicts even
where pandas is installed (it is read each time a table is built).
"""
import os

import numpy as np


def pandas_enabled():
    """True when tables are DataFrames: pandas imports and SINKLAB_NO_PANDAS is unset, empty or 0."""
    if os.environ.get("SINKLAB_NO_PANDAS", "") not in ("", "0"):
        return False
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def column(values, dtype=None):
    """One column from Python values, None meaning "no value": bool when all are bools, int64 when all
    are ints, float64 (None as NaN) when all are numbers or None, else object (None kept). `dtype`
    forces a NumPy dtype instead, with None as NaN for floats."""
    if dtype is not None:
        if np.dtype(dtype).kind == "f":
            return np.array([np.nan if v is None else v for v in values], dtype=dtype)
        return np.array(values, dtype=dtype)
    present = [v for v in values if v is not None]
    if len(present) == len(values) and present and all(isinstance(v, bool) for v in present):
        return np.array(values, dtype=bool)
    if len(present) == len(values) and present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return np.array(values, dtype=np.int64)
    if all(_is_number(v) for v in present):  # also an all-None column: a number nobody computed
        return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def array_column(arrays):
    """A column whose cells are 1-D float arrays (bos_mass_by_row): [rows, n] when every cell has the same
    length n, else an object array of the 1-D arrays. Indexing by row gives the row's array either way."""
    cells = [np.asarray([np.nan if v is None else v for v in a], dtype=np.float64) for a in arrays]
    if cells and len({len(c) for c in cells}) == 1:
        return np.stack(cells)
    out = np.empty(len(cells), dtype=object)
    for i, c in enumerate(cells):
        out[i] = c
    return out


def table(columns):
    """`columns` (name -> NumPy array, all of one length, in column order) as a DataFrame or a dict.
    A 2-D column becomes a DataFrame column of 1-D arrays, one per row."""
    if not pandas_enabled():
        return dict(columns)
    import pandas as pd

    frame = {}
    for name, values in columns.items():
        if values.ndim > 1:
            cells = np.empty(len(values), dtype=object)
            for i, row in enumerate(values):
                cells[i] = row
            values = cells
        frame[name] = values
    n = len(next(iter(columns.values()))) if columns else 0
    return pd.DataFrame(frame, index=pd.RangeIndex(n))
