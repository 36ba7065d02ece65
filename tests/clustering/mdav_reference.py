"""MDAV on numeric data, straight from the papers, for the tests (no kanon_graph inside).

Domingo-Ferrer and Mateo-Sanz 2002, section 4 (the fixed-size MDAV
heuristic), as Domingo-Ferrer and Torra 2005 restate it (Algorithm 1), on
the z-scores of the columns (population standard deviation; a constant
column divided by 1). The tie rule is the library's, said once: among equal
computed squared distances the first row is the farthest, and the nearest
are taken by (distance, row). A plain loop over Python lists: slow, and
meant to be read against the papers.
"""

import numpy as np


def standardize(x):
    """z-scores of every column of ``x`` (n, p)."""
    cols = []
    for j in range(x.shape[1]):
        col = np.ascontiguousarray(x[:, j], dtype=float)
        s = col.std()
        cols.append((col - col.mean()) / (s if s > 0 else 1.0))
    return np.column_stack(cols)


def _squared(z, rows, point):
    d = np.zeros(len(rows))
    for j in range(z.shape[1]):
        d = d + (z[rows, j] - point[j]) ** 2
    return d


def _farthest(z, rows, point):
    return rows[int(np.argmax(_squared(z, rows, point)))]     # argmax: the first maximum


def _group(z, rows, centre, k):
    others = np.array([i for i in rows if i != centre], dtype=np.int64)
    d = _squared(z, others, z[centre])
    nearest = others[np.lexsort((others, d))[:k - 1]]
    return [centre] + sorted(nearest.tolist())


def reference_mdav(x, k):
    """MDAV's groups of the rows of ``x`` (n, p): a list of sorted row lists."""
    z = standardize(np.asarray(x, dtype=float))
    rows = np.arange(len(z))
    groups = []

    def remove(group):
        return np.array([i for i in rows if i not in set(group)], dtype=np.int64)

    while len(rows) >= 3 * k:
        average = np.cumsum(z[rows], axis=0)[-1] / len(rows)
        r = _farthest(z, rows, average)
        s = _farthest(z, rows, z[r])
        g = _group(z, rows, r, k)
        groups.append(sorted(g))
        rows = remove(g)
        if s not in rows:            # only when all distances from r are equal
            s = _farthest(z, rows, z[r])
        g = _group(z, rows, s, k)
        groups.append(sorted(g))
        rows = remove(g)
    if len(rows) >= 2 * k:
        average = np.cumsum(z[rows], axis=0)[-1] / len(rows)
        r = _farthest(z, rows, average)
        g = _group(z, rows, r, k)
        groups.append(sorted(g))
        rows = remove(g)
    if len(rows):
        groups.append(sorted(rows.tolist()))
    return groups


def sse_sst(x, groups, centroid="mean"):
    """SSE / SST of ``groups`` released as their means (or medians), on z-scores (2002, eq. 1-3)."""
    x = np.asarray(x, dtype=float)
    z = standardize(x)
    mean = [np.ascontiguousarray(x[:, j]).mean() for j in range(x.shape[1])]
    std = [np.ascontiguousarray(x[:, j]).std() or 1.0 for j in range(x.shape[1])]
    sse = 0.0
    for g in groups:
        centre = x[g].mean(axis=0) if centroid == "mean" else np.median(x[g], axis=0)
        sse += (((z[g] - (centre - mean) / std)) ** 2).sum()
    sst = ((z - z.mean(axis=0)) ** 2).sum()
    return sse / sst if sst > 0 else 0.0
