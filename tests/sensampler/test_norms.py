import re

import numpy as np
import pytest

from sensampler.norms import (
    CallableNorm,
    CoordinateSensitivityNorm,
    L1SensitivityNorm,
    L2SensitivityNorm,
    LInfSensitivityNorm,
    get_norm,
)

DIFF = np.array([[3.0, -4.0], [0.0, 0.0], [-1.0, 2.0]])


def test_norm_values():
    np.testing.assert_allclose(L1SensitivityNorm()(DIFF), [7.0, 0.0, 3.0])
    np.testing.assert_allclose(L2SensitivityNorm()(DIFF), [5.0, 0.0, np.sqrt(5.0)])
    np.testing.assert_allclose(LInfSensitivityNorm()(DIFF), [4.0, 0.0, 2.0])
    np.testing.assert_allclose(CoordinateSensitivityNorm()(DIFF), np.abs(DIFF))


def test_compute_on_two_outputs():
    assert L1SensitivityNorm().compute([1.0, 2.0], [2.0, 0.0]) == 3.0


@pytest.mark.parametrize(
    "spec, cls",
    [
        ("l1", L1SensitivityNorm),
        ("L2", L2SensitivityNorm),
        ("linf", LInfSensitivityNorm),
        ("coordinate", CoordinateSensitivityNorm),
        (L2SensitivityNorm, L2SensitivityNorm),
    ],
)
def test_get_norm(spec, cls):
    assert isinstance(get_norm(spec), cls)


def test_callable_norms_row_by_row_and_batched():
    row = get_norm(lambda d: np.abs(d).sum() ** 0.5)
    np.testing.assert_allclose(row(DIFF), np.sqrt([7.0, 0.0, 3.0]))
    whole = CallableNorm(lambda d: np.abs(d).max(axis=1), batched=True)
    np.testing.assert_allclose(whole(DIFF), [4.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="must return one value per pair"):
        CallableNorm(lambda d: d, batched=True)(DIFF)


def test_bad_norms():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "norm must be 'l1', 'l2', 'linf', "
            "'coordinate', a SensitivityNorm or a "
            "callable, got norm='l3'."
        ),
    ):
        get_norm("l3")
    with pytest.raises(TypeError, match="norm must be"):
        get_norm(3)
