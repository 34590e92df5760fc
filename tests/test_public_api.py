import memory


def test_public_surface_is_small_and_importable():
    assert sorted(memory.__all__) == sorted(set(memory.__all__))
    for name in memory.__all__:
        assert getattr(memory, name) is not None
    assert {"Engram", "EngramError", "MemoryUnit", "RecallResult"} <= set(memory.__all__)


def test_opening_a_new_memory_loads_only_what_showing_it_needs(tmp_path):
    """A new store is created and read without pandas (DuckDB loads it to bind a parameter, pyarrow's
    kernels to run) and without the extraction, redaction and recall modules (built on the first write or
    recall); both still work afterwards, and writing and forgetting a message load no pandas either."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; from memory import Engram; from memory.embed import make_embedder\n"
        "eng = Engram(sys.argv[1], embedder=make_embedder('hash'))\n"
        "eng.store.count('memories'); eng.store.chat_sessions(30); eng.store.session_turns('web-1')\n"
        "heavy = ('pandas', 'memory.extract', 'memory.privacy', 'memory.recall', 'memory.writer')\n"
        "print(' '.join(name for name in heavy if name in sys.modules) or '-')\n"
        "eng.remember('My dentist is Dr. Alvarez.', session_id='s')\n"
        "found = eng.recall('dentist').results[0].unit\n"
        "print(found.content)\n"
        "eng.forget(found.id)\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "home")], cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    loaded, first, pandas_after_writes = out.stdout.splitlines()[:3]
    assert loaded == "-"
    assert "Alvarez" in first
    assert pandas_after_writes == "False"  # a few rows are written as literals, not through Arrow
