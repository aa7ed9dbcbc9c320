"""The privacy receipt that a trained model carries.

A receipt is what an auditor reads: the total (epsilon, delta) composed from
the ledger, the neighbouring relation, every charge, whether every step is
sound, the leaks (data read outside any mechanism, such as a schema inferred
from the data), and the claims in ``proofs/`` behind each step.  It round-trips
through JSON exactly: fractions are written as strings such as ``"1/10"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, Mapping, Optional, Tuple

from refdp.errors import ModelError
from refdp.privacy.ledger import Charge, Ledger, Sensitivity
from refdp.privacy.relations import Relation, parse_relation

__all__ = ["Receipt", "receipt_from_ledger"]


@dataclass(frozen=True)
class Receipt:
    """Total privacy cost and the evidence for it."""

    epsilon: Fraction
    delta: Fraction
    relation: Relation
    charges: Tuple[Charge, ...]
    leaks: Tuple[str, ...]

    @property
    def sound(self) -> bool:
        """True when every charge is sound and nothing leaked."""
        return not self.leaks and all(c.sound for c in self.charges)

    @property
    def claims(self) -> Tuple[str, ...]:
        """The claim IDs behind the charges, sorted, each once."""
        return tuple(sorted({claim for c in self.charges for claim in c.claims}))

    def to_json(self) -> Dict[str, Any]:
        return {
            "epsilon": str(self.epsilon),
            "epsilon_float": float(self.epsilon),
            "delta": str(self.delta),
            "delta_float": float(self.delta),
            "relation": self.relation.value,
            "sound": self.sound,
            "claims": list(self.claims),
            "leaks": list(self.leaks),
            "charges": [_charge_to_json(c) for c in self.charges],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Receipt":
        try:
            receipt = Receipt(
                epsilon=Fraction(obj["epsilon"]),
                delta=Fraction(obj["delta"]),
                relation=parse_relation(obj["relation"]),
                charges=tuple(_charge_from_json(c) for c in obj["charges"]),
                leaks=tuple(str(x) for x in obj["leaks"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"malformed privacy receipt: {exc}") from None
        return receipt

    def summary(self) -> str:
        """One line for people: total, relation and soundness."""
        status = "sound" if self.sound else "NOT SOUND (see charges and leaks)"
        return (
            f"epsilon={float(self.epsilon):g} ({self.epsilon}), delta={float(self.delta):g}, "
            f"relation={self.relation.value}, {len(self.charges)} charges, {status}"
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


def _sensitivity_to_json(value: Sensitivity) -> Optional[Any]:
    if isinstance(value, Fraction):
        return str(value)
    return value


def _sensitivity_from_json(value: Any) -> Sensitivity:
    if value is None:
        return None
    if isinstance(value, str):
        return Fraction(value)
    return float(value)


def _charge_to_json(charge: Charge) -> Dict[str, Any]:
    return {
        "label": charge.label,
        "mechanism": charge.mechanism,
        "epsilon": str(charge.epsilon),
        "delta": str(charge.delta),
        "sensitivity": _sensitivity_to_json(charge.sensitivity),
        "partition": list(charge.partition),
        "claims": list(charge.claims),
        "sound": charge.sound,
        "data_independent": charge.data_independent,
        "note": charge.note,
    }


def _charge_from_json(obj: Mapping[str, Any]) -> Charge:
    return Charge(
        label=str(obj["label"]),
        mechanism=str(obj["mechanism"]),
        epsilon=Fraction(obj["epsilon"]),
        delta=Fraction(obj["delta"]),
        sensitivity=_sensitivity_from_json(obj["sensitivity"]),
        partition=tuple(str(p) for p in obj["partition"]),
        claims=tuple(str(c) for c in obj["claims"]),
        sound=bool(obj["sound"]),
        data_independent=bool(obj["data_independent"]),
        note=str(obj["note"]),
    )
