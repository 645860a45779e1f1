"""The record of a planned release: its epsilon, its error and what it will state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..._display.releases import plan_html
from ..._lib import printing
from ..._lib.domains import EPSILON, NEIGHBOUR_RELATIONS, PRIVACY_UNITS
from ..._lib.validation import check_real
from ..._lib.words import counted
from ...mechanisms.accuracy import NOISE_MODELS
from ...mechanisms.quantile import check_bounds
from ...privacy import NEIGHBOURS, format_dp, relation_words
from ..release import GUARANTEE, WORST_CASE_GUARANTEE, size_words

__all__ = [
    "ACCOUNTS_FOR_NOTHING",
    "ERROR_MEANING",
    "NOT_PRIVATE_EPSILON",
    "ReleasePlan",
]

#: The plan's promise, in words, printed with every plan.
ACCOUNTS_FOR_NOTHING = (
    "planned from the population model alone: no private record was read, "
    "nothing was spent or recorded in any budget"
)

#: What the error is, in words.
ERROR_MEANING = "error = |release - exact answer on the same data| (the noise only)"
#: What the error of a quantile release (the exponential mechanism) is, in words.
QUANTILE_ERROR_MEANING = (
    "error = |release - exact quantile of the same data| (the exponential "
    "mechanism's error, clipping to the bounds included)"
)
#: Why a quantile plan has no sampling plan, in words.
NO_SAMPLING_PLAN = (
    "none: the exponential mechanism samples no sensitivity "
    "(m, k and gamma do not apply)"
)
#: An epsilon (stated, or for every pair of neighbours) above which no one would
#: call a release private (a likelihood ratio above e^10, about 22 000): a plan
#: that reaches it says so in its text, card and JSON (:attr:`ReleasePlan.warning`).
NOT_PRIVATE_EPSILON = 10.0


@dataclass(frozen=True)
class ReleasePlan:
    """A release planned from the population model: its epsilon and its error.

    Built by :func:`plan_release`; it accounts for nothing (see the module).

    Parameters
    ----------
    query : str
        The query's name.
    population : str
        The population model, in words.
    n : int
        Records of the data to be released.
    mechanism : str
        The mechanism's name (``"exponential"`` for a quantile query, as the
        release answers it).
    epsilon, delta : float
        The epsilon (and delta) of the release.
    gamma : float or None
        The sampling plan's certified gamma; ``None`` for the exponential
        mechanism's plain scale (plain DP, no gamma).
    m, k : int or None
        The sampling plan: pairs sampled and the rank of the released
        sensitivity (of the privacy loss, for the exponential mechanism's
        sampled scale); ``None`` for its plain scale.
    inequality : str or None
        The sampling plan's inequality; ``None`` for the plain scale.
    sensitivity : float or None
        Mean over the runs of the sampled sensitivity G_(k); ``None`` for the
        exponential mechanism.
    sensitivities : tuple of float
        Each run's sampled sensitivity (empty for the exponential mechanism).
    expected_error : float
        Expected absolute error (the noise only).
    error_90 : float
        90th percentile of the absolute error.
    target_error : float or None
        The target, when the plan was solved for one.
    measure : str or float
        What the target fixes: ``"mean"`` (the expected error) or a quantile of
        the absolute error.
    runs : int
        Sampling runs (for the exponential mechanism: databases) drawn from the
        population model.
    bounds : (float, float) or None
        The release's public bounds: the records are clipped to them (and
        they are the exponential mechanism's range); ``None``: no bounds.
    bounds_source : str or None
        Where the bounds come from, in words.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the planned release.
    worst_case_epsilon : float or None
        What the release states for every pair of neighbours: for the
        exponential mechanism's plain scale, its epsilon (at the cap, where the
        cap is below epsilon: then also the guarantee's); for its sampled scale,
        the worst case of the largest scale the release may sample on its own
        pairs (at most 4 epsilon, and within the cap); for a sampled
        sensitivity over bounds, the largest over the sampling runs of the
        worst case the release of that run states (its mechanism built as the
        release builds it: one run's is the release's on the same seed), within
        :attr:`worst_case_cap`. ``None`` without bounds or for a query with no
        worst case.
    worst_case_cap : float or None
        For a sampled sensitivity over bounds, the cap the release's noise is
        raised to meet (``worst_case_epsilon``, 10 epsilon by default); ``None``
        otherwise.
    basis : str, default ""
        What gamma rests on beyond the population model, in words, as the
        release states it: for a bootstrap of a public sample
        (:class:`~sensampler.distributions.PublicSample`), the public sample and
        the confidence over it.
    unit : str or None, default None
        The data's unit, printed after errors, sensitivities and bounds
        (display only).
    privacy_unit : {"record", "person"}, default "record"
        What the planned release's neighbours differ in (``"person"``: one
        person's rows; ``n`` then counts persons).
    """

    query: str
    population: str
    n: int
    mechanism: str
    epsilon: float
    delta: float
    gamma: float | None
    m: int | None
    k: int | None
    inequality: str | None
    sensitivity: float | None
    sensitivities: tuple[float, ...] = field(repr=False)
    expected_error: float
    error_90: float
    target_error: float | None
    measure: str | float
    runs: int
    bounds: tuple[float, float] | None = None
    bounds_source: str | None = None
    neighbours: str = NEIGHBOURS
    worst_case_epsilon: float | None = None
    worst_case_cap: float | None = None
    basis: str = ""
    unit: str | None = None
    privacy_unit: str = "record"

    def __post_init__(self):
        # One discriminator: the exponential mechanism samples no sensitivity
        # and has bounds; its scale is sampled (gamma, m, k and bound given) or
        # plain (all None). Every other mechanism samples a sensitivity. A plan
        # built by hand cannot state random DP without a gamma, nor a
        # sensitivity for the exponential mechanism.
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)
        PRIVACY_UNITS.check("privacy_unit", self.privacy_unit)
        sampled = (self.gamma, self.m, self.k, self.inequality, self.sensitivity)
        if not self.exponential and any(value is None for value in sampled):
            raise ValueError(
                f"a plan of the {self.mechanism} mechanism samples a sensitivity: "
                f"gamma, m, k, bound and sensitivity must be given, got {sampled!r}."
            )
        scale = sampled[:4]
        if self.exponential and (
            self.bounds is None
            or self.sensitivity is not None
            or len({value is None for value in scale}) != 1
        ):
            raise ValueError(
                "a plan of the exponential mechanism has bounds, samples no "
                "sensitivity, and its scale is sampled (gamma, m, k and bound "
                f"given) or plain (all None): got bounds={self.bounds!r}, "
                f"{sampled!r}."
            )
        self._check_numbers()

    def _check_numbers(self) -> None:
        """The numbers a plan prints and exports (strict JSON) are finite, its
        delta is one its mechanism takes, and it states a worst case only over
        bounds, as its mechanism can hold it."""
        EPSILON.check("epsilon", self.epsilon)
        if self.exponential and self.delta != 0.0:
            raise ValueError(
                "the exponential mechanism is pure epsilon-DP and takes no delta, "
                f"got delta={self.delta!r}."
            )
        if self.mechanism in NOISE_MODELS:
            NOISE_MODELS[self.mechanism].check_delta(self.delta)
        for name in ("expected_error", "error_90"):
            check_real(name, getattr(self, name), low=0.0)
        if self.bounds is not None:
            check_bounds(self.bounds)
        worst, cap = self.worst_case_epsilon, self.worst_case_cap
        if cap is not None and (self.exponential or worst is None):
            raise ValueError(
                "only a sampled sensitivity with a worst case has a cap on it: "
                f"worst_case_cap must be None, got worst_case_cap={cap!r}."
            )
        if worst is None:
            return
        check_real("worst_case_epsilon", worst, low=0.0)
        if cap is not None and not EPSILON.check("worst_case_cap", cap) >= worst:
            raise ValueError(
                f"the release's worst case is held within its cap: got "
                f"worst_case_epsilon={worst!r} above worst_case_cap={cap!r}."
            )
        if self.bounds is None:
            raise ValueError(
                "a plan without bounds has no worst case: worst_case_epsilon must "
                f"be None, got worst_case_epsilon={worst!r}."
            )
        if self.exponential and (worst > self.epsilon) != (self.gamma is not None):
            raise ValueError(
                "the exponential mechanism's worst case is its epsilon (or less, "
                "at a cap) for the plain scale, and above it for a sampled one: "
                f"got worst_case_epsilon={worst!r}, epsilon={self.epsilon!r}, "
                f"gamma={self.gamma!r}."
            )

    @property
    def exponential(self) -> bool:
        """Whether the release is the exponential quantile mechanism."""
        return self.mechanism == "exponential"

    @property
    def note(self) -> str:
        """What the plan did and did not touch, in words."""
        return ACCOUNTS_FOR_NOTHING

    @property
    def stated_epsilon(self) -> float:
        """The epsilon the release states and spends: :attr:`epsilon`, or the cap
        where the exponential mechanism's plain scale is held below it."""
        if self.gamma is None and self.worst_case_epsilon is not None:
            return min(self.epsilon, self.worst_case_epsilon)
        return self.epsilon

    @property
    def guarantee(self) -> str:
        """What the planned release will state, in words (as the release says it)."""
        words = relation_words(self.neighbours, self.privacy_unit)
        size = size_words(self.neighbours, self.n, self.privacy_unit)
        relation = f"{words[:-1]}; {size})" if self.privacy_unit == "person" else (
            f"{words} ({size})"
        )
        dp = f"{format_dp(self.stated_epsilon, self.delta)} for {relation}"
        if self.gamma is None:
            return WORST_CASE_GUARANTEE.format(dp=dp)
        text = GUARANTEE.format(dp=dp, gamma=printing.gamma(self.gamma))
        return f"{text}; {self.basis}" if self.basis else text

    @property
    def sampling_plan(self) -> str:
        """The sampling plan in words, or why there is none."""
        if self.gamma is None:
            return NO_SAMPLING_PLAN
        gamma = printing.gamma(self.gamma)  # rounded up: never a smaller gamma
        what = ", of the exponential mechanism's scale" if self.exponential else ""
        return f"m={self.m}, k={self.k}, gamma={gamma} ({self.inequality}){what}"

    @property
    def cap_words(self) -> str:
        """Where the release states less than :attr:`epsilon` (a quantile's cap
        below it), in words; else empty."""
        if self.stated_epsilon == self.epsilon:
            return ""
        return (
            f" (the plain mechanism at the cap: states and spends "
            f"{format_dp(self.stated_epsilon, 0.0)})"
        )

    @property
    def bounds_words(self) -> str | None:
        """The bounds and their source, in words (``None`` without bounds)."""
        if self.bounds is None:
            return None
        low, high = self.bounds
        return self.bounds_source or printing.with_unit(
            f"[{printing.value(low)}, {printing.value(high)}]", self.unit
        )

    @property
    def worst_case(self) -> str | None:
        """What the release will state for every pair of neighbours, in words
        (``None`` where it states nothing)."""
        if self.worst_case_epsilon is None:
            return None
        if self.exponential and self.gamma is None:
            return f"{format_dp(self.worst_case_epsilon, 0.0)} for every pair of neighbours"
        if self.exponential:
            return (
                f"at most {format_dp(self.worst_case_epsilon, 0.0)} for every pair "
                "of neighbours (the largest scale the release may sample on its own "
                "pairs)"
            )
        clipped = (
            "at most L rows per person, clipped to the bounds"
            if self.privacy_unit == "person" else "records clipped to the bounds"
        )
        held = (
            f"{format_dp(self.worst_case_epsilon, self.delta)} for every pair of "
            f"{relation_words(self.neighbours, self.privacy_unit)}, {clipped}"
        )
        if self.worst_case_cap is None or self.worst_case_epsilon == self.worst_case_cap:
            return f"at most {held} (the cap: the noise is raised to meet it)"
        runs = (
            "its sampling run's" if self.runs == 1
            else f"the largest over the {self.runs} sampling runs"
        )
        return (
            f"{held} ({runs}; the noise is raised to keep it within the cap "
            f"epsilon={printing.epsilon(self.worst_case_cap)})"
        )

    @property
    def warning(self) -> str | None:
        """Where the planned release would be private in name only, in words:
        its epsilon, or its worst case, above :data:`NOT_PRIVATE_EPSILON`;
        ``None`` otherwise."""
        worst = self.worst_case_epsilon
        beyond = (
            f"is beyond what anyone would call private (above {NOT_PRIVATE_EPSILON:g})"
        )
        if self.stated_epsilon > NOT_PRIVATE_EPSILON:
            also = "" if worst is None else f" (worst case {printing.epsilon(worst)})"
            return (
                f"epsilon={printing.epsilon(self.stated_epsilon)}{also} {beyond}: the "
                "release would hide almost nothing of a record; ask for a larger "
                "error or plan for more records"
            )
        if worst is not None and worst > NOT_PRIVATE_EPSILON:
            return (
                f"the worst case, epsilon={printing.epsilon(worst)} for every pair of "
                f"neighbours, {beyond}: data the population model does not describe "
                "would be barely protected; lower worst_case_epsilon or narrow the "
                "bounds"
            )
        return None

    @property
    def error_meaning(self) -> str:
        """What the error is, in words."""
        return QUANTILE_ERROR_MEANING if self.exponential else ERROR_MEANING

    def to_dict(self) -> dict[str, Any]:
        """The plan in plain numbers and strings (JSON-friendly).

        Returns
        -------
        dict
            Every field but the per-run sensitivities (``None``, JSON null,
            where it does not apply), the guarantee, the worst case, the
            :attr:`warning` (null where there is none), the error's meaning,
            the sampling plan in words and :attr:`note`.
        """
        out = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name != "sensitivities"
        }
        if self.bounds is not None:
            out["bounds"] = list(self.bounds)
        out["stated_epsilon"] = self.stated_epsilon
        out["guarantee"] = self.guarantee
        out["worst_case"] = self.worst_case
        out["warning"] = self.warning
        out["sampling_plan"] = self.sampling_plan
        out["error"] = self.error_meaning
        out["note"] = self.note
        return out

    def text(self) -> str:
        """The plan for people, several lines.

        Returns
        -------
        str
        """
        dp = f"epsilon={printing.epsilon(self.epsilon)}" + (
            f", delta={printing.delta(self.delta)}" if self.delta else ""
        ) + self.cap_words
        target = (
            ""
            if self.target_error is None
            else f" (target {_measure_words(self.measure)} "
            f"{self._units(printing.value(self.target_error))})"
        )
        warning = [] if self.warning is None else [f"  WARNING         {self.warning}"]
        floor = []
        if self.bounds is not None:
            floor.append(f"  bounds          {self.bounds_words}")
        if self.worst_case_epsilon is not None:
            floor.append(
                f"  worst case      {self.worst_case}"
            )
        if self.exponential:
            how = [
                *floor,
                f"  sampling plan   {self.sampling_plan}",
                f"  error law       exact on each of {counted(self.runs, 'database')} drawn "
                "from the population model",
            ]
        else:
            how = [
                f"  sampling plan   {self.sampling_plan}",
                "  sensitivity     "
                f"{self._units(printing.sensitivity(self.sensitivity))} (mean over "
                f"{counted(self.runs, 'sampling run')})",
                *floor,
            ]
        return "\n".join(
            [
                f"{self.query} of n={self.n} "
                f"{'persons' if self.privacy_unit == 'person' else 'records'}, "
                f"population {self.population}",
                f"  mechanism       {self.mechanism}, {dp}{target}",
                *warning,
                f"  guarantee       {self.guarantee}",
                f"  expected error  {self._units(printing.error(self.expected_error))}",
                f"  90% of errors   <= {self._units(printing.error(self.error_90))}",
                *how,
                f"  {self.error_meaning}",
                f"  {self.note}",
            ]
        )

    def __str__(self):
        return self.text()

    def _units(self, text: str) -> str:
        """``text`` followed by the data's unit, if one was given."""
        return printing.with_unit(text, self.unit)

    def _repr_html_(self) -> str:
        return plan_html(self)


def _measure_words(measure) -> str:
    return "expected error" if measure == "mean" else f"{100 * measure:g}% error"
