"""Checks an .h5ad written by binscope's SCDL -> .h5ad export against the .h5ad the archive
was converted from, with h5py: argv[1] the source, argv[2] the export; a JSON spec on stdin:
  {"matrix": "X" | "raw/X", "dtype": numpy dtype of the archive's data,
   "varFrame": "var" | "raw/var"}
Exits non-zero (an AssertionError naming what differs) unless:
  - every element carries anndata's encoding attributes (root, X, obs, var, the dict groups);
  - X is a csr_matrix of the source matrix's shape, its values cast to the archive dtype, in
    that dtype, with the same indices and indptr;
  - obs and var hold the source's columns (column-order), decoded values equal (categoricals
    as their categories), and the source's index where the archive kept it (a frame without
    columns) or "0".."n-1".
Prints one JSON line of what it compared.
"""

import json
import sys

import h5py
import numpy as np


def attr(obj, name):
    value = obj.attrs[name]
    return value.decode() if isinstance(value, bytes) else value


def check_encoding(obj, kind, version, where):
    assert attr(obj, "encoding-type") == kind, f"{where}: encoding-type {attr(obj, 'encoding-type')!r}, expected {kind!r}"
    assert attr(obj, "encoding-version") == version, f"{where}: encoding-version {attr(obj, 'encoding-version')!r}"


def decode(elem):
    """An obs/var element's values as plain Python values (None for missing)."""
    if isinstance(elem, h5py.Dataset):
        if h5py.check_string_dtype(elem.dtype):
            return list(elem.asstr()[()])
        return [v.item() if hasattr(v, "item") else v for v in elem[()]]
    kind = attr(elem, "encoding-type")
    if kind == "categorical":
        categories = decode(elem["categories"])
        return [None if c < 0 else categories[c] for c in elem["codes"][()]]
    if kind.startswith("nullable-"):
        values, mask = decode(elem["values"]), elem["mask"][()]
        return [None if m else v for v, m in zip(values, mask)]
    raise AssertionError(f"{elem.name}: unexpected encoding {kind}")


def is_nan(v):
    return isinstance(v, float) and np.isnan(v)


def same(a, b):
    """Equal values; a missing value is None, or NaN in a float column (pandas' missing float)."""
    if a is None or b is None or is_nan(a) or is_nan(b):
        return (a is None or is_nan(a)) and (b is None or is_nan(b))
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return int(a) == int(b)
    return a == b


def check_frame(src, out, where):
    check_encoding(out, "dataframe", "0.2.0", where)
    columns = [str(c) for c in src.attrs["column-order"]]
    out_columns = [str(c) for c in out.attrs["column-order"]]
    assert out_columns == columns, f"{where}: columns {out_columns}, expected {columns}"
    index = decode(out[attr(out, "_index")])
    if columns:
        assert index == [str(i) for i in range(len(index))], f"{where}: index {index[:5]}… is not 0..n-1"
    else:
        expected = decode(src[attr(src, "_index")])
        assert index == expected, f"{where}: index {index[:5]}…, expected {expected[:5]}…"
    for name in columns:
        a, b = decode(src[name]), decode(out[name])
        assert len(a) == len(b), f"{where}/{name}: {len(b)} values, expected {len(a)}"
        bad = [k for k, (x, y) in enumerate(zip(a, b)) if not same(x, y)]
        assert not bad, f"{where}/{name}[{bad[0]}]: {b[bad[0]]!r}, expected {a[bad[0]]!r}"
    return len(index), columns


def main():
    spec = json.load(sys.stdin)
    with h5py.File(sys.argv[1], "r") as src, h5py.File(sys.argv[2], "r") as out:
        check_encoding(out, "anndata", "0.1.0", "/")
        for name in ("obsm", "varm", "obsp", "varp", "layers", "uns"):
            check_encoding(out[name], "dict", "0.1.0", name)
        m, x = src[spec["matrix"]], out["X"]
        check_encoding(x, "csr_matrix", "0.1.0", "X")
        shape = [int(v) for v in x.attrs["shape"]]
        assert shape == [int(v) for v in m.attrs["shape"]], f"X shape {shape}, source {list(m.attrs['shape'])}"
        dtype = np.dtype(spec["dtype"])
        assert x["data"].dtype == dtype, f"X/data dtype {x['data'].dtype}, expected {dtype}"
        expected = m["data"][()].astype(dtype)
        assert np.array_equal(x["data"][()], expected, equal_nan=dtype.kind == "f"), "X/data differs"
        assert np.array_equal(x["indices"][()], m["indices"][()]), "X/indices differ"
        assert np.array_equal(x["indptr"][()], m["indptr"][()]), "X/indptr differs"
        obs_rows, obs_columns = check_frame(src["obs"], out["obs"], "obs")
        var_rows, var_columns = check_frame(src[spec["varFrame"]], out["var"], "var")
        assert [obs_rows, var_rows] == shape, f"obs × var {obs_rows} × {var_rows}, X {shape}"
        print(json.dumps({"shape": shape, "nnz": int(x["data"].shape[0]), "obs": obs_columns, "var": var_columns}))


main()
