import math
import re

import pytest

from sensampler.privacy import Noise, PrivacyStatement


def test_noise_records_are_frozen_and_compared():
    noise = Noise("laplace", (2.0, math.inf))
    assert noise == Noise("laplace", (2.0, math.inf))
    with pytest.raises(AttributeError):
        noise.kind = "gaussian"
    statement = PrivacyStatement("Laplace", 0.5, 0.0, noise=noise)
    assert statement.noise is noise


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda: Noise("uniform", (1.0,)), ValueError, "kind must be one of"),
        (lambda: Noise("gaussian", [1.0]), TypeError, "scales must be a non-empty"),
        (lambda: Noise("gaussian", (1.0, 2.0)), ValueError, "gaussian noise has one"),
        (lambda: Noise("gaussian", (math.inf,)), ValueError, "finite for gaussian"),
        (lambda: Noise("laplace", (0.0,)), ValueError, "scales must hold floats > 0"),
        (
            lambda: PrivacyStatement("x", 1.0, 0.0, noise="gaussian"),
            TypeError,
            "noise must be a Noise or None, got 'gaussian'.",
        ),
    ],
)
def test_bad_noise_records(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()
