"""Each parameter domain is declared once, checks by name, and prints itself."""

import math
import os
import re

import numpy as np
import pytest

from sensampler import accounting, plan, privacy
from sensampler._lib import domains as _domains
from sensampler._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON,
    EPSILON_STATED,
    GAMMA,
    INEQUALITIES,
    ORDER,
    ORDER_OR_INF,
    Choice,
    Interval,
    documented,
)
from sensampler.accounting import RenyiFilter
from sensampler.accounting._filter_rules import renyi_filter_budget
from sensampler.app.experiments import MECHANISMS
from sensampler.mechanisms import GaussianMechanism, gaussian

#: The repository: tests/sensampler/_lib/ is three folders below it.
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.mark.parametrize(
    "domain, text",
    [
        (EPSILON, "(0, inf)"),
        (EPSILON_STATED, "[0, inf]"),
        (DELTA_TARGET, "(0, 1)"),
        (DELTA_STATED, "[0, 1]"),
        (GAMMA, "[0, 1]"),
        (ORDER, "(1, inf)"),
        (ORDER_OR_INF, "(1, inf]"),
    ],
)
def test_text_form(domain, text):
    assert str(domain) == text


@pytest.mark.parametrize(
    "domain, inside, outside",
    [
        (EPSILON, [1e-300, 1.0, 1e308], [0.0, -1.0, math.inf, math.nan]),
        (EPSILON_STATED, [0.0, 1.0, math.inf], [-1e-300, -math.inf, math.nan]),
        (DELTA_TARGET, [1e-300, 0.5, 1 - 1e-16], [0.0, 1.0, math.nan]),
        (DELTA_STATED, [0.0, 1.0], [-1e-300, 1 + 1e-15, math.inf]),
        (ORDER, [1 + 1e-15, 2.0], [1.0, math.inf]),
        (ORDER_OR_INF, [1 + 1e-15, math.inf], [1.0, -math.inf]),
    ],
)
def test_check_and_contains_agree_at_the_edges(domain, inside, outside):
    for value in inside:
        assert domain.contains(value) and domain.check("x", value) == value
    for value in outside:
        assert not domain.contains(value)
        with pytest.raises(ValueError, match=re.escape("x must be")):
            domain.check("x", value)


@pytest.mark.parametrize("value", [True, np.bool_(True), "1", None, b"1", [1.0]])
def test_non_numbers_are_refused_by_type(value):
    assert not EPSILON_STATED.contains(value)
    with pytest.raises(TypeError, match=re.escape("epsilon must be a real number")):
        EPSILON_STATED.check("epsilon", value)


def test_messages_name_the_parameter_rule_and_value():
    message = "delta must be > 0.0 and < 1.0, got delta=1.0."
    with pytest.raises(ValueError, match=re.escape(message)):
        DELTA_TARGET.check("delta", 1.0)
    message = "inequality must be one of 'exact', 'dkw', 'exchangeable', got inequality='x'."
    with pytest.raises(ValueError, match=re.escape(message)):
        INEQUALITIES.check("inequality", "x")


def test_choices():
    assert str(INEQUALITIES) == "{'exact', 'dkw', 'exchangeable'}"
    assert INEQUALITIES.contains("dkw") and not INEQUALITIES.contains(None)
    assert list(INEQUALITIES) == ["exact", "dkw", "exchangeable"]


def test_each_fact_is_declared_once():
    # the public tuples are the domains' own values, not copies that can drift
    assert plan.INEQUALITIES is INEQUALITIES.values
    assert privacy.SOURCES is _domains.SOURCES.values
    assert privacy.NOISE_KINDS is _domains.NOISE_KINDS.values
    assert privacy.NEIGHBOURS in _domains.NEIGHBOUR_RELATIONS


def test_every_declared_domain_is_a_domain():
    for name in _domains.__all__:
        value = getattr(_domains, name)
        assert isinstance(value, (Interval, Choice, type)) or value is documented, name


def test_the_gaussian_variants_are_one_vocabulary():
    listed = ", ".join(repr(v) for v in _domains.GAUSSIAN_VARIANTS)
    with pytest.raises(ValueError, match=re.escape(f"variant must be one of {listed},")):
        GaussianMechanism(1.0, 0.5, 1e-6, variant="exact")
    for variant in _domains.GAUSSIAN_VARIANTS:
        assert GaussianMechanism(1.0, 0.5, 1e-6, variant=variant).variant == variant
    # the guide names every variant, as the contract writes it
    with open(os.path.join(ROOT, "docs", "guide", "mechanisms.md"), encoding="utf-8") as fh:
        guide = fh.read()
    named = " | ".join(f'"{v}"' for v in _domains.GAUSSIAN_VARIANTS)
    assert f"variant={named}" in guide
    # the experiments' mechanism names reach every variant, and no other
    named = {fixed.get("variant") for cls, fixed in MECHANISMS.values()}
    assert named - {None} == set(_domains.GAUSSIAN_VARIANTS)


def test_the_conversions_to_epsilon_delta_are_one_vocabulary():
    listed = ", ".join(repr(v) for v in _domains.DP_CONVERSIONS)
    calls = [
        ("method", lambda bad: privacy.zcdp_to_dp(0.5, 1e-6, bad)),
        ("method", lambda bad: privacy.rdp_to_dp(lambda a: 0.5 * a, 1e-6, method=bad)),
        ("conversion", lambda bad: RenyiFilter(1.0, 1e-6, conversion=bad)),
        ("conversion", lambda bad: renyi_filter_budget(1.0, 1e-6, 10.0, bad)),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=re.escape(f"{name} must be one of {listed},")):
            call("tight")
        for conversion in _domains.DP_CONVERSIONS:
            call(conversion)


@pytest.mark.parametrize(
    "domain, text",
    [
        (_domains.DELTA_TARGET, "0 < delta < 1"),
        (_domains.DELTA_STATED, "0 <= delta <= 1"),
        (_domains.DELTA_RELEASE, "0 <= delta < 1"),
        (_domains.DELTA_ADVANCED, "0 < delta < 1/e"),
        (EPSILON, "delta > 0"),
        (EPSILON_STATED, "delta >= 0, inf included"),
    ],
)
def test_the_rule_on_a_named_parameter(domain, text):
    """The text docstrings show is the domain's, so it cannot drift from the check."""
    assert domain.text("delta") == text


def test_documented_fills_functions_classes_methods_and_properties():
    """The decorator reaches every docstring a class carries, once, at import."""
    @documented
    class Spend:
        """``{DELTA_TARGET:delta}``"""

        def at(self, delta):
            """``{DELTA_STATED:delta}``"""

        @property
        def gamma(self):
            """``{GAMMA:gamma}``"""

        @staticmethod
        def fixed():
            """``{DELTA_RELEASE:delta}``"""

    assert Spend.__doc__ == "``0 < delta < 1``"
    assert Spend.at.__doc__ == "``0 <= delta <= 1``"
    assert Spend.gamma.__doc__ == "``0 <= gamma <= 1``"
    assert Spend.fixed.__doc__ == "``0 <= delta < 1``"
    with pytest.raises(KeyError):  # a misspelt domain fails at import
        documented(type("Bad", (), {"__doc__": "{DELTA_TARGT:delta}"}))


def test_math_braces_in_docstrings_are_left_alone():
    """Only a field naming a domain is filled: LaTeX braces stay as written."""
    def f():
        r""":math:`\tilde{\delta}`, ``{DELTA_TARGET:delta_prime}``, {x}"""

    assert documented(f).__doc__ == r":math:`\tilde{\delta}`, ``0 < delta_prime < 1``, {x}"


def _core_docstrings():
    import importlib
    import inspect
    import pkgutil

    import sensampler.accounting
    import sensampler.mechanisms

    modules = [privacy, plan]
    for package in (sensampler.accounting, sensampler.mechanisms):
        modules.append(package)
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            modules.append(importlib.import_module(info.name))
    for module in modules:
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            members = list(vars(obj).values()) if inspect.isclass(obj) else []
            for item in [obj, *members]:
                doc = getattr(item, "__doc__", None)
                if isinstance(doc, str):
                    yield f"{module.__name__}.{name}", doc


def test_no_docstring_of_the_core_keeps_an_unfilled_field():
    """A field left in a docstring (a class or function not decorated) shows."""
    unfilled = [name for name, doc in _core_docstrings() if re.search(r"\{[A-Z_]+:", doc)]
    assert unfilled == []


def test_the_composition_theorems_document_the_delta_they_check():
    """The theorems refuse a step delta of 1 (DELTA_RELEASE), and their
    docstrings said ``0 <= delta <= 1``: written from the domain, they now say
    what is checked."""
    from sensampler.accounting import (
        advanced_composition,
        optimal_composition,
        tightest_composition,
    )

    for theorem in (advanced_composition, optimal_composition, tightest_composition):
        assert "Each mechanism's delta, ``0 <= delta < 1``." in theorem.__doc__
        with pytest.raises(ValueError, match=re.escape("delta must be >= 0.0 and < 1.0")):
            theorem(0.5, 1.0, 2, 1e-6)


def test_the_advanced_filter_names_its_rule_from_the_domain():
    """The message once typed the rule by hand; it reads it from DELTA_ADVANCED."""
    from sensampler.accounting import PrivacyFilter

    message = "the advanced filter needs 0 < delta < 1/e (Rogers et al. 2016, Thm. 5.1)"
    with pytest.raises(ValueError, match=re.escape(message)):
        PrivacyFilter(1.0, 0.5, rule="advanced")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: accounting.advanced_composition(-1.0, 0.0, 2, 1e-6),
         "epsilon must be >= 0.0, got epsilon=-1.0."),
        (lambda: accounting.advanced_composition(1.0, 0.0, 2, 1.0),
         "delta_prime must be > 0.0 and < 1.0, got delta_prime=1.0."),
        (lambda: accounting.PrivacyFilter(0.0, 1e-6), "epsilon must be > 0.0, got epsilon=0.0."),
        (lambda: accounting.PrivacyFilter(1.0, 1.0),
         "delta must be >= 0.0 and < 1.0, got delta=1.0."),
        (lambda: accounting.RenyiFilter(1.0, 0.0), "delta must be > 0.0 and < 1.0, got delta=0.0."),
        (lambda: accounting.PrivacyFilter(1.0, 0.0, gamma=0.0),
         "gamma must be > 0.0 and < 1.0, got gamma=0.0."),
        (lambda: accounting.zcdp_to_delta(-1.0, 1.0), "rho must be >= 0.0, got rho=-1.0."),
        (lambda: accounting.pld.pld_epsilon([('pure', 1.0, 1)], 1.5),
         "delta must be >= 0.0 and <= 1.0, got delta=1.5."),
        (lambda: accounting.pld.pld_epsilon([('pure', 800.0, 1)], 0.1),
         "steps[0] epsilon must be >= 0.0 and <= 709.782712893384, got steps[0] epsilon=800.0."),
        (lambda: gaussian.analytic_gaussian_sigma(1.0, 1e-310),
         "delta must be >= 2.2250738585072014e-308 and < 1.0, got delta=1e-310."),
    ],
)
def test_checks_through_the_domains_name_the_parameter_and_the_value(call, message):
    """The inline checks became domain checks: the messages stay as they were,
    naming the parameter, the rule and the value (the analytic Gaussian's lower
    end is now one rule, DELTA_NORMAL)."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
