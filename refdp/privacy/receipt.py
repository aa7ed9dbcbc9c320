"""The privacy receipt that a trained model carries, and its verification.

A receipt is what an auditor reads: the total (epsilon, delta) composed from
the ledger, the neighbouring relation, every charge, the leaks (data read
outside any mechanism, such as a schema inferred from the data), the claims in
``proofs/`` behind the charges with their statuses, and the soundness level
computed from them (:mod:`refdp.privacy.levels`).  It round-trips through
JSON exactly: fractions are written as strings such as ``"1/10"``.

Reading a receipt back (:meth:`Receipt.from_json`) verifies it and raises one
:class:`~refdp.errors.ModelError` on the first mismatch:

* every field is present, of its type, and nothing else is there;
* every charge has epsilon >= 0 and 0 <= delta < 1;
* the stated total is what the charges compose to under the ledger's rules
  (:func:`refdp.privacy.ledger.compose`), and ``epsilon_float`` and
  ``delta_float`` are the floats of the exact values;
* every claim a charge cites exists in ``proofs/`` with the status stated,
  the stated claims are exactly the cited ones, and the stated level and
  ``sound`` flag are the ones recomputed from them;
* the receipt is written as refdp writes it, and its ``digest`` (sha256 of
  its canonical JSON without the digest) matches.

The digest catches any edit or corruption, including of a charge's label or
note, which no rule above covers; it is not a signature, and a forger can
recompute it.  The other checks hold regardless of the digest: a forged
receipt still has to be consistent with its own charges and with ``proofs/``.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, List, Mapping, NoReturn, Optional, Sequence, Tuple, Union

from refdp.errors import InvalidParameterError, ModelError, PrivacyError
from refdp.privacy.ledger import Charge, Ledger, Sensitivity, check_cells, compose
from refdp.privacy.levels import LEVELS, MEANING, PROVED, UNKNOWN_STATUS, claim_status, level_of
from refdp.privacy.relations import Relation, parse_relation

__all__ = ["Receipt", "receipt_from_ledger", "receipt_digest", "charge_level"]

DIGEST_ALGORITHM = "sha256"

_RECEIPT_FIELDS = (
    "epsilon", "epsilon_float", "delta", "delta_float", "relation", "level", "sound", "claims", "leaks",
    "charges", "digest",
)
_CHARGE_FIELDS = (
    "label", "mechanism", "epsilon", "delta", "sensitivity", "partition", "cells", "claims", "sound",
    "data_independent", "note",
)


@dataclass(frozen=True)
class Receipt:
    """Total privacy cost and the evidence for it.

    >>> from refdp.privacy import Ledger, receipt_from_ledger
    >>> ledger = Ledger()
    >>> _ = ledger.charge(label="count", mechanism="discrete-laplace", epsilon=1, sensitivity=1,
    ...                   claims=("discrete-laplace-mechanism",))
    >>> receipt = receipt_from_ledger(ledger)
    >>> receipt.level, receipt.sound, receipt.epsilon
    ('proved', True, Fraction(1, 1))
    >>> Receipt.from_json(receipt.to_json()) == receipt
    True
    """

    epsilon: Fraction
    delta: Fraction
    relation: Relation
    charges: Tuple[Charge, ...]
    leaks: Tuple[str, ...]

    @property
    def claims(self) -> Tuple[str, ...]:
        """The claim IDs behind the charges, sorted, each once."""
        return tuple(sorted({claim for c in self.charges for claim in c.claims}))

    @property
    def claim_statuses(self) -> Dict[str, str]:
        """Each claim behind the charges with its status in ``proofs/`` (``unknown`` when it has no file)."""
        return {cid: claim_status(cid) or UNKNOWN_STATUS for cid in self.claims}

    @property
    def level(self) -> str:
        """``proved``, ``idealised`` or ``unsound`` (see :mod:`refdp.privacy.levels`)."""
        unsound_step = bool(self.leaks) or not all(c.sound for c in self.charges)
        return level_of(self.claims, unsound_step=unsound_step)

    @property
    def sound(self) -> bool:
        """True only at level ``proved``: every charge sound, nothing leaked, every claim proved."""
        return self.level == PROVED

    def to_json(self) -> Dict[str, Any]:
        body: Dict[str, Any] = {
            "epsilon": str(self.epsilon),
            "epsilon_float": float(self.epsilon),
            "delta": str(self.delta),
            "delta_float": float(self.delta),
            "relation": self.relation.value,
            "level": self.level,
            "sound": self.sound,
            "claims": self.claim_statuses,
            "leaks": list(self.leaks),
            "charges": [_charge_to_json(c) for c in self.charges],
        }
        body["digest"] = receipt_digest(body)
        return body

    @staticmethod
    def from_json(obj: Any) -> "Receipt":
        """Read a receipt written by :meth:`to_json`, verifying it (ModelError on any mismatch)."""
        return _verified(obj)

    def summary(self) -> str:
        """One line for people: total, relation and soundness level."""
        return (
            f"epsilon={float(self.epsilon):g} ({self.epsilon}), delta={float(self.delta):g}, "
            f"relation={self.relation.value}, {len(self.charges)} charges; "
            f"level {self.level}: {MEANING[self.level]}"
        )


def receipt_from_ledger(ledger: Ledger) -> Receipt:
    """Freeze a ledger into a receipt, composing its total."""
    epsilon, delta = ledger.total()
    return Receipt(
        epsilon=epsilon,
        delta=delta,
        relation=ledger.relation,
        charges=ledger.charges,
        leaks=ledger.leaks,
    )


def charge_level(charge: Charge) -> str:
    """The level of one charge on its own."""
    return level_of(charge.claims, unsound_step=not charge.sound)


def receipt_digest(body: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``body`` without its ``digest`` field."""
    rest = {key: value for key, value in body.items() if key != "digest"}
    try:
        text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        _fail(f"it cannot be written as canonical JSON ({exc})")
    return f"{DIGEST_ALGORITHM}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def _fail(reason: str) -> NoReturn:
    raise ModelError(f"the privacy receipt does not verify: {reason}")


def _fields(obj: Any, names: Sequence[str], where: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        _fail(f"{where} must be a JSON object, got {type(obj).__name__}")
    missing = [name for name in names if name not in obj]
    if missing:
        _fail(f"{where} has no field {', '.join(missing)}")
    extra = sorted(str(key) for key in obj if key not in names)
    if extra:
        _fail(f"{where} has unexpected field {', '.join(extra)}")
    return obj


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        _fail(f"{where} must be a string, got {value!r}")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        _fail(f"{where} must be true or false, got {value!r}")
    return value


def _list(value: Any, where: str) -> List[Any]:
    if not isinstance(value, list):
        _fail(f"{where} must be a JSON list, got {type(value).__name__}")
    return value


def _fraction(value: Any, where: str) -> Fraction:
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
    _fail(f"{where} must be an exact number written as a string such as \"1/10\", got {value!r}")


def _sensitivity_to_json(value: Sensitivity) -> Optional[Any]:
    if isinstance(value, Fraction):
        return str(value)
    return value


def _sensitivity_from_json(value: Any, where: str) -> Sensitivity:
    if value is None:
        return None
    result: Union[Fraction, float]
    if isinstance(value, str):
        result = _fraction(value, where)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        result = float(value)
    else:
        _fail(f"{where} must be null, a fraction string or a finite number, got {value!r}")
    if result < 0:
        _fail(f"{where} is negative ({value!r})")
    return result


def _charge_to_json(charge: Charge) -> Dict[str, Any]:
    return {
        "label": charge.label,
        "mechanism": charge.mechanism,
        "epsilon": str(charge.epsilon),
        "delta": str(charge.delta),
        "sensitivity": _sensitivity_to_json(charge.sensitivity),
        "partition": list(charge.partition),
        "cells": [[key, count] for key, count in charge.cells],
        "claims": list(charge.claims),
        "sound": charge.sound,
        "data_independent": charge.data_independent,
        "note": charge.note,
    }


def _charge_from_json(obj: Any, index: int) -> Charge:
    fields = _fields(obj, _CHARGE_FIELDS, f"charge {index}")
    where = f"charge {index} ({fields['label']!r})"
    epsilon = _fraction(fields["epsilon"], f"{where} epsilon")
    delta = _fraction(fields["delta"], f"{where} delta")
    if epsilon < 0:
        _fail(f"{where} has negative epsilon {epsilon}")
    if not 0 <= delta < 1:
        _fail(f"{where} has delta {delta}, outside [0, 1)")
    partition = tuple(_string(p, f"{where} partition component") for p in _list(fields["partition"], f"{where} partition"))
    if not all(partition):
        _fail(f"{where} has an empty partition component")
    cells = []
    for entry in _list(fields["cells"], f"{where} cells"):
        pair = _list(entry, f"{where} cells entry")
        if len(pair) != 2 or not isinstance(pair[1], int) or isinstance(pair[1], bool):
            _fail(f"{where} cells entry must be [split key, number of cells], got {entry!r}")
        cells.append((_string(pair[0], f"{where} cells key"), pair[1]))
    try:
        checked = check_cells(cells)
    except InvalidParameterError as exc:
        _fail(f"{where}: {exc}")
    return Charge(
        label=_string(fields["label"], f"charge {index} label"),
        mechanism=_string(fields["mechanism"], f"{where} mechanism"),
        epsilon=epsilon,
        delta=delta,
        sensitivity=_sensitivity_from_json(fields["sensitivity"], f"{where} sensitivity"),
        partition=partition,
        claims=tuple(_string(c, f"{where} claim") for c in _list(fields["claims"], f"{where} claims")),
        sound=_flag(fields["sound"], f"{where} sound"),
        data_independent=_flag(fields["data_independent"], f"{where} data_independent"),
        note=_string(fields["note"], f"{where} note"),
        cells=checked,
    )


def _parsed(obj: Any) -> Tuple[Mapping[str, Any], Receipt]:
    fields = _fields(obj, _RECEIPT_FIELDS, "the receipt")
    try:
        relation = parse_relation(_string(fields["relation"], "relation"))
    except InvalidParameterError as exc:
        _fail(str(exc))
    receipt = Receipt(
        epsilon=_fraction(fields["epsilon"], "the total epsilon"),
        delta=_fraction(fields["delta"], "the total delta"),
        relation=relation,
        charges=tuple(_charge_from_json(c, i) for i, c in enumerate(_list(fields["charges"], "charges"))),
        leaks=tuple(_string(leak, "a leak") for leak in _list(fields["leaks"], "leaks")),
    )
    return fields, receipt


def _check_total(receipt: Receipt) -> None:
    try:
        epsilon, delta = compose(receipt.charges, receipt.relation)
    except PrivacyError as exc:
        _fail(str(exc))
    if (epsilon, delta) != (receipt.epsilon, receipt.delta):
        _fail(
            f"it states a total of epsilon={receipt.epsilon}, delta={receipt.delta} but its "
            f"{len(receipt.charges)} charges compose to epsilon={epsilon}, delta={delta} under "
            f"{receipt.relation.value}"
        )


def _check_float(stated: Any, exact: Fraction, name: str) -> None:
    try:
        wanted = float(exact)
    except OverflowError:
        _fail(f"{name} is too large for a float (above 1.8e308)")
    if isinstance(stated, bool) or not isinstance(stated, (int, float)) or stated != wanted:
        _fail(f"{name}_float is {stated!r} but float({name}) is {wanted!r}")


def _check_claims(stated: Any, receipt: Receipt) -> None:
    for charge in receipt.charges:
        for cid in charge.claims:
            if claim_status(cid) is None:
                _fail(f"charge {charge.label!r} cites claim {cid!r}, which has no file proofs/{cid}.md in this refdp")
    if not isinstance(stated, Mapping):
        _fail(f"claims must be a JSON object of claim ID to status, got {type(stated).__name__}")
    cited = set(receipt.claims)
    for cid in sorted(set(stated) - cited):
        _fail(f"it lists claim {cid!r}, which no charge cites")
    for cid in sorted(cited - set(stated)):
        _fail(f"it does not list claim {cid!r}, which a charge cites")
    for cid, status in sorted(stated.items()):
        if status != claim_status(cid):
            _fail(
                f"it states claim {cid!r} is {status!r} but proofs/{cid}.md says {claim_status(cid)!r} "
                "(a model trained against other claims: retrain it)"
            )


def _check_level(fields: Mapping[str, Any], receipt: Receipt) -> None:
    stated = fields["level"]
    if stated not in LEVELS:
        _fail(f"level must be one of {', '.join(LEVELS)}, got {stated!r}")
    if stated != receipt.level:
        _fail(f"it states level {stated!r} but its charges, leaks and claims give {receipt.level!r}")
    if _flag(fields["sound"], "sound") != receipt.sound:
        _fail(f"it states sound={fields['sound']!r} but level {receipt.level!r} gives sound={receipt.sound!r}")


def _check_canonical(fields: Mapping[str, Any], receipt: Receipt) -> None:
    written = receipt.to_json()
    for name in _RECEIPT_FIELDS:
        if name != "digest" and fields[name] != written[name]:
            _fail(f"its field {name} is not written as refdp writes it (for example a fraction not in lowest terms)")


def _check_digest(fields: Mapping[str, Any]) -> None:
    stated = _string(fields["digest"], "digest")
    if stated != receipt_digest(fields):
        _fail(
            f"its {DIGEST_ALGORITHM} digest does not match its content: it was edited or corrupted after "
            "refdp wrote it"
        )


def _verified(obj: Any) -> Receipt:
    fields, receipt = _parsed(obj)
    _check_total(receipt)
    _check_float(fields["epsilon_float"], receipt.epsilon, "epsilon")
    _check_float(fields["delta_float"], receipt.delta, "delta")
    _check_claims(fields["claims"], receipt)
    _check_level(fields, receipt)
    _check_canonical(fields, receipt)
    _check_digest(fields)
    return receipt
