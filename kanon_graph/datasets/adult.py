"""The UCI Adult census extract: a reader, and the project's own hierarchies.

* :func:`load_adult` reads ARX's ``adult.csv`` (``;``-separated, with a
  header, 9 columns) or UCI's ``adult.data`` / ``adult.test`` (comma-separated,
  no header, 15 columns) into ARX's 9 columns, dropping rows with a missing
  value and reporting how many.
* :func:`adult_hierarchies_path` / :func:`adult_hierarchies` give the
  hierarchies shipped inside the package in ``datasets/hierarchies/adult/`` (written for
  kanon_graph, with the heights of Venkata Ramana & Valli Kumari 2013,
  Table 3, for age, workclass, sex, education and occupation).

References
----------
Kohavi, R. & Becker, B., "Adult" data set, UCI Machine Learning Repository (1996).
Venkata Ramana & Valli Kumari, "Graph based local recoding for data
anonymization" (2013), Table 3.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from ..exceptions import DataError
from ..hierarchy import load_hierarchies

__all__ = ["ADULT_COLUMNS", "UCI_COLUMNS", "load_adult", "adult_hierarchies_path",
           "adult_hierarchies"]

#: ARX's 9 columns of Adult, in ARX's order (the order of ``adult.csv``).
ADULT_COLUMNS = ["sex", "age", "race", "marital-status", "education", "native-country",
                 "workclass", "occupation", "salary-class"]

#: The 15 columns of UCI's ``adult.data``, in file order (UCI's ``adult.names``).
UCI_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num",
               "marital-status", "occupation", "relationship", "race", "sex",
               "capital-gain", "capital-loss", "hours-per-week", "native-country",
               "salary-class"]

_FILE_NAMES = ("adult.csv", "adult.data")


def adult_hierarchies_path():
    """The folder of the project's Adult hierarchies, shipped inside the package.

    The files live in ``kanon_graph/datasets/hierarchies/adult/`` and are
    package data, so they are found from a built wheel as well as from the
    source checkout.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        The installed package lacks the files (a broken or partial install).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> path = kg.datasets.adult_hierarchies_path()
    >>> path.name, (path / "adult_hierarchy_age.csv").exists()
    ('adult', True)
    """
    path = Path(__file__).resolve().parent / "hierarchies" / "adult"
    if not (path / "adult_hierarchy_age.csv").is_file():
        raise FileNotFoundError(
            f"the project's Adult hierarchies are missing from the installed package "
            f"(expected at {str(path)!r}); reinstall kanon_graph or pass your own "
            f"hierarchy folder"
        )
    return path


def adult_hierarchies(columns=None):
    """The project's Adult hierarchies as ``{column: Hierarchy}``.

    Parameters
    ----------
    columns : iterable of str, optional
        Only these columns (default: all nine).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> hier = kg.datasets.adult_hierarchies()
    >>> {c: hier[c].height for c in ["age", "workclass", "sex", "education", "occupation"]}
    {'age': 5, 'workclass': 3, 'sex': 1, 'education': 4, 'occupation': 2}
    """
    return load_hierarchies(adult_hierarchies_path(), columns=columns)


def _resolve(path):
    path = Path(path)
    if path.is_dir():
        for name in _FILE_NAMES:
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(
            f"The 'path' parameter of load_adult is a folder without adult.csv or "
            f"adult.data: {str(path)!r}"
        )
    if not path.is_file():
        raise FileNotFoundError(f"The 'path' parameter of load_adult names no file or folder: "
                                f"{str(path)!r}")
    return path


def _first_line(path):
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for line in handle:
            if line.strip() and not line.startswith("|"):
                return line
    raise DataError(f"load_adult: file {str(path)!r} is empty")


def _read(path):
    """Read either format into a frame of strings with ARX's column names."""
    line = _first_line(path)
    sep = ";" if ";" in line else ","
    cells = [c.strip() for c in line.split(sep)]
    read = dict(sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True,
                comment="|", skip_blank_lines=True)
    if set(ADULT_COLUMNS) <= set(cells):
        frame = pd.read_csv(path, **read)
        frame.columns = [str(c).strip() for c in frame.columns]
    elif len(cells) == len(UCI_COLUMNS):
        frame = pd.read_csv(path, header=None, names=UCI_COLUMNS, **read)
    else:
        raise DataError(
            f"load_adult: {str(path)!r} is neither ARX's adult.csv (a header naming "
            f"{ADULT_COLUMNS}) nor UCI's adult.data ({len(UCI_COLUMNS)} columns, no header); "
            f"its first line has {len(cells)} cells: {line.strip()[:80]!r}"
        )
    return frame[ADULT_COLUMNS]


def load_adult(path):
    """Read the Adult census extract into ARX's 9 columns.

    Parameters
    ----------
    path : str or path-like
        A file, or a folder holding ``adult.csv`` (tried first) or
        ``adult.data``. Two formats are recognised from the first line:

        * ARX's ``adult.csv``: ``;``-separated with a header naming the 9
          columns (a ``,``-separated file with that header works too);
        * UCI's ``adult.data`` / ``adult.test``: comma-separated, no header,
          15 columns, values after ``", "``, missing values as ``?``. The
          columns ``fnlwgt``, ``education-num``, ``relationship``,
          ``capital-gain``, ``capital-loss`` and ``hours-per-week`` are left
          out, ``income`` becomes ``salary-class`` (the trailing ``.`` of
          ``adult.test``'s labels is removed), and lines starting with ``|``
          are skipped.

    Returns
    -------
    DataFrame
        Columns ``sex, age, race, marital-status, education, native-country,
        workclass, occupation, salary-class`` (``age`` as int64, the rest as
        strings) and a fresh 0..n-1 index. Rows with a missing value (``?``
        or empty) in any of them are dropped; their number is in
        ``df.attrs["dropped"]`` and, when non-zero, reported with a
        :class:`UserWarning`. On UCI's ``adult.data`` (32,561 rows) or
        ARX's ``adult.csv`` 30,162 rows remain.

    Raises
    ------
    FileNotFoundError
        ``path`` is neither a file nor a folder holding one of the files.
    DataError
        The file is in neither format, or an age is not an integer.

    Examples
    --------
    >>> import tempfile, os, warnings
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "adult.data"), "w").write(
    ...     "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    ...     "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\\n"
    ...     "40, ?, 1, HS-grad, 9, Divorced, ?, Unmarried, Black, Female, 0, 0, 40, "
    ...     "Cuba, >50K\\n")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     df = load_adult(folder)
    >>> df.iloc[0].astype(str).tolist()[:5]
    ['Male', '39', 'White', 'Never-married', 'Bachelors']
    >>> len(df), df.attrs["dropped"], df["age"].dtype.name
    (1, 1, 'int64')
    """
    file = _resolve(path)
    frame = _read(file)
    for column in ADULT_COLUMNS:
        frame[column] = frame[column].str.strip()
    frame["salary-class"] = frame["salary-class"].str.rstrip(".")
    missing = frame.isin(["?", ""]).any(axis=1)
    dropped = int(missing.sum())
    frame = frame.loc[~missing].reset_index(drop=True)
    age = pd.to_numeric(frame["age"], errors="coerce")
    bad = age.isna() | (age % 1 != 0)
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise DataError(f"load_adult: column 'age' of {str(file)!r} holds "
                        f"{frame['age'].iloc[row]!r}, not an integer age")
    frame["age"] = age.astype("int64")
    if dropped:
        warnings.warn(f"load_adult: dropped {dropped} row(s) of {str(file)!r} with missing "
                      f"values ('?' or empty); {len(frame)} remain", UserWarning, stacklevel=2)
    frame.attrs["dropped"] = dropped
    frame.attrs["source"] = str(file)
    return frame
