"""The public namespace holds the library's names only (issue 23 item 6)."""

import types

import kanon_graph as kg


def test_no_stray_modules_in_the_public_namespace():
    assert not hasattr(kg, "importlib")
    for name in dir(kg):
        if name.startswith("_"):
            continue
        value = getattr(kg, name)
        if isinstance(value, types.ModuleType):
            assert value.__name__.startswith("kanon_graph."), name
    assert set(kg.__all__) <= set(dir(kg))
