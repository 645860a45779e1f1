"""The public contract of sensampler.audit (DESIGN.md): names and signatures."""

import inspect

import sensampler.audit as audit


def _parameters(func):
    return {
        name: (p.kind.name, p.default)
        for name, p in inspect.signature(func).parameters.items()
    }


def test_the_contract_names_are_importable():
    from sensampler.audit import (  # noqa: F401
        audit_estimate,
        audit_mechanism,
        compare_populations,
    )

    assert set(audit.__all__) >= {
        "audit_mechanism", "audit_estimate", "compare_populations"
    }


def test_the_contract_signatures():
    empty = inspect.Parameter.empty
    mechanism = _parameters(audit.audit_mechanism)
    assert list(mechanism)[:3] == ["mechanism", "a", "b"]
    assert mechanism["releases"] == ("KEYWORD_ONLY", empty)
    assert mechanism["confidence"] == ("KEYWORD_ONLY", 0.99)
    assert mechanism["random_state"] == ("KEYWORD_ONLY", None)
    estimate = _parameters(audit.audit_estimate)
    assert list(estimate)[:2] == ["estimate", "population"]
    assert estimate["population"] == ("POSITIONAL_OR_KEYWORD", None)
    assert estimate["pairs"] == ("KEYWORD_ONLY", empty)
    assert estimate["confidence"] == ("KEYWORD_ONLY", 0.99)
    assert estimate["random_state"] == ("KEYWORD_ONLY", None)
    # None defers to an enclosing joblib.parallel_config (1 without one), as in
    # every other public function
    assert estimate["n_jobs"] == ("KEYWORD_ONLY", None)
    compare = _parameters(audit.compare_populations)
    assert list(compare)[:4] == ["query", "populations", "n", "gamma"]
    assert compare["pairs"] == ("KEYWORD_ONLY", empty)
