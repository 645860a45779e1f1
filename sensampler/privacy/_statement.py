"""The privacy statement of a release, and its conversions to other relations and to DpEvents."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .._display.statements import statement_html
from .._lib import printing
from .._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON_STATED,
    NEIGHBOUR_RELATIONS,
    POSITIVE,
    PRIVACY_UNITS,
    RHO,
    documented,
)
from .._lib.domains import SOURCES as _SOURCES
from .._lib.extras import require
from .._math.curves import gaussian_curve, implied_curve, pure_dp_curve, zcdp_curve
from .._math.rounding import float_up
from ._format import (
    ORDER_DEPENDENT,
    except_gamma,
    format_dp,
    relation_words,
    worst_case_text,
)
from ._records import NEIGHBOURS, Noise, SamplingRun, Source, set_field
from ._renyi import RenyiCurve, pure_dp_rdp, rdp_to_dp, zcdp_to_dp


def _optional(domain, name, value):
    return None if value is None else domain.check(name, value)


@documented
@dataclass(frozen=True)
class PrivacyStatement:
    r"""A mechanism's privacy statement, as accountants read it.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon, delta : float or None
        The (epsilon, delta)-DP statement; ``None`` for mechanisms stated in
        Rényi or zCDP terms only (convert with :meth:`epsilon_for`).
    rho : float or None
        zCDP parameter, where one holds.
    rdp : callable or None
        Rényi curve ``alpha -> epsilon(alpha)`` for ``alpha > 1``; ``None`` when
        no finite Rényi DP holds. Must be picklable (a module-level function or a
        ``functools.partial`` of one). Stored wrapped in a :class:`RenyiCurve`,
        which refuses any negative or NaN value it returns.
    run : SamplingRun or None
        The sampling run behind a sampled sensitivity; ``None`` for a global one.
    source : {"global", "sampled", "typical", "derived"}
        Where the sensitivity came from; only ``"global"`` and ``"sampled"``
        carry a guarantee.
    neighbours : {"replace-one", "add-remove"}
        The neighbouring relation the statement holds for: its run's, and
        replace-one for a global sensitivity. Accountants and filters refuse to
        compose two relations; convert with :func:`to_replace_one`.
    noise : Noise or None
        The mechanism's additive noise per unit of sensitivity, where it is
        Gaussian or Laplace; read by
        :class:`~sensampler.accounting.PLDAccountant`.
    worst_case : PrivacyStatement or None
        A plain (epsilon, delta)-DP statement that holds for **every** pair of
        neighbours (no gamma, a global sensitivity): what a mechanism
        calibrated with a sampled sensitivity states from the worst-case
        sensitivity of the query on clipped records
        (:mod:`sensampler.bounds`), computed from the same noise; ``None``
        when no worst case is known. The random-DP statement protects the
        databases the population model describes, except with probability
        gamma; this one protects everyone, at its own (larger) epsilon.
    privacy_unit : {"record", "person"}, default "record"
        What neighbours differ in: one record, or one person's rows (a
        person-level release, :mod:`sensampler.units`). A person-level
        statement implies the row-level one, not the reverse.
    """

    mechanism: str
    epsilon: float | None
    delta: float | None
    rho: float | None = None
    rdp: Callable[[float], float] | None = field(default=None, compare=False)
    run: SamplingRun | None = None
    source: Source = "global"
    neighbours: str = NEIGHBOURS
    noise: Noise | None = None
    worst_case: PrivacyStatement | None = None
    privacy_unit: str = "record"

    def __post_init__(self):
        if not isinstance(self.mechanism, str):
            raise TypeError(f"mechanism must be a str, got {self.mechanism!r}.")
        set_field(self, "epsilon", _optional(EPSILON_STATED, "epsilon", self.epsilon))
        set_field(self, "delta", _optional(DELTA_STATED, "delta", self.delta))
        if (self.epsilon is None) != (self.delta is None):
            raise ValueError(
                "epsilon and delta must be given together (or both None), got "
                f"epsilon={self.epsilon!r}, delta={self.delta!r}."
            )
        set_field(self, "rho", _optional(RHO, "rho", self.rho))
        if self.rdp is not None and not isinstance(self.rdp, RenyiCurve):
            if not callable(self.rdp):
                raise TypeError(f"rdp must be callable or None, got {self.rdp!r}.")
            set_field(self, "rdp", RenyiCurve(self.mechanism, self.rdp))
        if self.run is not None and not isinstance(self.run, SamplingRun):
            raise TypeError(f"run must be a SamplingRun or None, got {self.run!r}.")
        _SOURCES.check("source", self.source)
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)
        PRIVACY_UNITS.check("privacy_unit", self.privacy_unit)
        if self.noise is not None and not isinstance(self.noise, Noise):
            raise TypeError(f"noise must be a Noise or None, got {self.noise!r}.")
        if self.source == "sampled" and self.run is None:
            raise ValueError("a sampled sensitivity needs its run, got run=None.")
        if self.run is not None and self.run.neighbours != self.neighbours:
            raise ValueError(
                f"the statement's neighbours={self.neighbours!r} differ from its "
                f"run's, {self.run.neighbours!r}."
            )
        if self.worst_case is not None:
            _check_worst_case(self.worst_case, self.neighbours, self.privacy_unit)

    @property
    def guaranteed(self) -> bool:
        """Whether anything is guaranteed (False for typical or derived sensitivities)."""
        return self.source in ("global", "sampled")

    @property
    def gamma(self) -> float:
        """Random-DP failure probability (0 for a global sensitivity)."""
        return self.run.gamma if self.run is not None else 0.0

    def epsilon_for(self, delta: float) -> float:
        """Smallest epsilon this statement supports at ``delta`` (``{DELTA_TARGET:delta}``).

        The minimum over every statement that holds: the (epsilon, delta) pair
        when its delta fits, the Rényi curve (Canonne, Kamath & Steinke 2020,
        Prop. 12, :func:`rdp_to_dp`) and the zCDP parameter (:func:`zcdp_to_dp`).

        Parameters
        ----------
        delta : float
            ``{DELTA_TARGET:delta}``.

        Returns
        -------
        float
            The epsilon, ``>= 0`` (``inf`` where no statement gives a finite one).
        """
        delta = DELTA_TARGET.check("delta", delta)
        candidates = []
        if self.epsilon is not None and self.delta is not None and self.delta <= delta:
            candidates.append(self.epsilon)
        if self.rdp is not None:
            candidates.append(rdp_to_dp(self.rdp, delta)[0])
        if self.rho is not None:
            candidates.append(zcdp_to_dp(self.rho, delta))
        if not candidates:
            raise ValueError(
                f"{self.mechanism} states no guarantee at delta={delta!r}."
            )
        return min(candidates)

    @property
    def core_text(self) -> str:
        """The guarantee alone, in the words of every text and display of it.

        ``(epsilon=…, delta=…)-DP`` or ``epsilon=…-DP`` (:func:`format_dp`),
        else ``rho=…-zCDP``, else ``Rényi DP`` (a curve only), numbers rounded
        up; ``no privacy guarantee`` when the sensitivity was not a bound.
        ``str(statement)`` adds the mechanism, gamma, the neighbours and the
        worst case.
        """
        if not self.guaranteed:
            return "no privacy guarantee"
        if self.epsilon is not None:
            return format_dp(self.epsilon, self.delta)
        if self.rho is not None:
            return f"rho={printing.rho(self.rho)}-zCDP"
        return "Rényi DP"

    def __str__(self):
        core = self.core_text
        if not self.guaranteed:
            return (
                f"{self.mechanism}: calibrated with a {self.source} sensitivity "
                f"(not a bound); {core}"
            )
        if self.epsilon is None and self.rho is None:
            core += " (see rdp)"
        if self.source == "sampled":
            return (
                f"{self.mechanism}: {core}{except_gamma(self.gamma)} (random DP, "
                f"{relation_words(self.neighbours, self.privacy_unit)})"
                f"{worst_case_text(self.worst_case)}"
                + (ORDER_DEPENDENT if self.run is not None and self.run.order_dependent
                   else "")
            )
        return f"{self.mechanism}: {core} ({relation_words(self.neighbours, self.privacy_unit)})"

    def _repr_html_(self) -> str:
        """Notebook display: the statement in plain words."""
        return statement_html(self)

    def to_dp_event(
        self,
        *,
        allow_gamma: bool = False,
        neighbours: str | None = None,
        privacy_unit: str | None = None,
    ):
        """The dp_accounting ``DpEvent`` of one release of this statement.

        So that releases can be composed in Google's dp_accounting accountants
        (``RdpAccountant``, ``PLDAccountant``): Gaussian noise gives
        ``GaussianDpEvent(sigma)`` (sigma per unit of L2 sensitivity), Laplace
        noise ``LaplaceDpEvent(b)`` (scale per unit of sensitivity; one per
        coordinate, composed, for per-coordinate sensitivities), and a zCDP
        statement without such noise ``ZCDpEvent(rho)``. dp_accounting has no
        event for a general (epsilon, delta) statement, so one without noise
        or zCDP parameter is refused.

        The event does not carry the neighbouring relation, so the relation
        is chosen here. Its noise multiplier is per unit of the sensitivity over
        the pairs of ``neighbours``: the pair N(0, sigma^2), N(1, sigma^2). A
        replace-one event is read in dp_accounting under
        ``NeighboringRelation.REPLACE_SPECIAL``, the relation to use (its
        ``REPLACE_ONE`` doubles the sensitivity in the PLD accountant: valid,
        but twice the epsilon or more); an add/remove event under
        ``ADD_OR_REMOVE_ONE``. Events of the two relations must never be
        composed in one accountant: an add/remove Laplace event of scale 1 is
        the same object as a replace-one one, yet its replace-one epsilon is
        2, not 1. An add/remove statement is therefore refused unless the
        relation is named: ``neighbours="replace-one"`` converts it first
        (:func:`to_replace_one`: noise per unit of sensitivity halved, gamma
        doubled), and ``neighbours="add-remove"`` keeps it, for an accountant
        that holds add/remove events only.

        The worst-case part of a sampled statement is a plain DP statement
        with no gamma: ``statement.worst_case.to_dp_event()`` is a true DP
        guarantee that any dp_accounting accountant of its relation and unit
        may compose as is.

        Parameters
        ----------
        allow_gamma : bool, default False
            A ``DpEvent`` cannot carry gamma: a sampled statement holds except
            with probability gamma over the data drawn from the population
            model, which no dp_accounting accountant counts. It is refused
            unless ``allow_gamma=True``, by which the caller takes on counting
            gamma (once per sampling run) beside the accountant's epsilon.
        neighbours : {"replace-one", "add-remove"}, optional
            The relation the event is for. ``None`` (the default) accepts a
            replace-one statement only. A replace-one statement has no
            add/remove event (``"add-remove"`` is refused for it).
        privacy_unit : {"record", "person"}, optional
            The privacy unit of the accountant the event joins: a ``DpEvent``
            carries no unit either, and a person-level event composed with
            record-level ones would be read as one about a record, which it is
            not as it is (see :class:`~sensampler.accounting.PrivacyAccountant`).
            ``None`` (the default) accepts a record-level statement only; a
            person-level statement needs ``privacy_unit="person"``, by which
            the caller says the accountant holds person-level events only.

        Returns
        -------
        dp_accounting.dp_event.DpEvent

        Raises
        ------
        ImportError
            Without dp_accounting (``pip install sensampler[pld]``).
        ValueError
            For a statement with no guarantee (typical or derived sensitivity),
            a gamma > 0 without ``allow_gamma=True``, an add/remove statement
            without ``neighbours``, a replace-one one with
            ``neighbours="add-remove"``, a ``privacy_unit`` other than the
            statement's (a person-level one without it), or no representable
            event.
        """
        self._check_event_inputs(allow_gamma, privacy_unit)
        dp_event = _dp_event_module()
        if neighbours not in (None, "replace-one", "add-remove"):
            raise ValueError(
                "neighbours must be None, 'replace-one' or 'add-remove', got "
                f"neighbours={neighbours!r}."
            )
        if self.neighbours == "add-remove" and neighbours is None:
            raise ValueError(
                f"{self.mechanism} holds for add-remove neighbours, and a DpEvent "
                "does not carry the relation (mixed with replace-one events it "
                "would understate epsilon): pass neighbours='replace-one' to "
                "convert it, or neighbours='add-remove' for an accountant of "
                "add/remove events only."
            )
        if self.neighbours == "replace-one" and neighbours == "add-remove":
            raise ValueError(
                f"{self.mechanism} holds for replace-one neighbours, which implies "
                "no add/remove statement; use neighbours='replace-one'."
            )
        if self.neighbours == "add-remove" and neighbours == "replace-one":
            return to_replace_one(self).to_dp_event(
                allow_gamma=allow_gamma, privacy_unit=privacy_unit
            )
        if not self.guaranteed:
            raise ValueError(
                f"{self.mechanism} was calibrated with a {self.source} "
                "sensitivity and guarantees nothing; it has no DpEvent."
            )
        if self.gamma > 0 and not allow_gamma:
            raise ValueError(
                f"{self.mechanism} holds{except_gamma(self.gamma)}; a DpEvent "
                "cannot carry gamma, which dp_accounting would then drop. Pass "
                "allow_gamma=True and count gamma yourself (once per sampling "
                "run), or compose in a sensampler accountant."
            )
        if self.noise is not None and self.noise.kind == "gaussian":
            return dp_event.GaussianDpEvent(self.noise.scales[0])
        if self.noise is not None:  # Laplace: one event per coordinate that moves
            events = [
                dp_event.LaplaceDpEvent(b) for b in self.noise.scales if b != math.inf
            ]
            if not events:
                return dp_event.NoOpDpEvent()
            return events[0] if len(events) == 1 else dp_event.ComposedDpEvent(events)
        if self.rho is not None:
            return dp_event.ZCDpEvent(self.rho)
        raise ValueError(
            f"{self.mechanism} states neither Gaussian or Laplace noise nor a zCDP "
            "parameter, and dp_accounting has no event for a general (epsilon, "
            "delta) statement."
        )

    def _check_event_inputs(self, allow_gamma, privacy_unit: str | None) -> None:
        """Refuse a non-bool ``allow_gamma``, and a DpEvent for an accountant of
        another privacy unit than the statement's (``None``: a record-level
        accountant)."""
        if not isinstance(allow_gamma, bool):
            raise TypeError(f"allow_gamma must be True or False, got {allow_gamma!r}.")
        if privacy_unit is not None:
            PRIVACY_UNITS.check("privacy_unit", privacy_unit)
        held = privacy_unit or "record"
        if held == self.privacy_unit:
            return
        if self.privacy_unit == "person":
            raise ValueError(
                f"{self.mechanism} protects one person's rows, and a DpEvent does "
                "not carry the privacy unit (composed with record-level events it "
                "would be read as one about a record, which it is not as it is): "
                "pass privacy_unit='person' for an accountant of person-level "
                "events only."
            )
        raise ValueError(
            f"{self.mechanism} protects one record, which implies no person-level "
            "guarantee: it has no event for an accountant of privacy_unit='person'."
        )


def _check_worst_case(worst_case, neighbours: str, privacy_unit: str) -> None:
    """A worst-case part is a plain (epsilon, delta)-DP statement of the same
    relation and unit."""
    if not isinstance(worst_case, PrivacyStatement):
        raise TypeError(
            f"worst_case must be a PrivacyStatement or None, got {worst_case!r}."
        )
    plain = (
        worst_case.source == "global"
        and worst_case.run is None
        and worst_case.worst_case is None
        and (worst_case.epsilon is not None or worst_case.rho is not None)
    )
    if not plain:
        raise ValueError(
            "worst_case must be a plain (epsilon, delta)-DP or zCDP statement over "
            "every pair (global, no run, no gamma, no worst case of its own), got "
            f"{worst_case!r}."
        )
    if worst_case.neighbours != neighbours:
        raise ValueError(
            f"worst_case must hold for the statement's neighbours={neighbours!r}, "
            f"got {worst_case.neighbours!r}."
        )
    if worst_case.privacy_unit != privacy_unit:
        raise ValueError(
            f"worst_case must hold for the statement's privacy_unit={privacy_unit!r}, got "
            f"{worst_case.privacy_unit!r}."
        )


def _dp_event_module():
    return require("dp_accounting.dp_event", "pld", "a DpEvent conversion")


def statement_from_dp_event(
    event, *, relation: str, mechanism: str | None = None
) -> PrivacyStatement:
    r"""The replace-one :class:`PrivacyStatement` of one dp_accounting ``DpEvent``.

    The reverse of :meth:`PrivacyStatement.to_dp_event`, so that
    dp_accounting events can be composed in sensampler's accountants and
    filters (a global sensitivity: gamma = 0; replace-one neighbours, the
    relation of global sensitivities).

    A ``DpEvent`` does not say for which relation its noise multiplier is per
    unit of sensitivity, so ``relation`` must: ``"replace-one"`` when it is
    per unit of the sensitivity over replace-one pairs (dp_accounting's
    ``REPLACE_SPECIAL`` reading; events from :meth:`~PrivacyStatement.to_dp_event`),
    ``"add-remove"`` when per unit of the add/remove sensitivity (dp_accounting's
    ``ADD_OR_REMOVE_ONE``, as DP-SGD noise multipliers are). A replacement is a
    removal and an addition, so the replace-one sensitivity is at most twice
    the add/remove one: the noise multiplier is halved, and a zCDP parameter
    multiplied by 4 (group privacy of zCDP: k^2 rho for groups of k, Bun &
    Steinke 2016).

    * ``GaussianDpEvent(sigma)``: :math:`1/(2\sigma^2)`-zCDP, Rényi curve
      :math:`\alpha/(2\sigma^2)` (Mironov 2017, Prop. 7), Gaussian noise;
    * ``LaplaceDpEvent(b)``: :math:`1/b`-DP with the pure-DP Rényi curve and
      zCDP parameter (Bun & Steinke 2016, Prop. 3.3), Laplace noise (the PLD
      accountant uses the exact pair);
    * ``ZCDpEvent(rho, xi)``: Rényi curve :math:`\xi + \alpha\rho`, and
      rho-zCDP when :math:`\xi = 0`;
    * ``NoOpDpEvent``: (0, 0)-DP.

    Parameters
    ----------
    event : dp_accounting.dp_event.DpEvent
    relation : {"replace-one", "add-remove"}
        The relation the event's noise multiplier (or rho) is stated for.
    mechanism : str, optional
        Name of the statement (default: the event's class name).

    Returns
    -------
    PrivacyStatement

    Raises
    ------
    ImportError
        Without dp_accounting.
    TypeError, ValueError
        For another kind of event, naming it: compose the parts of a
        ``ComposedDpEvent`` one by one, and the event of a
        ``SelfComposedDpEvent`` with ``count=event.count``.
    """
    dp_event = _dp_event_module()
    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}.")
    NEIGHBOUR_RELATIONS.check("relation", relation)
    group = 1.0 if relation == "replace-one" else 2.0  # replace = remove + add
    name = type(event).__name__ if mechanism is None else mechanism
    if isinstance(event, dp_event.GaussianDpEvent):
        sigma = POSITIVE.check("noise_multiplier", event.noise_multiplier) / group
        return PrivacyStatement(
            name,
            None,
            None,
            rho=gaussian_curve(sigma, 1.0),
            rdp=functools.partial(gaussian_curve, sigma),
            noise=Noise("gaussian", (sigma,)),
        )
    if isinstance(event, dp_event.LaplaceDpEvent):
        scale = POSITIVE.check("noise_multiplier", event.noise_multiplier) / group
        epsilon = 1.0 / scale
        return PrivacyStatement(
            name,
            epsilon,
            0.0,
            rho=pure_dp_curve(epsilon, 1.0),
            rdp=pure_dp_rdp(epsilon),
            noise=Noise("laplace", (scale,)),
        )
    if isinstance(event, dp_event.ZCDpEvent):
        rho = RHO.check("rho", event.rho) * group * group
        xi = RHO.check("xi", event.xi)
        if xi != 0 and group != 1.0:
            raise ValueError(
                "a ZCDpEvent with xi > 0 has no stated group privacy; convert it "
                f"for relation='replace-one' yourself, got xi={xi!r}."
            )
        return PrivacyStatement(
            name,
            None,
            None,
            rho=rho if xi == 0 else None,
            rdp=functools.partial(zcdp_curve, rho, xi=xi),
        )
    if isinstance(event, dp_event.NoOpDpEvent):
        return PrivacyStatement(
            name, 0.0, 0.0, rho=0.0, rdp=functools.partial(zcdp_curve, 0.0)
        )
    raise ValueError(
        f"no single statement for a {type(event).__name__}: compose the parts "
        "of a ComposedDpEvent one by one, and the event of a SelfComposedDpEvent "
        "with count=event.count; other kinds are not supported."
    )


def _group_delta(epsilon: float, delta: float) -> float:
    r""":math:`(1 + e^\epsilon)\delta` rounded up to a double, capped at 1.

    The delta of a group of two (Dwork & Roth 2014, Thm. 2.2). Computed exactly
    with fractions from :math:`e^{\epsilon/2}` rounded up (``math.exp`` is
    within one ulp, so the next double above bounds it); beyond
    :math:`\epsilon = 746` the product exceeds 1 for every positive delta
    (:math:`e^{746} 2^{-1074} > 1`), where ``e^epsilon`` would overflow.
    """
    if delta == 0.0:
        return 0.0
    if epsilon > 746.0:
        return 1.0
    half = Fraction(math.nextafter(math.exp(epsilon / 2.0), math.inf))
    return min(1.0, float_up((1 + half * half) * Fraction(delta)))


def to_replace_one(statement: PrivacyStatement) -> PrivacyStatement:
    r"""The replace-one statement an add/remove statement implies (group privacy).

    A replace-one pair :math:`(D \cup \{x\}, D \cup \{x'\})` is two add/remove
    steps through D: a removal, then an addition. What holds for each step
    holds for the pair as for a group of two (Dwork & Roth 2014, Thm. 2.2, for
    pure DP):

    * :math:`(\epsilon, \delta)` becomes :math:`(2\epsilon, (1 + e^\epsilon)
      \delta)`: :math:`P[M(D_1) \in S] \le e^\epsilon P[M(D) \in S] + \delta
      \le e^{2\epsilon} P[M(D_2) \in S] + (1 + e^\epsilon)\delta`;
    * :math:`\rho`-zCDP becomes :math:`4\rho`-zCDP (groups of k: :math:`k^2
      \rho`, Bun & Steinke 2016, Prop. 1.9), with its Rényi curve
      :math:`\alpha \mapsto 4\rho\alpha`, and for a pure statement also the
      curve of :math:`2\epsilon`-DP (:func:`pure_dp_rdp`). Any other Rényi
      curve is dropped: no group-privacy bound of a general curve is claimed,
      and a statement with nothing else (no epsilon, no rho) is refused;
    * Gaussian and Laplace noise per unit of sensitivity is halved: the
      replace-one change is at most twice the add/remove sensitivity
      (triangle inequality through D);
    * random DP: both steps must be covered, and each is a fresh add/remove
      pair, so the failure probability is at most :math:`2\gamma` (a union
      bound): the run keeps its identity, plan and seed, with
      ``gamma = min(1, 2 gamma)`` and replace-one neighbours.

    For a Laplace or Gaussian mechanism the result equals (or, for delta,
    bounds) the exact replace-one privacy of the same noise with twice the
    sensitivity.

    Parameters
    ----------
    statement : PrivacyStatement
        Under either relation; a replace-one statement is returned as is.

    Returns
    -------
    PrivacyStatement
        Under replace-one neighbours, named ``"<mechanism> (add-remove,
        converted to replace-one)"``.

    Raises
    ------
    TypeError
        When ``statement`` is not a :class:`PrivacyStatement`.
    ValueError
        For an add/remove statement with neither (epsilon, delta) nor rho.

    Examples
    --------
    >>> s = PrivacyStatement("m", 0.5, 0.0, neighbours="add-remove")
    >>> to_replace_one(s).epsilon, to_replace_one(s).neighbours
    (1.0, 'replace-one')
    """
    if not isinstance(statement, PrivacyStatement):
        raise TypeError(
            f"statement must be a PrivacyStatement, got statement={statement!r}."
        )
    if statement.neighbours == "replace-one":
        return statement
    if statement.epsilon is None and statement.rho is None:
        raise ValueError(
            f"{statement.mechanism} states only a Rényi curve for add-remove "
            "neighbours, and no replace-one bound is claimed for a general curve: "
            "state its (epsilon, delta) or rho to convert it."
        )
    epsilon = delta = pure = None
    if statement.epsilon is not None and statement.delta is not None:
        epsilon = 2.0 * statement.epsilon
        delta = _group_delta(statement.epsilon, statement.delta)
        pure = epsilon if delta == 0.0 else None
    rho = None if statement.rho is None else 4.0 * statement.rho
    if pure is not None:  # min(eps, eps^2 / 2)-zCDP: Bun & Steinke 2016, Prop. 3.3
        exact = Fraction(pure)
        pure_rho = float_up(exact * min(Fraction(1), exact / 2))
        rho = pure_rho if rho is None else min(rho, pure_rho)
    rdp = None if rho is None else functools.partial(implied_curve, pure, rho)
    noise = statement.noise
    if noise is not None:
        noise = Noise(noise.kind, tuple(b / 2.0 for b in noise.scales))
    run = statement.run
    if run is not None:
        run = replace(
            run, gamma=min(1.0, 2.0 * run.gamma), neighbours="replace-one"
        )
    worst_case = statement.worst_case
    return PrivacyStatement(
        f"{statement.mechanism} (add-remove, converted to replace-one)",
        epsilon,
        delta,
        rho=rho,
        rdp=rdp,
        run=run,
        source=statement.source,
        neighbours="replace-one",
        noise=noise,
        worst_case=None if worst_case is None else to_replace_one(worst_case),
        privacy_unit=statement.privacy_unit,
    )
