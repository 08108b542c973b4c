"""Reads an Arrow IPC file or stream with pyarrow and prints, as JSON, its schema in the shape of
binscope's TabularField (name, type, nullable, metadata) and the sha256 of its rows in a
canonical text (ints as decimal text, floats as their float64 bits, bytes as hex), plus the
first rows, so a test compares them with what binscope's own records map to."""
import hashlib, json, struct, sys
import pyarrow as pa
import pyarrow.ipc as ipc


def field(f):
    meta = {k.decode(): v.decode() for k, v in (f.metadata or {}).items()}
    return {"name": f.name, "type": typ(f.type), "nullable": f.nullable, "metadata": meta}


def typ(t):
    if isinstance(t, pa.ExtensionType) or getattr(t, "extension_name", None):
        return {"kind": "json"} if t.extension_name == "arrow.json" else {"kind": "ext:" + t.extension_name}
    if pa.types.is_integer(t):
        return {"kind": "int", "bits": t.bit_width, "signed": pa.types.is_signed_integer(t)}
    if pa.types.is_floating(t):
        return {"kind": "float", "bits": t.bit_width}
    if pa.types.is_boolean(t):
        return {"kind": "bool"}
    if pa.types.is_string(t):
        return {"kind": "string"}
    if pa.types.is_binary(t):
        return {"kind": "bytes"}
    if pa.types.is_fixed_size_list(t):
        return {"kind": "list", "items": field(t.value_field), "size": t.list_size}
    if pa.types.is_list(t):
        return {"kind": "list", "items": field(t.value_field)}
    if pa.types.is_struct(t):
        return {"kind": "struct", "fields": [field(t.field(i)) for i in range(t.num_fields)]}
    return {"kind": "unknown:" + str(t)}


def canon(v, t):
    if v is None:
        return None
    if getattr(t, "extension_name", None):
        return v
    if pa.types.is_integer(t):
        return str(v)
    if pa.types.is_floating(t):
        return "nan" if v != v else struct.pack("<d", float(v)).hex()
    if pa.types.is_binary(t):
        return v.hex()
    if pa.types.is_list(t) or pa.types.is_fixed_size_list(t):
        return [canon(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return [[t.field(i).name, canon(v[t.field(i).name], t.field(i).type)] for i in range(t.num_fields)]
    return v


def main():
    path, kind = sys.argv[1], sys.argv[2]
    reader = ipc.open_file(path) if kind == "file" else ipc.open_stream(pa.OSFile(path))
    table = reader.read_all()
    digest = hashlib.sha256()
    first = []
    for batch in table.to_batches():
        for row in batch.to_pylist():
            line = json.dumps([canon(row[f.name], f.type) for f in table.schema], ensure_ascii=False, separators=(",", ":"))
            digest.update(line.encode() + b"\n")
            if len(first) < 3:
                first.append(json.loads(line))
    print(json.dumps({
        "fields": [field(f) for f in table.schema],
        "rows": table.num_rows,
        "batches": reader.num_record_batches if kind == "file" else len(table.to_batches()),
        "sha256": digest.hexdigest(),
        "first": first,
    }))


if __name__ == "__main__":
    main()
