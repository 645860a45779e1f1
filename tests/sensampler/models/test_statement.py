"""What a fit states: the worst-case part, the public model's (0, 0), the
neighbours and the size a statement holds given (sensampler.models._statement)."""


import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

import sensampler.models._release as release_module
from sensampler.accounting import PrivacyFilter, default_filter
from sensampler.audit import audit_mechanism
from sensampler.mechanisms.gaussian import gaussian_epsilon
from sensampler.models._fits import ShrunkLogisticRegression, logistic_worst_case
from tests.sensampler.models.estimators import (
    FLIP,
    flip_model,
    labelled,
    private_rows,
    regression,
    shrinkable,
)


def _theta(model):
    return np.concatenate([model.coef_.ravel(), model.intercept_.ravel()])

@pytest.mark.slow
def test_shrunk_logistic_release_states_a_worst_case_part():
    X, y = labelled(200)
    model = shrinkable(select="shrunk").fit(X, y)
    estimate, statement = model.sensitivity_, model.privacy_
    # data_norm="public": the public rows' median norm (ROW_BOUND_QUANTILE)
    R = float(np.median(np.linalg.norm(model.public[0], axis=1)))
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    assert estimate.bounds.high == R
    assert estimate.worst_case == logistic_worst_case(C, R, 3, True, 2, "replace-one", "l2")
    assert np.all(estimate.samples <= estimate.worst_case)
    worst = statement.worst_case
    assert worst is not None and worst.run is None and worst.source == "global"
    # the Gaussian noise per unit of the worst-case sensitivity gives that epsilon
    unit = float(model.mechanism_.sigma) / estimate.worst_case
    assert worst.epsilon == pytest.approx(gaussian_epsilon(unit, 1e-5), rel=1e-9)
    assert worst.epsilon <= 10.0 + 1e-9  # the default cap: 10 epsilon
    assert "for every pair of neighbours" in model.selected_["worst case"]

@pytest.mark.slow
def test_the_cap_raises_the_noise_and_a_larger_cap_lowers_it():
    X, y = labelled(200)
    capped = shrinkable(select="shrunk", epsilon=0.3).fit(X, y)
    loose = shrinkable(select="shrunk", epsilon=0.3, worst_case_epsilon=1e6).fit(X, y)
    assert capped.selected_["candidate"] == loose.selected_["candidate"]
    assert capped.privacy_.worst_case.epsilon <= 3.0 + 1e-9
    assert float(capped.mechanism_.sigma) >= float(loose.mechanism_.sigma)
    assert capped.privacy_.epsilon == loose.privacy_.epsilon == 0.3

@pytest.mark.slow
@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(select="private"), "intercept unpenalised"),
        (dict(select="shrunk", data_norm=None), "data_norm=None"),
    ],
)
def test_no_worst_case_part_is_said_in_words(kwargs, words):
    model = shrinkable(**kwargs).fit(*labelled(200))
    assert model.privacy_.worst_case is None
    assert model.sensitivity_.worst_case is None
    assert model.selected_["worst case"].startswith("no worst-case part")
    assert words in model.selected_["worst case"]

@pytest.mark.slow
def test_ridge_has_no_worst_case_part():
    model = shrinkable(Ridge(), public=regression(60, seed=1), select="shrunk")
    model.fit(*regression(200))
    assert model.privacy_.worst_case is None
    assert "not Lipschitz" in model.selected_["worst case"]

@pytest.mark.slow
def test_add_remove_neighbours_reach_the_estimate_and_the_statement():
    X, y = labelled(200)
    model = shrinkable(select="shrunk", neighbours="add-remove").fit(X, y)
    assert model.sensitivity_.run.neighbours == "add-remove"
    assert model.privacy_.neighbours == "add-remove"
    assert model.privacy_.worst_case.neighbours == "add-remove"
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    R = model.sensitivity_.bounds.high
    assert model.sensitivity_.worst_case == pytest.approx(C * np.sqrt(R**2 + 1))

@pytest.mark.slow
def test_public_model_release_states_zero(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fitted on the private data")

    monkeypatch.setattr(release_module, "fit_private", refuse)
    model = shrinkable(epsilon=0.001).fit(*labelled(100))
    assert model.selected_["candidate"] == "public model"
    assert model.privacy_.epsilon == 0.0 and model.privacy_.delta == 0.0
    assert model.privacy_.run is None and model.privacy_.guaranteed
    assert model.privacy_.rho == 0.0  # composes as ZCDpEvent(0) in dp_accounting
    assert model.privacy_.to_dp_event() is not None
    assert "0-DP" in model.selected_["worst case"]

@pytest.mark.slow
def test_an_outlier_moves_the_release_within_its_worst_case_statement():
    # issue 27: a private record far outside the population (features 100 times
    # the public norm), replaced by a typical one. Clipped, it moves the
    # released coefficients by at most the worst-case sensitivity, and an
    # empirical audit of the mechanism on the two exact fits does not refute
    # the worst-case epsilon.
    X, y = labelled(200)
    model = shrinkable(select="shrunk", epsilon=0.5).fit(X, y)
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    public = LogisticRegression(C=0.1).fit(*model.public)
    fit = ShrunkLogisticRegression(
        C=C, coef=public.coef_, intercept=public.intercept_, classes=public.classes_,
        row_bound=model.sensitivity_.bounds.high,
    )
    outlier = np.vstack([X[:-1], 100.0 * model.sensitivity_.bounds.high * np.ones(3)])
    a = _theta(fit.fit(outlier, np.append(y[:-1], 0.0)))
    b = _theta(fit.fit(X, y))
    assert np.linalg.norm(a - b) <= model.sensitivity_.worst_case
    result = audit_mechanism(model.mechanism_, a, b, releases=20_000, random_state=1)
    assert result.epsilon_lower <= model.privacy_.worst_case.epsilon
    # the audit's power: unclipped, the outlier's fit refutes the worst case
    unclipped = _theta(fit.set_params(row_bound=None).fit(outlier, np.append(y[:-1], 0.0)))
    result = audit_mechanism(
        model.mechanism_, unclipped, b, releases=20_000, random_state=1
    )
    assert result.epsilon_lower > model.privacy_.worst_case.epsilon

@pytest.mark.slow
def test_add_remove_statements_say_the_size_they_hold_given():
    """Before: 134 rows stated the public model as 0-DP and 135 rows (an
    add/remove neighbour) a noisy fit as (1, 1e-5)-DP; the two laws are
    mutually singular, so no epsilon holds for that pair, and nothing said the
    choice read n. Now every statement, its text, its HTML and the ledger of a
    default filter say n is published and the guarantee holds given it."""
    fits = {}
    for n in (FLIP, FLIP + 1):
        budget = PrivacyFilter(10.0, 1e-3)
        with default_filter(budget):
            fits[n] = (flip_model().fit(*private_rows(n)), budget)
    public, private = fits[FLIP][0], fits[FLIP + 1][0]
    assert public.selected_["candidate"] == "public model"
    assert private.selected_["candidate"] != "public model"
    for n, (model, budget) in fits.items():
        words = f"n={n} records, published: the statement holds given this size"
        statement = model.privacy_
        assert statement.neighbours == "add-remove"
        assert words in str(statement) and words in statement._repr_html_()
        (entry,) = budget.ledger
        assert words in entry.mechanism and entry.neighbours == "add-remove"
        assert (entry.epsilon, entry.delta) == (statement.epsilon, statement.delta)
    # epsilon 0 is stated only given the published n
    assert public.privacy_.epsilon == 0.0
    assert "given n" in public.selected_["worst case"]
    assert private.privacy_.epsilon == 1.0

@pytest.mark.slow
def test_an_accountant_records_the_size_before_the_fit():
    """The accountant passed to fit is charged before the choice: its entry
    names the published n too (before, the plain mechanism's name)."""
    budget = PrivacyFilter(10.0, 1e-3)
    flip_model().fit(*private_rows(FLIP), accountant=budget)
    (entry,) = budget.ledger
    assert f"n={FLIP} records, published" in entry.mechanism
    assert entry.epsilon == 1.0 and entry.neighbours == "add-remove"

@pytest.mark.slow
def test_replace_one_statements_keep_their_names():
    """n is the same in every replace-one neighbour: nothing more to say."""
    budget = PrivacyFilter(10.0, 1e-3)
    with default_filter(budget):
        model = flip_model(neighbours="replace-one").fit(*private_rows(FLIP))
    assert "published" not in str(model.privacy_)
    assert all("published" not in e.mechanism for e in budget.ledger)
