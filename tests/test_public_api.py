import memory


def test_public_surface_is_small_and_importable():
    assert sorted(memory.__all__) == sorted(set(memory.__all__))
    for name in memory.__all__:
        assert getattr(memory, name) is not None
    assert {"Engram", "EngramError", "MemoryUnit", "RecallResult"} <= set(memory.__all__)
