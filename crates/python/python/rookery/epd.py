"""EPD: ``read`` records with typed operations, ``write`` them in canonical form.

>>> import io, rookery.epd
>>> rec = next(rookery.epd.read(io.StringIO('4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; ce 120; id "x";\\n')))
>>> rec.ops["bm"], rec.ops["ce"], rec.ops["id"]
([Move.from_uci('e2e4')], 120, 'x')
"""

from ._rookery import Record, RecordReader, read, write

__all__ = ["Record", "RecordReader", "read", "write"]
