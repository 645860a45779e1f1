"""What a release is asked for: one frozen, validated settings record.

:class:`ReleaseSettings` holds everything a release, a plan, a sweep and the
private estimator are asked for — epsilon, delta, gamma, the mechanism and its
grid, the clipping bounds, the worst-case cap, the neighbouring relation, the
sampling plan's inequality and the privacy unit's column — checked once when it
is built, whatever it is built from: Python keywords
(``ReleaseSettings(epsilon=0.5, bounds="0:250")``), a batch config's table
(:meth:`ReleaseSettings.from_mapping`) or command-line flags (the application
layer derives each flag from its field: its name, its help, its parser). Each
field has one parser (:func:`parse_bounds` for the bounds, :func:`parse_number`
for every number written as text) and one check of its own domain
(:func:`read_setting`), and the functions that release, plan or sweep take the
record and pass it down: a new option is one new field here. OpenDP's context
(``dp.loss_of``, ``dp.unit_of``) is the model.

The bounds are a :class:`BoundsSetting`: ``"auto"`` (the population model's
quantiles, at no privacy cost), given (``"LOW:HIGH"`` or a pair), estimated
privately (``"private:EPS0"``) or ``None`` (random DP only). They are resolved
against a population when a release needs them (:meth:`BoundsSetting.resolve`).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, Literal

from ._lib.domains import (
    DELTA_RELEASE,
    EPSILON,
    INEQUALITIES,
    NEIGHBOUR_RELATIONS,
    PROBABILITY,
)
from ._lib.validation import check_choice, check_real
from .bounds import Bounds
from .mechanisms.choice import RELEASE_MECHANISMS, build_mechanism, rho_for
from .mechanisms.gaussian import GaussianMechanism
from .plan import sampling_plan
from .privacy import NEIGHBOURS

__all__ = [
    "BoundsSetting",
    "ReleaseSettings",
    "parse_bounds",
    "parse_number",
    "read_setting",
]

#: A number as text: ASCII digits only (no ``1_0``, no other scripts' digits),
#: an optional sign, fraction and exponent, or inf / nan in any case.
_NUMBER = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
    re.IGNORECASE | re.ASCII,
)

#: The mechanisms that take a delta (the others are pure epsilon-DP).
_APPROXIMATE = ("gaussian", "discrete-gaussian")


def parse_number(name: str, text: str) -> float:
    """The number ``text`` (a command-line value, a config string) as a float.

    One parser for every number written as text, so every flag accepts what the
    data files accept: ASCII digits with an optional sign, decimal point and
    exponent (``"1e-5"``, ``"-3.5"``, ``"inf"``); Python's ``float`` alone also
    takes ``"1_0"``, Arabic-Indic and full-width digits, refused here.

    Parameters
    ----------
    name : str
        The parameter (or flag) named in the error.
    text : str
        The text, with spaces around it allowed.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``text`` is not a number in that form.

    Examples
    --------
    >>> parse_number("epsilon", " 0.5 ")
    0.5
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be text, got {text!r}.")
    stripped = text.strip()
    if not _NUMBER.fullmatch(stripped):
        raise ValueError(f"{name} must be a number (ASCII digits), got {text!r}.")
    return float(stripped)


@dataclass(frozen=True)
class BoundsSetting:
    """The clipping bounds a release is asked for (see :func:`parse_bounds`).

    Parameters
    ----------
    kind : {"auto", "given", "private", "none"}
        ``"auto"``: read from the population model at no privacy cost;
        ``"given"``: ``given`` below; ``"private"``: estimated from the data
        under ``private_epsilon``-DP; ``"none"``: no bounds (random DP only).
    given : Bounds or None
        The bounds of kind ``"given"``.
    private_epsilon : float or None
        The pre-pass's epsilon of kind ``"private"``.
    """

    kind: Literal["auto", "given", "private", "none"] = "auto"
    given: Bounds | None = None
    private_epsilon: float | None = None

    def __post_init__(self):
        check_choice("bounds kind", self.kind, ("auto", "given", "private", "none"))
        if (self.kind == "given") != isinstance(self.given, Bounds):
            raise ValueError("bounds of kind 'given' (only) hold a Bounds.")
        if self.kind == "private":
            EPSILON.check("private_epsilon", self.private_epsilon)
        elif self.private_epsilon is not None:
            raise ValueError("only bounds of kind 'private' hold a private_epsilon.")

    @property
    def public(self) -> bool:
        """Whether the bounds read no private data (all but ``"private"``)."""
        return self.kind != "private"

    def resolve(self, population) -> Bounds | None:
        """The public bounds a release clips to, or None (none, or private ones).

        Parameters
        ----------
        population : Distribution or None
            The population model ``"auto"`` reads.

        Returns
        -------
        Bounds or None
        """
        if self.kind == "given":
            return self.given
        if self.kind == "auto":
            if population is None:
                raise ValueError(
                    "bounds='auto' reads the bounds from the population model; give "
                    "a population, bounds='LOW:HIGH' or bounds='private:EPS0'."
                )
            return Bounds.from_population(population)
        return None

    def __str__(self) -> str:
        if self.kind == "given":
            return f"{self.given.low!r}:{self.given.high!r}"
        if self.kind == "private":
            return f"private:{self.private_epsilon!r}"
        return self.kind


def _given(name: str, low, high) -> BoundsSetting:
    bounds = Bounds.given(low, high)
    if not bounds.width >= sys.float_info.min or not math.isfinite(
        1.0 / bounds.width
    ):
        raise ValueError(
            f"{name} must be wider than the smallest normal double, got "
            f"{name}={low!r}:{high!r} (width {bounds.width!r})."
        )
    return BoundsSetting("given", given=bounds)


def parse_bounds(value, name: str = "bounds") -> BoundsSetting:
    """The one parser of a release's ``bounds``, from Python, a config or a flag.

    Parameters
    ----------
    value : BoundsSetting, Bounds, (low, high), str or None
        ``"auto"`` (the population model's quantiles, at no privacy cost),
        ``"none"`` or None (no bounds), ``"LOW:HIGH"`` or a pair (given; the
        width must be a normal double), ``"private:EPS0"`` (estimated from the
        data under EPS0-DP). Words in any case, with spaces around them;
        numbers as :func:`parse_number` reads them.
    name : str, default "bounds"
        The parameter (or flag) named in the errors.

    Returns
    -------
    BoundsSetting

    Examples
    --------
    >>> str(parse_bounds(" 0 : 250 ")), parse_bounds("private:0.1").kind
    ('0.0:250.0', 'private')
    """
    if isinstance(value, BoundsSetting):
        return value
    if value is None:
        return BoundsSetting("none")
    if isinstance(value, Bounds):
        return BoundsSetting("given", given=value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return _given(name, *value)
    if not isinstance(value, str):
        raise TypeError(
            f"{name} must be None, 'auto', 'LOW:HIGH', 'private:EPS0', a (low, "
            f"high) pair or a sensampler.bounds.Bounds, got {value!r}."
        )
    text = value.strip()
    word = text.lower()
    if word in ("auto", "none"):
        return BoundsSetting(word)
    if word.startswith("private:"):
        try:
            eps0 = parse_number(name, text[len("private:") :])
        except ValueError:
            eps0 = math.nan
        if not (math.isfinite(eps0) and eps0 > 0):
            raise ValueError(
                f"{name}='private:EPS0' needs the pre-pass's epsilon, finite and > 0, "
                f"got {name}={value!r}."
            )
        return BoundsSetting("private", private_epsilon=eps0)
    parts = text.split(":")
    try:
        low, high = (parse_number(name, part) for part in parts)
    except ValueError:
        raise ValueError(
            f"{name} must be 'auto', 'none', 'LOW:HIGH' or 'private:EPS0', got "
            f"{name}={value!r}."
        ) from None
    return _given(name, low, high)


def _optional_positive(name: str, value) -> float | None:
    return None if value is None else EPSILON.check(name, value)


def _grid(name: str, value) -> float | None:
    return None if value is None else check_real(name, value, low=sys.float_info.min)


def _mechanism(name: str, value) -> str:
    return check_choice(name, value, tuple(RELEASE_MECHANISMS))


def _column_name(name: str, value) -> str | None:
    """A column's name (None: no column); text stripped, never empty."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TypeError(
            f"{name} must be a column's name (a non-empty str) or None, got "
            f"{name}={value!r}."
        )
    return value.strip()


def _bounds(name: str, value) -> BoundsSetting:
    return parse_bounds(value, name)


def _unit(name: str, value) -> str | None:
    """A display unit: None, or a short one-line text (surrounding spaces dropped,
    an empty text read as None)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a text such as 'cm', got {name}={value!r}.")
    text = value.strip()
    if len(text) > 32 or not text.isprintable():
        raise ValueError(
            f"{name} must be a short printable text (at most 32 characters, one "
            f"line) such as 'cm', got {name}={value!r}."
        )
    return text or None


def _setting(
    default: Any = None,
    *,
    help: str,
    check: Callable[[str, Any], Any],
    parse: Callable[[str, str], Any] | None = None,
    choices: tuple[str, ...] | None = None,
    factory: Callable[[], Any] | None = None,
) -> Any:
    """A field of :class:`ReleaseSettings` and what reads it (:func:`read_setting`).

    ``check(name, value)`` returns the value checked for the field alone, or
    raises naming ``name``; ``parse(name, text)`` reads it from text (``None``:
    the text is the value, or ``check`` reads text too); ``help`` and
    ``choices`` are its command-line flag's (``--`` and the name, hyphenated).
    """
    metadata = {"help": help, "check": check, "parse": parse, "choices": choices}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def read_setting(key: str, value, name: str | None = None):
    """``value`` of the setting ``key``, read from text if it is text, checked alone.

    The one reader of each field, where its values come from: the record's
    own check (:class:`ReleaseSettings`), a config's table and a command-line
    flag, which names itself (``name="--epsilon"``) in the errors. What
    depends on several fields (a delta for the mechanism, a grid for epsilon)
    is checked by the record.

    Parameters
    ----------
    key : str
        A field of :class:`ReleaseSettings`.
    value : object
        Its value, or text (``"0.5"``, ``"0:250"``).
    name : str, optional
        What the errors name (default ``key``).

    Returns
    -------
    object
        The field's value.

    Examples
    --------
    >>> read_setting("epsilon", " 0.5 "), str(read_setting("bounds", "none"))
    (0.5, 'none')
    """
    parse = _SETTINGS[key].metadata["parse"]
    name = key if name is None else name
    if isinstance(value, str) and parse is not None:
        value = parse(name, value)
    return _check_setting(key, value, name)


def _check_setting(key: str, value, name: str):
    """``value`` of the setting ``key`` checked alone (no text read), naming ``name``."""
    return _SETTINGS[key].metadata["check"](name, value)


@dataclass(frozen=True)
class ReleaseSettings:
    """What a release is asked for, checked once (see the module docstring).

    Parameters
    ----------
    epsilon : float or None
        Each release's epsilon, ``> 0``; None while it is still to be chosen (a
        plan finds it from a target error, a sweep varies it): a release
        refuses settings without one (:meth:`require_epsilon`).
    delta : float, default 0
        Each release's delta: 0 for ``"laplace"`` and ``"discrete-laplace"``,
        ``0 < delta < 1`` for the Gaussian mechanisms.
    gamma : float, default 0.05
        Random-DP failure probability of each sampling run, ``0 < gamma < 1``.
    mechanism : {"laplace", "gaussian", "discrete-laplace", "discrete-gaussian"}
        The noise mechanism of every query but the one-quantile ones (which get
        the exponential mechanism over bounds:
        :func:`sensampler.mechanisms.choice.quantile_level_of`). ``"gaussian"``
        is Balle & Wang's analytic calibration; the discrete ones add exact
        noise on a grid from the OS's secure generator (the discrete Gaussian's
        zCDP is converted to (epsilon, delta), CKS 2020).
    granularity : float, optional
        Grid step of the discrete mechanisms (default: the largest power of 10
        at most 1/100 of the sensitivity).
    bounds : BoundsSetting, str, (low, high), Bounds or None, default "auto"
        Clipping bounds of the records (:func:`parse_bounds`): with bounds,
        each release also states plain DP for every pair of neighbours and its
        noise has a floor; ``None``: random DP only.
    worst_case_epsilon : float, optional
        Cap on each release's worst-case epsilon (default: 10 times
        ``epsilon``; a quantile's scale keeps its own within 4 times): the noise
        is raised to meet it.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of every statement.
    inequality : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's inequality (:func:`sensampler.sampling_plan`), which
        certifies gamma for the order statistic of the sampled sensitivities.
    unit : str, optional
        The data's unit (``"cm"``), for display only: printed beside released
        values, errors, sensitivities and bounds; it changes no number.
    privacy_unit : str, optional
        The column of a table (a DataFrame, a CSV or Parquet file, a
        ``bootstrap:`` file) naming the person of each row: neighbours then
        differ in one person's rows (see :mod:`sensampler.units`); a plan or a
        sweep from a model of a person takes any name. ``None`` (the default):
        one record.

    Examples
    --------
    >>> settings = ReleaseSettings(epsilon=0.5, bounds="0:250")
    >>> settings.delta, str(settings.bounds), settings.plan.m
    (0.0, '0.0:250.0', 113)
    """

    epsilon: float | None = _setting(
        help="each release's epsilon, > 0",
        check=_optional_positive,
        parse=parse_number,
    )
    delta: float = _setting(
        0.0,
        help="each release's delta: 0 (default) for laplace and discrete-laplace, "
        "in (0, 1) for the Gaussian mechanisms",
        check=DELTA_RELEASE.check,
        parse=parse_number,
    )
    gamma: float = _setting(
        0.05,
        help="random-DP failure probability of each sampling run (default 0.05)",
        check=PROBABILITY.check,
        parse=parse_number,
    )
    mechanism: str = _setting(
        "laplace",
        help="the noise of every query but median and quantile:Q (which get the "
        "exponential mechanism): laplace (default), gaussian (analytic "
        "calibration), discrete-laplace, discrete-gaussian (exact noise on a grid, "
        "from the OS's secure generator)",
        check=_mechanism,
        choices=tuple(RELEASE_MECHANISMS),
    )
    granularity: float | None = _setting(
        help="grid step of the discrete mechanisms (default: the largest power of "
        "10 at most 1/100 of the sensitivity)",
        check=_grid,
        parse=parse_number,
    )
    bounds: BoundsSetting = _setting(
        help="clip the records to bounds: auto (default: from the population "
        "model, at no privacy cost), LOW:HIGH (given), private:EPS0 (estimated "
        "from the data under EPS0-DP, spent too), or none (random DP only; not "
        "for median and quantile:Q)",
        check=_bounds,
        factory=BoundsSetting,
    )
    worst_case_epsilon: float | None = _setting(
        help="cap on each release's worst-case epsilon (default 10 x --epsilon; "
        "a quantile's is at most 4 x): the noise is raised to meet it; equal to "
        "--epsilon, a quantile is plain epsilon-DP (no gamma)",
        check=_optional_positive,
        parse=parse_number,
    )
    neighbours: str = _setting(
        NEIGHBOURS,
        help="the neighbouring relation of every statement: replace-one (D and D "
        "with one record replaced; the default) or add-remove (D of n - 1 records "
        "and D with one record added; n >= 2)",
        check=NEIGHBOUR_RELATIONS.check,
        choices=NEIGHBOUR_RELATIONS.values,
    )
    inequality: str = _setting(
        "exact",
        help="the sampling plan's inequality, which certifies gamma for the order "
        "statistic of the sampled sensitivities: exact (default), exchangeable or "
        "dkw",
        check=INEQUALITIES.check,
        choices=INEQUALITIES.values,
    )
    unit: str | None = _setting(
        help="the data's unit (such as cm), for display only: printed beside "
        "released values, errors, sensitivities and bounds",
        check=_unit,
    )
    privacy_unit: str | None = _setting(
        help="the column naming the person of each row: neighbours then differ "
        "in one person's rows, every statement protects all of one person's rows "
        "(default: one record)",
        check=_column_name,
    )

    def __post_init__(self):
        for setting in fields(self):  # frozen: normalised values set once, here
            value = getattr(self, setting.name)
            object.__setattr__(
                self, setting.name, _check_setting(setting.name, value, setting.name)
            )
        self._check_delta()
        self._check_granularity()
        sampling_plan(gamma=self.gamma, inequality=self.inequality)  # gamma's plan
        if self.epsilon is None:
            return
        if self.mechanism == "gaussian":  # the calibration, on a unit sensitivity
            GaussianMechanism(1.0, self.epsilon, self.delta)
        elif self.mechanism == "discrete-gaussian":
            rho_for(self.epsilon, self.delta)

    def _check_delta(self) -> None:
        needs_delta = self.mechanism in _APPROXIMATE
        if needs_delta and self.delta == 0.0:
            raise ValueError(
                f"mechanism={self.mechanism!r} needs delta > 0, got delta=0.0."
            )
        if not needs_delta and self.delta != 0.0:
            raise ValueError(
                f"mechanism={self.mechanism!r} is pure epsilon-DP and takes no delta, "
                f"got delta={self.delta!r}."
            )

    def _check_granularity(self) -> None:
        if self.granularity is None:
            return
        if not self.mechanism.startswith("discrete"):
            raise ValueError(
                "granularity is for the discrete mechanisms, got "
                f"mechanism={self.mechanism!r}."
            )
        grid = self.granularity
        if self.epsilon is None:
            return
        try:  # the least noise the grid allows: a sensitivity of one step
            build_mechanism(self.mechanism, grid, self.epsilon, self.delta, grid, 1)
        except ValueError as exc:
            raise ValueError(
                f"granularity={grid!r} is too coarse for epsilon={self.epsilon!r}: "
                f"even a sensitivity of one grid step fails ({exc})"
            ) from None

    def require_epsilon(self) -> float:
        """The settings' epsilon, or a ValueError if it is still to be chosen.

        Returns
        -------
        float
        """
        if self.epsilon is None:
            raise ValueError("a release needs epsilon, got epsilon=None.")
        return self.epsilon

    def require_record_unit(self, what: str) -> None:
        """Refuse a privacy unit where ``what`` (a plan, a sweep) is about one
        record only in this version.

        Parameters
        ----------
        what : str
            What refuses it, for the message (``"a plan"``).

        Raises
        ------
        ValueError
            When :attr:`privacy_unit` is set, naming it.
        """
        if self.privacy_unit is not None:
            raise ValueError(
                f"{what} is about one record in this version, got "
                f"privacy_unit={self.privacy_unit!r}: release it with "
                "sensampler release (or release_statistic), which takes the privacy "
                "unit."
            )

    @property
    def norm(self) -> str:
        """The norm the mechanism's sensitivity is sampled in (``"l1"``, ``"l2"``)."""
        return RELEASE_MECHANISMS[self.mechanism]

    @property
    def plan(self):
        """The sampling plan of one run at ``gamma`` (:func:`sensampler.sampling_plan`)."""
        return sampling_plan(gamma=self.gamma, inequality=self.inequality)

    def replace(self, **changes) -> ReleaseSettings:
        """A copy with ``changes`` (field names), checked again.

        Parameters
        ----------
        **changes
            New values of fields.

        Returns
        -------
        ReleaseSettings
        """
        return replace(self, **changes)

    @classmethod
    def from_mapping(
        cls, values: Mapping[str, Any], *, name: str = "settings"
    ) -> ReleaseSettings:
        """Settings from a mapping of field names (a config table, parsed flags).

        Values may be given as text, each field's as :func:`read_setting`
        reads it (numbers by :func:`parse_number`, ``bounds`` by
        :func:`parse_bounds`); unknown keys are refused by name.

        Parameters
        ----------
        values : mapping
            Field name -> value (``bounds=None``: no bounds).
        name : str, default "settings"
            Where the values come from, for the errors (a config's table).

        Returns
        -------
        ReleaseSettings
        """
        known = set(_SETTINGS)
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"{name} has unknown setting(s) {', '.join(map(repr, unknown))}; "
                f"the settings are {', '.join(sorted(known))}."
            )
        return cls(**{key: read_setting(key, value) for key, value in values.items()})

    @classmethod
    def build(cls, settings: ReleaseSettings | None = None, **options) -> ReleaseSettings:
        """``settings`` with ``options`` applied, or new settings from ``options``.

        What a function taking ``settings=None, **options`` calls first: the
        keywords (``epsilon=0.5, bounds="0:250"``) are the record's fields.

        Parameters
        ----------
        settings : ReleaseSettings, optional
            Settings to start from.
        **options
            Fields of :class:`ReleaseSettings`.

        Returns
        -------
        ReleaseSettings
        """
        if settings is None:
            return cls.from_mapping(options, name="the release's keywords")
        if not isinstance(settings, ReleaseSettings):
            raise TypeError(
                f"settings must be a ReleaseSettings or None, got {settings!r}."
            )
        return settings.replace(**options) if options else settings


#: The fields of :class:`ReleaseSettings` by name, with their metadata (help,
#: check, parse, choices): what :func:`read_setting` and the flags read.
_SETTINGS: dict[str, Field] = {f.name: f for f in fields(ReleaseSettings)}
