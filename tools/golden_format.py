"""Reader and writer of the SLGOLD01 golden-fixture format (specified in docs/golden.md).

Layout, all little-endian: magic b"SLGOLD01", uint32 tensor count, then per tensor: uint32 name
length, UTF-8 name bytes, uint32 rank, int64 dims[rank], float32 data in row-major order.
"""
import struct

import numpy as np

MAGIC = b"SLGOLD01"


def write_golden(path, tensors):
    """Writes (name, array-like) pairs in the given order; values are rounded to float32."""
    names = [name for name, _ in tensors]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: duplicate tensor names")
    chunks = [MAGIC, struct.pack("<I", len(tensors))]
    for name, value in tensors:
        array = np.ascontiguousarray(np.asarray(value, dtype=np.float64)).astype("<f4")
        encoded = name.encode("utf-8")
        if not encoded or b"\0" in encoded:
            raise ValueError(f"{path}: tensor name {name!r} is empty or contains NUL")
        chunks.append(struct.pack("<I", len(encoded)))
        chunks.append(encoded)
        chunks.append(struct.pack("<I", array.ndim))
        chunks.append(struct.pack(f"<{array.ndim}q", *array.shape))
        chunks.append(array.tobytes(order="C"))
    with open(path, "wb") as out:
        out.write(b"".join(chunks))


def read_golden(path):
    """Returns {name: float32 ndarray} in file order; raises ValueError on any malformed byte."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(n, what):
        nonlocal pos
        if pos + n > len(data):
            raise ValueError(f"{path}: truncated while reading {what} at byte {pos}")
        chunk = data[pos:pos + n]
        pos += n
        return chunk

    if take(len(MAGIC), "magic") != MAGIC:
        raise ValueError(f"{path}: bad magic (not an SLGOLD01 file)")
    (count,) = struct.unpack("<I", take(4, "tensor count"))
    tensors = {}
    for _ in range(count):
        (name_len,) = struct.unpack("<I", take(4, "name length"))
        name = take(name_len, "name").decode("utf-8")
        (rank,) = struct.unpack("<I", take(4, f"rank of {name}"))
        dims = struct.unpack(f"<{rank}q", take(8 * rank, f"dims of {name}"))
        numel = int(np.prod(dims, dtype=np.int64)) if rank else 1
        values = np.frombuffer(take(4 * numel, f"data of {name}"), dtype="<f4")
        tensors[name] = values.reshape(dims)
    if pos != len(data):
        raise ValueError(f"{path}: {len(data) - pos} trailing bytes after the last tensor")
    return tensors
