"""Model manifests and finding a model's files: a directory, an installed package, a download.

A manifest (`recall/models/<name>.json`, shipped in the wheel) names the
model's dimensions, window and pooling, and each file's sha256 and sources.
Files are looked for, in order, in the user's directory (`RECALL_MODEL_DIR`
or `model_dir` in config), in recall's own download cache, and in installed
PyPI packages (found without importing them: a package's `__init__` may pull
in a framework recall does not want). Files recall did not get from the user
must match their sha256; a user's own directory may hold another export of
the model, whose vectors then carry their own model id so they never mix.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

from recall.record import ConversionError, Record, convert
from recall.semantic import ModelError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_MANIFESTS = Path(__file__).resolve().parent.parent / "models"


class PackageSource(Record, frozen=True):
    name: str
    """Import name of the package holding the file."""
    pip: str
    """What to `pip install` to get it."""
    path: str
    """The file's path inside the package directory."""


class FileSpec(Record, frozen=True):
    sha256: str
    size: int
    package: PackageSource | None = None
    url: str | None = None
    member: str | None = None
    """When `url` is a zip (a wheel), the file's path inside it."""


class Manifest(Record, frozen=True):
    name: str
    id: str
    dims: int
    window: int
    pooling: str
    normalize: bool
    files: dict[str, FileSpec]
    licence: str = ""


class ModelFiles(Record, frozen=True):
    """Where each of a model's files is, and the id its vectors carry."""

    manifest: Manifest
    paths: dict[str, Path]
    model_id: str
    origin: str
    sha256: str = ""
    """The model file's sha256: what the optimised copy (optimized.py) is keyed by."""


@cache
def load_manifest(name: str = DEFAULT_MODEL) -> Manifest:
    path = _MANIFESTS / f"{name}.json"
    try:
        return convert(json.loads(path.read_bytes()), Manifest)
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in _MANIFESTS.glob("*.json")))
        raise ModelError(f"no manifest for model {name!r} (known: {known})") from None
    except (ValueError, ConversionError) as exc:  # not JSON, or not a manifest
        raise ModelError(f"bad model manifest {path}: {exc}") from exc


def sha256_file(path: Path) -> str:
    import hashlib  # here: a keyword search reads the manifest but rarely hashes a file

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, spec: FileSpec, stamps: dict[str, list[object]]) -> bool:
    """Whether `path` holds the manifest's bytes; a (size, mtime) stamp avoids re-hashing."""
    try:
        st = path.stat()
    except OSError:
        return False
    if st.st_size != spec.size:
        return False
    key = str(path)
    if stamps.get(key) == [st.st_size, st.st_mtime_ns, spec.sha256]:
        return True
    if sha256_file(path) != spec.sha256:
        return False
    stamps[key] = [st.st_size, st.st_mtime_ns, spec.sha256]
    return True


def package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def cache_dir(manifest: Manifest) -> Path:
    from recall.config import data_dir

    return data_dir() / "models" / manifest.name


def _load_stamps(path: Path) -> dict[str, list[object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_stamps(path: Path, stamps: dict[str, list[object]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(stamps), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # only a cache of checks already made


def _user_model(manifest: Manifest, directory: Path) -> ModelFiles:
    paths = {name: directory / name for name in manifest.files}
    missing = [name for name, p in paths.items() if not p.is_file()]
    if missing:
        raise ModelError(
            f"the model directory {directory} (RECALL_MODEL_DIR or model_dir in config) "
            f"lacks {', '.join(missing)}"
        )
    onnx = manifest.files["model.onnx"]
    stamps: dict[str, list[object]] = {}
    origin = f"directory {directory}"
    if _verified(paths["model.onnx"], onnx, stamps):
        return ModelFiles(manifest, paths, manifest.id, origin, onnx.sha256)
    digest = sha256_file(paths["model.onnx"])
    return ModelFiles(manifest, paths, f"{manifest.name}-custom-{digest[:12]}", origin, digest)


def locate(manifest: Manifest, user_dir: str | None = None) -> ModelFiles:
    """Find every file of `manifest` or raise ModelError saying how to get them."""
    if user_dir:
        return _user_model(manifest, Path(user_dir).expanduser())
    stamp_path = cache_dir(manifest).parent / "verified.json"
    stamps = _load_stamps(stamp_path)
    before = dict(stamps)
    paths: dict[str, Path] = {}
    origins: set[str] = set()
    problems: list[str] = []
    for name, spec in manifest.files.items():
        candidates = [(cache_dir(manifest) / name, "download cache")]
        if spec.package is not None:
            pkg = package_dir(spec.package.name)
            if pkg is not None:
                candidates.append((pkg / spec.package.path, f"package {spec.package.name}"))
        for path, origin in candidates:
            if path.exists() and not _verified(path, spec, stamps):
                problems.append(f"{path} does not match its sha256 {spec.sha256[:12]}…")
                continue
            if path.exists():
                paths[name] = path
                origins.add(origin)
                break
    if stamps != before:
        _save_stamps(stamp_path, stamps)
    missing = [name for name in manifest.files if name not in paths]
    if missing:
        raise ModelError(how_to_get(manifest, missing, problems))
    origin = ", ".join(sorted(origins))
    return ModelFiles(manifest, paths, manifest.id, origin, manifest.files["model.onnx"].sha256)


def how_to_get(manifest: Manifest, missing: list[str], problems: list[str]) -> str:
    why = f" ({'; '.join(problems)})" if problems else ""
    return (
        f"the {manifest.name} model lacks {', '.join(missing)}{why}: run "
        "`recall model install`, or set RECALL_MODEL_DIR to a directory holding "
        "model.onnx and tokenizer.json"
    )
