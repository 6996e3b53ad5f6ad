"""Editing archives and JSON Lines files in place, to break fixtures in precise ways."""

from __future__ import annotations

import io
import tarfile
import zipfile


def read_members(data: bytes) -> dict[str, bytes]:
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return {name: zf.read(name) for name in zf.namelist()}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()}


def flip_bytes(data: bytes, at: float, n: int = 64) -> bytes:
    i = int(len(data) * at)
    return data[:i] + bytes(b ^ 0x5A for b in data[i : i + n]) + data[i + n :]


def flip_member_bytes(data: bytes, member: str) -> bytes:
    """A zip whose ``member`` has bytes flipped in the middle of its compressed data."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(member)
    header = info.header_offset  # local header: 30 bytes, the name, the extra field, then the data
    name_length = int.from_bytes(data[header + 26 : header + 28], "little")
    extra_length = int.from_bytes(data[header + 28 : header + 30], "little")
    middle = header + 30 + name_length + extra_length + info.compress_size // 2
    return data[:middle] + bytes(b ^ 0x5A for b in data[middle : middle + 8]) + data[middle + 8 :]


def replace_line(data: bytes, number: int, line: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[number - 1] = line
    return b"\n".join(lines)
