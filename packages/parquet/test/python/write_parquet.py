"""Writes Parquet files the way pyarrow users do, for binscope's reader tests: nulls,
dictionary pages, several row groups, and each compression asked for. Prints the canonical
digest of the table (see read_parquet.py) so the test compares binscope's records with it."""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from read_parquet import canon, line
import hashlib


def table(rows):
    ints = [None if i % 7 == 3 else i * 1_000_003 - 50_000 for i in range(rows)]
    return pa.table({
        "id": pa.array(range(rows), pa.int32()),
        "big": pa.array([None if i % 11 == 5 else (2**62 + i) * (-1 if i % 2 else 1) for i in range(rows)], pa.int64()),
        "u64": pa.array([2**64 - 1 - i for i in range(rows)], pa.uint64()),
        "small": pa.array([i % 200 - 100 for i in range(rows)], pa.int8()),
        "value": pa.array([None if i % 5 == 0 else i / 7 for i in range(rows)], pa.float64()),
        "f32": pa.array([i * 0.25 for i in range(rows)], pa.float32()),
        "label": pa.array([None if i % 13 == 0 else f"class-{i % 4}" for i in range(rows)], pa.string()),
        "blob": pa.array([bytes([i % 256, (i * 3) % 256]) for i in range(rows)], pa.binary()),
        "flag": pa.array([i % 3 == 0 for i in range(rows)], pa.bool_()),
        "tags": pa.array([None if i % 17 == 0 else [f"t{i % 3}", None][: 1 + i % 2] for i in range(rows)], pa.list_(pa.string())),
        "point": pa.array([{"x": i, "y": None if i % 4 == 0 else float(i)} for i in range(rows)],
                          pa.struct([("x", pa.int32()), ("y", pa.float64())])),
        "ints": pa.array([ints[i] for i in range(rows)], pa.int64()),
    })


def main(path, compression, rows, group):
    t = table(int(rows))
    pq.write_table(t, path, compression=compression, row_group_size=int(group), use_dictionary=True)
    digest = hashlib.sha256()
    first = None
    for row in t.to_pylist():
        text = line([canon(v) for v in row.values()])
        first = first if first is not None else text
        digest.update(text.encode("utf-8") + b"\n")
    meta = pq.ParquetFile(path).metadata
    print(json.dumps({"rows": t.num_rows, "rowGroups": meta.num_row_groups, "digest": digest.hexdigest(),
                      "first": first, "codec": meta.row_group(0).column(0).compression,
                      "dictionary": "RLE_DICTIONARY" in str(meta.row_group(0).column(6).encodings)}))


if __name__ == "__main__":
    main(*sys.argv[1:])
