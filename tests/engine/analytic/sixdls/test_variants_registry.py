"""Every 6DLS variant the parameters accept is one the model runs, and validates."""

from engine.analytic.params import AnalyticParams
from engine.analytic.sixdls.variants import VARIANTS


def test_every_variant_validates():
    for v in VARIANTS:
        AnalyticParams(sixdls_variant=v).validate()
