"""The text encoding of a CSV file: the codec to read it with, and what to say when it fails.

UTF-8 is read as ``utf-8-sig``, so a byte order mark (as Excel writes one)
is dropped, as it always was. Any other encoding Python knows is read as
named (``latin-1``, ``cp1252``, ``utf-16``...). A byte that does not decode
is an error naming the file, the line, the byte and its offset, never a
``UnicodeDecodeError`` traceback.
"""

from __future__ import annotations

import codecs
import os

from ..exceptions import DataError

__all__ = ["text_codec", "ascii_safe", "check_no_utf8_bom", "decode_error", "UTF8_BOM"]

UTF8_BOM = codecs.BOM_UTF8
_UTF8 = ("utf-8", "utf-8-sig")
_BLOCK = 1 << 20


def text_codec(encoding: object, where: str) -> str:
    """The codec that reads text of ``encoding`` (``utf-8-sig`` for UTF-8).

    Raises
    ------
    DataError
        ``encoding`` is no text encoding Python knows (named with ``where``).
    """
    name = encoding.strip() if isinstance(encoding, str) else ""
    info = None
    if name:
        try:
            info = codecs.lookup(name)
        except LookupError:
            pass
    # base64, rot13, zlib...: codecs, but not of text
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise DataError(f"The 'encoding' parameter of {where} must name a text encoding "
                        f"(utf-8, latin-1, cp1252, utf-16, ...). Got {encoding!r}.")
    return "utf-8-sig" if info.name in _UTF8 else info.name


def is_utf8(codec: str) -> bool:
    """Whether ``codec`` (from :func:`text_codec`) is UTF-8."""
    return codec in _UTF8


def ascii_safe(codec: str) -> bool:
    """Whether every ASCII byte of a ``codec`` text is that ASCII character, alone.

    True for UTF-8 and for single-byte encodings that extend ASCII
    (Latin-1, cp1252, the ISO 8859 family...): their separators, quotes
    and line ends can be found on the bytes. False for UTF-16, Shift JIS
    and the like, which only the row-by-row reader reads.
    """
    if is_utf8(codec):
        return True
    try:
        low = bytes(range(128)).decode(codec)
        high = bytes(range(128, 256)).decode(codec, errors="replace")
    except (UnicodeDecodeError, LookupError):
        return False
    return low == "".join(map(chr, range(128))) and len(high) == 128


def check_no_utf8_bom(path: str | os.PathLike[str], codec: str, label: str) -> None:
    """A file that starts with UTF-8's byte order mark, read as another encoding: an error.

    Read as Latin-1 its first column would silently be named ``ï»¿name``
    and every accented cell would come out garbled.
    """
    if is_utf8(codec):
        return
    with open(path, "rb") as handle:
        start = handle.read(len(UTF8_BOM))
    if start == UTF8_BOM:
        raise DataError(f"input file {str(path)!r} starts with a UTF-8 byte order mark, so it "
                        f"is UTF-8 text, not {label}: leave out --encoding (encoding='utf-8')")


def decode_error(path: str | os.PathLike[str], codec: str, label: str) -> DataError:
    """The one-line error for the first byte of ``path`` that ``codec`` cannot decode.

    Names the file, the line (1-based, counted in line ends before it), the
    byte and its offset, and the encodings to try.
    """
    offset = lines = 0
    if is_utf8(codec):                  # the mark skipped here: offsets stay the file's
        codec = "utf-8"
        with open(path, "rb") as handle:
            offset = len(UTF8_BOM) if handle.read(len(UTF8_BOM)) == UTF8_BOM else 0
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    with open(path, "rb") as handle:
        handle.seek(offset)
        while True:
            block = handle.read(_BLOCK)
            try:
                pending = decoder.getstate()[0]
            except (AttributeError, TypeError, IndexError):
                pending = b""
            pending = pending if isinstance(pending, bytes) else b""
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                data = exc.object if isinstance(exc.object, bytes) else pending + block
                before = data[:exc.start]
                at = max(offset - len(pending) + exc.start, 0)
                line = lines - pending.count(b"\n") + before.count(b"\n") + 1
                bad = " ".join(f"0x{b:02x}" for b in data[exc.start:min(exc.end,
                                                                        exc.start + 4)])
                return DataError(
                    f"input file {str(path)!r}, line {line}: byte {bad} (offset {at}) is not "
                    f"{label} text ({exc.reason}){_advice(codec, path)}")
            if not block:
                break
            offset += len(block)
            lines += block.count(b"\n")
    return DataError(f"input file {str(path)!r} is not {label} text{_advice(codec, path)}")


#: Bytes 0x80-0x9F: printable in Windows' cp1252 (an en dash is 0x96, a euro sign
#: 0x80), control characters in Latin-1 (0x96 would read as U+0096).
_WINDOWS_ONLY = bytes(range(0x80, 0xA0))


def _windows_bytes(path: str | os.PathLike[str]) -> bool:
    """Whether the first 64 MiB of ``path`` hold a byte of 0x80-0x9F."""
    with open(path, "rb") as handle:
        for _ in range(64):
            block = handle.read(_BLOCK)             # 1 MiB
            if not block:
                return False
            if any(bytes([b]) in block for b in _WINDOWS_ONLY):
                return True
    return False


def _advice(codec: str, path: str | os.PathLike[str]) -> str:
    if codec in ("iso8859-1", "latin-1"):
        return ""                   # Latin-1 decodes every byte: nothing else to suggest
    if _windows_bytes(path):        # cp1252 first: in Latin-1 they are control characters
        return ("; it holds bytes 0x80-0x9F, which Windows (cp1252) writes for characters "
                "such as an en dash or the euro sign and Latin-1 reads as control "
                "characters: read it with --encoding cp1252 (encoding='cp1252' in Python)")
    return ("; if it was saved as Latin-1 or by Windows, read it with --encoding latin-1 "
            "or --encoding cp1252 (encoding='latin-1' in Python)")
