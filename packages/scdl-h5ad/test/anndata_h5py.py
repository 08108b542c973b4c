"""Writes an .h5ad with h5py in the on-disk layout anndata >= 0.10 writes (its
_io/specs/methods.py), for tests: a JSON spec on stdin, the output path as argv[1].

Only the elements the converter reads are written: X (csr_matrix), obs and var
(dataframe 0.2.0) with one entry per column encoding, and the empty dict groups.

Element specs ("kind" is the encoding-type anndata gives the element):
  {"kind": "string-array", "values": [str]}
  {"kind": "array", "dtype": numpy dtype name, "values": [number | bool]}
  {"kind": "nullable-integer", "dtype": "int64", "values": [int | null]}
  {"kind": "nullable-boolean", "values": [bool | null]}
  {"kind": "nullable-string-array", "values": [str | null], "naValue": "NA" | "NaN" (0.13+)}
  {"kind": "categorical", "codes": [int], "codesDtype": "int8", "ordered": bool,
   "categories": one of the elements above}
A dataframe: {"index": element (string-array or nullable-string-array), "columns": [element + "name"]}.
"""

import json
import sys

import h5py
import numpy as np


def encode(obj, kind, version):
    # anndata's writer registry sets these two attributes on every element it writes.
    obj.attrs["encoding-type"] = kind
    obj.attrs["encoding-version"] = version


def string_array(group, key, values):
    # write_vlen_string_array: h5py's variable-length str dtype.
    str_dtype = h5py.special_dtype(vlen=str)
    ds = group.create_dataset(key, data=np.array(values, dtype=object).astype(str_dtype), dtype=str_dtype)
    encode(ds, "string-array", "0.2.0")


def array(group, key, values, dtype):
    # write_basic: the numpy array as it is (numpy bool becomes h5py's FALSE/TRUE enum).
    data = np.array(values, dtype=dtype)
    ds = group.create_dataset(key, data=data, shape=data.shape, dtype=data.dtype)
    encode(ds, "array", "0.2.0")


def nullable(group, key, spec):
    # write_nullable: values with missing entries replaced (0 / False / ""), then a bool mask.
    values = spec["values"]
    mask = [v is None for v in values]
    g = group.require_group(key)
    encode(g, spec["kind"], "0.1.0")
    if spec["kind"] == "nullable-string-array":
        if "naValue" in spec:
            g.attrs["na-value"] = spec["naValue"]
        string_array(g, "values", ["" if v is None else v for v in values])
    elif spec["kind"] == "nullable-boolean":
        array(g, "values", [False if v is None else v for v in values], "bool")
    else:
        array(g, "values", [0 if v is None else v for v in values], spec.get("dtype", "int64"))
    array(g, "mask", mask, "bool")


def categorical(group, key, spec):
    # write_categorical: ordered flag, integer codes (-1 = missing), then the categories element.
    g = group.require_group(key)
    encode(g, "categorical", "0.2.0")
    g.attrs["ordered"] = bool(spec.get("ordered", False))
    array(g, "codes", spec["codes"], spec.get("codesDtype", "int8"))
    element(g, "categories", spec["categories"])


def element(group, key, spec):
    kind = spec["kind"]
    if kind == "string-array":
        string_array(group, key, spec["values"])
    elif kind == "array":
        array(group, key, spec["values"], spec["dtype"])
    elif kind in ("nullable-integer", "nullable-boolean", "nullable-string-array"):
        nullable(group, key, spec)
    elif kind == "categorical":
        categorical(group, key, spec)
    else:
        raise ValueError(f"unknown element kind {kind!r}")


def dataframe(parent, key, spec):
    # write_dataframe: column-order and _index attributes, the index, then each column.
    group = parent.require_group(key)
    encode(group, "dataframe", "0.2.0")
    columns = spec.get("columns", [])
    group.attrs["column-order"] = [c["name"] for c in columns]
    group.attrs["_index"] = "_index"
    element(group, "_index", spec["index"])
    for column in columns:
        element(group, column["name"], column)


def csr(parent, key, rows):
    dense = np.array(rows, dtype=np.float32)
    data, indices, indptr = [], [], [0]
    for row in dense:
        for j, v in enumerate(row):
            if v != 0:
                data.append(v)
                indices.append(j)
        indptr.append(len(data))
    g = parent.require_group(key)
    encode(g, "csr_matrix", "0.1.0")
    g.attrs["shape"] = dense.shape
    g.create_dataset("data", data=np.array(data, dtype=np.float32))
    g.create_dataset("indices", data=np.array(indices, dtype=np.int32))
    g.create_dataset("indptr", data=np.array(indptr, dtype=np.int32))


def main():
    spec = json.load(sys.stdin)
    with h5py.File(sys.argv[1], "w") as f:
        encode(f, "anndata", "0.1.0")
        csr(f, "X", spec["X"])
        dataframe(f, "obs", spec["obs"])
        dataframe(f, "var", spec["var"])
        for name in ("obsm", "varm", "obsp", "varp", "layers", "uns"):
            encode(f.require_group(name), "dict", "0.1.0")


main()
