"""A synthetic census with Adult's schema, for demos and scale benchmarks.

:func:`make_census` draws records from a small Bayesian network whose
conditional tables were counted once on the 30,162-row Adult extract
(Kohavi & Becker 1996, as shipped by ARX) and are embedded below as
constants:

* ``sex, age``  joint (ages 17..90);
* ``race, native-country`` joint;
* ``education | age band`` (bands 17-24, 25-34, 35-44, 45-54, 55-64, 65+);
* ``marital-status | age band, sex``;
* ``workclass | school`` where *school* is the education's stage in the
  project hierarchy (primary school, high school, college, graduate school);
* ``occupation | school, sex``;
* ``salary-class | married, school, age band`` (per-mille chance of ``>50K``).

So the marginals and the main correlations of Adult are reproduced (older
people are more often married or widowed, graduates earn more and work in
professional occupations, women more often in clerical and service jobs),
while all other dependencies are dropped. No record of Adult is copied.
Every value is a leaf of the project's Adult hierarchies, so
:func:`census_schema` anonymizes the table as is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..schema import Schema
from .adult import ADULT_COLUMNS, adult_hierarchies

__all__ = ["make_census", "census_schema", "CENSUS_QUASI_IDENTIFIERS"]

#: The quasi-identifiers of :func:`census_schema`, in level-vector order.
CENSUS_QUASI_IDENTIFIERS = ADULT_COLUMNS[:-1]

SEXES = ["Male", "Female"]
AGES = list(range(17, 91))
RACES = ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"]
COUNTRIES = [
    "United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada", "India",
    "El-Salvador", "Cuba", "England", "Jamaica", "South", "Italy", "China",
    "Dominican-Republic", "Vietnam", "Guatemala", "Japan", "Poland", "Columbia", "Iran",
    "Taiwan", "Haiti", "Portugal", "Nicaragua", "Peru", "Greece", "Ecuador", "France",
    "Ireland", "Hong", "Cambodia", "Trinadad&Tobago", "Thailand", "Laos", "Yugoslavia",
    "Outlying-US(Guam-USVI-etc)", "Hungary", "Honduras", "Scotland", "Holand-Netherlands"]
MARITAL = ["Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
           "Married-spouse-absent", "Married-AF-spouse"]
EDUCATION = ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
             "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
             "Prof-school", "Doctorate"]
WORKCLASS = ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
             "State-gov", "Without-pay"]
OCCUPATIONS = ["Prof-specialty", "Exec-managerial", "Tech-support", "Sales", "Adm-clerical",
               "Craft-repair", "Machine-op-inspct", "Transport-moving", "Handlers-cleaners",
               "Farming-fishing", "Other-service", "Protective-serv", "Priv-house-serv",
               "Armed-Forces"]
SALARIES = ["<=50K", ">50K"]

# school stage of each education (0 primary, 1 high school, 2 college, 3 graduate)
_SCHOOL = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3])
_AGE_BAND_EDGES = [25, 35, 45, 55, 65]
_MARRIED = np.array([1, 0, 0, 0, 0, 0, 1])  # spouse present (civilian or armed forces)

# ---- counts on Adult (30,162 rows); rows are the conditioning groups ----
# rows: Male, Female; columns: ages 17..90
_AGE_BY_SEX = [
    [178, 230, 299, 340, 344, 373, 485, 471, 502, 476, 519, 535, 519, 560, 588, 556, 602,
     598, 603, 584, 609, 568, 539, 517, 552, 522, 527, 508, 493, 494, 475, 363, 390,
     425, 411, 328, 319, 296, 262, 244, 252, 246, 246, 206, 191, 135, 131, 116, 91, 72,
     72, 58, 57, 46, 33, 25, 33, 25, 25, 18, 13, 11, 12, 11, 7, 6, 5, 4, 2, 0, 0, 2, 0,
     25],
    [150, 217, 295, 289, 277, 301, 339, 281, 297, 269, 270, 273, 255, 253, 263, 233, 235,
     238, 225, 268, 219, 223, 247, 248, 217, 219, 216, 196, 213, 217, 208, 160, 165,
     150, 160, 127, 129, 98, 124, 99, 85, 98, 86, 70, 68, 78, 55, 57, 45, 38, 39, 32,
     23, 18, 21, 15, 16, 13, 9, 11, 7, 3, 3, 5, 6, 1, 0, 4, 1, 1, 0, 1, 0, 10],
]
# rows: RACES; columns: COUNTRIES
_COUNTRY_BY_RACE = [
    [24218, 559, 8, 118, 78, 105, 8, 95, 87, 78, 5, 1, 68, 2, 36, 2, 59, 18, 55, 49, 34, 2,
     0, 33, 27, 29, 28, 18, 26, 23, 2, 0, 0, 2, 0, 16, 8, 13, 11, 11, 1],
    [2629, 4, 1, 6, 9, 0, 2, 1, 3, 7, 74, 0, 0, 0, 12, 0, 0, 3, 0, 0, 0, 0, 41, 0, 2, 0, 0,
     0, 1, 0, 0, 0, 15, 0, 0, 0, 6, 0, 1, 0, 0],
    [273, 1, 178, 2, 1, 1, 85, 0, 0, 1, 0, 68, 0, 66, 1, 62, 0, 37, 1, 0, 6, 40, 1, 1, 0, 0,
     1, 0, 0, 1, 16, 18, 2, 15, 17, 0, 0, 0, 0, 0, 0],
    [271, 8, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [113, 38, 0, 1, 20, 1, 5, 4, 2, 0, 1, 0, 0, 0, 18, 0, 4, 1, 0, 6, 2, 0, 0, 0, 4, 1, 0,
     9, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
]
# rows: age bands; columns: EDUCATION
_EDUCATION_BY_AGE = [
    [8, 14, 42, 50, 79, 215, 436, 160, 1481, 1669, 129, 112, 453, 20, 0, 1],
    [10, 31, 63, 95, 105, 181, 208, 78, 2728, 1661, 419, 326, 1646, 319, 110, 61],
    [9, 31, 60, 79, 92, 133, 159, 61, 2504, 1615, 403, 323, 1494, 552, 198, 94],
    [11, 34, 60, 121, 77, 120, 134, 41, 1828, 1076, 242, 181, 938, 493, 135, 130],
    [3, 29, 45, 144, 77, 128, 78, 30, 985, 488, 85, 57, 383, 188, 69, 60],
    [4, 12, 18, 68, 25, 43, 33, 7, 314, 169, 29, 9, 130, 55, 30, 29],
]
# rows: (age band, sex) as 2 * band + sex; columns: MARITAL
_MARITAL_BY_AGE_SEX = [
    [344, 2314, 28, 21, 0, 13, 0],
    [92, 1937, 55, 40, 2, 19, 4],
    [2927, 2005, 355, 111, 4, 46, 7],
    [440, 1431, 478, 158, 19, 56, 4],
    [3947, 725, 648, 147, 13, 48, 1],
    [489, 587, 888, 188, 70, 52, 4],
    [3179, 236, 447, 52, 29, 50, 1],
    [302, 244, 733, 139, 166, 43, 0],
    [1670, 95, 180, 28, 39, 17, 0],
    [135, 78, 308, 41, 243, 15, 0],
    [518, 39, 27, 6, 56, 7, 0],
    [22, 35, 67, 8, 186, 4, 0],
]
# rows: school stage; columns: WORKCLASS
_WORKCLASS_BY_SCHOOL = [
    [1220, 158, 23, 6, 66, 22, 1],
    [9600, 999, 308, 280, 584, 305, 9],
    [10184, 1046, 554, 551, 1026, 672, 4],
    [1282, 296, 189, 106, 391, 280, 0],
]
# rows: (school, sex) as 2 * school + sex; columns: OCCUPATIONS
_OCCUPATION_BY_SCHOOL_SEX = [
    [13, 28, 3, 51, 19, 259, 157, 129, 140, 150, 156, 13, 1, 0],
    [4, 6, 5, 28, 14, 13, 94, 0, 12, 10, 145, 2, 44, 0],
    [152, 582, 107, 741, 436, 2175, 900, 967, 718, 469, 773, 207, 4, 5],
    [115, 287, 62, 575, 1055, 119, 345, 61, 115, 28, 994, 26, 67, 0],
    [1284, 1771, 427, 1416, 707, 1353, 360, 373, 323, 290, 516, 332, 3, 3],
    [906, 725, 265, 619, 1411, 81, 101, 29, 37, 27, 606, 48, 24, 0],
    [1098, 468, 34, 128, 47, 27, 6, 13, 5, 15, 9, 16, 0, 1],
    [466, 125, 9, 26, 32, 3, 3, 0, 0, 0, 13, 0, 0, 0],
]
# per-mille chance of >50K, (count + 0.5) / (n + 2); rows: 4 * married + school;
# columns: age bands
_HIGH_SALARY_PER_MILLE = [
    [15, 15, 4, 21, 38, 39],
    [3, 17, 42, 56, 67, 60],
    [8, 66, 120, 159, 152, 103],
    [24, 184, 381, 470, 342, 233],
    [47, 25, 96, 120, 111, 82],
    [50, 195, 323, 416, 323, 195],
    [114, 443, 586, 637, 585, 448],
    [625, 656, 840, 875, 765, 678],
]


def _cdf(counts):
    """Row-normalized cumulative probabilities (float64), last column exactly 1."""
    table = np.asarray(counts, dtype=float)
    cdf = np.cumsum(table, axis=1) / table.sum(axis=1, keepdims=True)
    cdf[:, -1] = 1.0
    return cdf


def _draw(cdf, group, u):
    """One category per row from the row ``group`` of ``cdf``, by inverse CDF.

    The rows of ``cdf`` are stacked into one increasing array (row ``g``
    shifted by ``g``), so a single ``searchsorted`` samples every record.
    """
    n_groups, n_values = cdf.shape
    stacked = (cdf + np.arange(n_groups)[:, None]).ravel()
    index = np.searchsorted(stacked, group + u, side="right") - group * n_values
    return np.minimum(index, n_values - 1)


def _check_n(n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"The 'n' parameter of make_census must be an integer >= 1. "
                         f"Got {n!r}.")
    return int(n)


def make_census(n, seed=0):
    """A deterministic synthetic census table with Adult's schema.

    Parameters
    ----------
    n : int
        Number of records (1,000,000 take about a second).
    seed : int or numpy.random.Generator, optional
        The same seed gives the same table (``None``: fresh randomness).

    Returns
    -------
    DataFrame
        The 9 columns of ARX's ``adult.csv`` in its order (``sex, age, race,
        marital-status, education, native-country, workclass, occupation,
        salary-class``): ``age`` is int64 (17..90), the others are
        categorical with the Adult values as categories. Every value is a
        leaf of :func:`~kanon_graph.datasets.adult_hierarchies`.

    Notes
    -----
    Records are drawn from the network described in the module docstring:
    ``(sex, age)`` and ``(race, native-country)`` jointly, then education
    from the age band, marital status from age band and sex, workclass from
    the school stage, occupation from school stage and sex, and the salary
    class from marriage, school stage and age band. The tables are counts on
    Adult; ``Never-worked`` (in the hierarchy but not in Adult) never occurs.

    References
    ----------
    Kohavi, R. & Becker, B., "Adult" data set, UCI Machine Learning
    Repository (1996): the source of the embedded counts.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.make_census(5, seed=1)
    >>> list(table.columns)[:4], table["age"].dtype.name
    (['sex', 'age', 'race', 'marital-status'], 'int64')
    >>> table.equals(kg.datasets.make_census(5, seed=1))
    True
    """
    n = _check_n(n)
    rng = np.random.default_rng(seed)
    u = rng.random((7, n))
    zero = np.zeros(n, dtype=np.int64)

    sex_age = _draw(_cdf([np.ravel(_AGE_BY_SEX)]), zero, u[0])
    sex, age_index = np.divmod(sex_age, len(AGES))
    race_country = _draw(_cdf([np.ravel(_COUNTRY_BY_RACE)]), zero, u[1])
    race, country = np.divmod(race_country, len(COUNTRIES))
    age = age_index + AGES[0]
    band = np.searchsorted(_AGE_BAND_EDGES, age, side="right")
    education = _draw(_cdf(_EDUCATION_BY_AGE), band, u[2])
    school = _SCHOOL[education]
    marital = _draw(_cdf(_MARITAL_BY_AGE_SEX), 2 * band + sex, u[3])
    workclass = _draw(_cdf(_WORKCLASS_BY_SCHOOL), school, u[4])
    occupation = _draw(_cdf(_OCCUPATION_BY_SCHOOL_SEX), 2 * school + sex, u[5])
    high = np.asarray(_HIGH_SALARY_PER_MILLE, dtype=float) / 1000.0
    salary = (u[6] < high[4 * _MARRIED[marital] + school, band]).astype(np.int64)

    def column(codes, labels):
        return pd.Categorical.from_codes(codes, categories=labels)

    return pd.DataFrame({
        "sex": column(sex, SEXES),
        "age": age.astype(np.int64),
        "race": column(race, RACES),
        "marital-status": column(marital, MARITAL),
        "education": column(education, EDUCATION),
        "native-country": column(country, COUNTRIES),
        "workclass": column(workclass, WORKCLASS),
        "occupation": column(occupation, OCCUPATIONS),
        "salary-class": column(salary, SALARIES),
    })


def census_schema():
    """The schema of :func:`make_census` (and of Adult) with the project's hierarchies.

    Quasi-identifiers ``sex, age, race, marital-status, education,
    native-country, workclass, occupation`` (in this order, the order of
    level vectors); sensitive ``salary-class``; hierarchies from
    :func:`~kanon_graph.datasets.adult_hierarchies`.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> schema = kg.datasets.census_schema()
    >>> res = kg.anonymize(kg.datasets.make_census(1000, seed=0), schema, k=5,
    ...                    algorithm="datafly")
    >>> min(len(c) for c in res.classes) >= 5, res.suppressed <= 1000
    (True, True)
    """
    return Schema(quasi_identifiers=list(CENSUS_QUASI_IDENTIFIERS), sensitive=["salary-class"],
                  hierarchies=adult_hierarchies(CENSUS_QUASI_IDENTIFIERS))
