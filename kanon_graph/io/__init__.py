"""Reading and writing at the edges: CSV tables in, released tables and JSON reports out.

The core never touches files; the CLI (and anyone scripting a pipeline) uses
these thin helpers.
"""

from .tables import read_table, result_report, write_json, write_table

__all__ = ["read_table", "result_report", "write_json", "write_table"]
