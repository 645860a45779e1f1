"""What every accountant and filter shares: the ledger, gamma bookkeeping, reports.

Accountants and filters read a mechanism only through its privacy statement
(``mechanism.privacy``, a :class:`~sensampler.privacy.PrivacyStatement`), so
this package imports nothing from :mod:`sensampler.mechanisms`.
"""

from __future__ import annotations

import abc
import copy
import math
import threading
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .._display.ledgers import accountant_html, ledger_entry_html
from .._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON_POINT,
    GAMMA,
    RHO,
    documented,
)
from .._lib.validation import check_count
from .._math.rounding import float_up
from ..privacy import (
    NEIGHBOURS,
    PrivacyBound,
    PrivacyStatement,
    SamplingRun,
    format_upper,
    pure_dp_rdp,
    rdp_to_dp,
    zcdp_to_dp,
)

__all__ = [
    "ExceededPrivacyBudgetError",
    "LedgerEntry",
    "PrivacyAccountant",
    "read_statement",
]


#: Keys of a ledger line in a budget file's JSON (:meth:`LedgerEntry.to_dict`).
_DICT_KEYS = ("mechanism", "epsilon", "delta", "gamma", "run_id", "count")
#: Optional keys of that line: the worst-case part of its statement.
_WORST_KEYS = ("worst_case_epsilon", "worst_case_delta")


class ExceededPrivacyBudgetError(ValueError):
    """A spend would exceed the budget; nothing was recorded and no noise drawn."""


@dataclass(frozen=True)
class LedgerEntry:
    """One line of a ledger: ``count`` releases of one privacy statement.

    A view of the record, :class:`~sensampler.privacy.PrivacyStatement`, in
    plain numbers (a table's row, a budget file's line): :meth:`of` builds it
    from a statement, :meth:`to_statement` gives the statement back, up to
    what a line does not keep (the Rényi curve, the noise, the run's plan and
    seed).

    A sampling run drawn but not released (:meth:`PrivacyAccountant.record_run`)
    has ``mechanism="sampling run"``, no privacy cost and ``count=0``.
    ``neighbours`` is the statement's neighbouring relation; ``None`` for a
    sampling run and for a spend given as numbers, which state none.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism (``"sampling run"`` for a run recorded alone).
    epsilon, delta : float or None
        The (epsilon, delta)-DP statement of one release, if one is stated.
    rho : float or None
        The zCDP parameter of one release, if one is stated.
    gamma : float
        The random-DP failure probability of the release's sampling run.
    run_id : str or None
        Identity of that run (``None``: anonymous, counted per release).
    count : int
        Number of releases of this statement.
    neighbours : str or None, default None
        The neighbouring relation of the statement.
    worst_case_epsilon, worst_case_delta : float or None, default None
        The statement's worst-case part (``statement.worst_case``): plain
        (epsilon, delta)-DP of one release for every pair of neighbours, when
        it states one.
    worst_case_rho : float or None, default None
        The zCDP parameter of that worst-case part, when it states one (the
        zCDP and Rényi Gaussian mechanisms and the discrete Gaussian state
        their worst case in zCDP only).
    sampled : bool, default False
        The statement was calibrated with a sampled sensitivity (random DP);
        set for any entry with a gamma or a run identity. It tells a sampled
        entry of gamma 0 and no run identity, which is no worst case, from a
        global statement, which is its own.
    """

    mechanism: str
    epsilon: float | None
    delta: float | None
    rho: float | None
    gamma: float
    run_id: str | None
    count: int
    neighbours: str | None = None
    worst_case_epsilon: float | None = None
    worst_case_delta: float | None = None
    worst_case_rho: float | None = None
    sampled: bool = False

    def __post_init__(self):
        # a gamma or a run identity is a sampled statement's, whatever was given
        if self.gamma > 0.0 or self.run_id is not None:
            object.__setattr__(self, "sampled", True)

    @classmethod
    def of(
        cls, statement: PrivacyStatement, count: int, *, states_relation: bool = True
    ) -> LedgerEntry:
        """The entry of ``count`` releases of ``statement``.

        Parameters
        ----------
        statement : PrivacyStatement
            The statement of one release.
        count : int
            Number of releases.
        states_relation : bool, default True
            Whether the entry keeps the statement's neighbouring relation;
            ``False`` for a spend given as numbers, which states none (its
            entry is counted in the relation of the ledger it joins).

        Returns
        -------
        LedgerEntry
            Its numbers, its run's identity and gamma, its relation and its
            worst-case part.
        """
        run = statement.run
        worst = statement.worst_case
        return cls(
            statement.mechanism,
            statement.epsilon,
            statement.delta,
            statement.rho,
            statement.gamma,
            None if run is None else run.run_id,
            count,
            statement.neighbours if states_relation else None,
            None if worst is None else worst.epsilon,
            None if worst is None else worst.delta,
            None if worst is None else worst.rho,
            run is not None,
        )

    @classmethod
    def of_run(cls, run: SamplingRun) -> LedgerEntry:
        """The entry of a sampling run drawn, with nothing released.

        Parameters
        ----------
        run : SamplingRun
            The run.

        Returns
        -------
        LedgerEntry
            ``mechanism="sampling run"``, no privacy cost, the run's gamma and
            identity, ``count=0``, no relation.
        """
        return cls("sampling run", 0.0, 0.0, 0.0, run.gamma, run.run_id, 0, sampled=True)

    def to_run(self, neighbours: str = NEIGHBOURS) -> SamplingRun:
        """The sampling run of this entry, rebuilt from ``run_id`` and ``gamma``.

        The inverse of :meth:`of_run`, and the run of :meth:`to_statement`'s
        statement; the run's plan and seed are not in an entry.

        Parameters
        ----------
        neighbours : {"replace-one", "add-remove"}, default "replace-one"
            The relation of an entry that states none.

        Returns
        -------
        SamplingRun
        """
        return SamplingRun(
            self.run_id, self.gamma, neighbours=self.neighbours or neighbours
        )

    def to_dict(self) -> dict:
        """The entry as a budget file stores it (:class:`sensampler.app.BudgetFile`).

        Returns
        -------
        dict
            ``mechanism``, ``epsilon``, ``delta``, ``gamma``, ``run_id`` and
            ``count``, in this order, then ``worst_case_epsilon`` and
            ``worst_case_delta`` when the entry states a worst-case part, and
            ``"sampled": true`` for a sampled entry of gamma 0 and no run
            identity (the one case the other keys do not tell from a global
            statement). The Rényi parameter and the relation are not kept (a
            budget file's ledger is replace-one).
        """
        out = {k: getattr(self, k) for k in _DICT_KEYS}
        if self.worst_case_epsilon is not None:
            out.update({k: getattr(self, k) for k in _WORST_KEYS})
        if self.sampled and self.gamma == 0.0 and self.run_id is None:
            out["sampled"] = True
        return out

    @classmethod
    def from_dict(cls, record) -> LedgerEntry:
        """The entry a budget file's line stores (:meth:`to_dict`), checked.

        Keys other than those of :meth:`to_dict` (a line's label and time) are
        ignored.

        Parameters
        ----------
        record : dict
            The line.

        Returns
        -------
        LedgerEntry
            With no Rényi parameter and no relation.

        Raises
        ------
        TypeError, ValueError
            When ``record`` is not a well-formed ledger line (named), or is a
            sampling run (``count=0``) stating a cost.
        """
        if not isinstance(record, dict) or any(k not in record for k in _DICT_KEYS):
            raise ValueError("an entry lacks one of " + ", ".join(_DICT_KEYS))
        if not isinstance(record["mechanism"], str):
            raise TypeError(f"mechanism must be a str, got {record['mechanism']!r}")
        if record["run_id"] is not None and not isinstance(record["run_id"], str):
            raise TypeError(f"run_id must be a str or null, got {record['run_id']!r}")
        EPSILON_POINT.check("epsilon", record["epsilon"])
        DELTA_STATED.check("delta", record["delta"])
        GAMMA.check("gamma", record["gamma"])
        check_count("count", record["count"], minimum=0)
        worst = [record.get(k) for k in _WORST_KEYS]
        if (worst[0] is None) != (worst[1] is None):
            raise ValueError("an entry has one of " + ", ".join(_WORST_KEYS) + " only")
        if worst[0] is not None:
            EPSILON_POINT.check("worst_case_epsilon", worst[0])
            DELTA_STATED.check("worst_case_delta", worst[1])
        if record["count"] == 0 and (
            record["epsilon"] or record["delta"] or worst[0] is not None
        ):
            # replayed as a sampling run drawn (record_run): a cost would be lost
            raise ValueError(
                "an entry with count=0 is a sampling run drawn and states no cost, "
                f"got epsilon={record['epsilon']!r}, delta={record['delta']!r}, "
                f"worst_case_epsilon={worst[0]!r}."
            )
        sampled = record.get("sampled", False)
        if not isinstance(sampled, bool):
            raise TypeError(f"sampled must be true or false, got {sampled!r}")
        return cls(
            **{k: record[k] for k in _DICT_KEYS},
            **dict(zip(_WORST_KEYS, worst, strict=True)),
            rho=None,
            sampled=sampled,
        )

    def to_statement(self, neighbours: str = NEIGHBOURS) -> PrivacyStatement:
        """The statement of one release of this entry, as :meth:`of` read it.

        Sampled (its run rebuilt from ``run_id`` and ``gamma``) when the entry
        is (:attr:`sampled`), global otherwise; under the entry's relation
        (``neighbours`` when it states none, as a spend given as numbers). The
        Rényi curve, the noise and the run's plan and seed are not in an
        entry, so they are not in the statement.

        Parameters
        ----------
        neighbours : {"replace-one", "add-remove"}, default "replace-one"
            The relation of an entry that states none (that of the ledger it
            belongs to).

        Returns
        -------
        PrivacyStatement
            The statement, whose entry (``LedgerEntry.of``) is this one.

        Raises
        ------
        ValueError
            For a sampling run recorded alone (``count=0``), which states no
            release.
        """
        if self.count == 0:
            raise ValueError(
                f"a sampling run recorded alone ({self.mechanism!r}, count=0) states "
                "no release; record it with record_run."
            )
        neighbours = self.neighbours or neighbours
        run = self.to_run(neighbours) if self.sampled else None
        worst_case = None
        if run is not None and (
            self.worst_case_epsilon is not None or self.worst_case_rho is not None
        ):
            worst_case = PrivacyStatement(
                f"{self.mechanism} (worst case)",
                self.worst_case_epsilon,
                self.worst_case_delta,
                rho=self.worst_case_rho,
                neighbours=neighbours,
            )
        return PrivacyStatement(
            self.mechanism,
            self.epsilon,
            self.delta,
            rho=self.rho,
            run=run,
            source="global" if run is None else "sampled",
            neighbours=neighbours,
            worst_case=worst_case,
        )

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the entry's numbers, rounded up."""
        return ledger_entry_html(self, format_upper)


def read_statement(mechanism) -> PrivacyStatement:
    """The privacy statement of a mechanism (or a statement itself), if guaranteed.

    Raises
    ------
    TypeError
        When ``mechanism`` has no :class:`~sensampler.privacy.PrivacyStatement`.
    ValueError
        When the statement guarantees nothing (a typical or derived sensitivity),
        or states a number outside its domain (epsilon or rho negative or not
        finite, delta outside [0, 1]).
    """
    statement = (
        mechanism
        if isinstance(mechanism, PrivacyStatement)
        else getattr(mechanism, "privacy", None)
    )
    if not isinstance(statement, PrivacyStatement):
        raise TypeError(
            f"expected a mechanism with a privacy statement, got {mechanism!r}."
        )
    parts = (("epsilon", EPSILON_POINT), ("delta", DELTA_STATED), ("rho", RHO))
    for name, domain in parts:
        value = getattr(statement, name)
        if value is not None:  # a hand-made record is checked like any input
            domain.check(f"{statement.mechanism} {name}", value)
    if not statement.guaranteed:
        raise ValueError(
            f"{statement.mechanism} was calibrated with a {statement.source} "
            "sensitivity and carries no privacy guarantee; calibrate it with the "
            "estimate itself (or est.sensitivity, possibly times c >= 1 plus "
            "c >= 0), or with a number you vouch for as a global bound."
        )
    return statement


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


@dataclass(frozen=True)
class _WorstPart:
    """The worst-case part of one release: (epsilon, delta)-DP and/or rho-zCDP."""

    epsilon: float | None
    delta: float | None
    rho: float | None

    def curve(self, alpha: float) -> float:
        """Its Rényi divergence bound at ``alpha``: alpha * rho (rho-zCDP, Bun &
        Steinke 2016, Def. 1.1) or, for pure epsilon-DP, min(epsilon,
        alpha epsilon^2 / 2) (Bun & Steinke 2016, Prop. 1.4), the least that
        holds. Only for a part with rho or delta = 0."""
        values = [] if self.rho is None else [alpha * self.rho]
        if self.epsilon is not None and self.delta == 0.0:
            values.append(pure_dp_rdp(self.epsilon)(alpha))
        return min(values)


def _worst_case_part(entry: LedgerEntry) -> _WorstPart | None:
    """The worst-case part of one release of ``entry`` over every pair, or None.

    A statement with no gamma and no run (a global sensitivity) is its own
    worst case; a sampled one has the worst-case part it stated, or none (a
    run of gamma 0 still states random DP, over data from the model only).
    """
    if entry.worst_case_epsilon is not None or entry.worst_case_rho is not None:
        return _WorstPart(
            entry.worst_case_epsilon, entry.worst_case_delta, entry.worst_case_rho
        )
    if not entry.sampled and (entry.epsilon is not None or entry.rho is not None):
        return _WorstPart(entry.epsilon, entry.delta, entry.rho)
    return None


#: Bound on |log1p(-1/alpha)| + ln(alpha)/(alpha - 1), doubled, plus slack, for
#: every order a conversion tries (alpha - 1 >= e^-20: the orders of
#: :func:`~sensampler.privacy.rdp_to_dp` start at 1.05, the search of
#: :func:`~sensampler.privacy.zcdp_to_dp` at 1 + e^-20).
_CONVERSION_TERMS = 44.0


def _conversion_up(epsilon: float, terms: int) -> float:
    """``epsilon``, a Rényi-to-DP conversion (Canonne, Kamath & Steinke 2020,
    Prop. 12) computed in floating point, raised past its round-off.

    At the order alpha it used, epsilon = R + log1p(-1/alpha) - (ln delta +
    ln alpha)/(alpha - 1), R the sum of ``terms`` non-negative Rényi bounds.
    Only log1p(-1/alpha) and -ln(alpha)/(alpha - 1) are negative, so the
    terms' magnitudes add up to at most epsilon + :data:`_CONVERSION_TERMS`;
    each of the at most ``terms + 8`` operations errs by half an ulp of a
    partial sum below that, so ``(terms + 8) 2^-50 (epsilon + 44)`` covers
    the whole error. The computed value may fall an ulp below the exact
    one, which would state more privacy than the conversion proves.
    """
    if epsilon == math.inf:
        return epsilon
    margin = Fraction(terms + 8, 2**50) * (Fraction(epsilon) + Fraction(44))
    return float_up(Fraction(epsilon) + margin)


def _compose_worst_case(parts, delta: float | None) -> PrivacyBound:
    """Compose ``parts`` (pairs of a :class:`_WorstPart` and a count) into one
    (epsilon, delta)-DP bound over every pair of neighbours.

    - Every part in (epsilon, delta): basic composition (Dwork & Roth 2014,
      Thm. 3.16), summed exactly, rounded up. ``delta`` is not used.
    - Some part in zCDP only, and every part with a Rényi bound (rho, or pure
      DP): the Rényi bounds add under adaptive composition (Mironov 2017,
      Prop. 1); the sum is converted at ``delta`` by Canonne, Kamath & Steinke
      (2020), Prop. 12 (:func:`~sensampler.privacy.rdp_to_dp`), and where
      every part is zCDP the summed rho also by
      :func:`~sensampler.privacy.zcdp_to_dp`; the smaller epsilon holds.
    - Otherwise (zCDP parts beside approximate-DP ones): each of the K
      zCDP-only releases is converted alone at ``delta / K``
      (:func:`~sensampler.privacy.zcdp_to_dp`), then basic composition of
      every release: total delta the parts' deltas plus ``delta``.
    """
    zcdp_only = sum(count for part, count in parts if part.epsilon is None)
    if zcdp_only == 0:
        epsilon = sum((count * Fraction(p.epsilon) for p, count in parts), Fraction(0))
        total_delta = sum((count * Fraction(p.delta) for p, count in parts), Fraction(0))
        return PrivacyBound(
            float_up(epsilon),
            min(1.0, float_up(total_delta)),
            0.0,
            "basic composition (worst case)",
        )
    if all(p.rho is not None or p.delta == 0.0 for p, _ in parts):

        def curve(alpha: float) -> float:
            return sum(count * part.curve(alpha) for part, count in parts)

        if all(p.rho == 0.0 or (p.epsilon == 0.0 and p.delta == 0.0) for p, _ in parts):
            # every part's Rényi bound is 0 at every order: (0, 0)-DP
            return PrivacyBound(
                0.0, 0.0, 0.0, "Rényi composition of zCDP and pure DP (worst case)"
            )
        epsilon = rdp_to_dp(curve, delta)[0]
        if all(p.rho is not None for p, _ in parts):
            rho = sum((count * Fraction(p.rho) for p, count in parts), Fraction(0))
            epsilon = min(epsilon, zcdp_to_dp(float_up(rho), delta))
        epsilon = _conversion_up(epsilon, len(parts))
        return PrivacyBound(
            epsilon, delta, 0.0, "Rényi composition of zCDP and pure DP (worst case)"
        )
    share = delta / zcdp_only
    converted = [
        (
            _WorstPart(
                _conversion_up(zcdp_to_dp(p.rho, share), 1) if p.rho else 0.0,
                share,
                p.rho,
            )
            if p.epsilon is None
            else p,
            count,
        )
        for p, count in parts
    ]
    bound = _compose_worst_case(converted, None)
    return PrivacyBound(
        bound.epsilon,
        bound.delta,
        0.0,
        "basic composition, zCDP parts converted one by one (worst case)",
    )


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
    """

    #: Name of the accounting method, used in reports.
    method = "accountant"

    def __init__(self):
        self._lock = threading.Lock()
        self._ledger: list[LedgerEntry] = []
        self._gamma = _GammaBook()
        self._neighbours: str | None = None

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
        gamma = self._gamma.plus(run, count)
        self._check_gamma(gamma)
        self._add(amount, count)
        self._gamma = gamma
        if entry.neighbours is not None:
            self._neighbours = entry.neighbours
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
            part = _worst_case_part(entry)
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
        return _compose_worst_case(parts, delta)

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
            f"gamma={format_upper(self.gamma, 4)})"
        )
