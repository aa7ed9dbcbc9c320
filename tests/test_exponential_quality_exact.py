"""The exponential mechanism over split attributes, with each quality function, on neighbouring data.

For every quality function and relation, Hypothesis draws neighbouring
datasets (D, D') over a small categorical schema, scores every attribute on
each, and checks exactly (log space) that the mechanism's output
distributions satisfy max_o |log P(o|D) - log P(o|D')| <= epsilon.
"""

from __future__ import annotations

from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.audit import LOG_SLACK, exponential_mechanism_distribution, max_log_ratio
from refdp.data import Dataset
from refdp.privacy import Relation
from refdp.scoring import QUALITY_FUNCTIONS
from strategies import neighbouring_pairs, schemas

MAX_SIZE = 9  # datasets below have at most 8 rows, neighbours at most 9: the public bound N


def _table(data: Dataset, attribute: int) -> List[List[int]]:
    n_values = len(data.schema.attributes[attribute].values)  # type: ignore[union-attr]
    table = [[0] * data.schema.n_classes for _ in range(n_values)]
    for code, label in zip(data.codes(attribute), data.labels):
        table[code][label] += 1
    return table


def _utilities(data: Dataset, quality: str) -> List[float]:
    q = QUALITY_FUNCTIONS[quality]
    return [float(q(_table(data, a))) for a in range(data.schema.n_attributes)]


categorical = schemas(max_attributes=3, max_values=3, min_classes=2, max_classes=3, continuous=False).filter(
    lambda s: s.n_attributes >= 2
)


@pytest.mark.claim(
    "exponential-mechanism",
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("quality", ["max", "gini", "gini-weighted", "info-gain"])
@settings(max_examples=60)
@given(data=st.data(), epsilon=st.sampled_from([0.01, 0.5, 1.0, 4.0, 50.0]))
def test_exponential_mechanism_over_attributes_is_epsilon_dp(
    relation: Relation, quality: str, data: st.DataObject, epsilon: float
) -> None:
    d, d2 = data.draw(neighbouring_pairs(relation, schema_strategy=categorical, max_size=8))
    sensitivity = QUALITY_FUNCTIONS[quality].sensitivity(relation, max_size=MAX_SIZE)
    p = exponential_mechanism_distribution(_utilities(d, quality), epsilon, sensitivity)
    q = exponential_mechanism_distribution(_utilities(d2, quality), epsilon, sensitivity)
    assert max_log_ratio(p, q) <= epsilon + LOG_SLACK

