"""The parameters random-tree forests share: how a tree is drawn from the schema, and how the trees vote.

private-rdt and kanon-rdt declare the same block (:func:`structure_parameters`), so that a choice
added to :mod:`refdp.algorithms.rdt` reaches both learners with one description.
"""

from __future__ import annotations

from typing import Tuple

from refdp.algorithms.rdt import CATEGORICAL_SPLITS, CONTINUOUS_SPLITS, RDT_VOTING, STRUCTURES
from refdp.params import Parameter

__all__ = ["AUTO", "structure_parameters"]

AUTO = "auto"
"""``categorical`` and ``continuous`` chosen by the learner's plan (where it offers the choice)."""


def structure_parameters(bins: int, auto: bool = False) -> Tuple[Parameter, ...]:
    """``structure``, ``categorical``, ``continuous``, ``bins`` (default ``bins``) and ``voting``.

    With ``auto``, ``categorical`` and ``continuous`` also take :data:`AUTO` (their default): the
    learner's plan chooses the splits.

    >>> [(p.name, p.default) for p in structure_parameters(5)]
    [('structure', 'per-level'), ('categorical', 'multiway'), ('continuous', 'bins'), ('bins', 5), ('voting', 'log-odds')]
    >>> [p.default for p in structure_parameters(10, auto=True)][1:3]
    ['auto', 'auto']
    """
    if auto:
        splits = (
            Parameter(
                "categorical", str, AUTO,
                "categorical splits: one child per value (Fan et al.) or value-vs-rest; auto: multiway when the "
                "noisy size fills such trees' leaves better than binary ones (with continuous=auto: bins then)",
                (AUTO,) + CATEGORICAL_SPLITS,
            ),
            Parameter(
                "continuous", str, AUTO,
                "continuous attributes: one child per public equal-width bin (used once per path), or a "
                "threshold drawn uniformly from the remaining public range (Fan et al.); auto: as categorical",
                (AUTO,) + CONTINUOUS_SPLITS,
            ),
        )
    else:
        splits = (
            Parameter(
                "categorical", str, "multiway",
                "categorical splits: one child per value (Fan et al.) or value-vs-rest",
                CATEGORICAL_SPLITS,
            ),
            Parameter(
                "continuous", str, "bins",
                "continuous attributes: one child per public equal-width bin (used once per path), or a "
                "threshold drawn uniformly from the remaining public range (Fan et al.)",
                CONTINUOUS_SPLITS,
            ),
        )
    return (
        Parameter(
            "structure", str, "per-level",
            "where the attributes are drawn: at every node (Fan et al.), or once per level of a tree, "
            "dealt so that every attribute appears about equally often in the forest",
            STRUCTURES,
        ),
        *splits,
        Parameter("bins", int, bins, "bins of a continuous attribute when continuous=bins", minimum=2, maximum=1024),
        Parameter(
            "voting", str, "log-odds",
            "how the trees vote: log-odds (each tree moves a class's odds by its leaf's share against the "
            "tree's) or sum-counts (the leaves' counts added, Waseda et al.'s Algorithm 2)",
            RDT_VOTING,
        ),
    )
