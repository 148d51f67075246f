"""The parameter-level list of 6DLS variants (kept cvxpy-free) matches the model's registry."""

from engine.analytic.params import SIXDLS_VARIANTS, AnalyticParams
from engine.analytic.sixdls.variants import VARIANTS


def test_variant_lists_agree():
    assert tuple(SIXDLS_VARIANTS) == tuple(VARIANTS)


def test_every_variant_validates():
    for v in VARIANTS:
        AnalyticParams(sixdls_variant=v).validate()
