"""Writes an Arrow IPC file and stream with pyarrow (dictionary column, nulls, several batches,
nested lists and structs, a fixed-size list, float16, uint64 beyond 2^63) and prints its rows as
JSON in describe.py's canonical text, for a test that reads them back through binscope."""
import json, sys
import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
sys.path.insert(0, __import__("os").path.dirname(__file__))
from describe import canon  # noqa: E402

n = 50
table = pa.table({
    "id": pa.array(range(n), pa.int32()),
    "big": pa.array([2**64 - 1 - i for i in range(n)], pa.uint64()),
    "name": pa.array([None if i % 7 == 3 else f"n{i % 5}" for i in range(n)]).dictionary_encode(),
    "score": pa.array([None if i % 4 == 0 else i / 8 for i in range(n)], pa.float64()),
    "half": pa.array(np.arange(n, dtype=np.float16) / 4, pa.float16()),
    "tags": pa.array([None if i % 6 == 0 else [f"t{j}" for j in range(i % 3)] for i in range(n)], pa.list_(pa.string())),
    "pt": pa.array([None if i % 9 == 0 else {"x": i, "y": [i, -i]} for i in range(n)],
                   pa.struct([("x", pa.int64()), ("y", pa.list_(pa.int16()))])),
    "fixed": pa.array([[i, i + 1, i + 2] for i in range(n)], pa.list_(pa.float32(), 3)),
    "blob": pa.array([bytes([i, 255 - i]) for i in range(n)], pa.binary()),
    "ok": pa.array([i % 3 == 0 for i in range(n)]),
})
out = sys.argv[1]
with ipc.new_file(out + ".arrow", table.schema) as w:
    w.write_table(table, max_chunksize=16)
with ipc.new_stream(out + ".arrows", table.schema) as w:
    w.write_table(table, max_chunksize=16)
rows = [[canon(row[f.name], f.type if not pa.types.is_dictionary(f.type) else f.type.value_type) for f in table.schema]
        for row in table.to_pylist()]
print(json.dumps(rows, ensure_ascii=False, separators=(",", ":")))
