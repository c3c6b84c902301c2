"""The project's ONNX model files: an onnxruntime session with the metadata training wrote into it, and the
input layout every model shares. Used by the board finders and the cell readers alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

METADATA_KEY = "garden_scorer"


def open_model(path: Path, threads: int = 1) -> tuple[Any, dict[str, Any]]:
    """An onnxruntime session for a garden-scorer model file, and the metadata training wrote into it."""
    import onnxruntime as ort

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no model file; rebuild it with `garden-scorer-lab train`")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning threads burn a Pi's cores between frames for no gain on a model this small.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No arena: each model's kept the memory of its largest run for good, and with a dozen models in one
    # process that added up to hundreds of MB (the run's memory is freed at its end instead).
    options.enable_cpu_mem_arena = False
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    meta = session.get_modelmeta().custom_metadata_map
    if METADATA_KEY not in meta:
        raise ValueError(f"{path}: not a garden-scorer model (no {METADATA_KEY!r} metadata)")
    return session, dict(json.loads(meta[METADATA_KEY]))


def model_input(crops_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(N, H, W, 3) BGR uint8 crops as the model's (N, 3, H, W) float32 input in [0, 1], BGR order kept."""
    if crops_bgr.ndim != 4 or crops_bgr.shape[3] != 3 or crops_bgr.dtype != np.uint8:
        raise ValueError(f"expected (N, H, W, 3) uint8 crops, got {crops_bgr.shape} {crops_bgr.dtype}")
    return np.ascontiguousarray(crops_bgr.transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)
