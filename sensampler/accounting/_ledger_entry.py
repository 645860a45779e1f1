"""A ledger line: one privacy statement released ``count`` times; and how a
mechanism's statement is read before it is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._display.ledgers import ledger_entry_html
from .._lib.domains import DELTA_STATED, EPSILON_POINT, GAMMA, RHO
from .._lib.validation import check_count
from ..privacy import NEIGHBOURS, PrivacyStatement, SamplingRun

__all__ = ["LedgerEntry", "read_statement"]


#: Keys of a ledger line in a budget file's JSON (:meth:`LedgerEntry.to_dict`).
_DICT_KEYS = ("mechanism", "epsilon", "delta", "gamma", "run_id", "count")
#: Optional keys of that line: the worst-case part of its statement.
_WORST_KEYS = ("worst_case_epsilon", "worst_case_delta")


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
    privacy_unit : {"record", "person"} or None, default None
        What the statement's neighbours differ in (``statement.privacy_unit``);
        ``None`` where no relation is stated (a sampling run, a spend given as
        numbers). A budget file's line keeps it.
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
    privacy_unit: str | None = None

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
            statement.privacy_unit if states_relation else None,
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
            statement), and ``"privacy_unit": "person"`` for a person-level
            entry (none: about one record). The Rényi parameter and the
            relation are not kept (a budget file's ledger is replace-one).
        """
        out = {k: getattr(self, k) for k in _DICT_KEYS}
        if self.worst_case_epsilon is not None:
            out.update({k: getattr(self, k) for k in _WORST_KEYS})
        if self.sampled and self.gamma == 0.0 and self.run_id is None:
            out["sampled"] = True
        if self.privacy_unit == "person":  # one budget file holds one unit
            out["privacy_unit"] = "person"
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
            With no Rényi parameter and no relation; about one record unless
            the line says ``"privacy_unit": "person"`` (a sampling run: none).

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
        unit = record.get("privacy_unit", "record")
        if unit not in ("record", "person"):  # only "person" is ever written
            raise ValueError(f"privacy_unit must be 'person', got {unit!r}")
        return cls(
            **{k: record[k] for k in _DICT_KEYS},
            **dict(zip(_WORST_KEYS, worst, strict=True)),
            rho=None,
            sampled=sampled,
            privacy_unit=unit if record["count"] else None,
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
        privacy_unit = self.privacy_unit or "record"
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
                privacy_unit=privacy_unit,
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
            privacy_unit=privacy_unit,
        )

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the entry's numbers, rounded up."""
        return ledger_entry_html(self)


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
