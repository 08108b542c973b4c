"""Prints, as JSON, what pyarrow reads of a Parquet file's column chunks: for each row group and
leaf column its path, encodings, value count and statistics (null count and, where present, the
minimum and maximum in the canonical form of read_parquet.py), so binscope's tests check the
statistics readers use to skip row groups."""
import json
import sys

import pyarrow.parquet as pq

from read_parquet import canon


def main(path):
    meta = pq.ParquetFile(path).metadata
    groups = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        columns = []
        for c in range(group.num_columns):
            column = group.column(c)
            stats = column.statistics
            entry = {"path": column.path_in_schema, "encodings": list(column.encodings),
                     "values": column.num_values, "nulls": stats.null_count if stats else None}
            if stats is not None and stats.has_min_max:
                entry["min"] = canon(stats.min)
                entry["max"] = canon(stats.max)
            columns.append(entry)
        groups.append({"rows": group.num_rows, "columns": columns})
    print(json.dumps(groups))


if __name__ == "__main__":
    main(sys.argv[1])
