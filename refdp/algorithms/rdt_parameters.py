"""The parameters random-tree forests share: how a tree is drawn from the schema, and how the trees vote.

private-rdt and kanon-rdt declare the same block (:func:`structure_parameters`), so that a choice
added to :mod:`refdp.algorithms.rdt` reaches both learners with one description.
"""

from __future__ import annotations

from typing import Tuple

from refdp.algorithms.rdt import CATEGORICAL_SPLITS, CONTINUOUS_SPLITS, RDT_VOTING, STRUCTURES
from refdp.params import Parameter

__all__ = ["structure_parameters"]


def structure_parameters(bins: int) -> Tuple[Parameter, ...]:
    """``structure``, ``categorical``, ``continuous``, ``bins`` (default ``bins``) and ``voting``.

    >>> [(p.name, p.default) for p in structure_parameters(5)]
    [('structure', 'per-level'), ('categorical', 'multiway'), ('continuous', 'bins'), ('bins', 5), ('voting', 'log-odds')]
    """
    return (
        Parameter(
            "structure", str, "per-level",
            "where the attributes are drawn: at every node (Fan et al.), or once per level of a tree, "
            "dealt so that every attribute appears about equally often in the forest",
            STRUCTURES,
        ),
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
        Parameter("bins", int, bins, "bins of a continuous attribute when continuous=bins", minimum=2, maximum=1024),
        Parameter(
            "voting", str, "log-odds",
            "how the trees vote: log-odds (each tree moves a class's odds by its leaf's share against the "
            "tree's) or sum-counts (the leaves' counts added, Waseda et al.'s Algorithm 2)",
            RDT_VOTING,
        ),
    )
