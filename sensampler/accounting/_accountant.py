"""What every accountant and filter shares: the ledger, gamma bookkeeping, reports.

Accountants and filters read a mechanism only through its privacy statement
(``mechanism.privacy``, a :class:`~sensampler.privacy.PrivacyStatement`), so
this package imports nothing from :mod:`sensampler.mechanisms`.
"""

from __future__ import annotations

import abc
import copy
import threading
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .._display.ledgers import accountant_html
from .._lib import printing
from .._lib.domains import DELTA_STATED, DELTA_TARGET, EPSILON_POINT, documented
from .._lib.validation import check_count
from ..privacy import PrivacyBound, PrivacyStatement, SamplingRun
from ._ledger_entry import LedgerEntry, read_statement
from ._worst_case import compose_worst_case, worst_case_part

__all__ = ["ExceededPrivacyBudgetError", "PrivacyAccountant"]


class ExceededPrivacyBudgetError(ValueError):
    """A spend would exceed the budget; nothing was recorded and no noise drawn."""


@dataclass(frozen=True)
class _GammaBook:
    """Random-DP failure probabilities, added up by a union bound.

    A run with an identity counts once however many releases reuse it (they
    fail together); an anonymous gamma (no run identity) once per release.
    Exact fractions, so the order of additions does not matter.
    """

    runs: dict = field(default_factory=dict)
    anonymous: Fraction = Fraction(0)

    def plus(self, run: SamplingRun | None, times: int) -> _GammaBook:
        if run is None or run.gamma == 0.0:
            return self
        if run.run_id is None:
            return _GammaBook(self.runs, self.anonymous + times * Fraction(run.gamma))
        runs = dict(self.runs)
        runs[run.run_id] = max(runs.get(run.run_id, 0.0), run.gamma)
        return _GammaBook(runs, self.anonymous)

    @property
    def total(self) -> float:
        exact = sum((Fraction(g) for g in self.runs.values()), self.anonymous)
        return min(1.0, float(exact))


#: What an accountant holds that changes in place (its ledger list, a filter's
#: tallies): copied when :meth:`PrivacyAccountant.compose_all` may roll back;
#: everything else it holds is replaced, never changed.
_MUTABLE = (list, dict, set)


@documented
class PrivacyAccountant(abc.ABC):
    """The interface of every accountant and filter.

    ``compose(mechanism, count=1)`` records ``count`` releases of a mechanism
    (read from its privacy statement; filters refuse what exceeds their budget
    and then record nothing); ``epsilon(delta)`` and ``delta(epsilon)`` convert
    the total; :attr:`gamma` is the random-DP failure probability of everything
    recorded; :meth:`report` gives all of it as one
    :class:`~sensampler.privacy.PrivacyBound`; :attr:`ledger` lists what was
    recorded, exportable with :meth:`ledger_records` and :meth:`to_pandas`.

    Recording is thread-safe. Statements with no guarantee (calibrated with a
    typical or derived sensitivity) are refused. The first statement recorded
    fixes the neighbouring relation (:attr:`neighbours`); a statement under
    the other is refused until converted
    (:func:`sensampler.privacy.to_replace_one`). Spends given as numbers and
    sampling runs state no relation and are counted in the accountant's.
    The first statement also fixes the privacy unit (:attr:`privacy_unit`),
    and a statement about the other unit is refused, in both directions. A
    record-level guarantee implies no person-level one. Nor does a
    person-level one give the record-level one as it is: removing one row of
    a person with several changes that person's group, a remove and an add
    (group privacy with k = 2, Dwork & Roth 2014, Lemma 2.2: (2 epsilon,
    (1 + e^epsilon) delta) for the worst-case part), and the random-DP part
    (gamma) is a probability over pairs of persons drawn from the person
    model, which says nothing about pairs of records: no gamma converts.
    """

    #: Name of the accounting method, used in reports.
    method = "accountant"

    def __init__(self):
        self._lock = threading.Lock()
        self._ledger: list[LedgerEntry] = []
        self._gamma = _GammaBook()
        self._neighbours: str | None = None
        self._privacy_unit: str | None = None

    # ------------------------------------------------------------ recording
    @abc.abstractmethod
    def _amount(self, statement: PrivacyStatement):
        """What one release of ``statement`` adds; raise when it cannot be counted."""

    @abc.abstractmethod
    def _add(self, amount, count: int) -> None:
        """Add ``count`` times ``amount`` (under the lock; may raise to refuse,
        having changed nothing)."""

    def compose(self, mechanism, count: int = 1) -> None:
        """Record ``count`` releases of ``mechanism``, read from its privacy statement.

        Nothing is recorded when it raises.

        Parameters
        ----------
        mechanism : Mechanism or PrivacyStatement
            A mechanism with a guaranteed privacy statement, or the statement.
        count : int, default 1
            Number of releases, ``>= 1``.
        """
        count = check_count("count", count)
        statement = read_statement(mechanism)
        self._record(
            self._amount(statement), count, statement.run, LedgerEntry.of(statement, count)
        )

    def compose_all(self, mechanisms) -> None:
        """Record one release of each of ``mechanisms``, all or none.

        The statements are read and checked first, then recorded in order
        while the accountant is held: another thread's spend cannot land
        between two of them, and when one is refused (over a filter's budget,
        another relation, a step that cannot be counted) nothing of the others
        stays recorded.

        Parameters
        ----------
        mechanisms : iterable of Mechanism or PrivacyStatement
            Mechanisms with guaranteed privacy statements, or the statements.
        """
        statements = [read_statement(m) for m in mechanisms]
        parts = [
            (self._amount(s), 1, s.run, LedgerEntry.of(s, 1)) for s in statements
        ]
        with self._lock:
            saved = {
                name: copy.copy(value) if isinstance(value, _MUTABLE) else value
                for name, value in vars(self).items()
            }
            try:
                for part in parts:
                    self._record_held(*part)
            except BaseException:
                vars(self).update(saved)
                raise

    def _record(self, amount, count, run, entry) -> None:
        """Check, then add ``amount`` and ``run``'s gamma, and write ``entry``."""
        with self._lock:
            self._record_held(amount, count, run, entry)

    def _record_held(self, amount, count, run, entry) -> None:
        """:meth:`_record`, the lock held."""
        self._check_neighbours(entry)
        self._check_unit(entry)
        gamma = self._gamma.plus(run, count)
        self._check_gamma(gamma)
        self._add(amount, count)
        self._gamma = gamma
        if entry.neighbours is not None:
            self._neighbours = entry.neighbours
        if self._privacy_unit is None:
            self._privacy_unit = entry.privacy_unit
        self._ledger.append(entry)

    def _check_neighbours(self, entry: LedgerEntry) -> None:
        """Refuse a statement under another relation than those recorded."""
        held = self._neighbours
        if entry.neighbours is None or held is None or entry.neighbours == held:
            return
        advice = (
            "convert it first with sensampler.privacy.to_replace_one(statement) "
            "(group privacy: twice the epsilon)"
            if entry.neighbours == "add-remove"
            else "record the add-remove statements converted with "
            "sensampler.privacy.to_replace_one in a replace-one accountant instead"
        )
        raise ValueError(
            f"cannot compose {entry.mechanism}, stated for neighbours="
            f"{entry.neighbours!r}, with the statements already recorded for "
            f"neighbours={held!r}: {advice}."
        )

    def _check_unit(self, entry: LedgerEntry) -> None:
        """Refuse a statement about another privacy unit than those recorded.

        Neither unit's statement implies the other's as it is (see the class
        notes: a record's removal is two steps of a person's group, and a
        person-level gamma is about pairs of persons), so none is converted.
        """
        held, unit = self._privacy_unit, entry.privacy_unit
        if held is None or unit is None or held == unit:
            return
        words = {"record": "one record", "person": "one person's rows"}
        why = (
            "a record-level guarantee implies no person-level one"
            if unit == "record"
            else "a person-level guarantee is not a record-level one as it is "
            "(removing one of a person's rows changes that person's group: two "
            "steps; and its gamma is about pairs of persons)"
        )
        raise ValueError(
            f"cannot compose {entry.mechanism}, a statement about {words[unit]}, "
            f"with the statements already recorded about {words[held]}: {why}; "
            "spend it from another budget (one per privacy_unit)."
        )

    @property
    def privacy_unit(self) -> str | None:
        """The privacy unit of everything recorded (``None`` before the first
        statement): ``"record"`` or ``"person"`` (one person's rows)."""
        return self._privacy_unit

    @property
    def neighbours(self) -> str | None:
        """The neighbouring relation of everything recorded (``None`` before the
        first statement): ``"replace-one"`` or ``"add-remove"``."""
        return self._neighbours

    def _check_gamma(self, gamma: _GammaBook) -> None:  # noqa: B027 - a hook
        """Refuse a gamma over budget (filters; accountants have no budget)."""

    def record_run(self, run) -> None:
        """Count a sampling run drawn, whether or not anything is released with it.

        Drawing several runs and keeping a favourable one ("seed shopping")
        raises the chance that the kept estimate is too small: it is at most
        the sum of the gammas of every run drawn (a union bound over the runs'
        failure events), not the kept run's gamma. Recording every run drawn
        makes :attr:`gamma` that sum; a run with an identity (every run the
        sampler draws has one) is still counted once when it is later released.

        Parameters
        ----------
        run : SamplingRun or object with a ``run`` attribute (an estimate)
        """
        run = getattr(run, "run", run)
        if not isinstance(run, SamplingRun):
            raise TypeError(
                f"run must be a SamplingRun or an estimate with one, got {run!r}."
            )
        entry = LedgerEntry.of_run(run)
        with self._lock:
            gamma = self._gamma.plus(run, 1)
            self._check_gamma(gamma)
            self._gamma = gamma
            self._ledger.append(entry)

    # --------------------------------------------------------------- reports
    # The public reports check their argument here, once, against the domains of
    # sensampler._lib.domains, and call the hooks below with a checked float (as
    # dp_accounting's PrivacyAccountant.compose validates and calls _compose).
    def epsilon(self, delta: float) -> float:
        """Smallest epsilon such that everything recorded is (epsilon, delta)-DP.

        Parameters
        ----------
        delta : float
            ``{DELTA_STATED:delta}``.

        Returns
        -------
        float
            The epsilon, ``>= 0`` (``inf`` where none holds).
        """
        return self._epsilon(DELTA_STATED.check("delta", delta))

    def delta(self, epsilon: float) -> float:
        """Smallest delta such that everything recorded is (epsilon, delta)-DP.

        Parameters
        ----------
        epsilon : float
            Privacy loss, finite, ``>= 0``.

        Returns
        -------
        float
            The delta, in ``[0, 1]``.
        """
        return self._delta(EPSILON_POINT.check("epsilon", epsilon))

    @abc.abstractmethod
    def _epsilon(self, delta: float) -> float:
        """:meth:`epsilon` at a ``delta`` already checked (a float in [0, 1])."""

    @abc.abstractmethod
    def _delta(self, epsilon: float) -> float:
        """:meth:`delta` at an ``epsilon`` already checked (a finite float >= 0)."""

    def _report(self, delta: float) -> PrivacyBound:
        """:meth:`report` at a ``delta`` already checked; ``method`` names the bound."""
        return PrivacyBound(self._epsilon(delta), delta, self.gamma, self.method)

    @property
    def gamma(self) -> float:
        """Random-DP failure probability of everything recorded (a union bound)."""
        return self._gamma.total

    @property
    def count(self) -> int:
        """Number of releases recorded."""
        return sum(entry.count for entry in self._ledger)

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """What was recorded, in order."""
        return tuple(self._ledger)

    def report(self, delta: float) -> PrivacyBound:
        """(epsilon, delta, gamma) of everything recorded, at ``delta``.

        Parameters
        ----------
        delta : float
            ``{DELTA_STATED:delta}``.

        Returns
        -------
        PrivacyBound
            The (epsilon, delta, gamma) of the composition, ``method`` naming the bound.
        """
        return self._report(DELTA_STATED.check("delta", delta))

    def worst_case(self, delta: float | None = None) -> PrivacyBound | None:
        """Plain DP of everything recorded, for every pair of neighbours, or None.

        Composes each release's worst-case part: the statement itself for one
        with no gamma, or the ``worst_case`` a sampled statement carries. When
        every part is an (epsilon, delta) pair, by basic composition (Dwork &
        Roth 2014, Thm. 3.16), summed exactly and rounded up. A part stated in
        zCDP only (the zCDP and Rényi Gaussian mechanisms, the discrete
        Gaussian) is converted at ``delta``: with the other parts in Rényi DP
        (rho, or pure DP) the Rényi bounds are added and converted once
        (Mironov 2017, Prop. 1; Canonne, Kamath & Steinke 2020, Prop. 12);
        beside approximate-DP parts each zCDP release is converted alone at an
        equal share of ``delta`` and basic composition adds them up. gamma is
        0: this bound holds whatever the data.

        Parameters
        ----------
        delta : float, optional
            The delta at which zCDP parts are converted, ``{DELTA_TARGET:delta}``.
            Default: the accountant's own (a filter's delta budget) when it has
            one above 0. Not used when no part is in zCDP only.

        Returns
        -------
        PrivacyBound or None
            ``None`` when a release recorded states no worst-case part (a
            sampled sensitivity without bounds): then nothing holds for every
            pair.

        Raises
        ------
        ValueError
            When a part is in zCDP only and there is no ``delta`` to convert it at.
        """
        parts = []
        for entry in self._ledger:
            if entry.count == 0:  # a sampling run drawn, nothing released
                continue
            part = worst_case_part(entry)
            if part is None:
                return None
            parts.append((part, entry.count))
        if delta is None:
            delta = self._worst_case_delta()
        else:
            delta = DELTA_TARGET.check("delta", delta)
        if delta is None and any(part.epsilon is None for part, _ in parts):
            raise ValueError(
                "a release recorded states its worst case in zCDP only: give the "
                "delta to convert it at, e.g. worst_case(delta=1e-6); got "
                "delta=None."
            )
        return compose_worst_case(parts, delta)

    def _worst_case_delta(self) -> float | None:
        """The delta :meth:`worst_case` converts zCDP parts at by default (None:
        the accountant has none)."""
        return None

    def ledger_records(self) -> list[dict]:
        """The ledger as a list of dicts, one per entry (a table's rows).

        Returns
        -------
        list of dict
            One dict per :class:`LedgerEntry`, keyed by its field names.
        """
        return [asdict(entry) for entry in self._ledger]

    def to_pandas(self):
        """The ledger as a :class:`pandas.DataFrame` (needs ``sensampler[pandas]``).

        Returns
        -------
        pandas.DataFrame
            One row per :class:`LedgerEntry`, one column per field.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "to_pandas needs pandas: pip install 'sensampler[pandas]'."
            ) from exc
        return pd.DataFrame(
            self.ledger_records(), columns=list(LedgerEntry.__annotations__)
        )

    def _summary(self) -> str:
        """The part of the repr between the class name and the counts."""
        return ""

    def _repr_html_(self) -> str:
        """Notebook display: spent against the budget, and the ledger."""
        return accountant_html(self)

    def __repr__(self):
        return (
            f"{type(self).__name__}({self._summary()}count={self.count}, "
            f"gamma={printing.gamma(self.gamma)})"
        )
