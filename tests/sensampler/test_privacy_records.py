"""Privacy records check their numbers when built: hand-made statements, runs and
bounds with impossible values never reach an accountant."""

import functools
import math
import pickle
import re
from fractions import Fraction

import numpy as np
import pytest

from sensampler import sample_sensitivity
from sensampler.accounting import (
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    ZCDPAccountant,
)
from sensampler.distributions import Normal
from sensampler.mechanisms import LaplaceMechanism
from sensampler.privacy import (
    Noise,
    PrivacyBound,
    PrivacyStatement,
    RenyiCurve,
    SamplingRun,
)

NAN, INF = float("nan"), float("inf")


# ----------------------------------------------------------- PrivacyStatement
def test_issue_reproduction_negative_epsilon():
    # On 7c9407d the filter composed it and had epsilon = 6 left.
    with pytest.raises(ValueError, match=re.escape("epsilon must be >= 0.0")):
        PrivacyFilter(1, 1e-5).compose(PrivacyStatement("x", -5.0, 0.0))


def test_issue_reproduction_negative_rho():
    with pytest.raises(ValueError, match=re.escape("rho must be >= 0.0")):
        ZCDPAccountant().compose(PrivacyStatement("x", None, None, rho=-3.0))


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"epsilon": -5.0}, ValueError, "epsilon must be >= 0.0, got epsilon=-5.0."),
        ({"epsilon": NAN}, ValueError, "epsilon must be finite, got epsilon=nan."),
        ({"epsilon": -INF}, ValueError, "epsilon must be finite"),
        ({"epsilon": True}, TypeError, "epsilon must be a real number, got True."),
        ({"epsilon": "1"}, TypeError, "epsilon must be a real number, got '1'."),
        ({"delta": -1e-9}, ValueError, "delta must be >= 0.0 and <= 1.0"),
        ({"delta": 1.5}, ValueError, "delta must be >= 0.0 and <= 1.0"),
        ({"delta": NAN}, ValueError, "delta must be finite"),
        ({"delta": INF}, ValueError, "delta must be finite"),
        ({"delta": np.bool_(False)}, TypeError, "delta must be a real number"),
        ({"delta": None}, ValueError, "epsilon and delta must be given together"),
        ({"rho": -3.0}, ValueError, "rho must be >= 0.0, got rho=-3.0."),
        ({"rho": NAN}, ValueError, "rho must be finite"),
        ({"rho": INF}, ValueError, "rho must be finite"),
        ({"rho": False}, TypeError, "rho must be a real number"),
        ({"rdp": 0.5}, TypeError, "rdp must be callable or None, got 0.5."),
        ({"run": 0.05}, TypeError, "run must be a SamplingRun or None, got 0.05."),
        ({"source": "made-up"}, ValueError, "source must be one of"),
        ({"neighbours": "add-one"}, ValueError, "neighbours must be one of"),
        ({"neighbours": None}, ValueError, "neighbours must be one of"),
        ({"noise": (1.0,)}, TypeError, "noise must be a Noise or None"),
        ({"mechanism": 3}, TypeError, "mechanism must be a str, got 3."),
        ({"source": "sampled"}, ValueError, "a sampled sensitivity needs its run"),
    ],
)
def test_statement_refuses_impossible_numbers(kwargs, exc, message):
    arguments = {"mechanism": "x", "epsilon": 1.0, "delta": 0.0, **kwargs}
    with pytest.raises(exc, match=re.escape(message)):
        PrivacyStatement(**arguments)


def test_statement_takes_the_edges_and_normalises_numbers():
    edge = PrivacyStatement("x", INF, 1.0, rho=0.0)  # vacuous but true
    assert edge.epsilon == INF and edge.delta == 1.0
    numpy = PrivacyStatement("x", np.float32(0.5), np.int64(0), rho=Fraction(1, 4))
    assert type(numpy.epsilon) is float and type(numpy.delta) is float
    assert numpy == PrivacyStatement("x", 0.5, 0.0, rho=0.25)
    assert PrivacyStatement("x", None, None).epsilon is None


def _curve_negative(alpha):
    return 1.0 - alpha  # < 0 for alpha > 1


def _curve_nan(alpha):
    return math.nan if alpha > 2 else 0.1


def _curve_text(alpha):
    return "0.1"


@pytest.mark.parametrize(
    "curve, exc, message",
    [
        (_curve_negative, ValueError, "must be >= 0 (a divergence), got -2.0 at "
         "order alpha=3.0"),
        (_curve_nan, ValueError, "must be >= 0 (a divergence), got nan at order "
         "alpha=3.0"),
        (_curve_text, TypeError, "must return a real number, got '0.1' at order"),
    ],
)
def test_a_bad_renyi_value_raises_naming_the_mechanism_and_order(curve, exc, message):
    statement = PrivacyStatement("hand-made", None, None, rdp=curve)
    assert isinstance(statement.rdp, RenyiCurve)
    with pytest.raises(exc, match=re.escape(f"the Rényi curve of hand-made {message}")):
        statement.rdp(3.0)


@pytest.mark.parametrize("accountant", [RenyiAccountant, lambda: RenyiFilter(1, 1e-5)])
def test_accountants_never_read_a_negative_renyi_value(accountant):
    statement = PrivacyStatement("hand-made", None, None, rdp=_curve_negative)
    acc = accountant()
    with pytest.raises(ValueError, match="Rényi curve of hand-made must be >= 0"):
        acc.compose(statement)
    assert acc.count == 0 and acc.ledger == ()


def test_renyi_curve_allows_inf_and_pickles():
    statement = PrivacyStatement("x", None, None, rdp=functools.partial(max, INF))
    assert statement.rdp(2.0) == INF
    clone = pickle.loads(pickle.dumps(statement))
    assert clone == statement and clone.rdp(2.0) == INF
    # wrapping is idempotent: a statement built from another's curve keeps it
    again = PrivacyStatement("x", None, None, rdp=statement.rdp)
    assert again.rdp is statement.rdp


def test_run_and_statement_neighbours_agree():
    run = SamplingRun("r", 0.05)
    assert PrivacyStatement("x", 1.0, 0.0, run=run, source="sampled").gamma == 0.05


# ---------------------------------------------------------------- SamplingRun
@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"gamma": -0.1}, ValueError, "gamma must be >= 0.0 and <= 1.0"),
        ({"gamma": 1.5}, ValueError, "gamma must be >= 0.0 and <= 1.0"),
        ({"gamma": NAN}, ValueError, "gamma must be finite"),
        ({"gamma": True}, TypeError, "gamma must be a real number"),
        ({"rho": 2.0}, ValueError, "rho must be >= 0.0 and <= 1.0"),
        ({"inequality": "chernoff"}, ValueError, "inequality must be one of"),
        ({"m": -1}, ValueError, "m must be an integer >= 0, got m=-1."),
        ({"m": 10.0}, TypeError, "m must be an integer, got the float 10.0."),
        ({"m": True}, TypeError, "m must be an integer"),
        ({"m": 10, "k": 11}, ValueError, "k must be <= m"),
        ({"m": 10, "k": 0}, ValueError, "k must be >= 1 when m pairs were drawn"),
        ({"k": 3}, ValueError, "k must be <= m"),
        ({"ordinal": -1}, ValueError, "ordinal must be an integer >= 0"),
        ({"seed": 7}, TypeError, "seed must be None or a pair (entropy, spawn_key)"),
        ({"seed": (-7, ())}, ValueError, "seed entropy must be an integer >= 0"),
        ({"seed": ((1, -2), ())}, ValueError, "seed entropy must be an integer >= 0"),
        ({"seed": (7, [0])}, TypeError, "seed spawn_key must be a tuple of ints"),
        ({"seed": (7, (0.5,))}, TypeError, "seed spawn_key must be an integer"),
        ({"neighbours": "any"}, ValueError, "neighbours must be one of"),
        ({"run_id": 3}, TypeError, "run_id must be a str or None, got 3."),
    ],
)
def test_run_refuses_impossible_numbers(kwargs, exc, message):
    arguments = {"run_id": "r", "gamma": 0.05, **kwargs}
    with pytest.raises(exc, match=re.escape(message)):
        SamplingRun(**arguments)


def test_run_normalises_numpy_numbers():
    run = SamplingRun(
        "r", np.float64(0.05), m=np.int64(10), k=np.int32(9), seed=(np.uint64(3), ())
    )
    assert type(run.m) is int and type(run.k) is int and type(run.gamma) is float
    assert run == SamplingRun("r", 0.05, m=10, k=9, seed=(3, ()))
    assert SamplingRun("r", 0.05, seed=((1, 2**64 - 1), (0, 3))).seed[0] == (1, 2**64 - 1)


# --------------------------------------------------------------- PrivacyBound
@pytest.mark.parametrize(
    "args, exc, message",
    [
        ((-1.0, 0.0), ValueError, "epsilon must be >= 0.0"),
        ((NAN, 0.0), ValueError, "epsilon must be finite"),
        ((1.0, -3.49e-13), ValueError, "delta must be >= 0.0 and <= 1.0"),
        ((1.0, 2.0), ValueError, "delta must be >= 0.0 and <= 1.0"),
        ((1.0, 0.0, 1.5), ValueError, "gamma must be >= 0.0 and <= 1.0"),
        ((1.0, 0.0, 0.0, None), TypeError, "method must be a str, got None."),
        (("1", 0.0), TypeError, "epsilon must be a real number"),
    ],
)
def test_bound_refuses_impossible_numbers(args, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        PrivacyBound(*args)


def test_bound_takes_inf_epsilon():
    assert PrivacyBound(INF, 0.0).epsilon == INF
    assert tuple(PrivacyBound(np.float64(1.0), 0)) == (1.0, 0.0)


# ---------------------------------------------------------------------- Noise
@pytest.mark.parametrize(
    "kind, scales",
    [("gaussian", (NAN,)), ("gaussian", (INF,)), ("laplace", (-1.0,)), ("laplace", (0.0,))],
)
def test_noise_refuses_impossible_scales(kind, scales):
    with pytest.raises(ValueError, match="scales must hold floats > 0"):
        Noise(kind, scales)


def test_bound_gamma_inf_means_no_budget_only():
    # what a filter without a gamma budget has left; never a probability > 1
    assert PrivacyBound(1.0, 0.0, INF).gamma == INF
    with pytest.raises(ValueError, match="gamma must be >= 0.0 and <= 1.0"):
        PrivacyBound(1.0, 0.0, 1.0000001)


def test_an_order_dependent_run_is_said_in_the_statement():
    # issue 28: with order_dependent=True, db[0] at n = 500 is published exactly in
    # most runs while the statement read as usual.
    # (A sampled 0 is now refused without bounds: n = 2 gives a sensitivity > 0.)
    est = sample_sensitivity(
        lambda db: db[0], Normal(), 2, gamma=0.05, random_state=0,
        order_dependent=True,
    )
    assert est.sensitivity.value > 0
    text = str(LaplaceMechanism(est, 1.0).privacy)
    assert text.endswith(
        "(random DP, replace-one neighbours); the query depends on the order of the "
        "records (accepted with order_dependent=True): random DP averages over the "
        "position of the differing record, so a release may publish a record exactly"
    )
    plain = sample_sensitivity(lambda db: db.mean(), Normal(), 500, m=19, random_state=0)
    assert "order" not in str(LaplaceMechanism(plain, 1.0).privacy)


def test_gamma_is_stated_so_that_it_cannot_be_read_as_delta():
    run = SamplingRun("r", 0.05)
    statement = PrivacyStatement("Laplace", 0.5, 0.0, run=run, source="sampled")
    assert str(statement) == (
        "Laplace: epsilon=0.5-DP, except with probability gamma=0.05 over the data "
        "drawn from the population model (random DP, replace-one neighbours)"
    )
    assert str(PrivacyBound(1.0, 1e-6, 0.1, "basic composition")) == (
        "(epsilon=1, delta=1e-06)-DP, except with probability gamma=0.1 over the "
        "data drawn from the population model [basic composition]"
    )
    assert str(PrivacyBound(1.0, 0.0, INF, "left")) == "epsilon=1-DP (no gamma budget) [left]"
