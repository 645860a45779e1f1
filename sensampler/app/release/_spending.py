"""Spending a release: every budget tried with the whole run, then spent all or
nothing, each under its own neighbouring relation, before the noise is drawn."""

from __future__ import annotations

import contextlib
import os

from ..._lib.default_budget import exempt
from ...accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    get_default_filter,
)
from ...privacy import NEIGHBOURS, PrivacyStatement, to_replace_one
from ..budget_file import BudgetFile, replay_filter

__all__ = ["budgets", "check_budget", "spend_then", "try_budgets"]


def check_budget(budget):
    """``budget`` as a release spends from it: None, a :class:`PrivacyFilter`, or a
    :class:`BudgetFile` (a path names one that must exist)."""
    if budget is None or isinstance(budget, BudgetFile):
        return budget
    if type(budget) is PrivacyFilter:
        return budget
    if isinstance(budget, (str, os.PathLike)):
        return BudgetFile(budget)
    raise TypeError(
        f"budget must be None, a PrivacyFilter, a BudgetFile or a path, got {budget!r}."
    )


def _trial(budget, statements, name: str | None = None) -> None:
    """Raise ExceededPrivacyBudgetError if ``statements`` do not all fit ``budget``
    (spent on a replica: the budget itself is not changed); ``name`` is the
    budget file's, for the message. A budget file must also be writable
    (:meth:`BudgetFile.check_writable`)."""
    if isinstance(budget, BudgetFile):
        budget.check_writable()  # a ledger or lock that cannot be written
        replica = budget.filter()
    elif not isinstance(budget, PrivacyFilter):  # a default of another kind: it
        return  # checks each statement as it is composed
    else:
        replica = replay_filter(
            budget.epsilon_budget,
            budget.delta_budget,
            budget.active_rule or budget.rule,
            budget.gamma_budget,
            budget.ledger,
        )
    try:
        for statement in statements:
            replica.compose(statement)
    except ExceededPrivacyBudgetError as exc:
        if isinstance(budget, BudgetFile):
            name = budget.path
        if name is not None:
            raise ExceededPrivacyBudgetError(f"budget file {name}: {exc}") from None
        raise


def budgets(budget) -> list:
    """Every budget a release spends from: ``budget`` (else the default filter),
    and the default filter too when it is another one."""
    default = get_default_filter()
    first = default if budget is None else budget
    spent = [] if first is None else [first]
    if default is not None and default is not first:
        spent.append(default)
    return spent


def _relation_of(budget) -> str | None:
    """The neighbouring relation ``budget`` records: replace-one for a budget
    file's ledger; for a filter, that of its first statement (``None`` before)."""
    if isinstance(budget, BudgetFile):
        return NEIGHBOURS
    return getattr(budget, "neighbours", None)


def _charged(budget, statements) -> list[PrivacyStatement]:
    """``statements`` as ``budget`` records them, under its relation.

    An add/remove statement charged to a replace-one budget is converted by
    group privacy (:func:`~sensampler.privacy.to_replace_one`: a replacement is
    a removal and an addition, so (epsilon, delta) becomes (2 epsilon,
    (1 + e^epsilon) delta) and gamma doubles; Dwork & Roth 2014, Thm. 2.2). A
    replace-one statement implies no add/remove one (it holds for databases of
    one size only), so an add/remove budget refuses it, before any spend.
    """
    relation = _relation_of(budget)
    if relation == "replace-one":
        return [to_replace_one(s) for s in statements]
    for s in statements:
        if relation is not None and s.neighbours != relation:
            raise ValueError(
                f"the budget holds statements for {relation} neighbours, and "
                f"{s.mechanism} holds for {s.neighbours} neighbours, which implies "
                f"no {relation} guarantee: release with neighbours={relation!r}, "
                "or spend from another budget."
            )
    return list(statements)


def spend_then(budgets, statements, labels, draw, tried=None):
    """Spend ``statements`` from every budget, each under its own relation
    (:func:`_charged`), then return ``draw()``, during which no mechanism
    spends again: all or nothing, every budget tried before any is spent. A
    budget file stays locked from reading to writing, the draw included.
    ``tried`` (default ``statements``) is what each budget must hold for the
    spend to go ahead: the whole run, when ``statements`` is its first part.
    Each in-memory budget records the run all or none, held while it does
    (:meth:`~sensampler.accounting.PrivacyAccountant.compose_all`). A default
    filter of another kind than :class:`PrivacyFilter` cannot be tried: it is
    charged before the filters, so that its refusal leaves them as they were."""
    tried = statements if tried is None else tried
    charged = [(budget, _charged(budget, statements)) for budget in budgets]
    for budget, _ in charged:
        if not isinstance(budget, BudgetFile):
            _trial(budget, _charged(budget, tried))
    files = [(budget, spends) for budget, spends in charged if isinstance(budget, BudgetFile)]
    with contextlib.ExitStack() as stack:
        for budget, spends in files:
            session = stack.enter_context(budget.session())
            _trial(session.filter, _charged(budget, tried), name=budget.path)
            for statement, label in zip(spends, labels):
                session.spend(statement, label)
        # a default of another kind first: it cannot be tried, so it may still
        # refuse, before the filters (tried above) are charged
        for budget, spends in sorted(
            charged, key=lambda pair: isinstance(pair[0], PrivacyFilter)
        ):
            if not isinstance(budget, BudgetFile):
                budget.compose_all(spends)  # held: all or none
        with exempt():  # spent above: not again by the mechanisms
            return draw()


def try_budgets(budget, statements) -> None:
    """Raise ExceededPrivacyBudgetError (or ValueError, for a relation it
    refuses) unless every budget spent from (:func:`budgets`) holds
    ``statements``, each charged under its own relation; nothing is spent."""
    for spent in budgets(budget):
        _trial(spent, _charged(spent, statements))
