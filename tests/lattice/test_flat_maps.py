"""The frequency engine's flat map array grows in place (issue 47, the clinic rows).

Every roll-up map ``(attribute, low, high)`` is appended to one flat array that the
compiled roll-ups read. It was copied whole for each new map (763 maps, 536 million
values copied, 0.8 s at the clinic export's 200,000 rows); now the store doubles when
full. Each map must still be found at its offset, and the store be reallocated only a
logarithmic number of times.
"""

import numpy as np

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine


def test_maps_are_appended_in_place_and_found_at_their_offsets():
    data = kg.encode(kg.datasets.make_census(2000, seed=1), kg.datasets.census_schema())
    engine = FrequencyEngine(data)
    stores, total = set(), 0
    pairs = [(j, low, high) for j, h in enumerate(engine.heights)
             for low in range(h + 1) for high in range(low + 1, h + 1)]
    assert len(pairs) > 20
    for j, low, high in pairs:
        at = engine._flat_offset(j, low, high)
        total += len(engine._map(j, low, high))
        stores.add(id(engine._flat.base if engine._flat.base is not None else engine._flat))
    assert len(engine._flat) == total
    for j, low, high in pairs:
        at = engine._flat_offset(j, low, high)
        expected = np.asarray(engine._map(j, low, high), dtype=np.int64)
        np.testing.assert_array_equal(engine._flat[at:at + len(expected)], expected)
    assert len(stores) <= int(np.log2(max(total, 2))) + 2 < len(pairs)
