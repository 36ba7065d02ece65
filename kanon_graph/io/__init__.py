"""Reading and writing at the edges: CSV or Parquet tables in, released tables and JSON reports out.

The core never touches files; the CLI (and anyone scripting a pipeline) uses
these thin helpers. Tables are read as text (:mod:`.read`) so that a release
written back carries every cell the algorithm did not generalize unchanged.
"""

from .read import (TextTable, is_number_text, is_parquet, numeric_columns, read_header,
                   read_input_table, read_parquet, read_table, read_text_table)
from .tables import result_report, write_json, write_table

__all__ = ["TextTable", "is_number_text", "is_parquet", "numeric_columns", "read_header",
           "read_input_table",
           "read_parquet", "read_table", "read_text_table", "result_report", "write_json",
           "write_table"]
