"""Reads a Parquet file with pyarrow, as pandas and DuckDB users do: row count, column names and
types, and the rows asked for (by index) as JSON. Used by export-parquet.test.ts."""
import json
import sys

import pyarrow.parquet as pq

table = pq.read_table(sys.argv[1])
rows = [int(i) for i in sys.argv[2].split(',')]
print(json.dumps({
    'rows': table.num_rows,
    'columns': table.column_names,
    'types': [str(t) for t in table.schema.types],
    'sample': [{name: table.column(name)[i].as_py() for name in table.column_names
                if not isinstance(table.column(name)[i].as_py(), (bytes, dict, list))} for i in rows],
}))
