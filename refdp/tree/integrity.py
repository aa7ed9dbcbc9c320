"""A model file's integrity digest and optional keyed signature.

The ``digest`` of a model file is ``sha256:<hex>`` of the canonical JSON
(sorted keys, no spaces, ASCII) of every other field of the file: the trees,
the weights, the voting rule, the schema, the parameters, the algorithm and
variant, the plan's inputs, the receipt and the signature if there is one.
It catches corruption and any edit made without recomputing it.  It is
integrity, not authenticity: anyone who edits a file can recompute it.

The optional ``signature`` is ``hmac-sha256:<hex>``, an HMAC (RFC 2104, the
standard library's :mod:`hmac`) with a secret key of the canonical JSON of
every field but the digest and the signature.  Only a holder of the key can
make one that verifies, so a file whose signature verifies under the
trainer's key was written by someone who holds that key, and not changed
since.  It says nothing about whether the training run was honest: that is
what re-deriving the charges and re-training with the data and seed check.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any, Mapping, Tuple, Union

from refdp.errors import InvalidParameterError, ModelError

__all__ = ["canonical_json", "model_digest", "model_signature", "read_key", "DIGEST", "SIGNATURE", "MIN_KEY_BYTES"]

DIGEST = "digest"
SIGNATURE = "signature"
MIN_KEY_BYTES = 16
"""The shortest key accepted: 128 bits (RFC 2104 recommends at least the hash's output length, 32 bytes)."""


def canonical_json(body: Mapping[str, Any], leave_out: Tuple[str, ...] = (DIGEST,)) -> bytes:
    """The canonical JSON of ``body`` without the fields ``leave_out``: sorted keys, no spaces, ASCII.

    >>> canonical_json({"b": 1, "a": [1.5, "x"], "digest": "sha256:..."})
    b'{"a":[1.5,"x"],"b":1}'
    """
    rest = {key: value for key, value in body.items() if key not in leave_out}
    try:
        text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"the model cannot be written as canonical JSON ({exc})") from None
    return text.encode("ascii")


def model_digest(body: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the canonical JSON of every field of ``body`` but the digest.

    >>> model_digest({"format": "refdp-model"})[:15]
    'sha256:34f9ea15'
    """
    return "sha256:" + hashlib.sha256(canonical_json(body)).hexdigest()


def model_signature(body: Mapping[str, Any], key: bytes) -> str:
    """``hmac-sha256:<hex>`` of the canonical JSON of every field of ``body`` but the digest and the signature.

    >>> model_signature({"format": "refdp-model"}, b"0123456789abcdef")[:20]
    'hmac-sha256:e439e431'
    """
    mac = hmac.new(key, canonical_json(body, (DIGEST, SIGNATURE)), hashlib.sha256)
    return "hmac-sha256:" + mac.hexdigest()


def read_key(path: Union[str, "os.PathLike[str]"]) -> bytes:
    """The secret key in the file at ``path``: its bytes, without a final newline (at least 16 bytes).

    Make one with ``head -c 32 /dev/urandom > model.key`` (keep it secret:
    whoever holds it can sign any model).
    """
    try:
        key = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidParameterError(f"cannot read the key file {os.fspath(path)}: {exc.strerror}") from None
    if key.endswith(b"\n"):
        key = key[:-1]
        if key.endswith(b"\r"):
            key = key[:-1]
    if len(key) < MIN_KEY_BYTES:
        raise InvalidParameterError(
            f"the key file {os.fspath(path)} holds {len(key)} bytes; a key needs at least {MIN_KEY_BYTES} "
            "(make one with: head -c 32 /dev/urandom > FILE)"
        )
    return key
