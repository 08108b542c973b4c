"""Reads a Parquet file with pyarrow and prints what binscope's tests compare, as JSON:
the schema as pyarrow sees it, the footer's key-value metadata, the row count, and a digest of
every row in a canonical form (ints as decimal text, floats as their IEEE bits, bytes as hex,
structs as their values in field order), so values are compared without a deep-equal."""
import hashlib
import json
import struct
import sys

import numpy
import pyarrow.parquet as pq


def canon(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (float, numpy.floating)):
        return "f" + struct.pack(">d", float(v)).hex()
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray)):
        return "x" + bytes(v).hex()
    if isinstance(v, dict):
        return [canon(x) for x in v.values()]
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    raise TypeError(f"no canonical form for {type(v)}")


def line(row):
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


def main(path):
    table = pq.read_table(path)
    schema = [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in table.schema]
    metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    digest = hashlib.sha256()
    first = None
    for batch in table.to_batches():
        for row in batch.to_pylist():
            text = line([canon(v) for v in row.values()])
            first = first if first is not None else text
            digest.update(text.encode("utf-8") + b"\n")
    print(json.dumps({"rows": table.num_rows, "schema": schema, "metadata": metadata,
                      "digest": digest.hexdigest(), "first": first}))


if __name__ == "__main__":
    main(sys.argv[1])
