"""numpy's astype on this machine, for the lossy-cast cross-check (test/numpy-cast.test.ts).

stdin: {"pairs": [[from, to], ...], "floats": [str], "ints": [str], "lengths": [int]}
(numpy dtype names; float values as Python float literals, "nan", "inf"; integers as decimal
strings, taken modulo 2^bits of the source dtype). For every pair, length n and start k, the
source array is n values of the pair's list taken cyclically from k. stdout, one JSON line per
array: {"pair", "source", "whole", "single"}: the source bytes, astype of the whole array, and
astype of each element as a one-element array (numpy's scalar loop), all as little-endian hex.
"""

import json
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")


def source_values(dtype, spec):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.array([float(v) for v in spec["floats"]], dtype=np.float64).astype(dtype)
    if dtype.kind == "b":
        return np.array([int(v) != 0 for v in spec["ints"]], dtype=bool)
    bits = dtype.itemsize * 8
    wrapped = [int(v) % (1 << bits) for v in spec["ints"]]
    return np.array(wrapped, dtype=f"<u{dtype.itemsize}").view(dtype.newbyteorder("<"))


def main():
    spec = json.load(sys.stdin)
    out = sys.stdout
    for source, target in spec["pairs"]:
        values = source_values(source, spec)
        for n in spec["lengths"]:
            for k in range(len(values)):
                array = np.ascontiguousarray(np.take(values, range(k, k + n), mode="wrap"))
                whole = array.astype(target)
                single = b"".join(array[i : i + 1].astype(target).tobytes() for i in range(n))
                out.write(
                    json.dumps(
                        {
                            "pair": [source, target],
                            "source": array.tobytes().hex(),
                            "whole": whole.tobytes().hex(),
                            "single": single.hex(),
                        }
                    )
                )
                out.write("\n")


main()
