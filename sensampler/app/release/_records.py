"""The records of a release: :class:`Release` and :class:`QuantileRelease`, and
their guarantees in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._display.releases import release_html
from ..._display.statements import statement_html
from ..._lib import printing
from ...bounds import Bounds
from ...estimate import SensitivityEstimate
from ...mechanisms.quantile import QuantileCalibration
from ...privacy import PrivacyStatement, format_dp, relation_words, size_words

__all__ = [
    "GUARANTEE",
    "QuantileRelease",
    "Release",
    "WORST_CASE_GUARANTEE",
]

#: The guarantee in words, so that gamma is not read as delta.
GUARANTEE = (
    "{dp}, except with probability gamma={gamma} over the data drawn from the "
    "population model"
)
#: The guarantee of a quantile release (the exponential mechanism), in words.
WORST_CASE_GUARANTEE = (
    "{dp}, for every pair of neighbouring databases (worst case: no gamma)"
)



@dataclass(frozen=True)
class Release:
    """One released answer and what it states.

    Parameters
    ----------
    query : str
        The query's name.
    value : float or ndarray
        The private answer (noise included).
    statement : PrivacyStatement
        What one release states: (epsilon, delta)-DP with the sampling run and
        its gamma (random DP).
    estimate : SensitivityEstimate
        The sampled sensitivity that calibrated the noise.
    mechanism : str
        The mechanism's name in :data:`RELEASE_MECHANISMS`.
    noise : str
        The noise added, in words (its scale).
    n : int
        Number of records of the data (released as is).
    bounds : Bounds or None
        The clipping bounds of the records (of the data and of every sampled
        database), or ``None``.
    price : str or None
        The price of a worst-case guarantee in words: the noise a plain-DP
        release at the same epsilon with the same bounds would need.
    basis : str, default ""
        What gamma rests on beyond the population model, in words: for a
        bootstrap of a public sample
        (:class:`~sensampler.distributions.PublicSample`), the public sample and
        the confidence over it.
    population : str, default ""
        The population model the statement rests on, as it was given (a spec
        such as ``bootstrap:public.csv`` with its column, or the model's
        description); ``""`` for a release that samples nothing from one (plain
        DP).
    error_90 : float or None, default None
        The release's accuracy, in the data's units: the half-width h such that
        the released value lies within h of the exact answer with probability
        90%, from public numbers only (the noise's law, or a quantile
        mechanism's own law on databases drawn from the population model:
        :func:`~sensampler.mechanisms.accuracy.quantile_error_bound`); ``None``
        where no public number gives it.
    unit : str or None, default None
        The data's unit, printed beside the value, its error, the sensitivity
        and the bounds (display only).
    cap_bias : float, ndarray or None, default None
        For a person-level release, the bias its contribution bounds introduce
        (rows beyond L dropped, values clipped): the expected answer with them
        less the expected answer without, over n persons of the PUBLIC
        population model, never the private data
        (:func:`~sensampler.app.release._units.cap_bias`); ``None`` otherwise.
    """

    query: str
    value: Any
    statement: PrivacyStatement
    estimate: SensitivityEstimate | None
    mechanism: str
    noise: str
    n: int
    bounds: Bounds | None = None
    price: str | None = None
    basis: str = ""
    population: str = ""
    error_90: float | None = None
    unit: str | None = None
    cap_bias: Any = None

    @property
    def answer(self) -> str:
        """The released value for people: to the precision of its error, with
        the unit and the 90% interval's half-width where they are known."""
        err = self.error_90
        value = printing.with_unit(printing.values(self.value, err), self.unit)
        if err is None:
            return value
        return f"{value} (90%: ±{printing.with_unit(printing.error(err), self.unit)})"

    @property
    def guarantee(self) -> str:
        """The guarantee in words: (epsilon, delta)-DP except with probability gamma."""
        s = self.statement
        dp = format_dp(s.epsilon, s.delta)
        dp += f" for {self._relation}"
        if s.source == "global":
            return f"{dp}, for every pair of neighbouring databases (plain DP)"
        text = GUARANTEE.format(dp=dp, gamma=printing.gamma(s.gamma))
        return f"{text}; {self.basis}" if self.basis else text

    @property
    def _relation(self) -> str:
        """The neighbours and the data's size in words: ``replace-one neighbours
        (n=500 records)``, or for a person-level release ``replace-one
        neighbours (one person's rows; n=200 persons)``."""
        s = self.statement
        words = relation_words(s.neighbours, s.privacy_unit)
        size = size_words(s.neighbours, self.n, s.privacy_unit)
        return f"{words[:-1]}; {size})" if s.privacy_unit == "person" else f"{words} ({size})"

    @property
    def worst_case(self) -> str:
        """What holds for every pair of neighbours, in words."""
        s = self.statement
        if s.source == "global":
            return "the guarantee above holds for every pair (no sampled sensitivity)"
        if s.worst_case is None:
            return (
                "none: where the population model does not describe the data the "
                "release may be exact (give bounds)"
            )
        clipped = (
            "at most L rows per person, clipped to the bounds"
            if s.privacy_unit == "person"
            else "records clipped to the bounds"
        )
        return (
            f"{format_dp(s.worst_case.epsilon, s.worst_case.delta)} for every pair of "
            f"{relation_words(s.neighbours, s.privacy_unit)}, {clipped}"
        )

    @property
    def bias_words(self) -> str:
        """The cap's bias in words, beside the noise (``""`` without one)."""
        if self.cap_bias is None:
            return ""
        bias = np.asarray(self.cap_bias, dtype=float)
        text = f"{float(bias):+.4g}" if bias.ndim == 0 else np.array2string(bias, precision=4)
        return (
            f"{text}: the expected effect of the contribution bounds (rows beyond L "
            "dropped, values clipped), from the population model, not the data"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dictionary (no NaN or infinity).

        Returns
        -------
        dict
            The answer, the mechanism and the statement, in plain numbers and strings.
        """
        est = self.estimate
        worst = self.statement.worst_case
        b = self.bounds
        out = {
            "query": self.query,
            "answer": np.asarray(self.value, dtype=float).tolist(),
            "answer_text": self.answer,
            "error_90": self.error_90,
            "unit": self.unit,
            "mechanism": self.mechanism,
            "noise": self.noise,
            "epsilon": self.statement.epsilon,
            "delta": self.statement.delta,
            "gamma": self.statement.gamma,
            "guarantee": self.guarantee,
            "worst_case": (
                None
                if worst is None
                else {"epsilon": worst.epsilon, "delta": worst.delta}
            ),
            "bounds": (
                None
                if b is None
                else {
                    "low": b.low,
                    "high": b.high,
                    "source": b.source,
                    "epsilon": b.epsilon,
                    "note": b.note,
                }
            ),
            "price": self.price,
            "basis": self.basis,
            "population": self.population,
            "n": self.n,
            "neighbours": self.statement.neighbours,
            "privacy_unit": self.statement.privacy_unit,
            "cap_bias": (
                None if self.cap_bias is None else np.asarray(self.cap_bias).tolist()
            ),
        }
        if est is None:
            return out
        return {
            **out,
            "sensitivity": np.asarray(est.sensitivity.value).tolist(),
            "norm": est.norm,
            "run_id": est.run_id,
            "seed": est.to_dict()["seed"],
            "m": est.m,
            "k": est.k,
            "inequality": est.inequality,
            "plan": est.plan.meaning,
        }

    def _repr_html_(self) -> str:
        """Notebook display: the released value and its statement in plain words."""
        return release_html(self, statement_html(self.statement))

    def text(self) -> str:
        """The answer and the full statement, for people.

        Returns
        -------
        str
            Several lines of text.
        """
        est = self.estimate
        head = [
            f"{self.query}: {self.answer}",
            f"  guarantee  {self.guarantee}",
        ]
        if est is None and self.statement.gamma > 0:  # a quantile's sampled scale
            head.append(
                "             (gamma is not delta: with probability gamma the "
                "sampled calibration is too weak for the data, and only the worst "
                "case below is guaranteed)"
            )
        floor = [f"  worst case {self.worst_case}"]
        if self.bounds is not None:
            floor.append(f"  bounds     {self.bounds.describe(self.unit)}")
        if self.price is not None:
            floor.append(f"  price      {self.price}")
        if self.cap_bias is not None:
            floor.append(f"  cap bias   {self.bias_words}")
        if est is None:
            return "\n".join(
                head
                + [f"  mechanism  {self.statement.mechanism}, {self.noise}"]
                + floor
            )
        seed = est.to_dict()["seed"]
        seed_text = "unknown" if seed is None else (
            f"entropy {seed[0]}, spawn key {tuple(seed[1])}"
        )
        sens_text = printing.with_unit(
            printing.sensitivities(est.sensitivity.value), self.unit
        )
        return "\n".join(
            head
            + [
                "             (gamma is not delta: with probability gamma the "
                "sampled sensitivity is too small for the data, and nothing is "
                "guaranteed)",
            ]
            + floor
            + [
                f"  mechanism  {self.statement.mechanism}, {self.noise}",
                f"  sensitivity {sens_text} ({est.norm}; "
                f"order statistic k={est.k} of m={est.m} sampled pairs)",
                f"  run        {est.run_id} (sampling seed: {seed_text})",
                f"  plan       {est.inequality}: {est.plan.meaning}",
            ]
        )


@dataclass(frozen=True)
class QuantileRelease(Release):
    """A quantile released by the exponential mechanism over bounds.

    :class:`~sensampler.mechanisms.ExponentialQuantileMechanism`, with a
    population model calibrated on its sampled privacy loss
    (:func:`~sensampler.quantile_calibration.calibrate_quantile`): the
    statement is then (epsilon, 0)-random DP with the calibration's gamma, and
    its worst-case part plain DP for every pair (at most 4 epsilon). Without a
    population, over private bounds (drawn from the data, where the
    calibration's gamma needs bounds fixed before them), under a worst-case cap
    at epsilon, or where no sampled scale beats the plain one, it is plain
    epsilon-DP for every pair, with no gamma.
    ``estimate`` is ``None`` (no sensitivity is sampled); ``mechanism`` is
    ``"exponential"``, ``noise`` the mechanism's utility, scale and range in
    words, ``bounds`` the range the records were clipped to and the output
    lies in, and ``price`` the plain scale a worst-case guarantee at epsilon
    would need (``None`` for the plain mechanism).

    Parameters
    ----------
    query, value, statement, estimate, mechanism, noise, n, bounds, price, basis, \
population, error_90, unit, cap_bias
        As in :class:`Release`.
    calibration : QuantileCalibration or None
        The sampled scale and its run, or ``None`` (plain epsilon-DP).
    """

    calibration: QuantileCalibration | None = None

    @property
    def guarantee(self) -> str:
        """The guarantee in words: random DP with gamma (a calibrated scale), or
        plain (epsilon, 0)-DP for every database."""
        s = self.statement
        if s.source == "sampled":
            return super().guarantee
        return WORST_CASE_GUARANTEE.format(
            dp=f"{format_dp(s.epsilon, s.delta)} for {self._relation}"
        )

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Release.to_dict`, with the calibration's scale and run.

        Returns
        -------
        dict
        """
        out = super().to_dict()
        cal = self.calibration
        if cal is None:
            return out
        run = cal.run
        return {
            **out,
            "scale": cal.scale,
            "run_id": run.run_id,
            "seed": None if run.seed is None else [run.seed[0], list(run.seed[1])],
            "m": run.m,
            "k": run.k,
            "inequality": run.inequality,
        }
